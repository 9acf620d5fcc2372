"""kernel_log: NVRTC gate on first sight, launch history, incidents kept and streamed."""
import pytest

from assessments.judge.kinds.cupy import nvrtc
from assessments.judge.kinds.cupy import kernel_log

needs_nvrtc = pytest.mark.skipif(not nvrtc.available(), reason="libnvrtc.so.13 not installed")
GOOD = 'extern "C" __global__ void k(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] = 1.f; }'
BAD = 'extern "C" __global__ void k(float* x) { x[0] = INFINITY; }'


@pytest.fixture(autouse=True)
def fresh_log():
    kernel_log.reset()
    kernel_log.configure(arch="sm_90", gate=True, gate_fatal=True)
    yield
    kernel_log.reset()
    kernel_log._sink = None


@needs_nvrtc
def test_gate_reports_usage_once_per_source():
    a = kernel_log.record_kernel("RawKernel", "k", GOOD)
    b = kernel_log.record_kernel("RawKernel", "k", GOOD)
    assert a is b and a.compiled is True and a.usage["registers"] > 0
    assert len(kernel_log._compiled) == 1


@needs_nvrtc
def test_gate_failure_raises_and_is_kept_as_incident():
    events = []
    kernel_log.configure(sink=events.append)
    with pytest.raises(kernel_log.CompileFailed) as info:
        kernel_log.record_kernel("RawKernel", "k", BAD)
    assert "INFINITY" in info.value.log
    with pytest.raises(kernel_log.CompileFailed):  # caught once, still refused the next time
        kernel_log.record_kernel("RawKernel", "k", BAD)
    (inc,) = kernel_log.incidents()
    assert inc["verdict"] == "compile_error" and inc["kernel"] == "k" and inc["source"] == BAD
    assert events[0]["event"] == "incident"
    snap = kernel_log.snapshot()
    assert snap["kernels"][0]["compiled"] is False and snap["kernels"][0]["source"] == BAD


@needs_nvrtc
def test_non_fatal_gate_records_without_incident():
    kernel_log.configure(gate_fatal=False)
    rec = kernel_log.record_kernel("RawKernel", "k", BAD)
    assert rec.compiled is False and kernel_log.incidents() == []


def test_launch_history_keeps_largest_block():
    rec = kernel_log.record_kernel("RawKernel", "k", GOOD, gate=False)
    kernel_log.record_launch(rec, (4,), (128,), 0)
    kernel_log.record_launch(rec, (2, 2), (16, 16), 1024)
    kernel_log.record_launch(rec, 8, 64)
    assert rec.launches == 3
    assert rec.block == (16, 16, 1) and rec.grid == (2, 2, 1) and rec.shared_mem == 1024
    assert rec.compiled is None


def test_incidents_are_capped():
    for i in range(kernel_log.MAX_INCIDENTS + 5):
        kernel_log.record_incident("race_detected", f"race {i}", kernel="k")
    assert len(kernel_log.incidents()) == kernel_log.MAX_INCIDENTS
    assert kernel_log.incidents()[0]["message"] == "race 0"
