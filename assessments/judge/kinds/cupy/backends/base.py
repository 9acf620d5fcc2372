"""The parent's view of each backend: one class per backend, as DMOJ has one executor each.

A Backend owns what differs between backends on the trusted side: the judge's files bound into
the child's sandbox, extra binds and environment (a GPU's device nodes), the syscall filter, the
default limits, the emulator runtime the child is given, the machine-wide lock held for the
child's life, what a crash means, and whether the tests run the checking build and the accepted
solution is timed and scored for speed. The public API takes and reports the name
(`judge(..., backend="cpu")`, `Report.backend`); the child gets the name on its command line and
sets itself up with its own side, backends/<name>/child.py.
"""
from __future__ import annotations

import contextlib
import glob
import os
from pathlib import Path
from typing import ClassVar

from .... import seccomp
from ....outcome import Outcome
from ....sandbox import GiB, Limits
from ....verdicts import Verdict
from ..timing import guard


class NoLock(contextlib.nullcontext):
    """No machine-wide lock: nothing to wait for, nothing to report."""

    def __init__(self):
        super().__init__()
        self.info: dict = {}


# The child's modules on every backend (beside sandbox.CHILD_FILES and each backend's own).
CHILD_FILES = ("assessments/judge/kinds/__init__.py", "assessments/judge/kinds/cupy/__init__.py",
               "assessments/judge/kinds/cupy/child.py", "assessments/judge/kinds/cupy/kernel_log.py",
               "assessments/judge/kinds/cupy/nvrtc.py", "assessments/judge/kinds/cupy/diagnostics.py",
               "assessments/judge/kinds/cupy/listing.py", "assessments/judge/listing_text.py",
               "assessments/judge/kinds/cupy/backends/__init__.py")
# site-packages entries the child and the cupyx.jit helper import (numpy, CuPy and its CUDA
# pieces); the compile sandbox's jobs (NVRTC, the emulator's builder) bind the same.
SITE_ENTRIES = ("numpy", "numpy.libs", "cupy", "cupyx", "cupy_backends", "cupy_cuda*.libs", "cuda",
                "nvidia", "fastrlock", "numpy-*.dist-info", "cupy_cuda*.dist-info",
                "cuda_*.dist-info", "nvidia_*.dist-info", "fastrlock-*.dist-info")


class Backend:
    """What the parent does differently per backend; the defaults are the CPU's and the GPU's
    common ground."""

    name: ClassVar[str]
    limits: ClassVar[Limits]                  # the defaults; judge(limits=...) replaces them
    child_files: ClassVar[tuple[str, ...]]    # bound for the child besides sandbox.CHILD_FILES
    child_module: ClassVar[str] = "assessments.judge.kinds.cupy.child"   # the child's entry (python -m)
    site_entries: ClassVar[tuple[str, ...]] = SITE_ENTRIES
    description: ClassVar[str]                # where the tests ran, for the accepted message
    checking: ClassVar[bool] = False          # every test runs the emulator's checking build
    refuses_stray_tasks: ClassVar[bool] = False   # threads or processes left after solve: an error
    timed: ClassVar[bool] = False             # a timing run, and performance points
    profiled: ClassVar[bool] = False          # an estimate from the emulator's counters instead
    sanitized: ClassVar[bool] = False         # the small tests again under compute-sanitizer

    def binds(self) -> list[str]:
        """bubblewrap arguments beyond the common filesystem (device nodes, driver libraries)."""
        return []

    def env(self, sandboxed: bool) -> dict[str, str]:
        """Variables the child gets beyond the common environment (sandbox.child_env)."""
        return {}

    def scratch_env(self, scratch: Path) -> dict[str, str]:
        """Where the child's libraries keep their caches: in its scratch, gone with it."""
        return {"CUPY_CACHE_DIR": str(scratch / ".cupy"), "CUDA_CACHE_PATH": str(scratch / ".nv"),
                # The child compiles nothing (its parent does); nothing it writes is loaded again.
                "KERNELPATH_EMULATOR_CACHE": str(scratch / ".emulator")}

    def syscall_filter(self) -> bytes:
        """The seccomp program handed to bubblewrap (seccomp.py: the same refusals everywhere)."""
        return seccomp.program()

    def emulator_core(self) -> str | None:
        """The trusted prebuilt emulator runtime that builds link, if this backend uses one."""
        return None

    def emulator_fingerprint(self) -> str | None:
        """What the emulator's builds depend on (runtime, builder, compiler); None: no emulator."""
        return None

    def device_lock(self):
        """A context manager held for the child's whole life, with `info` for the report."""
        return NoLock()

    def memory_fault(self, signal_name: str, phase: str) -> Outcome:
        """What a SIGSEGV or SIGBUS of the child means."""
        return Outcome(Verdict.RUNTIME_ERROR, f"your program crashed {phase} ({signal_name})")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class CpuBackend(Backend):
    """CUDA C on the CPU through the emulator: correctness with bounds and race checks, and the
    speed estimated for an H100 from the emulator's counters (perfmodel.py), never measured."""

    name = "cpu"
    limits = Limits()
    child_files = CHILD_FILES + ("assessments/judge/kinds/cupy/backends/cpu",)
    description = "the CPU backend (speed estimated for an H100, not measured)"
    checking = True
    profiled = True
    refuses_stray_tasks = True

    def emulator_core(self) -> str | None:
        """The emulator's runtime object, built (once) by the trusted side for read-only use."""
        try:
            from .cpu.emulator import build
            return str(build.core_object())
        except Exception:
            return None  # no compiler or no cache dir: builds fail as the judge's own error

    def emulator_fingerprint(self) -> str | None:
        try:
            from .cpu.emulator import build
            return build.fingerprint()
        except Exception:
            return None

    def memory_fault(self, signal_name: str, phase: str) -> Outcome:
        # The emulator places arrays against guard pages: a stray access faults.
        return Outcome(Verdict.MEMORY_ERROR,
                       f"a kernel accessed memory outside its arrays {phase} "
                       f"({signal_name}: out-of-bounds read or write)")


