"""The stand-in's profiling mode: while the judge's child profiles `solve` at the benchmark size,
every kernel launch runs a sample of its blocks in the emulator's instrumented build and keeps
the counters, and array-level operations and host transfers are noted with their bytes (each
is one or more CuPy kernels, or a copy over the host link, on a GPU)."""
from __future__ import annotations

import threading

import numpy

MAX_PROFILED = 48          # launches profiled in full; the rest repeat a profiled one or are noted
MAX_NOTED = 4096           # array operations and transfers kept, after which they are only counted

_state = threading.local()
_active: list = []         # the running profile's record (one at a time: the child is single)


class Recorder:
    """What one profiled call of `solve` did, in launch order."""

    def __init__(self):
        self.launches: list[dict] = []
        self.array_ops: list[dict] = []
        self.transfers: list[dict] = []
        self.unprofiled = 0
        self.noted_beyond = 0
        self.sources: dict[str, str] = {}   # module file -> the CUDA source it was built from

    def __enter__(self):
        _active[:] = [self]
        return self

    def __exit__(self, *exc):
        _active[:] = []
        return False

    def result(self) -> dict:
        return {"launches": self.launches, "array_ops": self.array_ops, "transfers": self.transfers,
                "unprofiled_launches": self.unprofiled, "noted_beyond": self.noted_beyond,
                "sources": self.sources}


def active() -> Recorder | None:
    return _active[0] if _active else None


def launch(record, function, name: str, grid, block, args, shared_mem: int, timeout_s) -> None:
    """Profile the launch (or repeat an identical one's counters), then keep its row."""
    rec = _active[0]
    key = getattr(record, "key", name)
    row = {"kernel": name, "record": key, "grid": list(grid), "block": list(block),
           "shared_mem": int(shared_mem)}
    for earlier in rec.launches:
        if all(earlier[k] == row[k] for k in ("record", "grid", "block", "shared_mem")) \
                and "counters" in earlier:
            function.launch(grid, block, args, shared_mem, checking=False, timeout_s=timeout_s)
            earlier["repeats"] = earlier.get("repeats", 1) + 1
            return
    if len(rec.launches) >= MAX_PROFILED:
        function.launch(grid, block, args, shared_mem, checking=False, timeout_s=timeout_s)
        rec.unprofiled += 1
        return
    row["counters"] = counters = function.profile(grid, block, args, shared_mem, timeout_s=timeout_s)
    row["repeats"] = 1
    rec.sources.setdefault(counters["module"], function.module.source)
    rec.launches.append(row)


def _nbytes(x) -> int:
    return int(x.nbytes) if isinstance(x, numpy.ndarray) else 0


class array_op:
    """Context for one array-level operation: noted once, however many numpy calls it makes."""

    def __init__(self, name: str, inputs, kwargs=None):
        self.name = name
        self.inputs = list(inputs) + list((kwargs or {}).values())

    def __enter__(self):
        self.outer = not getattr(_state, "depth", 0)
        _state.depth = getattr(_state, "depth", 0) + 1
        return self

    def done(self, result) -> None:
        rec = active()
        if rec is None or not self.outer:
            return
        outs = result if isinstance(result, (tuple, list)) else (result,)
        row = {"op": self.name, "bytes_in": sum(_nbytes(x) for x in self.inputs),
               "bytes_out": sum(_nbytes(x) for x in outs),
               "shapes": [list(x.shape) for x in self.inputs if isinstance(x, numpy.ndarray)][:4]}
        _note(rec.array_ops, row)

    def __exit__(self, *exc):
        _state.depth -= 1
        return False


def library_op(name: str, bytes_in: int, bytes_out: int) -> None:
    """An operation CuPy runs with its own tuned kernels (a ReductionKernel): noted by its bytes."""
    rec = active()
    if rec is not None and not getattr(_state, "depth", 0):
        _note(rec.array_ops, {"op": name, "bytes_in": int(bytes_in), "bytes_out": int(bytes_out),
                              "shapes": []})


def transfer(direction: str, nbytes: int) -> None:
    """A copy between host and device memory: `h2d` or `d2h`."""
    rec = active()
    if rec is not None and not getattr(_state, "depth", 0):
        _note(rec.transfers, {"direction": direction, "bytes": int(nbytes)})


def _note(rows: list, row: dict) -> None:
    rec = _active[0]
    if len(rec.array_ops) + len(rec.transfers) < MAX_NOTED:
        rows.append(row)
    else:
        rec.noted_beyond += 1
