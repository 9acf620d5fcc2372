"""Kernels in every style CuPy offers, run through the stand-in on the CPU emulator."""
from __future__ import annotations

import pytest

VECTOR_ADD_FIVE_STYLES = r'''
import cupyx
from cupyx import jit

n = 1000
rng = np.random.default_rng(0)
a = cp._kp_from_numpy(rng.random(n, dtype=np.float32))
b = cp._kp_from_numpy(rng.random(n, dtype=np.float32))
ref = a.get() + b.get()

def check(name, c):
    R[name] = bool(np.allclose(c.get(), ref, rtol=1e-6, atol=1e-7)) and type(c) is cp.ndarray

raw = cp.RawKernel(r"""
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}""", "vadd")
c = cp._kp_from_numpy(np.full(n, np.nan, np.float32))
raw(((n + 255) // 256,), (256,), (a, b, c, cp.int32(n)))
check("raw", c)

mod = cp.RawModule(code=r"""
extern "C" __global__ void vadd2(const float* a, const float* b, float* c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        c[i] = a[i] + b[i];
}""")
c = cp._kp_from_numpy(np.full(n, np.nan, np.float32))
mod.get_function("vadd2")((2,), (128,), (a, b, c, n))
check("module", c)

ew = cp.ElementwiseKernel("T x, T y", "T z", "z = x + y", "vadd_ew")
check("elementwise_alloc", ew(a, b))
c = cp._kp_from_numpy(np.full(n, np.nan, np.float32))
ew(a, b, c)
check("elementwise_out", c)

rk = cp.ReductionKernel("T x, T y", "T z", "x + y", "a + b", "z = a", "0", "pair_sum")
check("reduction", rk(a.reshape(n, 1), b.reshape(n, 1), axis=1))

@jit.rawkernel()
def jadd(x, y, z, size):
    i = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
    if i < size:
        z[i] = x[i] + y[i]

c = cp._kp_from_numpy(np.full(n, np.nan, np.float32))
jadd[(n + 127) // 128, 128](a, b, c, n)
check("jit_getitem", c)
c = cp._kp_from_numpy(np.full(n, np.nan, np.float32))
jadd(((n + 127) // 128,), (128,), (a, b, c, cp.int32(n)))
check("jit_call", c)

c = cp._kp_from_numpy(np.full(n, np.nan, np.float32))
c[...] = a + b
check("array", c)
R["kernels"] = sorted({k["kind"] for k in kernel_log.snapshot()["kernels"]})
R["launches"] = sum(k["launches"] for k in kernel_log.snapshot()["kernels"])
R["incidents"] = kernel_log.incidents()
'''


@pytest.mark.parametrize("checking", [False, True])
def test_vector_add_in_all_five_styles(shim_run, needs_emulator, checking):
    r = shim_run(f"cp._kp_checking = {checking}", VECTOR_ADD_FIVE_STYLES)
    for style in ("raw", "module", "elementwise_alloc", "elementwise_out", "reduction",
                  "jit_getitem", "jit_call", "array"):
        assert r[style] is True, style
    assert r["kernels"] == ["ElementwiseKernel", "RawKernel", "RawModule", "ReductionKernel",
                            "jit"]
    assert r["launches"] == 7
    assert r["incidents"] == []


def test_elementwise_placeholders_broadcasting_raw_and_size(shim_run, needs_emulator):
    r = shim_run(r'''
    x = cp._kp_from_numpy(np.arange(12, dtype=np.float64).reshape(3, 4))
    y = cp._kp_from_numpy(np.array([1.0, 2.0, 3.0, 4.0]))
    mul = cp.ElementwiseKernel("T x, T y, float64 s", "T z", "z = x * y + s", "mul_add")
    z = mul(x, y, 0.5)
    R["broadcast"] = z.get().tolist() == (x.get() * y.get() + 0.5).tolist()
    R["dtype"] = str(z.dtype)

    f = cp._kp_from_numpy(np.arange(7, dtype=np.float32))
    out = cp._kp_from_numpy(np.full(7, np.nan, np.float32))
    rev = cp.ElementwiseKernel("raw T x, int32 n", "T y", "y = x[n - 1 - i]", "reverse")
    rev(f, 7, out)
    R["raw"] = out.get().tolist()
    rev2 = cp.ElementwiseKernel("raw T x", "T y", "y = x[_ind.size() - 1 - i] * 2", "rev2")
    out2 = cp._kp_from_numpy(np.zeros(7, np.float32))
    rev2(f, out2)
    R["ind_size"] = out2.get().tolist()

    dbl = cp.ElementwiseKernel("raw T x", "raw T y", "y[i] = x[i] * 2", "dbl")
    out3 = cp._kp_from_numpy(np.zeros(7, np.float32))
    dbl(f, out3, size=5)
    R["size_kw"] = out3.get().tolist()

    try:
        cp.ElementwiseKernel("float32 x", "float32 y", "y = x", "strict")(x)
    except TypeError as e:
        R["mismatch"] = str(e)
    try:
        dbl(f, out3)
    except ValueError as e:
        R["undecided"] = str(e)
    ''')
    assert r["broadcast"] is True and r["dtype"] == "float64"
    assert r["raw"] == [6, 5, 4, 3, 2, 1, 0]
    assert r["ind_size"] == [12, 10, 8, 6, 4, 2, 0]
    assert r["size_kw"] == [0, 2, 4, 6, 8, 0, 0]
    assert "Type is mismatched" in r["mismatch"]
    assert "Loop size is undecided" in r["undecided"]


