"""How the untrusted child is started: bubblewrap, resource limits and a scrubbed environment.

The child runs under bubblewrap with no network, its own PID, IPC and UTS namespaces, an
unprivileged uid in a user namespace, no capabilities, and a filesystem of read-only binds of what
it needs (the system's /usr, the interpreter, a few site-packages, the judge's child-side modules)
plus a size-capped tmpfs as its only writable place. The reference, the comparators, the task bank
and the seed stay outside. Limits are rlimits set before exec plus a per-run cgroup (cgroups.py).
What differs by backend (its files, device nodes, environment, limits) is the backend's
(backends/base.py).
"""
from __future__ import annotations

import glob
import importlib.util
import json
import os
import platform
import py_compile
import resource
import shutil
import signal
import site
import subprocess
import sys
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Protocol

from . import cgroups, seccomp


class SandboxedBackend(Protocol):
    """What the sandbox needs of a backend (a kind's backend, e.g. kinds' backends/base.py, which
    imports this module): its name, the child's module and files, the site-packages entries the
    child imports, environment, binds and syscall filter."""

    name: str
    child_module: str                   # run as `python -m <child_module> --backend <name>`
    child_files: tuple[str, ...]        # repository paths bound for the child besides CHILD_FILES
    site_entries: tuple[str, ...]       # site-packages entries (glob patterns) the child imports

    def env(self, sandboxed: bool) -> dict[str, str]: ...

    def scratch_env(self, scratch: Path) -> dict[str, str]: ...

    def binds(self) -> list[str]: ...

    def syscall_filter(self) -> bytes: ...

REPO_ROOT = Path(__file__).resolve().parents[2]
GiB = 1024 ** 3
MiB = 1024 ** 2

# Where a run's builds appear in its sandbox (build_cache.RunView, bound read-only).
BUILDS_MOUNT = "/run/kernelpath/builds"
BUBBLEWRAP = "bubblewrap"
UNSAFE = "none (--unsafe-no-sandbox)"
CUSTOM = "custom wrapper"
SANDBOX_UID = 65534  # nobody: the child holds no capabilities and owns nothing outside
CAPTURE_FILES = ("stdout.txt", "stderr.txt")   # the parent's capture of the child's output


@dataclass(frozen=True)
class Limits:
    """Resource limits for one judged run."""

    cpu_s: int = 120                 # RLIMIT_CPU over the child's life (SIGXCPU, then SIGKILL)
    wall_s: float = 120.0            # the whole run but its compiling, enforced by the parent
    op_wall_s: float = 20.0          # one request (load, one test, timing)
    kernel_timeout_s: float = 10.0   # one emulated launch (cpu): an endless kernel ends as an incident
    compile_s: float = 60.0          # one compile job (gate, build): off op_wall_s and wall_s
    compile_total_s: float = 300.0   # all the run's compile jobs
    compile_memory: int = 6 * GiB    # one compile job's cgroup memory cap (its processes, its tmpfs)
    address_space: int | None = 4 * GiB   # RLIMIT_AS per process; None on a GPU (CUDA maps huge ranges)
    data_size: int | None = None          # RLIMIT_DATA per process (where RLIMIT_AS is off)
    memory: int | None = 6 * GiB          # cgroup memory cap over all of the run's processes
    processes: int = 64                   # processes and threads at once (cgroup pids.max or watchdog)
    file_size: int = 512 * 1024 ** 2      # RLIMIT_FSIZE: output .npz files and captured output
    scratch_size: int = 1 * GiB           # the tmpfs that is the child's only writable place
    open_files: int = 256
    captured_output: int = 8 * 1024       # bytes of the candidate's stdout/stderr kept in the report

    def scaled(self, factor: float) -> "Limits":
        """Same limits with the time limits multiplied (slow machines, heavy tasks)."""
        return replace(self, cpu_s=int(self.cpu_s * factor), wall_s=self.wall_s * factor,
                       op_wall_s=self.op_wall_s * factor)


# Variables the child may see; everything else (tokens, database URLs, seeds) stays behind.
_PASSED_ENV = ("LANG", "LC_ALL", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",
               "LD_LIBRARY_PATH", "KERNELPATH_EMULATOR_CXX")
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"

