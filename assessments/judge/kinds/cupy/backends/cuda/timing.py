"""The child's side of GPU timing: events around each call, an L2 flush and fresh buffers before it.

The candidate's code runs in this process, so every CUDA entry point the harness uses is captured
by `capture()` when CuPy is imported, before the submission is: rebinding `cupy.cuda.Event` or
`get_elapsed_time` afterwards changes nothing here. What the harness reports is only raw
material: the parent measures the wall time around each batch and decides what to believe.

Per repeat, on the legacy default stream: wait for the previous repeat, reset persisting L2 lines,
copy one input variant into one slot of the buffer pool (outputs back to the sentinel), write the
flush buffer (2x L2), wait for that, record the start event, call solve, record the end event.
The batch ends with a full device synchronize, which waits for work on every stream.
"""
from __future__ import annotations

import ctypes
import gc
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

CUDA_ATTR_L2_CACHE_SIZE = 38               # cudaDevAttrL2CacheSize
CUDA_ATTR_MAX_PERSISTING_L2 = 108          # cudaDevAttrMaxPersistingL2CacheSize
MIN_FLUSH_BYTES = 1 << 20
POOL_FREE_FRACTION = 0.4                   # of the free device memory, for masters + slots


@dataclass(frozen=True)
class GpuApi:
    """References to the real CUDA entry points, taken before any submission code ran."""

    Event: Callable
    elapsed_ms: Callable
    null_stream: Any
    use_null: Callable
    sync_null: Callable
    device_sync: Callable
    memcpy_async: Callable
    memset_async: Callable
    memcpy_d2d: int
    get_device: Callable
    properties: Callable
    attribute: Callable
    driver_version: Callable
    mem_info: Callable
    empty: Callable
    asarray: Callable
    asnumpy: Callable
    clock: Callable
    reset_l2: Callable | None
    reset_l2_via: str


def _l2_reset_function(rt=None) -> tuple[Callable | None, str]:
    """The persisting-L2 reset: CuPy's own binding where it has one, else cudaCtxResetPersistingL2Cache
    from a libcudart CuPy loaded (never a second copy of the runtime), else the driver's
    cuCtxResetPersistingL2Cache on the current (primary) context; None where none is there.

    CuPy 14 links the runtime statically without this call, so on it the driver's is the one used.
    """
    own = getattr(rt, "ctxResetPersistingL2Cache", None)
    if callable(own):
        def reset() -> int:
            own()          # CuPy's bindings raise on error
            return 0
        return reset, "cupy"
    paths = []
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                path = line.rsplit(None, 1)[-1] if "/" in line else ""
                if "libcudart.so" in path and path not in paths:
                    paths.append(path)
    except OSError:
        pass
    for path, symbol, via in [(p, "cudaCtxResetPersistingL2Cache", "runtime") for p in paths] + \
            [("libcuda.so.1", "cuCtxResetPersistingL2Cache", "driver")]:
        try:
            fn = getattr(ctypes.CDLL(path), symbol)
        except (OSError, AttributeError):
            continue
        fn.restype, fn.argtypes = ctypes.c_int, []
        return fn, via
    return None, "unsupported"


def capture(cp) -> GpuApi:
    """Take the references; called by the child right after importing CuPy."""
    rt = cp.cuda.runtime
    null = cp.cuda.Stream.null
    reset, via = _l2_reset_function(rt)
    return GpuApi(
        Event=cp.cuda.Event, elapsed_ms=cp.cuda.get_elapsed_time, null_stream=null,
        use_null=null.use, sync_null=null.synchronize, device_sync=rt.deviceSynchronize,
        memcpy_async=rt.memcpyAsync, memset_async=rt.memsetAsync,
        memcpy_d2d=int(rt.memcpyDeviceToDevice), get_device=rt.getDevice,
        properties=rt.getDeviceProperties, attribute=rt.deviceGetAttribute,
        driver_version=rt.driverGetVersion, mem_info=rt.memGetInfo, empty=cp.empty,
        asarray=cp.asarray, asnumpy=cp.asnumpy, clock=time.perf_counter, reset_l2=reset,
        reset_l2_via=via)


def _nothing(*args) -> None:
    """The empty solve: what a repeat costs without any work, measured the same way."""