def test_reduction_kernel_sum_and_max_with_axis(shim_run, needs_emulator):
    r = shim_run(r'''
    cp._kp_checking = True
    rng = np.random.default_rng(1)
    host = rng.standard_normal((37, 300)).astype(np.float32)
    x = cp._kp_from_numpy(host)
    total = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "total")
    s = total(x)
    R["sum_shape"] = list(s.shape)
    R["sum_ok"] = bool(np.isclose(float(s), host.sum(dtype=np.float64), rtol=1e-4))
    rows = total(x, axis=1)
    R["rows_ok"] = bool(np.allclose(rows.get(), host.sum(axis=1), rtol=1e-4, atol=1e-4))
    rmax = cp.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", "-CUDART_INF_F", "rmax")
    m = rmax(x, axis=1, keepdims=True)
    R["max_shape"] = list(m.shape)
    R["max_ok"] = m.get().ravel().tolist() == host.max(axis=1).tolist()
    cols = rmax(x, axis=0)
    R["cols_ok"] = cols.get().tolist() == host.max(axis=0).tolist()
    l2 = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
    out = cp.empty(300, dtype=cp.float32)
    l2(x, axis=0, out=out)
    R["l2_ok"] = bool(np.allclose(out.get(), np.sqrt((host.astype(np.float64) ** 2).sum(0)),
                                  rtol=1e-4))
    R["incidents"] = kernel_log.incidents()
    ''')
    assert r["sum_shape"] == [] and r["sum_ok"] and r["rows_ok"]
    assert r["max_shape"] == [37, 1] and r["max_ok"] and r["cols_ok"]
    assert r["l2_ok"]
    assert r["incidents"] == []


def test_jit_block_reduction_with_shared_memory_and_atomics(shim_run, needs_emulator):
    r = shim_run(r'''
    from cupyx import jit
    cp._kp_checking = True

    @jit.rawkernel()
    def block_sum(x, out, n):
        sm = jit.shared_memory(cp.float32, 128)
        tid = jit.threadIdx.x
        i = jit.blockIdx.x * jit.blockDim.x + tid
        v = cp.float32(0)
        if i < n:
            v = x[i]
        sm[tid] = v
        jit.syncthreads()
        s = jit.blockDim.x // 2
        while s > 0:
            if tid < s:
                sm[tid] = sm[tid] + sm[tid + s]
            jit.syncthreads()
            s = s // 2
        if tid == 0:
            jit.atomic_add(out, 0, sm[0])

    host = np.random.default_rng(2).random(1000, dtype=np.float32)
    x = cp._kp_from_numpy(host)
    out = cp.zeros(1, dtype=cp.float32)
    block_sum[(1000 + 127) // 128, 128](x, out, 1000)
    R["sum"] = float(out[0])
    R["ref"] = float(host.sum(dtype=np.float64))

    @jit.rawkernel()
    def count(x, hist, n):
        for i in range(jit.grid(1), n, jit.gridsize(1)):
            jit.atomic_add(hist, x[i], 1)

    values = cp._kp_from_numpy(np.array([0, 1, 1, 3, 3, 3, 2, 0], np.int32))
    hist = cp.zeros(4, dtype=cp.int32)
    count[2, 32](values, hist, cp.int32(8))
    R["hist"] = hist.get().tolist()

    @jit.rawkernel()
    def warp_sum(x, out):
        v = x[jit.threadIdx.x]
        offset = cp.uint32(16)
        while offset > 0:
            v += jit.shfl_down_sync(0xffffffff, v, offset)
            offset = offset // 2
        jit.syncwarp()
        if jit.laneid() == 0:
            out[jit.threadIdx.x // 32] = v

    w = cp._kp_from_numpy(np.arange(64, dtype=np.int32))
    sums = cp.zeros(2, dtype=cp.int32)
    warp_sum[1, 64](w, sums)
    R["warps"] = sums.get().tolist()
    R["incidents"] = kernel_log.incidents()
    ''')
    assert abs(r["sum"] - r["ref"]) <= 1e-3 * r["ref"]
    assert r["hist"] == [2, 2, 1, 3]
    assert r["warps"] == [sum(range(32)), sum(range(32, 64))]
    assert r["incidents"] == []


