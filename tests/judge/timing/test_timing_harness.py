"""The child's harness against a recording stand-in for the captured CUDA API (no CuPy here)."""
from __future__ import annotations

import numpy as np
import pytest

from assessments.judge.kinds.cupy.backends.cuda import timing


class _Arr:
    """A 'device' array: numpy storage, a stable address."""

    def __init__(self, a, registry):
        self.a = a
        self.nbytes, self.shape, self.dtype = a.nbytes, a.shape, a.dtype
        self.data = type("Mem", (), {"ptr": a.__array_interface__["data"][0]})()
        registry[self.data.ptr] = a


class _Event:
    def __init__(self, api):
        self.api, self.t = api, None

    def record(self, stream=None):
        assert stream is self.api.null
        self.t = self.api.now
        self.api.log.append("record")


class FakeApi:
    """Builds a timing.GpuApi whose entry points log what they are asked to do."""

    def __init__(self, l2=1024, persisting=0, reset_rc=0, free=1 << 30, fail_alloc_after=None):
        self.log, self.now, self.mem = [], 0.0, {}
        self.null = object()
        self.l2, self.persisting, self.reset_rc, self.free = l2, persisting, reset_rc, free
        self.fail_alloc_after, self.allocs = fail_alloc_after, 0

    def _empty(self, shape, dtype):
        self.allocs += 1
        if self.fail_alloc_after is not None and self.allocs > self.fail_alloc_after:
            raise MemoryError("out of device memory")
        return _Arr(np.empty(shape, dtype), self.mem)

    def _memcpy(self, dst, src, n, kind, stream):
        assert kind == 3 and stream == 0
        self.mem[dst].view(np.uint8).reshape(-1)[:n] = self.mem[src].view(np.uint8).reshape(-1)[:n]
        self.log.append("copy")

    def _memset(self, ptr, value, n, stream):
        assert stream == 0 and n >= 2 * self.l2
        self.log.append("flush")

    def _reset(self):
        self.log.append("reset")
        return self.reset_rc

    def _attr(self, attr, dev):
        return {timing.CUDA_ATTR_L2_CACHE_SIZE: self.l2, timing.CUDA_ATTR_MAX_PERSISTING_L2: self.persisting}[attr]

    def api(self, with_reset=True) -> timing.GpuApi:
        return timing.GpuApi(
            Event=lambda: _Event(self), elapsed_ms=lambda s, e: (e.t - s.t) * 1e3, null_stream=self.null,
            use_null=lambda: self.log.append("use_null"), sync_null=lambda: self.log.append("sync"),
            device_sync=lambda: self.log.append("device_sync"), memcpy_async=self._memcpy,
            memset_async=self._memset, memcpy_d2d=3, get_device=lambda: 0,
            properties=lambda d: {"name": b"Fake"}, attribute=self._attr, driver_version=lambda: 13000,
            mem_info=lambda: (self.free, 2 * self.free), empty=self._empty,
            asarray=lambda a: _Arr(np.array(a, copy=True), self.mem), asnumpy=lambda x: x.a.copy(),
            clock=lambda: self.now, reset_l2=self._reset if with_reset else None, reset_l2_via="driver")


SPECS = [{"array": "a"}, {"array": "c"}, {"scalar": 4}]


def _variants(*values):
    return [({"a": np.full(4, v, np.float32), "c": np.full(4, np.nan, np.float32)},
             [{"array": "a"}, {"array": "c"}, {"scalar": 4 + i}]) for i, v in enumerate(values)]


def test_setup_places_masters_slots_and_flush():
    fake = FakeApi(l2=4096)
    h = timing.Harness(fake.api(), lambda *a: None)
    info = h.setup(_variants(1.0, 2.0, 3.0), slots=4, pool_bytes=1 << 20)
    assert info == {"device": "Fake", "driver": 13000, "l2_bytes": 4096, "flush_bytes": 1 << 20,
                    "slots": 4, "variants": 3, "copy_bytes": 32,
                    "persisting_l2_reset": "unsupported (device)"}
    # Every slot has its own addresses, apart from the masters.
    ptrs = {arr.data.ptr for slot in h.slots for arr in slot.values()}
    assert len(ptrs) == 8 and not ptrs & {m[n].data.ptr for m in h.masters for n in m}
    assert h.args[2][1][2] == 5            # scalars come from the variant


