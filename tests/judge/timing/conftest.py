"""The fake_gpu fixture: lock files in tmp, no NVML, fixed peaks and a short timing budget."""
from __future__ import annotations

import pytest
from timing_helpers import FAKE_PEAKS, FIXTURES

from assessments.judge.kinds.cupy import stages
from assessments.judge.kinds.cupy.timing import nvml, peaks
from assessments.judge.kinds.cupy.timing.session import TimingConfig
from assessments.judge.kinds.cupy.timing.stats import StopRule


@pytest.fixture
def fake_gpu(monkeypatch, tmp_path):
    """Lock files in tmp, no NVML, the fake peaks, and a short timing budget."""
    monkeypatch.setenv("KERNELPATH_GPU_LOCK_DIR", str(tmp_path))
    monkeypatch.setitem(nvml._state, "lib", None)
    monkeypatch.setattr(peaks, "for_device", lambda token="0", timeout_s=600.0: FAKE_PEAKS)
    monkeypatch.setattr(stages, "TIMING_CONFIG",
                        TimingConfig(rule=StopRule(max_seconds=4.0, min_timed_s=0.3), target_batch_s=0.05))
    return FIXTURES