# The judge's files the child imports, whatever the backend: nothing else of the repository is
# bound into the sandbox but each backend's own `child_files` (backends/base.py).
# tests/judge/core/test_judge_sandbox.py audits these lists against the child's imports, and
# tests/judge/core/test_judge_layers.py keeps the parent's modules from importing them.
CHILD_FILES = ("assessments/__init__.py", "assessments/judge/__init__.py",
               "assessments/judge/protocol.py", "assessments/judge/exec_ban.py",
               "assessments/judge/seccomp.py")


def emulator_cache_dir() -> str:
    """The trusted side's emulator cache: the runtime object and the build cache
    (build_cache.py); never bound writable."""
    env = os.environ.get("KERNELPATH_EMULATOR_CACHE")
    if env:
        return env
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(xdg, "kernelpath", "emulator")


@dataclass(frozen=True)
class SandboxSpec:
    """What the child needs: where it runs, its limits, and how it is isolated.

    `scratch` is a directory only the parent writes: the submission is placed there before the
    start. Under bubblewrap the child sees a fresh tmpfs at the same path, with those files bound
    read-only; without it (`isolation` UNSAFE or a custom `wrapper`) the child uses the directory.
    """

    scratch: Path
    backend: SandboxedBackend
    limits: Limits
    python: str = sys.executable
    repo_root: Path = REPO_ROOT
    readonly_paths: tuple[Path, ...] = ()   # extra read-only binds (files the wrapper's command needs)
    extra_env: dict = field(default_factory=dict)
    wrapper: Callable[["SandboxSpec", list[str]], list[str]] | None = None
    isolation: str = BUBBLEWRAP
    builds_view: str | None = None          # the run's view of the build cache (build_cache.RunView)
    emulator_fingerprint: str | None = None  # the emulator's, for the child (cpu)
    launcher: tuple[str, ...] = ()          # a program that starts the child (compute-sanitizer)
    # A writable /tmp and /dev/shm of the sandbox's own (tmpfs): a launcher that talks to its
    # child through files there needs them; the child alone writes only its scratch.
    private_tmp: bool = False
    # The seccomp program bubblewrap installs, where it is not the backend's (compute-sanitizer's
    # front-end traces the child it starts); the child still installs its own on top (exec_ban).
    syscall_filter: bytes | None = None
    # A program the sandbox runs in place of the protocol child (a simulator with the testbench's
    # Python inside it): it takes no requests and the parent waits for it to end (runner's
    # `ChildProcess.wait`). `stdin` is its standard input, a descriptor the caller keeps open.
    program: tuple[str, ...] = ()
    stdin: int | None = None

    @property
    def mode(self) -> str:
        """What the report records: bubblewrap, none, or a test's own wrapper."""
        return CUSTOM if self.wrapper else self.isolation

    @property
    def sandboxed(self) -> bool:
        return self.wrapper is None and self.isolation == BUBBLEWRAP


def child_argv(spec: SandboxSpec, request_fd: int | None, answer_fd: int | None) -> list[str]:
    """The plain child command (behind its launcher, if any), before any wrapper: the protocol
    child, or the spec's program."""
    if spec.program:
        return [*spec.launcher, *spec.program]
    return [*spec.launcher, spec.python, "-s", "-B", "-m", spec.backend.child_module, "--backend", spec.backend.name,
            "--scratch", str(spec.scratch), "--request-fd", str(request_fd),
            "--answer-fd", str(answer_fd)]


def build_command(spec: SandboxSpec, request_fd: int | None, answer_fd: int | None,
                  info_fd: int | None = None, seccomp_fd: int | None = None) -> list[str]:
    """The command that starts the child: under bubblewrap, a test's wrapper, or bare."""
    argv = child_argv(spec, request_fd, answer_fd)
    if spec.wrapper:
        return spec.wrapper(spec, argv)
    if spec.isolation == BUBBLEWRAP:
        return bwrap_argv(spec, argv, info_fd, seccomp_fd)
    return argv