def test_each_repeat_resets_copies_flushes_then_times_solve():
    fake = FakeApi(persisting=1 << 20)
    calls = []

    def solve(a, c, n):
        fake.log.append("solve")
        fake.now += 0.002
        calls.append((a.data.ptr, float(a.a[0]), n))
        c.a[:] = a.a + 1

    h = timing.Harness(fake.api(), solve)
    assert h.setup(_variants(1.0, 2.0), slots=2, pool_bytes=1 << 20)["persisting_l2_reset"] == "driver"
    fake.log.clear()
    out = h.batch([(0, 1), (1, 0), (0, 0)])
    one = ["use_null", "sync", "reset", "copy", "copy", "flush", "sync", "record", "solve", "record"]
    assert fake.log == one * 3 + ["device_sync"]
    assert out["events_ms"] == pytest.approx([2.0, 2.0, 2.0])
    assert [c[1:] for c in calls] == [(2.0, 5), (1.0, 4), (1.0, 4)]
    assert calls[0][0] == calls[2][0] != calls[1][0]
    assert h.fetch(0)["c"].tolist() == [2.0] * 4 and h.fetch(1)["a"].tolist() == [1.0] * 4


def test_empty_batch_runs_the_same_steps_without_solve():
    fake = FakeApi()
    h = timing.Harness(fake.api(with_reset=False), lambda *a: pytest.fail("solve called"))
    h.setup(_variants(1.0), slots=1, pool_bytes=1 << 20)
    fake.log.clear()
    assert h.batch([(0, 0)] * 2, empty=True)["events_ms"] == [0.0, 0.0]
    assert fake.log == ["use_null", "sync", "copy", "copy", "flush", "sync", "record", "record"] * 2 + [
        "device_sync"]


def test_persisting_reset_is_dropped_where_it_fails():
    fake = FakeApi(persisting=1 << 20, reset_rc=801)
    h = timing.Harness(fake.api(), lambda *a: None)
    assert h.setup(_variants(1.0), 1, 1 << 20)["persisting_l2_reset"] == "unsupported (error 801)"
    fake.log.clear()
    h.batch([(0, 0)])
    assert "reset" not in fake.log
    h2 = timing.Harness(FakeApi(persisting=1 << 20).api(with_reset=False), lambda *a: None)
    assert h2.setup(_variants(1.0), 1, 1 << 20)["persisting_l2_reset"] == "unsupported (no entry point)"


def test_pool_shrinks_to_what_fits():
    # 32 bytes a copy; 40% of 200 bytes free leaves room for 2 of the 8 slots asked for.
    fake = FakeApi(free=200)
    h = timing.Harness(fake.api(), lambda *a: None)
    assert h.setup(_variants(1.0), slots=8, pool_bytes=1 << 20)["slots"] == 2
    # Allocations: the flush buffer, then two arrays a slot. Failing in the first slot is an
    # error; failing later keeps the slots made so far.
    fake = FakeApi(fail_alloc_after=2)
    h = timing.Harness(fake.api(), lambda *a: None)
    with pytest.raises(MemoryError):
        h.setup(_variants(1.0), slots=4, pool_bytes=1 << 20)
    fake = FakeApi(fail_alloc_after=3)
    h = timing.Harness(fake.api(), lambda *a: None)
    assert h.setup(_variants(1.0), slots=4, pool_bytes=1 << 20)["slots"] == 1


def test_bad_plans_are_refused():
    h = timing.Harness(FakeApi().api(), lambda *a: None)
    h.setup(_variants(1.0, 2.0), 2, 1 << 20)
    for plan in ([], [(2, 0)], [(0, 2)], [(-1, 0)]):
        with pytest.raises(ValueError):
            h.batch(plan)
    with pytest.raises(ValueError):
        h.fetch(5)


def test_capture_takes_references_before_they_can_be_rebound():
    class Runtime:
        memcpyDeviceToDevice = 3

        def __getattr__(self, name):
            return lambda *a: name

    class Stream:
        def use(self):
            return "use"

        def synchronize(self):
            return "sync"

    class Cuda:
        runtime = Runtime()
        Event = object

        @staticmethod
        def get_elapsed_time(a, b):
            return 1.5

    Cuda.Stream = type("S", (), {"null": Stream()})
    cp = type("cp", (), {"cuda": Cuda, "empty": None, "asarray": None, "asnumpy": None})
    api = timing.capture(cp)
    Cuda.get_elapsed_time = staticmethod(lambda a, b: 0.0)    # what a submission might try later
    Cuda.Event = int
    assert api.elapsed_ms(None, None) == 1.5 and api.Event is object
    assert api.device_sync() == "deviceSynchronize" and api.memcpy_d2d == 3


def test_persisting_reset_prefers_cupys_own_binding():
    calls = []
    rt = type("rt", (), {"ctxResetPersistingL2Cache": staticmethod(lambda: calls.append(1))})
    fn, via = timing._l2_reset_function(rt)
    assert via == "cupy" and fn() == 0 and calls == [1]
    fn, via = timing._l2_reset_function(object())
    assert via in ("runtime", "driver", "unsupported") and (fn is None) == (via == "unsupported")