class Harness:
    """A pool of input/output slots, a flush buffer, events, and batches of timed calls."""

    def __init__(self, api: GpuApi, solve: Callable):
        self.api = api
        self.solve = solve
        self.names: list[str] = []
        self.masters: list[dict] = []
        self.slots: list[dict] = []
        self.args: list[list[list]] = []          # [slot][variant] -> solve's arguments
        self.copies: list[list[list]] = []        # [slot][variant] -> (dst, src, nbytes)
        self.events: list[tuple] = []
        self.flush = None
        self.flush_bytes = 0
        self.reset_l2: Callable | None = None

    # -- setup ---------------------------------------------------------------------------------
    def setup(self, variants: list[tuple[dict, list]], slots: int, pool_bytes: int) -> dict:
        """Place every variant once (masters), then as many slots as fit (at least one)."""
        api = self.api
        dev = int(api.get_device())
        self.names = [spec["array"] for spec in variants[0][1] if "array" in spec]
        for arrays, _ in variants:
            self.masters.append({name: api.asarray(arrays[name]) for name in self.names})
        copy_bytes = sum(int(a.nbytes) for a in self.masters[0].values())
        free, _total = api.mem_info()
        budget = min(int(pool_bytes), int(free * POOL_FREE_FRACTION))
        wanted = max(1, min(int(slots), budget // max(copy_bytes, 1)))
        l2 = self._attribute(CUDA_ATTR_L2_CACHE_SIZE, dev)
        self.flush_bytes = max(2 * l2, MIN_FLUSH_BYTES)
        self.flush = api.empty((self.flush_bytes,), dtype="uint8")
        for _ in range(wanted):
            try:
                self.slots.append({name: api.empty(m.shape, dtype=m.dtype)
                                   for name, m in self.masters[0].items()})
            except Exception:
                if not self.slots:
                    raise
                break   # memory is short: fewer slots, still at least one
        for slot in self.slots:
            self.args.append([self._bind(slot, scalars) for _, scalars in variants])
            self.copies.append([[(int(slot[n].data.ptr), int(m[n].data.ptr), int(m[n].nbytes))
                                 for n in self.names if int(m[n].nbytes)] for m in self.masters])
        persisting = self._persisting_l2(dev)
        api.device_sync()
        props = api.properties(dev)
        name = props.get("name", b"GPU")
        return {"device": name.decode(errors="replace") if isinstance(name, bytes) else str(name),
                "driver": int(api.driver_version()), "l2_bytes": l2, "flush_bytes": self.flush_bytes,
                "slots": len(self.slots), "variants": len(self.masters), "copy_bytes": copy_bytes,
                "persisting_l2_reset": persisting}

    def _attribute(self, attr: int, dev: int) -> int:
        try:
            return int(self.api.attribute(attr, dev))
        except Exception:
            return 0

    def _bind(self, slot: dict, scalars: list) -> list:
        return [slot[spec["array"]] if "array" in spec else spec["scalar"] for spec in scalars]

    def _persisting_l2(self, dev: int) -> str:
        """Use the reset only where the device has persisting lines and one trial call succeeds."""
        fn = self.api.reset_l2
        if fn is None:
            return "unsupported (no entry point)"
        if self._attribute(CUDA_ATTR_MAX_PERSISTING_L2, dev) <= 0:
            return "unsupported (device)"
        try:
            rc = int(fn())
        except Exception as exc:
            return f"unsupported ({type(exc).__name__})"
        if rc != 0:
            return f"unsupported (error {rc})"
        self.reset_l2 = fn
        return self.api.reset_l2_via

    # -- batches -------------------------------------------------------------------------------
    def batch(self, plan: list[tuple[int, int]], empty: bool = False) -> dict:
        """Run one repeat per (slot, variant) in `plan`; event times in milliseconds."""
        api = self.api
        k, m = len(self.slots), len(self.masters)
        if not plan or any(not (0 <= s < k and 0 <= v < m) for s, v in plan):
            raise ValueError("timing plan names a slot or variant that does not exist")
        while len(self.events) < len(plan):
            self.events.append((api.Event(), api.Event()))
        fn = _nothing if empty else self.solve
        flush_ptr = int(self.flush.data.ptr)
        # A collection triggered by solve's allocations would pause outside the events; cycles
        # wait until the batch is over (most objects go at once by reference counting anyway).
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._run(plan, fn, flush_ptr)
        finally:
            if collecting:
                gc.enable()

    def _run(self, plan, fn, flush_ptr: int) -> dict:
        api = self.api
        began = api.clock()
        for i, (slot, variant) in enumerate(plan):
            api.use_null()       # solve may have made another stream current
            api.sync_null()      # the previous repeat is over before its L2 state is reset
            if self.reset_l2 is not None:
                self.reset_l2()
            for dst, src, nbytes in self.copies[slot][variant]:
                api.memcpy_async(dst, src, nbytes, api.memcpy_d2d, 0)
            api.memset_async(flush_ptr, i % 251 + 1, self.flush_bytes, 0)
            # The device is idle when the start event is taken, so the events cover the whole
            # call, launch overhead included, and nothing of it can hide behind the flush.
            api.sync_null()
            start, end = self.events[i]
            start.record(api.null_stream)
            fn(*self.args[slot][variant])
            end.record(api.null_stream)
        api.device_sync()
        child_wall = api.clock() - began
        times = [float(api.elapsed_ms(s, e)) for s, e in self.events[: len(plan)]]
        return {"events_ms": times, "child_wall_s": child_wall}

    def fetch(self, slot: int) -> dict:
        """Host copies of one slot's arrays, as the last repeat on it left them."""
        if not 0 <= slot < len(self.slots):
            raise ValueError("no such slot")
        self.api.device_sync()
        return {name: np.asarray(self.api.asnumpy(arr)) for name, arr in self.slots[slot].items()}
