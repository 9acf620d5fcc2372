"""A control group per judged run: a cap on tasks (fork and thread bombs) and on memory.

RLIMIT_NPROC is per user and ignored for root, so where the judge may create cgroups (root, or a
delegated cgroup v2 subtree) every run gets its own group below the judge's: `pids.max` counts
processes and threads together, the memory cap covers every process of the run, and killing the
group's members ends whatever the run left behind. Where no cgroup can be made, `create` returns
None and the runner falls back to a watchdog (runner.py).
"""
from __future__ import annotations

import contextlib
import itertools
import os
import signal
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PREFIX = "kp-judge-"
_counter = itertools.count()
_layout: list = []
_swept: list = []


def _own_paths() -> tuple[str | None, dict[str, str]]:
    """This process's cgroup: the v2 path and the v1 path of each v1 controller."""
    v2, v1 = None, {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None, {}
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        hid, controllers, path = parts
        if hid == "0" and not controllers:
            v2 = path
        for c in controllers.split(","):
            if c:
                v1[c] = path
    return v2, v1


def _enabled(parent: Path, wanted: tuple[str, ...]) -> bool:
    """Whether `wanted` controllers are on for parent's children, switching them on if allowed."""
    try:
        have = set((parent / "cgroup.subtree_control").read_text().split())
    except OSError:
        return False
    missing = [c for c in wanted if c not in have]
    if missing:
        try:
            (parent / "cgroup.subtree_control").write_text(" ".join("+" + c for c in missing))
        except OSError:
            return False  # e.g. the parent holds processes itself (cgroup v2's no-internal-process rule)
    return True


def _usable(parent: Path) -> bool:
    probe = parent / f"{PREFIX}probe-{os.getpid()}"
    try:
        probe.mkdir()
    except FileExistsError:
        pass
    except OSError:
        return False
    try:
        probe.rmdir()
    except OSError:
        pass
    return True


def layout() -> tuple[str, dict[str, Path]] | None:
    """("v2", {"": parent}) or ("v1", {"pids": parent, "memory": parent, "cpuacct": parent}, the
    last two where mounted); None if unusable. Cached."""
    if not _layout:
        _layout.append(_detect())
    return _layout[0]


def _detect():
    v2, v1 = _own_paths()
    unified = ROOT if (ROOT / "cgroup.controllers").exists() else ROOT / "unified"
    if v2 is not None and (unified / "cgroup.controllers").exists():
        candidates = [unified / v2.lstrip("/")]
        if os.geteuid() == 0 and v2 not in ("", "/"):
            candidates.append(unified)  # a populated service cgroup cannot delegate; the root can
        for parent in candidates:
            try:
                available = set((parent / "cgroup.controllers").read_text().split())
            except OSError:
                continue
            if "pids" in available and _enabled(parent, ("pids",)) and _usable(parent):
                if "memory" in available:
                    _enabled(parent, ("memory",))
                return "v2", {"": parent}
    if "pids" in v1 and (ROOT / "pids" / "cgroup.procs").exists():
        parents = {"pids": ROOT / "pids" / v1["pids"].lstrip("/")}
        if "memory" in v1 and (ROOT / "memory" / "cgroup.procs").exists():
            parents["memory"] = ROOT / "memory" / v1["memory"].lstrip("/")
        if all(_usable(p) for p in parents.values()):
            # The CPU time used, where the judge may make groups there too (it does without).
            acct = ROOT / "cpuacct" / v1.get("cpuacct", "").lstrip("/")
            if "cpuacct" in v1 and (ROOT / "cpuacct" / "cgroup.procs").exists() and _usable(acct):
                parents["cpuacct"] = acct
            return "v1", parents
    return None


class RunGroup:
    """One run's cgroup (one directory per hierarchy on v1)."""

    def __init__(self, version: str, dirs: dict[str, Path]):
        self.version = version
        self.dirs = dirs
        self._procs_files = [os.fsencode(d / "cgroup.procs") for d in dirs.values()]

    @property
    def _pids(self) -> Path:
        return self.dirs.get("pids") or self.dirs[""]

    @property
    def _memory(self) -> Path | None:
        return self.dirs.get("memory") or self.dirs.get("")

    def attach_self(self) -> None:
        """Move the calling process into the group. Runs in the forked child before exec, so it
        sticks to plain system calls on paths prepared in advance."""
        for path in self._procs_files:
            fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)

    def _counter(self, path: Path, key: str) -> int:
        try:
            for line in path.read_text().splitlines():
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def processes_hit(self) -> bool:
        """Whether a fork or thread creation was refused for reaching pids.max."""
        return self._counter(self._pids / "pids.events", "max") > 0

    def cpu_seconds(self) -> float | None:
        """CPU time the group's processes have used, the ended ones included (None: cgroup v1
        without the cpuacct hierarchy)."""
        try:
            if self.version == "v2":
                for line in (self.dirs[""] / "cpu.stat").read_text().splitlines():
                    if line.startswith("usage_usec "):
                        return int(line.split()[1]) / 1e6
                return None
            acct = self.dirs.get("cpuacct")
            return int((acct / "cpuacct.usage").read_text()) / 1e9 if acct is not None else None
        except (OSError, ValueError, IndexError):
            return None

    def oom_killed(self) -> bool | None:
        """Whether the kernel killed a member for going over the memory cap (None: no memory
        controller here, so it cannot tell)."""
        mem = self._memory
        name = "memory.events" if self.version == "v2" else "memory.oom_control"
        if mem is None or not (mem / name).exists():
            return None
        return self._counter(mem / name, "oom_kill") > 0

    def members(self) -> list[int]:
        """The group's processes as this PID namespace numbers them; one outside it reads as 0,
        which is never a process to signal (kill(0) is the caller's own process group)."""
        try:
            return [pid for pid in map(int, (self._pids / "cgroup.procs").read_text().split())
                    if pid > 0]
        except (OSError, ValueError):
            return []

    def kill(self, wait_s: float = 3.0) -> bool:
        """SIGKILL every member until the group is empty; True when it is."""
        deadline = time.monotonic() + wait_s
        killer = self._pids / "cgroup.kill"
        while True:
            pids = self.members()
            if not pids:
                return True
            if self.version == "v2" and killer.exists():
                try:
                    killer.write_text("1")
                except OSError:
                    pass
            else:
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)

    def remove(self) -> None:
        """Kill what is left and remove the directories."""
        self.kill()
        for d in self.dirs.values():
            for _ in range(200):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.005)  # members are still being reaped


