"""The cuda backend's pieces that need no GPU: recording wrappers on real CuPy.

The timing harness has its own tests in tests/judge/timing/."""
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[3]

WRAP_SCRIPT = r'''
import warnings
warnings.simplefilter("ignore")
import cupy as cp
from assessments.judge.kinds.cupy import kernel_log
from assessments.judge.kinds.cupy.backends.cuda import wrap
kernel_log.configure(arch="sm_90", gate=True, gate_fatal=False)
wrap.install(cp)
wrap.install(cp)  # idempotent
k = cp.RawKernel(r"""extern "C" __global__ void f(float* x) {
    __shared__ float s[64]; s[threadIdx.x] = 1; __syncthreads(); x[threadIdx.x] = s[63 - threadIdx.x]; }""", "f")
from cupy import RawKernel
assert RawKernel is cp.RawKernel
e = cp.ElementwiseKernel("float32 x", "float32 y", "y = x * 2", "dbl")
from cupyx import jit
@jit.rawkernel()
def jk(x):
    x[jit.threadIdx.x] = 1
bad = cp.RawKernel('extern "C" __global__ void h(float* x) { x[0] = INFINITY; }', "h")
# nvcc is a program, which the run sandbox cannot start: CuPy compiles with NVRTC instead
assert cp.RawKernel('extern "C" __global__ void n(float* x) {}', "n", (), "nvcc").backend == "nvrtc"
assert cp.RawKernel('extern "C" __global__ void n(float* x) {}', "n", backend="nvcc").backend == "nvrtc"
assert cp.RawModule(code='extern "C" __global__ void n(float* x) {}', backend="nvcc").backend == "nvrtc"
snap = kernel_log.snapshot()
recs = {r["name"]: r for r in snap["kernels"]}
assert recs["f"]["compiled"] is True and recs["f"]["usage"]["shared_bytes"] == 256, recs["f"]
assert recs["f"]["usage"]["barriers"] == 1
assert recs["jk"]["kind"] == "jit"
assert recs["h"]["compiled"] is False
assert snap["incidents"] == []   # on a GPU CuPy's own compile decides, not the gate
print("ok")
'''


def test_launch_attributes_set_on_a_module_function_reach_the_real_function():
    # Seen on an H200: a RawModule kernel launched with 64 KiB of dynamic shared memory failed with
    # CUDA_ERROR_INVALID_VALUE because max_dynamic_shared_size_bytes stayed on the recording proxy.
    from assessments.judge.kinds.cupy.backends.cuda.wrap import _FunctionProxy, _JitProxy

    class Function:
        max_dynamic_shared_size_bytes = 0

    fn, jit_kernel = Function(), Function()
    proxy, jit_proxy = _FunctionProxy(fn, record={}), _JitProxy(jit_kernel, record={})
    proxy.max_dynamic_shared_size_bytes = 64 * 1024
    jit_proxy.max_dynamic_shared_size_bytes = 96 * 1024
    assert fn.max_dynamic_shared_size_bytes == 64 * 1024
    assert jit_kernel.max_dynamic_shared_size_bytes == 96 * 1024
    assert proxy.max_dynamic_shared_size_bytes == 64 * 1024


def test_wrappers_record_kernels_on_real_cupy():
    p = subprocess.run([sys.executable, "-c", WRAP_SCRIPT], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0 and p.stdout.strip().endswith("ok"), p.stderr

