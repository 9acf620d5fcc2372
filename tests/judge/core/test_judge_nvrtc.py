"""NVRTC gate: resource report parsing, real compiles without a GPU, and log line mapping."""
import pytest

from assessments.judge.kinds.cupy import diagnostics, nvrtc

LOG = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z2tkIfEvPT_' for 'sm_90'
ptxas info    : Function properties for _Z2tkIfEvPT_
ptxas         .     1504 bytes stack frame, 1848 bytes spill stores, 2984 bytes spill loads
ptxas info    : Used 255 registers, used 0 barriers, 1504 bytes cumulative stack size
ptxas info    : Compile time = 31.238 ms
ptxas info    : Compiling entry function 'vadd' for 'sm_90'
ptxas info    : Function properties for vadd
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 8320 bytes smem, 380 bytes cmem[0]
"""


def test_parse_ptxas_report():
    kernels = {k.name: k for k in nvrtc.parse_ptxas_report(LOG, {"tk<float>": "_Z2tkIfEvPT_"})}
    assert set(kernels) == {"tk<float>", "vadd"}
    v = kernels["vadd"]
    assert (v.registers, v.barriers, v.shared_bytes, v.stack_bytes, v.spill_stores, v.spill_loads) == \
        (32, 1, 8320, 0, 0, 0)
    t = kernels["tk<float>"]
    assert (t.registers, t.stack_bytes, t.spill_stores, t.spill_loads, t.shared_bytes) == \
        (255, 1504, 1848, 2984, 0)


def test_parse_old_format_without_barriers():
    log = ("ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
           "ptxas info    : Used 12 registers, 356 bytes cmem[0]\n")
    (k,) = nvrtc.parse_ptxas_report(log)
    assert (k.name, k.registers, k.shared_bytes, k.barriers) == ("k", 12, 0, 0)


def test_options_filtering():
    opts = nvrtc.build_options("sm_90", ("-DN=4", "--use_fast_math", "-I/etc", "-arch=sm_50",
                                         "--include-path=/", "-std=c++14"))
    assert "-DN=4" in opts and "--use_fast_math" in opts and "-std=c++14" in opts
    assert "-I/etc" not in opts and "-arch=sm_50" not in opts and "--include-path=/" not in opts
    assert "-arch=sm_90" in opts and "-Xptxas" in opts and "-std=c++17" not in opts


needs_nvrtc = pytest.mark.skipif(not nvrtc.available(), reason="libnvrtc.so.13 not installed")

SMEM_KERNEL = r'''
extern "C" __global__ void tile(const float* a, float* b, int n) {
    __shared__ float s[32][33];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x % 32][threadIdx.x / 32] = i < n ? a[i] : 0.f;
    __syncthreads();
    if (i < n) b[i] = s[threadIdx.x / 32][threadIdx.x % 32];
}
'''


@needs_nvrtc
def test_real_compile_reports_usage():
    res = nvrtc.nvrtc_compile(SMEM_KERNEL)
    assert res.ok, res.log
    u = res.usage("tile")
    assert u is not None
    assert u.shared_bytes == 32 * 33 * 4
    assert u.barriers == 1
    assert 0 < u.registers <= 64


@needs_nvrtc
def test_templates_through_name_expressions():
    src = "template<typename T> __global__ void fill(T* x, T v) { x[threadIdx.x] = v; }\n"
    res = nvrtc.nvrtc_compile(src, name_expressions=("fill<float>", "fill<int>"))
    assert res.ok, res.log
    assert res.usage("fill<float>") is not None and res.usage("fill<int>") is not None


@needs_nvrtc
def test_library_headers_resolve():
    src = ("#include <cuda_fp16.h>\n#include <cooperative_groups.h>\n#include <cupy/carray.cuh>\n"
           'extern "C" __global__ void h(__half* x) { x[0] = __float2half(1.0f); }\n')
    res = nvrtc.nvrtc_compile(src)
    assert res.ok, res.log


@needs_nvrtc
def test_cub_and_thrust_headers_resolve_as_in_cupy():
    src = ("#include <cub/block/block_reduce.cuh>\n#include <thrust/functional.h>\n"
           'extern "C" __global__ void r(const float* x, float* out) {\n'
           "    typedef cub::BlockReduce<float, 128> R;\n    __shared__ typename R::TempStorage t;\n"
           "    float s = R(t).Sum(x[threadIdx.x]);\n    if (threadIdx.x == 0) *out = s;\n}\n")
    res = nvrtc.nvrtc_compile(src)
    assert res.ok, res.log


@needs_nvrtc
def test_nvrtc_has_no_libc_macros():
    res = nvrtc.nvrtc_compile('extern "C" __global__ void k(float* x) { x[0] = INFINITY; }')
    assert not res.ok
    assert 'identifier "INFINITY" is undefined' in res.log


def test_file_includes_refused_before_nvrtc():
    res = nvrtc.nvrtc_compile('#include "/etc/passwd"\n')
    assert not res.ok and "not allowed" in res.log


PY = '''import cupy as cp

# a comment
_k = cp.RawKernel(r"""
extern "C" __global__ void k(const float* a, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
""", "k")


def solve(a, c, n):
    _k((1,), (32,), (a, c, n))
'''


def _kernel_source(py: str) -> str:
    return py.split('r"""', 1)[1].split('"""', 1)[0]


@needs_nvrtc
def test_compile_error_lines_map_to_python_file():
    src = _kernel_source(PY)
    res = nvrtc.nvrtc_compile(src)
    assert not res.ok
    assert "kernel.cu(4): error" in res.log
    mapped = diagnostics.map_log(res.log, src, PY)
    assert 'solution.py:7: error: identifier "b" is undefined' in mapped
    assert PY.splitlines()[6].strip().startswith("if (i < n)")
    assert "kernel.cu" not in mapped
    assert diagnostics.first_error(mapped).startswith("solution.py:7: error")


def test_map_line_literal_and_fallbacks():
    src = _kernel_source(PY)
    assert diagnostics.map_line(1, src, PY) == 4          # the line holding r"""
    assert diagnostics.map_line(2, src, PY) == 5
    # A source that differs from the file (escapes processed, dedented) maps by its lines' text.
    generated = "// generated prologue\n#include <cupy/carray.cuh>\n    if (i < n) c[i] = a[i] + b[i];\n"
    assert diagnostics.map_line(3, generated, PY) == 7
    assert diagnostics.map_line(1, generated, PY) is None


def test_map_log_without_a_line():
    log = "kernel.cu(99): error: something\n"
    mapped = diagnostics.map_log(log, "x\n", "y = 1\n")
    assert mapped.startswith("solution.py (generated kernel line 99): error")
