"""The GPU lock, the wait for an idle GPU, NVML's absence, and the cache of measured peaks."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import pytest

from assessments.judge.kinds.cupy.timing import guard, nvml, peaks


@pytest.fixture
def lock_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(guard.LOCK_DIR_ENV, str(tmp_path))
    return tmp_path


def test_gpu_token():
    assert guard.gpu_token({}) == "0"
    assert guard.gpu_token({"CUDA_VISIBLE_DEVICES": "3,1"}) == "3"
    assert guard.gpu_token({"CUDA_VISIBLE_DEVICES": "GPU-8a/../x"}) == "GPU-8a_.._x"


def test_lock_is_exclusive_across_processes(lock_dir):
    # Another process holds the lock for a moment; we wait for it, then get it.
    code = ("import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY | os.O_CREAT, 0o666); "
            "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(0.6)")
    holder = subprocess.Popen([sys.executable, "-c", code, guard.lock_path("0")], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with guard.GpuLock("0", timeout_s=10) as lock:
            assert lock.exclusive and lock.info["lock_waited_s"] >= 0.3
    finally:
        holder.wait(timeout=10)


def test_lock_gives_up_after_its_timeout(lock_dir):
    with guard.GpuLock("7", timeout_s=5):
        other = guard.GpuLock("7", timeout_s=0.2)
        info = other.acquire()
        assert info["lock"] == "timed_out" and not other.exclusive and info["lock_waited_s"] >= 0.2
        other.release()          # harmless when not held
    with guard.GpuLock("7", timeout_s=0.2) as again:
        assert again.exclusive   # released on exit


def test_lock_in_a_missing_directory_is_reported(tmp_path, monkeypatch):
    monkeypatch.setenv(guard.LOCK_DIR_ENV, str(tmp_path / "nope"))
    with guard.GpuLock("0", timeout_s=0.1) as lock:
        assert lock.info["lock"] == "unavailable" and not lock.exclusive


def test_lock_serialises_threads_in_one_process(lock_dir):
    inside, overlaps = [], []

    def work():
        with guard.GpuLock("1", timeout_s=10):
            inside.append(1)
            overlaps.append(len(inside))
            time.sleep(0.05)
            inside.pop()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlaps == [1, 1, 1, 1]


def test_wait_until_idle_waits_for_consecutive_low_readings():
    readings = iter([95, 80, 5, 40, 3, 2, 2])
    now = [0.0]
    info = guard.wait_until_idle("0", read=lambda: next(readings), clock=lambda: now[0],
                                 sleep=lambda s: now.__setitem__(0, now[0] + s), poll_s=0.5)
    assert info["idle"] and info["nvml"] and info["utilization_before_pct"] == 95
    assert info["utilization_after_pct"] == 2 and info["idle_waited_s"] == pytest.approx(2.5)


def test_wait_until_idle_is_bounded():
    now = [0.0]
    info = guard.wait_until_idle("0", read=lambda: 100, clock=lambda: now[0], max_wait_s=3.0,
                                 sleep=lambda s: now.__setitem__(0, now[0] + s), poll_s=1.0)
    assert not info["idle"] and info["idle_waited_s"] == pytest.approx(3.0)


def test_without_nvml_nothing_is_waited(monkeypatch):
    monkeypatch.setitem(nvml._state, "lib", None)
    assert guard.wait_until_idle("0") == {"nvml": False, "idle": True, "idle_waited_s": 0.0,
                                          "utilization_before_pct": None, "utilization_after_pct": None}
    assert nvml.utilization("0") is None and nvml.driver_version() is None
    assert nvml.compute_processes("0") is None and not nvml.available()


def test_nvml_missing_library_is_quiet(monkeypatch):
    monkeypatch.setattr(nvml, "_state", {})
    monkeypatch.setenv(nvml.LIB_ENV, "/nonexistent/libnvidia-ml.so.1")
    assert nvml.utilization("0") is None and nvml._state == {"lib": None}


ENTRY = {"name": "NVIDIA H100 80GB HBM3", "driver": "580.159.04", "key": "NVIDIA H100 80GB HBM3|driver 580.159.04",
         "bandwidth_bytes_s": 3.0e12, "flops_s": 51e12, "tensor_flops_s": 380e12, "flops_method": "cublas_sgemm"}


def test_cache_roundtrip(tmp_path):
    path = tmp_path / "sub" / peaks.CACHE_FILE
    assert peaks.load_cache(path) == {}
    peaks.store(path, ENTRY["key"], ENTRY)
    peaks.store(path, "other|driver 1", {"bandwidth_bytes_s": 1.0})
    data = peaks.load_cache(path)
    assert data[ENTRY["key"]] == ENTRY and set(data) == {ENTRY["key"], "other|driver 1"}
    path.write_text("not json")
    assert peaks.load_cache(path) == {}


def test_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv(peaks.CACHE_ENV, str(tmp_path))
    assert peaks.cache_dir() == tmp_path
    monkeypatch.delenv(peaks.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert peaks.cache_dir() == tmp_path / "xdg" / "kernelpath"
    assert peaks.device_key(" H100 ", "580.1 ") == "H100|driver 580.1"


def test_from_entry():
    p = peaks.from_entry(ENTRY)
    assert isinstance(p, peaks.Peaks) and p.measured and p.tensor_flops_s == 380e12
    assert p.fastest_flops_s == 380e12 and "cublas_sgemm" in p.source
    unmeasured = peaks.from_entry({**ENTRY, "tensor_flops_s": None})
    assert unmeasured.tensor_flops_s == 51e12 * peaks.TENSOR_BOUND_RATIO and "assumed" in unmeasured.source


def test_for_device_reads_the_measuring_process(monkeypatch):
    monkeypatch.setattr(peaks, "_MEMO", {})
    calls = []

    def run(cmd, **kw):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, stdout="noise\n" + json.dumps(ENTRY) + "\n", stderr="")
    monkeypatch.setattr(peaks.subprocess, "run", run)
    first = peaks.for_device("0")
    assert first.measured and first.bandwidth_bytes_s == 3.0e12
    assert peaks.for_device("0") is first and len(calls) == 1          # once per process
    assert calls[0][1:] == ["-m", "assessments.judge.kinds.cupy.timing.peaks"]


def test_for_device_falls_back_to_the_datasheet(monkeypatch):
    monkeypatch.setattr(peaks, "_MEMO", {})

    def run(cmd, **kw):
        return subprocess.CompletedProcess(cmd, 1, stdout="", stderr="CUDARuntimeError: no device\n")
    monkeypatch.setattr(peaks.subprocess, "run", run)
    p = peaks.for_device("0")
    assert not p.measured and p.bandwidth_bytes_s == peaks.H100_NOMINAL.bandwidth_bytes_s
    assert "measuring failed" in p.source and "no device" in p.source


def test_measuring_process_fails_cleanly_without_a_gpu(tmp_path):
    # Here (no GPU) the real process must exit non-zero rather than hang or print a fake entry.
    p = subprocess.run([sys.executable, "-m", "assessments.judge.kinds.cupy.timing.peaks"],
                       capture_output=True, text=True, timeout=120,
                       env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(peaks.Path(__file__).resolve().parents[3]),
                            peaks.CACHE_ENV: str(tmp_path)})
    if p.returncode == 0:
        pytest.skip("a GPU answered: the measurement itself is covered by test_gpu_timing.py")
    assert not any(line.startswith("{") for line in p.stdout.splitlines())
    assert not (tmp_path / peaks.CACHE_FILE).exists()


class _FakeNvml:
    """The NVML calls clocks() makes, answering as a driver would through ctypes."""

    def __init__(self, sm=1980, mem=2619, reasons=0x4, with_reasons=True):
        self.values = {0: sm, 2: mem}
        if with_reasons:
            def current_reasons(handle, out):
                out._obj.value = reasons
                return 0
            self.nvmlDeviceGetCurrentClocksEventReasons = current_reasons

    def nvmlDeviceGetHandleByIndex_v2(self, index, out):
        out._obj.value = 1234
        return 0

    def nvmlDeviceGetClockInfo(self, handle, kind, out):
        if kind.value not in self.values:
            return 2      # NVML_ERROR_INVALID_ARGUMENT
        out._obj.value = self.values[kind.value]
        return 0


def test_clocks_reports_sm_and_memory_clocks_and_why_they_are_held(monkeypatch):
    monkeypatch.setattr(nvml, "_state", {"lib": _FakeNvml()})
    assert nvml.clocks("0") == {"sm_mhz": 1980, "mem_mhz": 2619, "event_reasons": 4}
    monkeypatch.setattr(nvml, "_state", {"lib": _FakeNvml(with_reasons=False)})
    assert nvml.clocks("0") == {"sm_mhz": 1980, "mem_mhz": 2619}
    monkeypatch.setattr(nvml, "_state", {"lib": None})
    assert nvml.clocks("0") is None