def create(processes: int, memory: int | None) -> RunGroup | None:
    """A fresh group with the given caps, or None where this machine gives the judge no cgroups."""
    found = layout()
    if found is None:
        return None
    if not _swept:
        _swept.append(True)
        remove_stale()
    version, parents = found
    name = f"{PREFIX}{os.getpid()}-{next(_counter)}-{os.urandom(3).hex()}"
    dirs: dict[str, Path] = {}
    try:
        for key, parent in parents.items():
            d = parent / name
            d.mkdir()
            dirs[key] = d
        group = RunGroup(version, dirs)
        (group._pids / "pids.max").write_text(str(int(processes)))
        mem = group._memory
        if memory and mem is not None:
            if version == "v2":
                if (mem / "memory.max").exists():
                    (mem / "memory.max").write_text(str(int(memory)))
                    if (mem / "memory.swap.max").exists():
                        (mem / "memory.swap.max").write_text("0")
            else:
                (mem / "memory.limit_in_bytes").write_text(str(int(memory)))
                if (mem / "memory.memsw.limit_in_bytes").exists():
                    try:
                        (mem / "memory.memsw.limit_in_bytes").write_text(str(int(memory)))
                    except OSError:
                        pass
        return group
    except OSError:
        for d in dirs.values():
            try:
                d.rmdir()
            except OSError:
                pass
        return None


def remove_stale() -> None:
    """Empty and remove the groups of judge processes that no longer exist: a judge killed
    mid-run leaves its group, and whatever the run still had in it (a sandbox whose start was
    cut short waits forever otherwise)."""
    found = layout()
    if found is None:
        return
    version, parents = found
    stale: dict[str, dict[str, Path]] = {}
    for key, parent in parents.items():
        try:
            entries = list(parent.glob(PREFIX + "*"))
        except OSError:
            continue
        for d in entries:
            pid = d.name[len(PREFIX):].split("-", 1)[0]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                stale.setdefault(d.name, {})[key] = d
    for name, dirs in stale.items():
        if "pids" not in dirs and "" not in dirs:
            for d in dirs.values():   # no pids hierarchy left to find members by: only if empty
                with contextlib.suppress(OSError):
                    d.rmdir()
            continue
        RunGroup(version, dirs).remove()