def child_env(spec: SandboxSpec) -> dict[str, str]:
    """A minimal environment: the repo on PYTHONPATH, scratch as HOME and TMPDIR, one BLAS thread."""
    env = {k: os.environ[k] for k in _PASSED_ENV if k in os.environ}
    scratch = spec.scratch
    env.update({
        "PATH": SANDBOX_PATH if spec.sandboxed else os.environ.get("PATH", SANDBOX_PATH),
        "PYTHONPATH": str(spec.repo_root), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1",
        "PYTHONUNBUFFERED": "1", "HOME": str(scratch), "TMPDIR": str(scratch),
        "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
    })
    env.update(spec.backend.scratch_env(scratch))
    if spec.builds_view:
        env["KERNELPATH_EMULATOR_BUILDS"] = BUILDS_MOUNT if spec.sandboxed else spec.builds_view
    if spec.emulator_fingerprint:
        env["KERNELPATH_EMULATOR_FINGERPRINT"] = spec.emulator_fingerprint
    env.update(spec.backend.env(spec.sandboxed))
    env.update(spec.extra_env)
    return env


def preexec(limits: Limits, group: "cgroups.RunGroup | None" = None) -> Callable[[], None]:
    """Runs in the forked child before exec: join the run's cgroup, set the rlimits."""
    def apply() -> None:
        if group is not None:
            group.attach_self()
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 2))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_size, limits.file_size))
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
        if limits.address_space:
            resource.setrlimit(resource.RLIMIT_AS, (limits.address_space, limits.address_space))
        if limits.data_size:
            resource.setrlimit(resource.RLIMIT_DATA, (limits.data_size, limits.data_size))
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    return apply


# ---------------------------------------------------------------------------------------------
# bubblewrap

def bwrap_path() -> str | None:
    return shutil.which("bwrap", path="/usr/bin:/bin:/usr/local/bin:" + os.environ.get("PATH", ""))


