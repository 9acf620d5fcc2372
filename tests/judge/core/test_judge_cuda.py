"""The cuda backend: real CuPy on a GPU. Skipped where CuPy sees no device."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assessments.judge import Verdict
from assessments.judge import judge as _judge

# The GPU machine of bench/gpu_check.sh has no bubblewrap: there, and for the project's own
# solutions and fixtures only, the children run without the sandbox.
NO_SANDBOX = os.environ.get("KERNELPATH_GPU_CHECK_NO_SANDBOX") == "1"


def judge(*args, **kwargs):
    return _judge(*args, unsafe_no_sandbox=NO_SANDBOX, **kwargs)


def _gpu_reason():
    # Probed in a subprocess: importing the real cupy here would shadow the CPU stand-in that
    # other tests import in-process.
    code = "import cupy; print(cupy.cuda.runtime.getDeviceCount())"
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"CuPy could not be probed ({exc})"
    if p.returncode != 0 or not p.stdout.strip().isdigit() or int(p.stdout) < 1:
        return "CuPy sees no GPU"
    return None


REASON = _gpu_reason()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(REASON is not None, reason=REASON or "")]
ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("slug", ["vector_add", "reduce_sum", "matmul"])
def test_reference_solution_accepted_and_timed(slug):
    source = (ROOT / "gpu_tasks" / "solutions" / f"{slug}.py").read_text()
    r = judge(slug, source, backend="cuda", seed=3)
    assert r.verdict is Verdict.ACCEPTED, (r.message, r.details)
    assert r.timing is not None and r.timing.median_ms > 0
    assert 0 < r.timing.roofline["fraction"] <= 1
    assert 60 <= r.score <= 100
    assert r.kernels and r.kernels[0].registers


def test_out_of_bounds_kernel_on_gpu():
    src = '''import cupy as cp
_k = cp.RawKernel(r"""
extern "C" __global__ void k(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i + (1 << 28)] = a[i] + b[i];
}
""", "k")

def solve(a, b, c, n):
    _k(((n + 255) // 256,), (256,), (a, b, c, cp.int32(n)))
'''
    r = judge("vector_add", src, backend="cuda", seed=3)
    assert r.verdict in (Verdict.MEMORY_ERROR, Verdict.RUNTIME_ERROR), r.message
