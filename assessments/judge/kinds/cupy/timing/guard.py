"""One submission on a GPU at a time: a machine-wide lock per GPU, and waiting for it to be idle.

The lock is an flock on `/tmp/kernelpath-gpu-<id>.lock` (or under KERNELPATH_GPU_LOCK_DIR), held
by the parent for the whole life of a cuda child and around measuring the peaks, so two workers
never share a GPU while either is running or timing. Before timing, the parent also waits
(bounded) until NVML reports the GPU idle, which covers work from outside the judge.
"""
from __future__ import annotations

import fcntl
import os
import re
import time

from . import nvml

LOCK_DIR_ENV = "KERNELPATH_GPU_LOCK_DIR"
LOCK_TIMEOUT_ENV = "KERNELPATH_GPU_LOCK_TIMEOUT_S"
DEFAULT_LOCK_TIMEOUT_S = 900.0
IDLE_THRESHOLD_PCT = 10
IDLE_MAX_WAIT_S = 30.0
IDLE_READINGS = 2        # consecutive low readings: one sample period can straddle a finished kernel
IDLE_POLL_S = 0.2


def gpu_token(environ=None) -> str:
    """The GPU the child will see as device 0: the first CUDA_VISIBLE_DEVICES entry, else '0'."""
    env = os.environ if environ is None else environ
    first = (env.get("CUDA_VISIBLE_DEVICES") or "0").split(",")[0].strip() or "0"
    return re.sub(r"[^A-Za-z0-9_.-]", "_", first)[:80]


def lock_path(token: str) -> str:
    directory = os.environ.get(LOCK_DIR_ENV) or "/tmp"
    return os.path.join(directory, f"kernelpath-gpu-{token}.lock")


class GpuLock:
    """Exclusive flock on the GPU's lock file, waited for up to `timeout_s`.

    Opened read-only: flock needs no write access, so workers running as different users can
    share a lock file one of them created.
    """

    def __init__(self, token: str | None = None, timeout_s: float | None = None, poll_s: float = 0.05):
        self.token = token or gpu_token()
        env_timeout = os.environ.get(LOCK_TIMEOUT_ENV)
        self.timeout_s = float(timeout_s if timeout_s is not None else env_timeout or DEFAULT_LOCK_TIMEOUT_S)
        self.poll_s = poll_s
        self.fd: int | None = None
        self.info: dict = {"lock": "not_taken", "lock_waited_s": 0.0, "gpu": self.token}

    def acquire(self) -> dict:
        path = lock_path(self.token)
        began = time.monotonic()
        try:
            self.fd = os.open(path, os.O_RDONLY | os.O_CREAT, 0o666)
        except OSError as exc:
            self.info.update(lock="unavailable", lock_error=f"{type(exc).__name__}: {exc}"[:200])
            return self.info
        try:
            os.fchmod(self.fd, 0o666)   # umask would keep other users out of a file we created
        except OSError:
            pass
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self.info.update(lock="held")
                break
            except BlockingIOError:
                if time.monotonic() - began >= self.timeout_s:
                    os.close(self.fd)
                    self.fd = None
                    self.info.update(lock="timed_out")
                    break
                time.sleep(self.poll_s)
        self.info["lock_waited_s"] = round(time.monotonic() - began, 3)
        return self.info

    @property
    def exclusive(self) -> bool:
        return self.info.get("lock") == "held"

    def release(self) -> None:
        if self.fd is not None:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            finally:
                os.close(self.fd)
                self.fd = None

    def __enter__(self) -> "GpuLock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def wait_until_idle(token: str | None = None, *, threshold_pct: int = IDLE_THRESHOLD_PCT,
                    max_wait_s: float = IDLE_MAX_WAIT_S, readings: int = IDLE_READINGS,
                    poll_s: float = IDLE_POLL_S, read=None, clock=time.monotonic,
                    sleep=time.sleep) -> dict:
    """Poll utilization until `readings` in a row are at most `threshold_pct`, for at most
    `max_wait_s`; what was seen and waited goes into the report. No NVML: nothing to wait for."""
    token = token or gpu_token()
    real = read is None
    read = read or (lambda: nvml.utilization(token))
    first = read()
    if first is None:
        return {"nvml": False, "idle": True, "idle_waited_s": 0.0,
                "utilization_before_pct": None, "utilization_after_pct": None}
    began = clock()
    last, low = first, 0
    while True:
        low = low + 1 if last is not None and last <= threshold_pct else 0
        if low >= readings:
            idle = True
            break
        if clock() - began >= max_wait_s:
            idle = False
            break
        sleep(poll_s)
        last = read()
    info = {"nvml": True, "idle": idle, "idle_waited_s": round(clock() - began, 3),
            "utilization_before_pct": first, "utilization_after_pct": last,
            "idle_threshold_pct": threshold_pct}
    if real:
        procs = nvml.compute_processes(token)
        if procs is not None:
            info["compute_processes"] = procs
    return info
