"""The device's measured peaks (copy bandwidth, cuBLAS FP32, TF32 and BF16 rates), cached per
device.

Run as `python -m assessments.judge.kinds.cupy.timing.peaks [--refresh]`: a trusted process of its own (no
submission in it) that measures once per device name + driver and keeps the result in
`<cache dir>/kernelpath/gpu_peaks.json`. The judge's parent asks it through `for_device()`, so
the parent itself never imports CuPy. `Peaks` is what the roofline (roofline.py) is drawn with.
"""
from __future__ import annotations

import argparse
import fcntl
import json
import math
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

CACHE_ENV = "KERNELPATH_GPU_CACHE"
CACHE_FILE = "gpu_peaks.json"
COPY_BYTES = 1 << 30
GEMM_N = 8192
REPEATS = 10
TENSOR_BOUND_RATIO = 16
_MEMO: dict[str, "Peaks"] = {}

_FMA_KERNEL = r'''
extern "C" __global__ void kp_fma_peak(float* out, int iters, float seed) {
    float a0 = seed + threadIdx.x, a1 = a0 + 1.0f, a2 = a0 + 2.0f, a3 = a0 + 3.0f;
    float a4 = a0 + 4.0f, a5 = a0 + 5.0f, a6 = a0 + 6.0f, a7 = a0 + 7.0f;
    const float m = 0.99999f, c = 1.0e-6f;
    for (int i = 0; i < iters; ++i) {
        #pragma unroll
        for (int j = 0; j < 16; ++j) {
            a0 = fmaf(a0, m, c); a1 = fmaf(a1, m, c); a2 = fmaf(a2, m, c); a3 = fmaf(a3, m, c);
            a4 = fmaf(a4, m, c); a5 = fmaf(a5, m, c); a6 = fmaf(a6, m, c); a7 = fmaf(a7, m, c);
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
'''


@dataclass(frozen=True)
class Peaks:
    """Peak memory bandwidth and arithmetic throughput the roofline is drawn with."""

    name: str
    bandwidth_bytes_s: float
    flops_s: float                       # FP32 (cuBLAS SGEMM): the roofline the score is drawn with
    measured: bool = False
    # Fastest arithmetic on float32 inputs (TF32 tensor cores): only the physical floor uses it,
    # since a kernel may legitimately beat the FP32 rate where its task tolerates TF32.
    tensor_flops_s: float | None = None
    source: str = "datasheet"

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    @property
    def fastest_flops_s(self) -> float:
        return max(self.flops_s, self.tensor_flops_s or 0.0)


# Datasheet figures for the H100 SXM5 (HBM3; FP32 and dense TF32) until measured ones replace them.
H100_NOMINAL = Peaks("H100 SXM (nominal)", 3.35e12, 66.9e12, tensor_flops_s=494.7e12)


def cache_dir() -> Path:
    """Per-user cache dir (the judge's child never writes here: only this trusted process does)."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "kernelpath"


def device_key(name: str, driver: str) -> str:
    return f"{name.strip()}|driver {driver.strip()}"


def load_cache(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def store(path: Path, key: str, entry: dict) -> None:
    """Merge one entry into the cache under an exclusive lock, replacing the file atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = load_cache(path)
        data[key] = entry
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True))
        os.replace(tmp, path)


# -- measuring (GPU) ----------------------------------------------------------------------------
def _best_seconds(cp, fn, repeats: int = REPEATS, warmup: int = 2) -> float:
    """Shortest of `repeats` event-timed runs: peaks are maxima, so the best run is the estimate."""
    for _ in range(warmup):
        fn()
    cp.cuda.runtime.deviceSynchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    best = math.inf
    for _ in range(repeats):
        start.record()
        fn()
        end.record()
        end.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(start, end) / 1e3)
    return best


