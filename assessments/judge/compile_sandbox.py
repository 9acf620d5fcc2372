"""The compile sandbox: the judge's own builders run on the candidate's source text alone.

A job is one trusted entry point (`python -m MODULE`: the emulator's compile_job.py, or
listing.py for PTX and SASS) reading JSON from stdin and answering JSON on stdout. Under
bubblewrap it gets the run sandbox's namespaces and seccomp filter (it may start g++ and
nvdisasm: no exec ban here), read-only /usr, the interpreter with the site-packages the tools
need, the builders' files and the emulator's runtime object, a fresh tmpfs as its only writable
place, no network, and limits of its own. No candidate Python runs in it, nothing of it is
reused but the bytes it answers, and it never sees the run's scratch, the task bank or the seed.
"""
from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

from . import cgroups, sandbox, seccomp
from .sandbox import BUBBLEWRAP, GiB, MiB, REPO_ROOT

WORKDIR = "/tmp/kp-compile"
MAX_ANSWER = 256 * MiB
SMALL_INPUT = 16 * 1024    # a job this small is written to the pipe at the start


@dataclass(frozen=True)
class CompileLimits:
    """One job's limits (the wall clock is the caller's: a build's or the listings' budget)."""

    address_space: int = 4 * GiB    # per process: cc1plus on heavy templates
    file_size: int = 256 * MiB
    tmpfs_size: int = 1 * GiB
    open_files: int = 256
    memory: int = 6 * GiB           # the job's cgroup, over all its processes and its tmpfs
    processes: int = 64             # the job's cgroup: g++ with its cc1plus, as and ld


class JobFailed(Exception):
    """The job did not answer: `timed_out` when it ran past its wall clock, `out_of_memory`
    when its cgroup killed it for memory."""

    def __init__(self, why: str, timed_out: bool = False, out_of_memory: bool = False):
        super().__init__(why)
        self.timed_out = timed_out
        self.out_of_memory = out_of_memory


@dataclass(frozen=True)
class JobFiles:
    """What a kind's compile jobs import: repository paths and site-packages entries (globs)."""

    repo: tuple[str, ...] = ()
    site_entries: tuple[str, ...] = ()


def command(module: str, isolation: str, readonly: tuple[str, ...] = (),
            seccomp_fd: int | None = None, limits: CompileLimits = CompileLimits(),
            python: str = sys.executable, files: JobFiles = JobFiles()) -> list[str]:
    """The job's command: under bubblewrap unless the judge runs without a sandbox; only
    `files` of the repository and of site-packages are bound."""
    argv = [python, "-s", "-B", "-m", module]
    if isolation != BUBBLEWRAP:
        return argv
    bwrap = sandbox.bwrap_path() or "bwrap"
    args = sandbox._base_args(bwrap) + sandbox._python_binds(python, files.site_entries)
    for rel in files.repo:
        path = str(REPO_ROOT / rel)
        args += ["--ro-bind", path, path]
    for path in readonly:
        args += ["--ro-bind", path, path]
    args += ["--size", str(limits.tmpfs_size), "--tmpfs", WORKDIR,
             "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", WORKDIR, "--as-pid-1"]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    return args + ["--"] + argv


def _env(isolation: str) -> dict[str, str]:
    work = WORKDIR if isolation == BUBBLEWRAP else None
    env = {k: os.environ[k] for k in ("LANG", "LC_ALL", "KERNELPATH_EMULATOR_CXX", "LD_LIBRARY_PATH")
           if k in os.environ}
    env.update({"PATH": sandbox.SANDBOX_PATH, "PYTHONPATH": str(REPO_ROOT),
                "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1"})
    if work:
        env.update({"HOME": work, "TMPDIR": work})
    return env


def _preexec(limits: CompileLimits, cpu_s: int, group: "cgroups.RunGroup | None"):
    def apply() -> None:
        if group is not None:
            group.attach_self()
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 2))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_size, limits.file_size))
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
        resource.setrlimit(resource.RLIMIT_AS, (limits.address_space, limits.address_space))
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    return apply


