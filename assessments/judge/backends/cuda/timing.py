"""First timing of solve() on the GPU: CUDA events after warm-up, median of repeats."""
from __future__ import annotations

import statistics
import time


def time_solve(cp, solve, args, *, warmup: int = 3, repeats: int = 20, budget_s: float = 10.0) -> dict:
    """Per-repeat milliseconds of solve(*args), stopping early once `budget_s` of wall time is spent."""
    device = cp.cuda.Device()
    for _ in range(max(warmup, 1)):
        solve(*args)
    device.synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    began = time.perf_counter()
    for _ in range(max(repeats, 1)):
        start.record()
        solve(*args)
        end.record()
        end.synchronize()
        times.append(float(cp.cuda.get_elapsed_time(start, end)))
        if time.perf_counter() - began > budget_s and len(times) >= 3:
            break
    wall_ms = (time.perf_counter() - began) * 1e3 / len(times)
    props = cp.cuda.runtime.getDeviceProperties(device.id)
    name = props.get("name", b"GPU")
    return {
        "times_ms": times, "median_ms": statistics.median(times), "min_ms": min(times),
        "max_ms": max(times), "wall_ms_per_repeat": wall_ms, "warmup": warmup,
        "device": name.decode() if isinstance(name, bytes) else str(name),
    }
