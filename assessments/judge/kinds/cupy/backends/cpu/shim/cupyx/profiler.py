"""cupyx.profiler on the CPU backend: `benchmark`, `time_range` and `profile`, so a submission
that imports them loads. Times are the host's (there is no GPU); `gpu_times` repeats them."""
import contextlib
import time

import numpy as _numpy


class _PerfCaseResult:
    def __init__(self, name, cpu_times):
        self.name = name
        self.cpu_times = _numpy.asarray(cpu_times, dtype=_numpy.float64)
        self.gpu_times = self.cpu_times.reshape(1, -1).copy()
        self.devices = (0,)

    def __repr__(self):
        t = self.cpu_times * 1e6
        return (f"{self.name:<20s}:    CPU: {t.mean():9.3f} us   +/- {t.std():7.3f} "
                f"(min: {t.min():9.3f} / max: {t.max():9.3f}) us")

    to_str = __repr__


def benchmark(func, args=(), kwargs=None, n_repeat=10000, *, name=None, n_warmup=10,
              max_duration=float("inf"), devices=None):
    kwargs = kwargs or {}
    for _ in range(n_warmup):
        func(*args, **kwargs)
    times, began = [], time.perf_counter()
    for _ in range(n_repeat):
        t0 = time.perf_counter()
        func(*args, **kwargs)
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - began >= max_duration:
            break
    return _PerfCaseResult(name or getattr(func, "__name__", "benchmark"), times)


class time_range(contextlib.ContextDecorator):
    """An NVTX range on a GPU; nothing here."""

    def __init__(self, message=None, color_id=None, argb_color=None, sync=False):
        self.message = message

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@contextlib.contextmanager
def profile():
    yield