def _base_args(bwrap: str) -> list[str]:
    """Namespaces, identity and the system part of the filesystem."""
    args = [bwrap, "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
            "--disable-userns", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--hostname", "sandbox", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL", "--proc", "/proc", "--dev", "/dev", "--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for etc in ("/etc/ld.so.cache", "/etc/alternatives"):
        args += ["--ro-bind-try", etc, etc]
    return args


def _python_binds(python: str, site_entries: tuple[str, ...] = ()) -> list[str]:
    """The interpreter's installation, the venv's metadata and only the packages the child uses."""
    binds: list[str] = []
    seen: set[str] = set()

    def ro(path: str) -> None:
        path = os.path.abspath(path)
        if path in seen or path == "/usr" or path.startswith("/usr/") or not os.path.exists(path):
            return
        seen.add(path)
        binds.extend(["--ro-bind", path, path])

    ro(sys.base_prefix)
    real = os.path.realpath(python)
    if not real.startswith(os.path.abspath(sys.base_prefix) + os.sep):
        ro(real)
    if sys.prefix != sys.base_prefix:  # a virtual environment
        ro(os.path.join(sys.prefix, "pyvenv.cfg"))
        ro(os.path.join(sys.prefix, "bin"))
    for sp in site.getsitepackages():
        if sp.startswith(os.path.abspath(sys.base_prefix) + os.sep):
            continue  # inside the interpreter's installation, already bound
        for pattern in site_entries:
            for path in sorted(glob.glob(os.path.join(sp, pattern))):
                ro(path)
    return binds


def _repo_binds(repo: Path, backend: SandboxedBackend) -> list[str]:
    """The judge's files the child imports, each with its bytecode where there is one (the
    sandbox writes none, and compiling them costs every child a few milliseconds)."""
    binds: list[str] = []
    for rel in CHILD_FILES + backend.child_files:
        path = str(repo / rel)
        binds += ["--ro-bind", path, path]
        cached = _bytecode(path) if path.endswith(".py") else None
        if cached:
            binds += ["--ro-bind", cached, cached]
    return binds


_compiled: set[str] = set()
_compiling = threading.Lock()


def _bytecode(source: str) -> str | None:
    """The source's bytecode file, compiled once per process where it is missing or older than
    the source and Python may write bytecode here; None where there is none. Python checks it
    against the source before use, so a stale one only costs reading it. Under a lock: sandboxes
    started side by side see the same files."""
    cached = importlib.util.cache_from_source(source)
    with _compiling:
        if source not in _compiled and not sys.dont_write_bytecode:
            _compiled.add(source)
            try:
                if not os.path.exists(cached) or os.path.getmtime(cached) < os.path.getmtime(source):
                    py_compile.compile(source, cfile=cached, doraise=True)
            except (OSError, py_compile.PyCompileError):
                pass    # a read-only checkout: the child compiles it itself
        return cached if os.path.exists(cached) else None


def bwrap_argv(spec: SandboxSpec, argv: list[str], info_fd: int | None,
               seccomp_fd: int | None = None) -> list[str]:
    """bubblewrap around the child command."""
    bwrap = bwrap_path() or "bwrap"
    args = _base_args(bwrap)
    if spec.private_tmp:
        # Before any bind: the scratch, a checkout or a venv may lie under /tmp, mounted over it.
        size = str(int(spec.limits.scratch_size))
        args += ["--size", size, "--tmpfs", "/tmp", "--size", size, "--tmpfs", "/dev/shm"]
    args += _python_binds(spec.python, spec.backend.site_entries) + _repo_binds(spec.repo_root, spec.backend)
    args += spec.backend.binds()
    if spec.builds_view:
        args += ["--ro-bind", spec.builds_view, BUILDS_MOUNT]
    for extra in spec.readonly_paths:
        args += ["--ro-bind", str(extra), str(extra)]
    scratch = str(spec.scratch)
    args += ["--size", str(int(spec.limits.scratch_size)), "--tmpfs", scratch]
    for entry in sorted(os.listdir(scratch)):
        path = os.path.join(scratch, entry)
        if entry not in CAPTURE_FILES and os.path.isfile(path) and not os.path.islink(path):
            args += ["--ro-bind", path, path]  # the submission: readable, not replaceable
    # bubblewrap leaves its root and /dev tmpfs writable: only the tmpfs mounts made above should be.
    args += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", scratch]
    if spec.program:
        # The program is the sandbox's pid 1: no bubblewrap init beside it, whose command line
        # (the parent's descriptor numbers, which differ from run to run) it could read.
        args += ["--as-pid-1"]
    if info_fd is not None:
        args += ["--info-fd", str(info_fd)]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    return args + ["--"] + argv


_probe_lock = threading.Lock()
_probe_result: list[tuple[bool, str]] = []


def probe() -> tuple[bool, str]:
    """(True, "") when bubblewrap can build this sandbox here, else (False, why). Cached per process."""
    with _probe_lock:
        if not _probe_result:
            _probe_result.append(_probe())
        return _probe_result[0]


def _probe() -> tuple[bool, str]:
    bwrap = bwrap_path()
    if bwrap is None:
        return False, "bubblewrap (bwrap) is not installed"
    if not seccomp.supported():
        return False, f"the sandbox has no seccomp filter for {platform.machine()}"
    r_fd, w_fd = os.pipe()
    os.write(w_fd, seccomp.program())
    os.close(w_fd)
    # --as-pid-1: no init of bubblewrap's own, which would outlive bubblewrap unreaped.
    cmd = (_base_args(bwrap) + _python_binds(sys.executable)
           + ["--seccomp", str(r_fd), "--as-pid-1", "--", sys.executable, "-I", "-S", "-c", ""])
    try:
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=30,
                           env={"PATH": SANDBOX_PATH}, pass_fds=(r_fd,))
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"bubblewrap did not run: {exc}"
    finally:
        os.close(r_fd)
    if r.returncode != 0:
        why = r.stderr.decode(errors="replace").strip().splitlines()
        return False, f"bubblewrap cannot build the sandbox here: {why[-1] if why else r.returncode}"
    return True, ""


def refusal_message(why: str) -> str:
    return (f"refusing to run untrusted code without a sandbox: {why}. Install bubblewrap "
            "(`make system-deps`) on a kernel that allows user namespaces, or pass "
            "--unsafe-no-sandbox (judge(..., unsafe_no_sandbox=True)) for your own code only")


def parse_info(data: bytes) -> dict:
    """bubblewrap's --info-fd document (child-pid and namespace ids)."""
    try:
        info = json.loads(data.decode())
    except (UnicodeDecodeError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}