GPU_NODES = ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools")


class CudaBackend(Backend):
    """Real CuPy on a GPU: the same tests, then the timing of an accepted solution."""

    name = "cuda"
    # CUDA reserves terabytes of virtual address space, so RLIMIT_AS cannot apply; RLIMIT_DATA
    # (private writable mappings) and the cgroup cap bound host memory instead.
    # RLIMIT_FSIZE: a timing re-check writes one slot's inputs and outputs in one .npz (sgemv's
    # matrix alone is 512 MiB); tests/judge/core/test_judge_limits.py keeps every task inside.
    limits = Limits(address_space=None, data_size=32 * GiB, memory=48 * GiB, scratch_size=8 * GiB,
                    cpu_s=300, wall_s=300.0, op_wall_s=60.0, file_size=2 * GiB)
    child_files = CHILD_FILES + ("assessments/judge/kinds/cupy/backends/cuda/__init__.py",
                   "assessments/judge/kinds/cupy/backends/cuda/child.py",
                   "assessments/judge/kinds/cupy/backends/cuda/wrap.py",
                   "assessments/judge/kinds/cupy/backends/cuda/timing.py")
    description = "the GPU"
    timed = True
    sanitized = True     # the small tests again under compute-sanitizer (sanitizer.py)

    @staticmethod
    def gpu_nodes() -> list[str]:
        """Device nodes a CUDA run needs: the control nodes and the GPU it may use."""
        visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").strip()
        if visible == "" or visible.isdigit():
            gpus = [f"/dev/nvidia{int(visible or 0)}"]
        else:
            gpus = sorted(glob.glob("/dev/nvidia[0-9]*"))  # UUIDs or a list: leave the choice to CUDA
        nodes = list(GPU_NODES) + gpus
        if os.path.isdir("/dev/nvidia-caps"):
            nodes.append("/dev/nvidia-caps")  # MIG slices are opened through these
        return nodes

    def binds(self) -> list[str]:
        binds: list[str] = []
        for node in self.gpu_nodes():
            binds += ["--dev-bind-try", node, node]
        binds += ["--ro-bind-try", "/sys", "/sys"]   # the driver reads the PCI topology
        # Driver libraries outside /usr (containers mount them elsewhere) come in read-only.
        for d in os.environ.get("LD_LIBRARY_PATH", "").split(":"):
            if d and os.path.isabs(d) and not d.startswith("/usr/") and os.path.isdir(d):
                binds += ["--ro-bind", d, d]
        return binds

    def env(self, sandboxed: bool) -> dict[str, str]:
        """With a single GPU node bound, CUDA numbers it 0 whatever the host calls it."""
        if not sandboxed:
            return {}
        visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").strip()
        if visible == "" or visible.isdigit():
            return {"CUDA_VISIBLE_DEVICES": "0", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
        return {}

    def device_lock(self):
        """The GPU's machine-wide lock (timing/guard.py): one submission per GPU at a time."""
        return guard.GpuLock()


CPU = CpuBackend()
CUDA = CudaBackend()
BACKENDS: dict[str, Backend] = {b.name: b for b in (CPU, CUDA)}


def get_backend(name: str) -> Backend:
    """The backend called `name`; ValueError for any other name."""
    try:
        return BACKENDS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown backend {name!r}; use one of {', '.join(BACKENDS)}") from None
