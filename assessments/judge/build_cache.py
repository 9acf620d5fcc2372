"""The parent's cache of compiled kernels, gate results and listings: one per machine, shared by
every run and worker, never writable from a run sandbox.

Under the emulator cache directory (sandbox.emulator_cache_dir()), one section per kind:
  builds/<key>.so      an emulator build           builds/<key>.json    its metadata, or g++'s log
  gates/<key>.cubin    NVRTC's cubin               gates/<key>.json     its log, usage and PTX
  listings/<key>.json  a program's SASS
  <section>/<key>.lock one compile of a key at a time across workers (flock)
  runs/<id>/           one run's view: hard links to the builds it asked for, the only part
                       bound into its sandbox (read-only), so no run sees another's kernels
An entry's file (library, cubin) is published first and its JSON last, both by rename: an entry
exists once its JSON does, whole, and the file's size is checked on every read. A key is the
sha256 of everything that decides the output: the source text, options, name expressions,
variant or target, and the tools (the emulator's fingerprint: runtime, builder, compiler
version; NVRTC and nvdisasm).
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from . import sandbox

SECTIONS = {"builds": ".so", "gates": ".cubin", "listings": None}   # section -> its file's suffix
STALE_VIEW_S = 24 * 3600


def key(*parts) -> str:
    """The cache key of an entry from what decides it (JSON-able parts)."""
    return hashlib.sha256(json.dumps(parts, separators=(",", ":")).encode()).hexdigest()[:40]


class BuildCache:
    """Entries by section and key; a reader sees an entry whole or not at all."""

    def __init__(self, root: str | os.PathLike | None = None):
        roots = [Path(root)] if root else [Path(sandbox.emulator_cache_dir()),
                                           Path(tempfile.gettempdir()) / f"kernelpath-builds-{os.getuid()}"]
        for self.root in roots:   # the first usable; a per-user temp dir when the cache is not
            try:
                for d in (*SECTIONS, "runs"):
                    (self.root / d).mkdir(parents=True, exist_ok=True)
                break
            except OSError:
                if self.root == roots[-1]:
                    raise
        self.runs = self.root / "runs"

    def file(self, section: str, k: str) -> Path:
        """Where an entry's file (library, cubin) is."""
        return self.root / section / f"{k}{SECTIONS[section]}"

    def get(self, section: str, k: str) -> dict | None:
        """The entry, None when absent or incomplete (its file missing or of another size)."""
        entry = _read_json(self.root / section / f"{k}.json")
        if entry is not None and "size" in entry:
            try:
                if self.file(section, k).stat().st_size != entry["size"]:
                    return None
            except OSError:
                return None
        return entry

    def put(self, section: str, k: str, entry: dict, data: bytes | None = None) -> dict:
        if data is not None:
            entry = {**entry, "size": len(data)}
            _publish(self.file(section, k), data)
        _publish(self.root / section / f"{k}.json", json.dumps(entry).encode())
        return entry

    @contextlib.contextmanager
    def locked(self, section: str, k: str):
        """Held while one worker makes `k`; others wait, then find the entry."""
        fd = os.open(self.root / section / f"{k}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    # -- a run's view ------------------------------------------------------------------------
    def view(self) -> "RunView":
        self._sweep()
        return RunView(self, Path(tempfile.mkdtemp(prefix="run-", dir=self.runs)))

    def _sweep(self) -> None:
        """Views older than a day belong to runs whose parent was killed: remove them."""
        stale = time.time() - STALE_VIEW_S
        for entry in os.scandir(self.runs):
            try:
                if entry.stat(follow_symlinks=False).st_mtime < stale:
                    shutil.rmtree(entry.path, ignore_errors=True)
            except OSError:
                continue


class RunView:
    """The builds one run asked for, as hard links in a directory of its own (copies where the
    filesystem has no links)."""

    def __init__(self, cache: BuildCache, path: Path):
        self.cache = cache
        self.path = path
        os.chmod(path, 0o755)

    def add(self, k: str) -> str:
        source = self.cache.file("builds", k)
        target = self.path / source.name
        if not target.exists():
            try:
                os.link(source, target)
            except FileExistsError:
                pass
            except OSError:
                shutil.copyfile(source, target)
        return source.name

    def close(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def _read_json(path: Path) -> dict | None:
    try:
        entry = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return entry if isinstance(entry, dict) else None


def _publish(path: Path, data: bytes) -> None:
    """Write beside, then rename over: concurrent readers never see half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
