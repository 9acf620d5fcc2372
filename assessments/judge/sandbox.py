"""How the untrusted child is started: limits, environment and the command line.

Today the wall is resource limits plus a clean environment. The command builder is the seam where
bubblewrap goes (`SandboxSpec.wrapper`): a wrapper receives the plain command and returns the
wrapped one, and `unsafe_no_sandbox` will be the explicit opt-out once wrapping is the default.
"""
from __future__ import annotations

import os
import resource
import signal
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

REPO_ROOT = Path(__file__).resolve().parents[2]
CHILD_MODULE = "assessments.judge.child"
GiB = 1024 ** 3


@dataclass(frozen=True)
class Limits:
    """Resource limits for one judged run."""

    cpu_s: int = 120                 # RLIMIT_CPU over the child's life (SIGXCPU, then SIGKILL)
    wall_s: float = 120.0            # the whole run, enforced by the parent
    op_wall_s: float = 20.0          # one request (load, one test, timing)
    kernel_timeout_s: float = 10.0   # one emulated launch (cpu): an endless kernel ends as an incident
    address_space: int | None = 4 * GiB   # RLIMIT_AS; None on a GPU (CUDA maps huge ranges)
    file_size: int = 512 * 1024 ** 2      # RLIMIT_FSIZE: output .npz files and captured output
    open_files: int = 256
    captured_output: int = 8 * 1024       # bytes of the candidate's stdout/stderr kept in the report

    def scaled(self, factor: float) -> "Limits":
        """Same limits with the time limits multiplied (slow machines, heavy tasks)."""
        return replace(self, cpu_s=int(self.cpu_s * factor), wall_s=self.wall_s * factor,
                       op_wall_s=self.op_wall_s * factor)


DEFAULT_LIMITS = {
    "cpu": Limits(),
    "cuda": Limits(address_space=None, cpu_s=300, wall_s=300.0, op_wall_s=60.0),
}

# Variables the child may see; everything else (tokens, database URLs, seeds) stays behind.
_PASSED_ENV = ("PATH", "LANG", "LC_ALL", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES",
               "LD_LIBRARY_PATH", "KERNELPATH_EMULATOR_CXX")


def emulator_cache_dir() -> str:
    """Where the emulator keeps g++ builds across runs (HOME is the scratch dir in the child)."""
    env = os.environ.get("KERNELPATH_EMULATOR_CACHE")
    if env:
        return env
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(xdg, "kernelpath", "emulator")


@dataclass(frozen=True)
class SandboxSpec:
    """What the child needs: where it runs, what it may write, its limits and fds."""

    scratch: Path
    backend: str
    limits: Limits
    python: str = sys.executable
    repo_root: Path = REPO_ROOT
    readonly_paths: tuple[Path, ...] = ()   # what a namespace wrapper binds read-only besides Python
    extra_env: dict = field(default_factory=dict)
    wrapper: Callable[["SandboxSpec", list[str]], list[str]] | None = None
    unsafe_no_sandbox: bool = True   # True until a bubblewrap wrapper is the default; then an opt-out


def child_argv(spec: SandboxSpec, request_fd: int, answer_fd: int) -> list[str]:
    """The plain child command, before any wrapper."""
    return [spec.python, "-s", "-B", "-m", CHILD_MODULE, "--backend", spec.backend,
            "--scratch", str(spec.scratch), "--request-fd", str(request_fd),
            "--answer-fd", str(answer_fd)]


def build_command(spec: SandboxSpec, request_fd: int, answer_fd: int) -> list[str]:
    """The command that starts the child, wrapped when the spec says so."""
    argv = child_argv(spec, request_fd, answer_fd)
    return spec.wrapper(spec, argv) if spec.wrapper else argv


def child_env(spec: SandboxSpec) -> dict[str, str]:
    """A minimal environment: the repo on PYTHONPATH, scratch as HOME and TMPDIR, one BLAS thread."""
    env = {k: os.environ[k] for k in _PASSED_ENV if k in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update({
        "PYTHONPATH": str(spec.repo_root), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1",
        "PYTHONUNBUFFERED": "1", "HOME": str(spec.scratch), "TMPDIR": str(spec.scratch),
        "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        "CUPY_CACHE_DIR": str(spec.scratch / ".cupy"),
        "KERNELPATH_EMULATOR_CACHE": emulator_cache_dir(),
    })
    env.update(spec.extra_env)
    return env


def preexec(limits: Limits) -> Callable[[], None]:
    """Runs in the forked child before exec: resource limits only (no allocation-heavy work)."""
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 2))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_size, limits.file_size))
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
        if limits.address_space:
            resource.setrlimit(resource.RLIMIT_AS, (limits.address_space, limits.address_space))
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    return apply