def test_python_float_to_float_param_reads_half_a_double(shim_run, needs_emulator):
    r = shim_run(r'''
    k = cp.RawKernel(r"""
    extern "C" __global__ void saxpy(const float* x, const float* y, float* out, float a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = a * x[i] + y[i];
    }""", "saxpy")
    x = cp._kp_from_numpy(np.arange(8, dtype=np.float32))
    y = cp._kp_from_numpy(np.ones(8, np.float32))
    out = cp.empty(8, dtype=cp.float32)
    k((1,), (32,), (x, y, out, 2.0, 8))
    R["python_float"] = out.get().tolist()
    k((1,), (32,), (x, y, out, cp.float32(2.0), 8))
    R["float32"] = out.get().tolist()
    ''')
    # 2.0 as a double has zero low bytes: the kernel's `float a` reads 0.0.
    assert r["python_float"] == [1.0] * 8
    assert r["float32"] == [2.0 * i + 1 for i in range(8)]


def test_rawmodule_name_expressions_for_a_template(shim_run, needs_emulator):
    r = shim_run(r'''
    code = r"""
    template <typename T>
    __global__ void scale(const T* x, T* y, T a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = a * x[i];
    }"""
    mod = cp.RawModule(code=code, name_expressions=["scale<float>", "scale<int>"])
    kf = mod.get_function("scale<float>")
    ki = mod.get_function("scale<int>")
    xf = cp._kp_from_numpy(np.arange(5, dtype=np.float32))
    yf = cp.empty_like(xf)
    kf((1,), (32,), (xf, yf, cp.float32(1.5), cp.int32(5)))
    xi = cp._kp_from_numpy(np.arange(5, dtype=np.int32))
    yi = cp.empty_like(xi)
    ki((1,), (32,), (xi, yi, cp.int32(3), cp.int32(5)))
    R["f"] = yf.get().tolist()
    R["i"] = yi.get().tolist()
    ''')
    assert r["f"] == [0.0, 1.5, 3.0, 4.5, 6.0]
    assert r["i"] == [0, 3, 6, 9, 12]


def test_dynamic_shared_memory_in_raw_and_jit_kernels(shim_run, needs_emulator):
    r = shim_run(r'''
    from cupyx import jit

    k = cp.RawKernel(r"""
    extern "C" __global__ void stage(const float* x, float* y, int n) {
        extern __shared__ float buf[];
        for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = x[i];
        __syncthreads();
        for (int i = threadIdx.x; i < n; i += blockDim.x) y[i] = buf[n - 1 - i];
    }""", "stage")
    n = 16384                      # 64 KiB of floats: needs the attribute raised
    x = cp._kp_from_numpy(np.arange(n, dtype=np.float32))
    y = cp.empty_like(x)
    try:
        k((1,), (256,), (x, y, cp.int32(n)), shared_mem=n * 4)
        R["default_limit"] = "launched"
    except cp.cuda.driver.CUDADriverError as exc:
        R["default_limit"] = str(exc)
    k.max_dynamic_shared_size_bytes = n * 4
    k((1,), (256,), (x, y, cp.int32(n)), shared_mem=n * 4)
    R["raised"] = bool((y.get() == np.arange(n, dtype=np.float32)[::-1]).all())

    @jit.rawkernel()
    def rotate(x, y, n):
        buf = jit.shared_memory(cp.float32, None)
        t = jit.threadIdx.x
        buf[t] = x[t]
        jit.syncthreads()
        y[t] = buf[(t + 1) % n]

    x2 = cp._kp_from_numpy(np.arange(64, dtype=np.float32))
    y2 = cp.empty_like(x2)
    rotate((1,), (64,), (x2, y2, cp.uint32(64)), shared_mem=64 * 4)
    R["jit"] = y2.get().tolist()
    ''')
    assert r["default_limit"].startswith("CUDA_ERROR_INVALID_VALUE")
    assert r["raised"] is True
    assert r["jit"] == [float((i + 1) % 64) for i in range(64)]