def run_job(module: str, job: dict, *, timeout_s: float, isolation: str = BUBBLEWRAP,
            readonly: tuple[str, ...] = (), limits: CompileLimits = CompileLimits(),
            files: JobFiles = JobFiles()) -> dict:
    """Run one job and return its answer; JobFailed when it did not give one."""
    return Job(module, job, timeout_s=timeout_s, isolation=isolation, readonly=readonly,
               limits=limits, files=files).answer()


class Job:
    """One job under way: started at once, its answer read when asked for (`answer`), so the
    parent can go on meanwhile; its wall clock runs from the start."""

    def __init__(self, module: str, job: dict, *, timeout_s: float, isolation: str = BUBBLEWRAP,
                 readonly: tuple[str, ...] = (), limits: CompileLimits = CompileLimits(),
                 files: JobFiles = JobFiles()):
        self.timeout_s = timeout_s
        self.files = files
        self.deadline = time.monotonic() + timeout_s
        self.limits = limits
        self.proc: subprocess.Popen | None = None
        # Where the machine gives the judge cgroups, a job's processes share one memory and
        # process cap (RLIMIT_AS is per process), and killing the job empties the group.
        self.group = cgroups.create(limits.processes, limits.memory)
        try:
            self._start(module, job, isolation, readonly)
        except BaseException:
            self._release()
            raise

    def _start(self, module: str, job: dict, isolation: str, readonly: tuple[str, ...]) -> None:
        limits = self.limits
        filter_r = None
        pass_fds: tuple[int, ...] = ()
        if isolation == BUBBLEWRAP:
            filter_r, filter_w = os.pipe()
            os.write(filter_w, seccomp.program())   # a few hundred bytes: fits the pipe
            os.close(filter_w)
            pass_fds = (filter_r,)
        try:
            self.proc = subprocess.Popen(
                command(module, isolation, readonly, filter_r, limits, files=self.files), stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(isolation),
                pass_fds=pass_fds, start_new_session=True, cwd="/",
                preexec_fn=_preexec(limits, max(1, int(self.timeout_s) + 1), self.group))
        except (OSError, subprocess.SubprocessError) as exc:
            raise JobFailed(f"the compile sandbox did not start: {exc}") from None
        finally:
            if filter_r is not None:
                os.close(filter_r)
        self._input: bytes | None = json.dumps(job).encode()
        if len(self._input) <= SMALL_INPUT:   # fits the pipe: hand it over now, never blocking
            try:
                self.proc.stdin.write(self._input)
                self.proc.stdin.close()
            except OSError:
                pass
            self._input, self.proc.stdin = None, None   # communicate() then only reads

    def answer(self) -> dict:
        proc = self.proc
        try:
            try:
                out, err = proc.communicate(self._input,
                                            timeout=max(self.deadline - time.monotonic(), 0.001))
            except subprocess.TimeoutExpired:
                raise JobFailed(f"took longer than {self.timeout_s:g} s", timed_out=True) from None
            oom = self.group is not None and self.group.oom_killed()
        finally:
            self._release()
        if oom:
            raise JobFailed(f"used more than {self.limits.memory // MiB} MiB of memory",
                            out_of_memory=True)
        if proc.returncode != 0 or len(out) > MAX_ANSWER:
            why = err.decode(errors="replace").strip().splitlines()
            raise JobFailed(f"the compile sandbox failed (exit {proc.returncode}): "
                            f"{why[-1][:300] if why else 'no message'}")
        try:
            answer = json.loads(out)
        except ValueError:
            raise JobFailed("the compile sandbox answered something that is not JSON") from None
        if not isinstance(answer, dict):
            raise JobFailed("the compile sandbox answered something that is not an object")
        return answer

    def cancel(self) -> None:
        self._release()

    def _release(self) -> None:
        """Kill what is left of the job and remove its cgroup."""
        if self.proc is not None:
            _kill(self.proc)
        if self.group is not None:
            self.group.kill(wait_s=2.0)
            self.group.remove()
            self.group = None


def _kill(proc: subprocess.Popen) -> None:
    """bubblewrap and everything in its namespace (--die-with-parent takes the rest)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.communicate(timeout=5)
        except (subprocess.TimeoutExpired, ValueError, OSError):
            pass