def _copy_bandwidth(cp, free: int) -> float:
    n = int(min(COPY_BYTES, free // 6)) & ~0xFFF
    src, dst = cp.empty(n, dtype=cp.uint8), cp.empty(n, dtype=cp.uint8)
    src.fill(1)
    rt = cp.cuda.runtime

    def copy():
        rt.memcpyAsync(dst.data.ptr, src.data.ptr, n, rt.memcpyDeviceToDevice,
                       cp.cuda.get_current_stream().ptr)
    seconds = _best_seconds(cp, copy)   # the buffers go with this frame
    return 2.0 * n / seconds   # every byte is read once and written once


def _gemm_rate(cp, free: int, tf32: bool) -> float:
    import numpy as np
    from cupy._core import _routines_linalg as linalg
    n = GEMM_N
    while n > 1024 and 3 * n * n * 4 > free // 2:
        n //= 2
    idx = cp.arange(n * n, dtype=cp.uint32)
    # Varied, bounded values: all-zero operands draw less power and would overstate the rate.
    a = (((idx * np.uint32(2654435761)) % np.uint32(2001)).astype(cp.float32) / 1000.0 - 1.0).reshape(n, n)
    b = a.T.copy()
    c = cp.empty((n, n), dtype=cp.float32)
    del idx
    old = linalg.get_compute_type(np.float32)
    linalg.set_compute_type(np.float32, linalg.COMPUTE_TYPE_TF32 if tf32 else linalg.COMPUTE_TYPE_FP32)
    try:
        seconds = _best_seconds(cp, lambda: cp.matmul(a, b, out=c), repeats=5)
    finally:
        linalg.set_compute_type(np.float32, old)
    return 2.0 * n ** 3 / seconds


def _bf16_rate(cp, free: int) -> float:
    """Dense BF16 tensor-core rate (cuBLAS GemmEx, BF16 operands and output, FP32 accumulate):
    reported beside the datasheet, not used by the roofline (the tasks' data is float32)."""
    import numpy as np
    from cupy_backends.cuda.libs import cublas
    n = GEMM_N
    while n > 1024 and 3 * n * n * 2 > free // 2:
        n //= 2
    idx = cp.arange(n * n, dtype=cp.uint32)
    a32 = ((idx * np.uint32(2654435761)) % np.uint32(2001)).astype(cp.float32) / 1000.0 - 1.0
    a = (a32.view(cp.uint32) >> 16).astype(cp.uint16)   # bfloat16: the top half of a float32
    b = a.copy()
    c = cp.empty(n * n, dtype=cp.uint16)
    del idx, a32
    alpha, beta = np.ones(1, np.float32), np.zeros(1, np.float32)
    handle = cp.cuda.device.get_cublas_handle()
    bf16, compute_32f, default_algo = 14, 68, -1     # CUDA_R_16BF, CUBLAS_COMPUTE_32F
    seconds = _best_seconds(cp, lambda: cublas.gemmEx(
        handle, 0, 0, n, n, n, alpha.ctypes.data, a.data.ptr, bf16, n, b.data.ptr, bf16, n,
        beta.ctypes.data, c.data.ptr, bf16, n, compute_32f, default_algo), repeats=5)
    return 2.0 * n ** 3 / seconds


def _fma_rate(cp) -> float:
    """FP32 rate of independent FMA chains: the fallback where cuBLAS is not installed."""
    kernel = cp.RawKernel(_FMA_KERNEL, "kp_fma_peak")
    sms = int(cp.cuda.Device().attributes.get("MultiProcessorCount", 132))
    blocks, threads, iters = sms * 16, 256, 4096
    out = cp.empty(blocks * threads, dtype=cp.float32)
    seconds = _best_seconds(cp, lambda: kernel((blocks,), (threads,),
                                               (out, cp.int32(iters), cp.float32(1.0))))
    return 2.0 * 8 * 16 * iters * blocks * threads / seconds


def identify(cp) -> dict:
    """Name, driver version and what the key is made of, read through CuPy."""
    rt = cp.cuda.runtime
    dev = cp.cuda.Device()
    props = rt.getDeviceProperties(dev.id)
    name = props.get("name", b"GPU")
    name = name.decode(errors="replace") if isinstance(name, bytes) else str(name)
    from . import nvml
    # NVML's driver string tells driver builds apart; the CUDA version is the fallback.
    driver = nvml.driver_version() or f"cuda {rt.driverGetVersion()}"
    return {"name": name, "driver": driver, "compute_capability": str(dev.compute_capability),
            "key": device_key(name, driver)}


def measure(cp) -> dict:
    """Measure the peaks on the current device (takes a few seconds)."""
    free, _total = cp.cuda.runtime.memGetInfo()
    entry = identify(cp)
    entry["bandwidth_bytes_s"] = _copy_bandwidth(cp, free)
    notes = []
    try:
        entry["flops_s"] = _gemm_rate(cp, free, tf32=False)
        entry["flops_method"] = "cublas_sgemm"
    except Exception as exc:  # cuBLAS missing or refusing: an FMA kernel gives the FP32 rate
        notes.append(f"sgemm: {type(exc).__name__}: {exc}")
        entry["flops_s"] = _fma_rate(cp)
        entry["flops_method"] = "fma_kernel"
    try:
        entry["tensor_flops_s"] = _gemm_rate(cp, free, tf32=True)
    except Exception as exc:
        notes.append(f"tf32: {type(exc).__name__}: {exc}")
        entry["tensor_flops_s"] = None
    try:
        entry["bf16_flops_s"] = _bf16_rate(cp, free)
    except Exception as exc:
        notes.append(f"bf16: {type(exc).__name__}: {exc}")
        entry["bf16_flops_s"] = None
    entry["measured_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    entry["notes"] = notes
    cp.get_default_memory_pool().free_all_blocks()
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="assessments.judge.kinds.cupy.timing.peaks")
    parser.add_argument("--refresh", action="store_true", help="measure even if cached")
    args = parser.parse_args(argv)
    import cupy as cp
    path = cache_dir() / CACHE_FILE
    ident = identify(cp)
    entry = None if args.refresh else load_cache(path).get(ident["key"])
    if not isinstance(entry, dict) or not entry.get("bandwidth_bytes_s"):
        entry = measure(cp)
        store(path, ident["key"], entry)
    print(json.dumps({**entry, "key": ident["key"], "cache": str(path)}))
    return 0


# -- the parent's side (no CuPy) ----------------------------------------------------------------
def from_entry(entry: dict) -> Peaks:
    """Peaks from a cache entry. Without a measured TF32 rate the floor assumes tensor
    cores up to TENSOR_BOUND_RATIO x FP32 (H100: about 7x), so a legitimate TF32 kernel is never
    taken for a forged time."""
    flops = float(entry["flops_s"])
    tensor = entry.get("tensor_flops_s")
    how = entry.get("flops_method", "cublas_sgemm")
    if not tensor:
        tensor, how = flops * TENSOR_BOUND_RATIO, f"{how}, TF32 assumed {TENSOR_BOUND_RATIO}x"
    return Peaks(name=str(entry.get("name", "GPU")), bandwidth_bytes_s=float(entry["bandwidth_bytes_s"]),
                 flops_s=flops, measured=True, tensor_flops_s=float(tensor),
                 source=f"measured ({how}, {entry.get('key', '')})")


def for_device(token: str = "0", timeout_s: float = 600.0) -> Peaks:
    """Measured peaks of the GPU the child will use, once per process; the datasheet H100 figures
    marked unmeasured when measuring fails (the timing is then flagged for review)."""
    if token in _MEMO:
        return _MEMO[token]
    root = Path(__file__).resolve().parents[5]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        p = subprocess.run([sys.executable, "-m", "assessments.judge.kinds.cupy.timing.peaks"],
                           cwd=str(root), env=env, capture_output=True, text=True, timeout=timeout_s)
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
        if p.returncode != 0 or not lines:
            raise RuntimeError((p.stderr or p.stdout).strip().splitlines()[-1:] or ["no output"])
        peaks = from_entry(json.loads(lines[-1]))
    except Exception as exc:
        # Remembered as well: a worker should not pay a failing measurement on every submission.
        why = f"{type(exc).__name__}: {exc}"[:200]
        peaks = Peaks(**{**H100_NOMINAL.to_dict(), "source": f"datasheet (measuring failed: {why})"})
    _MEMO[token] = peaks
    return peaks


if __name__ == "__main__":
    sys.exit(main())
