"""The stage for hostile submissions: planted canaries and secrets, a listener, paths that must stay
absent, and the checks every attack must pass whatever its verdict."""
from __future__ import annotations

import hashlib
import os
import secrets
import shlex
import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path

from assessments.judge import Limits, cgroups, sandbox

ROOT = Path(__file__).resolve().parents[3]
MiB = 1024 ** 2

# Low limits so that bombs and endless loops end within seconds on a 2-core machine. A request's
# wall clock leaves room for a busy host: loading the file-reading attack (child start, imports,
# a 1.5 s walk of the filesystem) took over 4 s with both cores busy.
LIMITS = Limits(cpu_s=20, wall_s=40.0, op_wall_s=10.0, kernel_timeout_s=3.0,
                address_space=2 * 1024 * MiB, memory=1536 * MiB, processes=48,
                scratch_size=128 * MiB)


class Listener:
    """TCP, UDP and abstract-unix listeners that record every connection and byte they get."""

    def __init__(self):
        self.received: list[tuple[str, bytes]] = []
        self.unix_name = f"kp-hostile-{secrets.token_hex(6)}"
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind("\0" + self.unix_name)
        self.unix.listen()
        self.tcp_port = self.tcp.getsockname()[1]
        self.udp_port = self.udp.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        import select
        socks = [self.tcp, self.udp, self.unix]
        while not self._stop.is_set():
            ready, _, _ = select.select(socks, [], [], 0.1)
            for s in ready:
                if s is self.udp:
                    data, _ = s.recvfrom(65536)
                    self.received.append(("udp", data))
                    continue
                conn, _ = s.accept()
                conn.settimeout(1.0)
                try:
                    data = conn.recv(65536)
                except OSError:
                    data = b""
                self.received.append(("tcp" if s is self.tcp else "unix", data))
                conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        for s in (self.tcp, self.udp, self.unix):
            s.close()


@dataclass
class Stage:
    token: str
    secret: str
    canaries: list[Path]
    outside: list[Path]
    listener: Listener
    tmp: Path
    env_secrets: dict
    cache_before: dict = field(default_factory=dict)

    def fill(self, template: str) -> str:
        """The attack's source with the stage's paths, ports and names put in."""
        values = {
            "@CANARIES@": repr([str(p) for p in self.canaries]),
            "@OUTSIDE@": repr([str(p) for p in self.outside]),
            "@PORT@": str(self.listener.tcp_port),
            "@UDP@": str(self.listener.udp_port),
            "@UNIX@": self.listener.unix_name,
            "@TOKEN@": self.token,
            "@CACHE@": sandbox.emulator_cache_dir(),
            "@CANARIES_SH@": " ".join(shlex.quote(str(p)) for p in self.canaries),
            "@OUTSIDE_FIRST@": str(self.outside[0]),
        }
        for key, value in values.items():
            template = template.replace(key, value)
        return template


def cache_listing() -> dict:
    """Digests of the shared emulator cache's runtime objects and the identity of every build
    and entry in the parent's build cache (build_cache.py: what runs load). Entries can appear
    or be evicted with other test runs on the machine; none may change. An entry's JSON is
    compared by content: reading an entry touches it (its last use, for eviction)."""
    root = Path(sandbox.emulator_cache_dir())
    if not root.is_dir():
        return {}
    out = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in root.glob("kp_core-*.o")}
    for p in root.glob("[bgl]*/*.*"):   # builds/, gates/, listings/
        if p.suffix == ".lock" or p.name.startswith(".tmp-"):
            continue                    # workers' coordination, not entries
        try:
            st = p.stat()
            seen = hashlib.sha256(p.read_bytes()).hexdigest() if p.suffix == ".json" else st.st_mtime_ns
        except OSError:
            continue
        out[f"{p.parent.name}/{p.name}"] = (st.st_ino, st.st_size, seen)
    return out


def assert_contained(report, st: Stage) -> None:
    """What holds after every attack, whatever its verdict."""
    shown = report.to_json() + report.render_text() + report.to_json(candidate_view=True)
    assert st.secret not in shown, "a canary leaked into the report"
    for value in st.env_secrets.values():
        assert value not in shown, "an environment secret leaked into the report"
    assert str(report.seed) not in (report.stdout + report.stderr), "the seed reached the child"
    for p in st.outside:
        assert not os.path.lexists(p), f"the submission wrote {p}"
    for c in st.canaries:
        assert c.read_text() == st.secret + "\n", f"{c} was changed"
    assert st.listener.received == [], f"the listener got {st.listener.received}"
    assert report.verdict.value != "internal_error", report.message
    if report.sandbox is not None:
        assert report.sandbox == sandbox.BUBBLEWRAP
    after = cache_listing()
    assert all(after.get(name) == digest for name, digest in st.cache_before.items()
               if name.startswith("kp_core-")), "a shared emulator runtime object changed"
    assert all(after.get(name) in (digest, None) for name, digest in st.cache_before.items()), \
        "an entry of the build cache changed"   # absent: evicted, which other runs may do
    root = Path(sandbox.emulator_cache_dir())
    assert not (root.is_dir() and any(st.token in p.name for p in root.rglob("*"))), \
        "the submission planted a file in the shared emulator cache"
    assert_nothing_left(st.tmp)


def assert_nothing_left(tmp: Path) -> None:
    """No process of a finished run is alive and no run cgroup of this process remains."""
    marker = str(tmp).encode()
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                if marker in fh.read():
                    alive.append(int(entry))
        except OSError:
            continue
    assert alive == [], f"processes of finished runs are still alive: {alive}"
    found = cgroups.layout()
    if found:
        for parent in found[1].values():
            left = list(parent.glob(f"{cgroups.PREFIX}{os.getpid()}-*"))
            assert left == [], f"run cgroups left behind: {left}"
