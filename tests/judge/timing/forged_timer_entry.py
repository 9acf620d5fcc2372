"""The judge's child with real CuPy, but with the harness's captured event timer reading a
thousandth of the truth: a forgery that got past the capture, which only the parent's cross-checks
(wall time, physical floor) can catch. Used as a judge wrapper by test_gpu_timing.py."""
import dataclasses
import sys

from assessments.judge.kinds.cupy.backends.cuda import timing

_capture = timing.capture


def _forged_capture(cp):
    api = _capture(cp)
    real = api.elapsed_ms
    return dataclasses.replace(api, elapsed_ms=lambda start, end: real(start, end) * 1e-3)


timing.capture = _forged_capture

from assessments.judge.kinds.cupy import child  # noqa: E402

sys.exit(child.main(sys.argv[1:]))
