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
exists once its JSON does, whole, and the file's size is checked on every read. Reading an entry
touches its JSON, so the JSON's mtime is the entry's last use; past its size budget
($KERNELPATH_BUILD_CACHE_MB, default 2048) the cache drops the least recently used entries down
to 80 % of it, JSON first (an entry disappears whole), checked at most once a minute per cache. A key is the
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

SECTIONS = {"builds": ".so", "gates": ".cubin", "listings": None, "synth": None}   # section -> its file's suffix
STALE_VIEW_S = 24 * 3600
DEFAULT_BUDGET_MB = 2048
TRIM_EVERY_S = 60.0            # a trim scans every entry: not on every put
ORPHAN_S = 3600.0              # leftovers of a killed writer (a file without JSON, a .tmp-)


def key(*parts) -> str:
    """The cache key of an entry from what decides it (JSON-able parts)."""
    return hashlib.sha256(json.dumps(parts, separators=(",", ":")).encode()).hexdigest()[:40]


class BuildCache:
    """Entries by section and key; a reader sees an entry whole or not at all."""

    def __init__(self, root: str | os.PathLike | None = None, budget_bytes: int | None = None):
        self.budget_bytes = budget_bytes if budget_bytes is not None else budget_from_env()
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
        meta = self.root / section / f"{k}.json"
        entry = _read_json(meta)
        if entry is not None and "size" in entry:
            try:
                if self.file(section, k).stat().st_size != entry["size"]:
                    return None
            except OSError:
                return None
        if entry is not None:
            with contextlib.suppress(OSError):
                os.utime(meta)       # its last use, for eviction
        return entry

    def put(self, section: str, k: str, entry: dict, data: bytes | None = None) -> dict:
        if data is not None:
            entry = {**entry, "size": len(data)}
            _publish(self.file(section, k), data)
        _publish(self.root / section / f"{k}.json", json.dumps(entry).encode())
        try:
            self.trim()
        except OSError:   # housekeeping: the entry is published whatever happens here
            pass
        return entry

    @contextlib.contextmanager
    def locked(self, section: str, k: str):
        """Held while one worker makes `k`; others wait, then find the entry."""
        path = self.root / section / f"{k}.lock"
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                if _is_current(fd, path):
                    break
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)   # eviction removed the file we waited on: lock the one there now
        try:
            with contextlib.suppress(OSError):
                os.utime(fd)   # in use now: the leftover sweep goes by this
            yield
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def _unless_locked(self, section: str, k: str):
        """Yields True holding `k`'s lock file when no worker holds it, else False. The lock
        file may then be removed: a worker that opened it meanwhile sees it is gone once it
        holds it (`locked` compares inodes) and locks the new one."""
        path = self.root / section / f"{k}.lock"
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            yield False
            return
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held = _is_current(fd, path)
            except OSError:
                held = False
            yield held
        finally:
            os.close(fd)

    # -- eviction ----------------------------------------------------------------------------
    def trim(self, force: bool = False) -> int:
        """Drop least recently used entries while the cache is over its budget, down to 80 % of
        it, and a killed writer's leftovers; bytes freed. Entries being made (their key locked)
        are kept. At most once a minute unless `force`."""
        stamp = self.root / ".trimmed"
        try:
            if not force and time.time() - stamp.stat().st_mtime < TRIM_EVERY_S:
                return 0
        except OSError:
            pass
        with contextlib.suppress(OSError):
            stamp.touch()
        entries, freed, now = [], 0, time.time()
        for section in SECTIONS:
            files: dict[str, list[os.DirEntry]] = {}
            for item in os.scandir(self.root / section):
                stem = item.name.split(".", 1)[0]
                files.setdefault(stem if not item.name.startswith(".tmp-") else item.name, []).append(item)
            for stem, items in files.items():
                used, size, has_json = 0.0, 0, False
                for item in items:
                    with contextlib.suppress(OSError):
                        st = item.stat(follow_symlinks=False)
                        size += st.st_size
                        used = max(used, st.st_mtime)
                        has_json |= item.name == f"{stem}.json"
                if has_json:
                    entries.append((used, size, section, stem))
                elif now - used > ORPHAN_S:   # never published, or a lock nobody used for long
                    freed += self._remove_leftovers(section, stem, items)
        total = sum(size for _, size, _, _ in entries)
        if total <= self.budget_bytes:
            return freed
        goal = self.budget_bytes * 0.8
        for _, size, section, stem in sorted(entries):
            if total <= goal:
                break
            if self._evict(section, stem):
                total -= size
                freed += size
        return freed

    def _evict(self, section: str, k: str) -> bool:
        """Removes one entry unless a worker is making it: JSON first, so a reader sees it whole
        or absent; a run that linked its file into a view keeps its copy."""
        with self._unless_locked(section, k) as held:
            if not held:
                return False
            folder = self.root / section
            paths = [folder / f"{k}.json"] + ([self.file(section, k)] if SECTIONS[section] else [])
            for path in paths + [folder / f"{k}.lock"]:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            return True

    def _remove_leftovers(self, section: str, k: str, items) -> int:
        if k.startswith(".tmp-"):
            return _remove(items)
        with self._unless_locked(section, k) as held:
            if not held:
                return 0
            freed = _remove(items)
            with contextlib.suppress(FileNotFoundError):
                (self.root / section / f"{k}.lock").unlink()
            return freed

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
    """The builds (or cubins) one run asked for, as hard links in a directory of its own (copies
    where the filesystem has no links)."""

    def __init__(self, cache: BuildCache, path: Path):
        self.cache = cache
        self.path = path
        os.chmod(path, 0o755)

    def add(self, k: str, section: str = "builds") -> str:
        """Links entry `k`'s file into the view and returns its name there; FileNotFoundError
        when it was evicted meanwhile."""
        source = self.cache.file(section, k)
        target = self.path / source.name
        if not target.exists():
            try:
                os.link(source, target)
            except FileExistsError:
                pass
            except FileNotFoundError:
                raise
            except OSError:
                shutil.copyfile(source, target)
        return source.name

    def close(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def budget_from_env() -> int:
    """The cache's size budget in bytes: $KERNELPATH_BUILD_CACHE_MB, else DEFAULT_BUDGET_MB."""
    raw = os.environ.get("KERNELPATH_BUILD_CACHE_MB", "")
    try:
        mb = float(raw) if raw.strip() else DEFAULT_BUDGET_MB
    except ValueError:
        raise ValueError(f"KERNELPATH_BUILD_CACHE_MB must be a number of megabytes, not {raw!r}") from None
    if mb < 0:
        raise ValueError("KERNELPATH_BUILD_CACHE_MB must not be negative")
    return int(mb * 1024 * 1024)


def _is_current(fd: int, path: Path) -> bool:
    """Whether the open lock file `fd` is still the one at `path` (not removed meanwhile)."""
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


def _remove(items) -> int:
    freed = 0
    for item in items:
        with contextlib.suppress(OSError):
            size = item.stat(follow_symlinks=False).st_size
            os.unlink(item.path)
            freed += size
    return freed


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
