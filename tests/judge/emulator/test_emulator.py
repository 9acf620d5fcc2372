"""CUDA-C-on-CPU emulator: correctness, CuPy argument rules, and the failures it must report."""
from __future__ import annotations

import os
import subprocess
import time

import numpy as np
import pytest

from assessments.judge.kinds.cupy.backends.cpu.emulator import EmulatorError, build, compile_module


@pytest.fixture(scope="session", autouse=True)
def fresh_cache(tmp_path_factory):
    """Every session builds from scratch in its own cache dir (as a sandboxed child would)."""
    old = os.environ.get("KERNELPATH_EMULATOR_CACHE")
    os.environ["KERNELPATH_EMULATOR_CACHE"] = str(tmp_path_factory.mktemp("emu-cache"))
    yield
    if old is None:
        os.environ.pop("KERNELPATH_EMULATOR_CACHE", None)
    else:
        os.environ["KERNELPATH_EMULATOR_CACHE"] = old


def blocks(n, b):
    return ((n + b - 1) // b, 1, 1)


# ---- kernels that must run, and pass the checked run ---------------------------------------------
BASIC = r"""
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void reduce_tree(const float* x, float* partial, int n) {
    __shared__ float s[256];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {
        if (tid < st) s[tid] += s[tid + st];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = s[0];
}

__device__ __forceinline__ float warp_sum(float v) {
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

extern "C" __global__ void reduce_shfl(const float* __restrict__ x, float* out, int n) {
    __shared__ float warps[32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += x[i];
    v = warp_sum(v);
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    if (lane == 0) warps[w] = v;
    __syncthreads();
    if (w == 0) {
        v = lane < (blockDim.x + 31) / 32 ? warps[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}

#define TILE 16
extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int ak = t * TILE + threadIdx.x, bk = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : 0.0f;
        __syncthreads();
        #pragma unroll
        for (int k = 0; k < TILE; ++k) acc = fmaf(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

extern "C" __global__ void scan_block(const int* x, int* y, int n) {
    __shared__ int buf[2][512];
    int tid = threadIdx.x;
    int in = 0;
    buf[0][tid] = tid < n ? x[tid] : 0;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off <<= 1) {
        int out = 1 - in;
        buf[out][tid] = buf[in][tid] + (tid >= off ? buf[in][tid - off] : 0);
        __syncthreads();
        in = out;
    }
    if (tid < n) y[tid] = buf[in][tid];
}

extern "C" __global__ void hist_atomic(const int* x, int* hist, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&hist[x[i]], 1);
}

extern "C" __global__ void saxpy_stride(const float* x, const float* y, float* out, float a, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = a * x[i] + y[i];
}

extern "C" __global__ void copy_vec4(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = n / 4;
    if (i < n4) {
        float4 v = reinterpret_cast<const float4*>(in)[i];
        v.x *= 2.0f; v.y *= 2.0f; v.z *= 2.0f; v.w *= 2.0f;
        reinterpret_cast<float4*>(out)[i] = v;
    }
    if (i == 0) for (int j = n4 * 4; j < n; ++j) out[j] = 2.0f * in[j];
}

extern "C" __global__ void dyn_reverse(const float* x, float* y, int n) {
    extern __shared__ float tmp[];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    tmp[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - t);
    if (j < n) y[j] = tmp[t];
}

extern "C" __global__ void echo_scalars(int i, float f, double d, long long ll, float* out) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        out[0] = (float)i; out[1] = f; out[2] = (float)d; out[3] = (float)ll;
    }
}
"""


@pytest.fixture(scope="module")
def basic():
    return compile_module(BASIC)


@pytest.mark.parametrize("checking", [False, True])
def test_vector_add(basic, checking):
    rng = np.random.default_rng(0)
    n = 100_003
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    c = np.full(n, np.nan, np.float32)
    basic.get_function("vadd").launch(blocks(n, 256), (256, 1, 1), [a, b, c, np.int32(n)], checking=checking)
    np.testing.assert_array_equal(c, a + b)
    assert [p.name for p in basic.get_function("vadd").params] == ["a", "b", "c", "n"]
    assert basic.get_function("vadd").params[0].is_const and basic.get_function("vadd").params[0].is_pointer


@pytest.mark.parametrize("n,checking", [(1 << 16, False), (1 << 16, True), (1000, True), (4097, False)])
def test_shared_tree_reduction(basic, n, checking):
    x = np.random.default_rng(n).random(n, dtype=np.float32)
    grid = blocks(n, 256)
    partial = np.full(grid[0], np.nan, np.float32)
    basic.get_function("reduce_tree").launch(grid, (256, 1, 1), [x, partial, np.int32(n)], checking=checking)
    assert abs(partial.astype(np.float64).sum() - x.astype(np.float64).sum()) < 1e-3 * n


@pytest.mark.parametrize("checking", [False, True])
def test_warp_shuffle_reduction(basic, checking):
    n = 50_000
    x = np.random.default_rng(1).random(n, dtype=np.float32)
    out = np.zeros(1, np.float32)
    basic.get_function("reduce_shfl").launch((16, 1, 1), (192, 1, 1), [x, out, np.int32(n)], checking=checking)
    assert abs(float(out[0]) - x.astype(np.float64).sum()) < 1e-4 * n


@pytest.mark.parametrize("checking", [False, True])
def test_tiled_matmul(basic, checking):
    M, N, K = 64, 48, 80
    rng = np.random.default_rng(2)
    A, B = rng.random((M, K), dtype=np.float32), rng.random((K, N), dtype=np.float32)
    C = np.full((M, N), np.nan, np.float32)
    basic.get_function("matmul_tiled").launch((N // 16, M // 16, 1), (16, 16, 1),
                                              [A, B, C, np.int32(M), np.int32(N), np.int32(K)], checking=checking)
    np.testing.assert_allclose(C, A.astype(np.float64) @ B, rtol=1e-5)


@pytest.mark.parametrize("checking", [False, True])
def test_inclusive_scan_double_buffered(basic, checking):
    n = 500
    x = np.random.default_rng(3).integers(-100, 100, n).astype(np.int32)
    y = np.full(n, -123456789, np.int32)
    basic.get_function("scan_block").launch((1, 1, 1), (512, 1, 1), [x, y, np.int32(n)], checking=checking)
    np.testing.assert_array_equal(y, np.cumsum(x))


def test_histogram_with_atomics_passes_checking(basic):
    x = np.random.default_rng(4).integers(0, 10, 5000).astype(np.int32)
    hist = np.zeros(10, np.int32)
    basic.get_function("hist_atomic").launch((8, 1, 1), (128, 1, 1), [x, hist, np.int32(5000)], checking=True)
    np.testing.assert_array_equal(hist, np.bincount(x, minlength=10))


@pytest.mark.parametrize("checking", [False, True])
def test_grid_stride_loop_and_float_scalar(basic, checking):
    n = 10_000
    rng = np.random.default_rng(5)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    basic.get_function("saxpy_stride").launch((4, 1, 1), (128, 1, 1), [x, y, out, np.float32(1.5), np.int32(n)],
                                              checking=checking)
    np.testing.assert_allclose(out, np.float32(1.5) * x + y, rtol=1e-6)


@pytest.mark.parametrize("checking", [False, True])
def test_float4_loads(basic, checking):
    n = 1030
    x = np.random.default_rng(6).random(n, dtype=np.float32)
    y = np.zeros(n, np.float32)
    basic.get_function("copy_vec4").launch(blocks(n // 4, 64), (64, 1, 1), [x, y, np.int32(n)], checking=checking)
    np.testing.assert_array_equal(y, 2 * x)


@pytest.mark.parametrize("checking", [False, True])
def test_dynamic_shared_memory(basic, checking):
    n = 1000
    x = np.arange(n, dtype=np.float32)
    y = np.full(n, np.nan, np.float32)
    basic.get_function("dyn_reverse").launch((4, 1, 1), (256, 1, 1), [x, y, np.int32(n)], shared_mem=256 * 4,
                                             checking=checking)
    padded = np.concatenate([x, np.zeros(24, np.float32)]).reshape(4, 256)
    np.testing.assert_array_equal(y, padded[:, ::-1].reshape(-1)[:n])


def test_python_int_and_float_follow_cupy_rules(basic):
    """Python int -> 8-byte int64 (an int parameter reads the low 4 bytes: works);
    Python float -> 8-byte double (a float parameter reads half of it: garbage)."""
    k = basic.get_function("echo_scalars")
    out = np.zeros(4, np.float32)
    k.launch((1,), (1,), [7, np.float32(2.5), 3.25, 2 ** 40, out])
    assert out.tolist() == [7.0, 2.5, 3.25, float(2 ** 40)]
    k.launch((1,), (1,), [np.int32(-3), 2.5, np.float32(1.5), np.int64(5), out])
    assert out[0] == -3
    assert out[1] == np.frombuffer(np.float64(2.5).tobytes()[:4], np.float32)[0]  # low half of the double
    assert out[1] != 2.5
    assert out[2] != 1.5  # a float32 given to a double parameter leaves its upper half unset
    assert out[3] == 5


def test_templates_through_name_expressions():
    src = r"""
    template <typename T, int BLOCK>
    __global__ void scale(const T* x, T* y, T a, int n) {
        __shared__ T tile[BLOCK];
        int i = blockIdx.x * BLOCK + threadIdx.x;
        tile[threadIdx.x] = i < n ? x[i] : T(0);
        __syncthreads();
        if (i < n) y[i] = a * tile[threadIdx.x];
    }
    """
    mod = compile_module(src, name_expressions=("scale<float, 128>", "scale<double, 64>"))
    kf, kd = mod.get_function("scale<float, 128>"), mod.get_function("scale<double, 64>")
    assert [p.ctype for p in kf.params] == ["const float*", "float*", "float", "int"]
    assert [p.name for p in kd.params] == ["x", "y", "a", "n"]
    x = np.arange(300, dtype=np.float32)
    y = np.zeros(300, np.float32)
    kf.launch(blocks(300, 128), (128, 1, 1), [x, y, np.float32(3), np.int32(300)], checking=True)
    np.testing.assert_array_equal(y, 3 * x)
    xd, yd = np.arange(100, dtype=np.float64), np.zeros(100)
    kd.launch(blocks(100, 64), (64, 1, 1), [xd, yd, 0.5, np.int32(100)])
    np.testing.assert_array_equal(yd, 0.5 * xd)
    with pytest.raises(EmulatorError) as err:
        mod.get_function("scale")
    assert err.value.kind == "launch_error"


# ---- failures the emulator must report ----------------------------------------------------------
BROKEN = r"""
extern "C" __global__ void hist_racy(const int* x, int* hist, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) hist[x[i]] += 1;
}

extern "C" __global__ void reduce_missing_barrier(const float* x, float* partial, int n) {
    __shared__ float s[256];
    unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {
        if (tid < st) s[tid] += s[tid + st];
    }
    if (tid == 0) partial[blockIdx.x] = s[0];
}

extern "C" __global__ void barrier_in_branch(float* y) {
    if (threadIdx.x < 16) {
        y[threadIdx.x] = 1.0f;
        __syncthreads();
    }
}

extern "C" __global__ void barriers_at_two_sites(float* y) {
    if (threadIdx.x % 2) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    y[threadIdx.x] = 1.0f;
}

extern "C" __global__ void spin_forever(volatile int* flag) {
    while (flag[0] == 0) { }
}

extern "C" __global__ void vadd_unchecked(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];
}

extern "C" __global__ void shared_overflow(float* y) {
    __shared__ float s[64];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    y[threadIdx.x] = s[threadIdx.x];
}

extern "C" __global__ void first_block_writes(float* y) {
    if (threadIdx.x == 0) y[0] = (float)blockIdx.x;
}

__device__ __noinline__ int deep(int d) {
    volatile char pad[4096];
    pad[d % 4096] = (char)d;
    int r = d <= 0 ? 0 : deep(d - 1) + 1;
    return r + pad[d % 4096] - (char)d;
}

extern "C" __global__ void recurse(int* y, int depth) { y[threadIdx.x] = deep(depth); }

extern "C" __global__ void asserts(const int* x) { assert(x[threadIdx.x] >= 0); }

extern "C" __global__ void shfl_partial_lanes(float* y) {
    float v = threadIdx.x;
    if (threadIdx.x < 16) v = __shfl_down_sync(0xffffffffu, v, 1);
    __syncthreads();
    y[threadIdx.x] = v;
}
"""


@pytest.fixture(scope="module")
def broken():
    return compile_module(BROKEN)


def test_histogram_without_atomics_is_a_race(broken):
    x = np.random.default_rng(7).integers(0, 10, 2000).astype(np.int32)
    hist = np.zeros(10, np.int32)
    k = broken.get_function("hist_racy")
    k.launch(blocks(2000, 256), (256, 1, 1), [x, hist, np.int32(2000)])   # one thread at a time: right answer
    np.testing.assert_array_equal(hist, np.bincount(x, minlength=10))
    with pytest.raises(EmulatorError) as err:
        k.launch(blocks(2000, 256), (256, 1, 1), [x, hist, np.int32(2000)], checking=True)
    assert err.value.kind == "race_detected" and err.value.kernel == "hist_racy"
    assert "hist[" in err.value.detail


def test_reduction_missing_barrier_is_a_race(broken):
    x = np.ones(1024, np.float32)
    partial = np.zeros(4, np.float32)
    with pytest.raises(EmulatorError) as err:
        broken.get_function("reduce_missing_barrier").launch((4, 1, 1), (256, 1, 1), [x, partial, np.int32(1024)],
                                                              checking=True)
    assert err.value.kind == "race_detected"


def test_barrier_inside_divergent_branch_is_a_deadlock(broken):
    y = np.zeros(64, np.float32)
    with pytest.raises(EmulatorError) as err:
        broken.get_function("barrier_in_branch").launch((1, 1, 1), (64, 1, 1), [y])
    assert err.value.kind == "deadlock" and err.value.kernel == "barrier_in_branch"
    assert "16 thread(s) wait" in err.value.detail
    with pytest.raises(EmulatorError) as err:
        broken.get_function("barriers_at_two_sites").launch((1, 1, 1), (64, 1, 1), [y])
    assert err.value.kind == "deadlock"


def test_warp_operation_missing_lanes_is_a_deadlock(broken):
    y = np.zeros(64, np.float32)
    with pytest.raises(EmulatorError) as err:
        broken.get_function("shfl_partial_lanes").launch((1, 1, 1), (64, 1, 1), [y])
    assert err.value.kind == "deadlock" and "__shfl_down_sync" in err.value.detail


@pytest.mark.parametrize("checking", [False, True])
def test_endless_kernel_times_out(broken, checking):
    flag = np.zeros(1, np.int32)
    t0 = time.monotonic()
    with pytest.raises(EmulatorError) as err:
        broken.get_function("spin_forever").launch((2, 1, 1), (32, 1, 1), [flag], timeout_s=0.5, checking=checking)
    assert err.value.kind == "timeout"
    assert time.monotonic() - t0 < 10.0     # ended by the 0.5 s timeout, not left spinning
    # the runtime is usable afterwards
    y = np.zeros(64, np.float32)
    broken.get_function("first_block_writes").launch((1, 1, 1), (64, 1, 1), [y])


def test_missing_bounds_check_is_a_memory_error(broken):
    n = 1000
    a, b, c = np.ones(n, np.float32), np.ones(n, np.float32), np.zeros(n, np.float32)
    with pytest.raises(EmulatorError) as err:
        broken.get_function("vadd_unchecked").launch(blocks(n, 256), (256, 1, 1), [a, b, c, np.int32(n)],
                                                     checking=True)
    assert err.value.kind == "memory_error"
    assert "a[1000]" in err.value.detail
    assert (c == 0).all()  # a failed checked launch leaves the caller's arrays alone


def test_shared_memory_overflow_is_a_memory_error(broken):
    y = np.zeros(128, np.float32)
    with pytest.raises(EmulatorError) as err:
        broken.get_function("shared_overflow").launch((1, 1, 1), (128, 1, 1), [y], checking=True)
    assert err.value.kind == "memory_error" and "__shared__ s" in err.value.detail


def test_blocks_writing_one_location_is_a_race(broken):
    y = np.zeros(1, np.float32)
    with pytest.raises(EmulatorError) as err:
        broken.get_function("first_block_writes").launch((4, 1, 1), (32, 1, 1), [y], checking=True)
    assert err.value.kind == "race_detected" and "block" in err.value.detail


def test_launch_checks_follow_cupy(basic):
    k = basic.get_function("vadd")
    a = np.zeros(10, np.float32)
    for grid, block in [((1, 1, 1), (1025, 1, 1)), ((1, 1, 1), (32, 32, 2)), ((1.0, 1, 1), (32, 1, 1))]:
        with pytest.raises(EmulatorError) as err:
            k.launch(grid, block, [a, a, a, np.int32(10)])
        assert err.value.kind == "launch_error"
    d = basic.get_function("dyn_reverse")
    with pytest.raises(EmulatorError) as err:
        d.launch((1, 1, 1), (32, 1, 1), [a, a, np.int32(10)], shared_mem=64 * 1024)
    assert err.value.kind == "launch_error"
    d.max_dynamic_shared_size_bytes = 100 * 1024
    d.launch((1, 1, 1), (32, 1, 1), [a, a, np.int32(10)], shared_mem=64 * 1024)
    with pytest.raises(EmulatorError) as err:
        k.launch((1, 1, 1), (32, 1, 1), [a, a, a])
    assert err.value.kind == "launch_error"


def test_compile_errors_point_at_the_candidates_lines():
    src = "extern \"C\" __global__ void k(float* y) {\n    y[0] = 1.0f;\n    undefined_thing(y);\n}\n"
    with pytest.raises(EmulatorError) as err:
        compile_module(src)
    assert err.value.kind == "compile_error"
    assert "kernel.cu:3:" in err.value.detail and "undefined_thing" in err.value.detail


def test_runtime_object_exports_only_what_modules_link():
    """The runtime's units share names in kp::core; combined, those are local, so a kernel's own
    names never meet them."""
    core = build.core_object()
    names = subprocess.run(["nm", "-g", "--defined-only", str(core)], capture_output=True, text=True,
                           check=True).stdout.split()
    assert "_ZN2kp10kp_barrierEii" in names and "__tsan_write4" in names and "kp_arena_create" in names
    assert not [n for n in names if n.startswith("_ZN2kp4core")]
    src = r"""
    namespace kp { namespace core { unsigned g_phase = 7; } }
    extern "C" __global__ void k(unsigned* y) { y[threadIdx.x] = kp::core::g_phase; __syncthreads(); }
    """
    y = np.zeros(32, np.uint32)
    compile_module(src).get_function("k").launch((1,), (32,), [y], checking=True)
    assert (y == 7).all()


# ---- correct kernels in many styles: the checked run must not report anything ---------------------
CORRECT = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void red_syncwarp(const float* x, float* out, int n) {
    __shared__ float s[256];
    int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? x[i] : 0.f;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 32; st >>= 1) {
        if (tid < st) s[tid] += s[tid + st];
        __syncthreads();
    }
    if (tid < 32) {
        float v = s[tid] + s[tid + 32];
        __syncwarp();
        s[tid] = v; __syncwarp();
        for (int o = 16; o > 0; o >>= 1) {
            if (tid < o) v += s[tid + o];
            __syncwarp();
            if (tid < o) s[tid] = v;
            __syncwarp();
        }
    }
    if (tid == 0) atomicAdd(out, s[0]);
}

extern "C" __global__ void blelloch(const int* x, int* y, int n) {
    __shared__ int t[512];
    int tid = threadIdx.x;
    t[2*tid] = 2*tid < n ? x[2*tid] : 0;
    t[2*tid+1] = 2*tid+1 < n ? x[2*tid+1] : 0;
    int off = 1;
    for (int d = 256; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) { int ai = off*(2*tid+1)-1, bi = off*(2*tid+2)-1; t[bi] += t[ai]; }
        off *= 2;
    }
    if (tid == 0) t[511] = 0;
    for (int d = 1; d < 512; d *= 2) {
        off >>= 1;
        __syncthreads();
        if (tid < d) { int ai = off*(2*tid+1)-1, bi = off*(2*tid+2)-1; int v = t[ai]; t[ai] = t[bi]; t[bi] += v; }
    }
    __syncthreads();
    if (2*tid < n) y[2*tid] = t[2*tid] + x[2*tid];
    if (2*tid+1 < n) y[2*tid+1] = t[2*tid+1] + x[2*tid+1];
}

extern "C" __global__ void hist_shared(const int* x, int* h, int n, int bins) {
    extern __shared__ int sh[];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) sh[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&sh[x[i]], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x) if (sh[b]) atomicAdd(&h[b], sh[b]);
}

extern "C" __global__ void transpose(const float* a, float* b, int rows, int cols) {
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = a[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) if (x < rows && y + j < cols) b[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

__device__ float block_reduce(float v, float* sh, bool is_max) {
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    for (int o = 16; o; o >>= 1) { float u = __shfl_xor_sync(0xffffffff, v, o); v = is_max ? fmaxf(v, u) : v + u; }
    if (lane == 0) sh[w] = v;
    __syncthreads();
    int nw = (blockDim.x + 31) / 32;
    v = lane < nw ? sh[lane] : (is_max ? __int_as_float(0xff800000) : 0.f);
    for (int o = 16; o; o >>= 1) { float u = __shfl_xor_sync(0xffffffff, v, o); v = is_max ? fmaxf(v, u) : v + u; }
    __syncthreads();
    return v;
}

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) {
    __shared__ float sh[32];
    int r = blockIdx.x;
    const float* xr = x + (size_t)r * cols;
    float m = __int_as_float(0xff800000);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = block_reduce(m, sh, true);
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(xr[c] - m);
    s = block_reduce(s, sh, false);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) y[(size_t)r * cols + c] = __expf(xr[c] - m) / s;
}

__device__ unsigned int done_count = 0;
extern "C" __global__ void last_block(const float* x, float* partial, float* out, int n) {
    __shared__ float s[128];
    __shared__ bool amLast;
    int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? x[i] : 0.f;
    __syncthreads();
    for (int st = 64; st; st >>= 1) { if (tid < st) s[tid] += s[tid + st]; __syncthreads(); }
    if (tid == 0) {
        partial[blockIdx.x] = s[0];
        __threadfence();
        unsigned v = atomicInc(&done_count, gridDim.x);
        amLast = (v == gridDim.x - 1);
    }
    __syncthreads();
    if (amLast) {
        float t = 0;
        for (int k = tid; k < gridDim.x; k += blockDim.x) t += partial[k];
        s[tid] = t;
        __syncthreads();
        for (int st = 64; st; st >>= 1) { if (tid < st) s[tid] += s[tid + st]; __syncthreads(); }
        if (tid == 0) { out[0] = s[0]; done_count = 0; }
    }
}

extern "C" __global__ void cg_reduce(const float* x, float* out, int n) {
    cg::thread_block block = cg::this_thread_block();
    auto tile = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.f;
    v = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0) atomicAdd(out, v);
    block.sync();
}

extern "C" __global__ void flag_benign(const float* x, int* found, float thr, int n) {
    __shared__ int any;
    if (threadIdx.x == 0) any = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > thr) any = 1;
    __syncthreads();
    if (threadIdx.x == 0 && any) atomicOr(found, 1);
}

extern "C" __global__ void conv1d_halo(const float* x, const float* w, float* y, int n, int k) {
    extern __shared__ float sx[];
    int base = blockIdx.x * blockDim.x;
    int nout = n - k + 1;
    for (int j = threadIdx.x; j < blockDim.x + k - 1; j += blockDim.x) sx[j] = base + j < n ? x[base + j] : 0.f;
    __syncthreads();
    int i = base + threadIdx.x;
    if (i < nout) { float acc = 0; for (int j = 0; j < k; j++) acc += sx[threadIdx.x + j] * w[j]; y[i] = acc; }
}

// 64x64 tile per block, 16x16 threads, 4x4 outputs each, float4 loads of A and B rows
extern "C" __global__ void mm_reg(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[16][64 + 4];
    __shared__ __align__(16) float Bs[16][64];
    int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int e = tid; e < 64 * 16; e += 256) {
            int r = e / 16, c = e % 16;
            As[c][r] = (row0 + r < M && k0 + c < K) ? A[(row0 + r) * K + k0 + c] : 0.f;
            int rb = e / 64, cb = e % 64;
            Bs[rb][cb] = (k0 + rb < K && col0 + cb < N) ? B[(k0 + rb) * N + col0 + cb] : 0.f;
        }
        __syncthreads();
        for (int kk = 0; kk < 16; kk++) {
            float4 b = *reinterpret_cast<const float4*>(&Bs[kk][tx * 4]);
            for (int i = 0; i < 4; i++) {
                float a = As[kk][ty * 4 + i];
                acc[i][0] += a * b.x; acc[i][1] += a * b.y; acc[i][2] += a * b.z; acc[i][3] += a * b.w;
            }
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; i++) for (int j = 0; j < 4; j++) {
        int r = row0 + ty * 4 + i, c = col0 + tx * 4 + j;
        if (r < M && c < N) C[r * N + c] = acc[i][j];
    }
}

extern "C" __global__ void count_pos(const float* x, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int c = __syncthreads_count(i < n && x[i] > 0.5f);
    if (threadIdx.x == 0) atomicAdd(out, c);
}

extern "C" __global__ void compact_warp(const float* x, int* idx, int* cnt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool keep = i < n && x[i] > 0.5f;
    unsigned m = __ballot_sync(0xffffffff, keep);
    int lane = threadIdx.x & 31;
    int pos = __popc(m & ((1u << lane) - 1));
    int base = i - lane;
    if (keep) idx[base + pos] = i;
    if (lane == 0) cnt[i / 32] = __popc(m);
}

extern "C" __global__ void layernorm_warp(const float* x, float* y, int rows, int cols, float eps) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float s = 0, s2 = 0;
    for (int c = lane; c < cols; c += 32) { float v = xr[c]; s += v; s2 += v * v; }
    for (int o = 16; o; o >>= 1) { s += __shfl_xor_sync(0xffffffff, s, o); s2 += __shfl_xor_sync(0xffffffff, s2, o); }
    float mean = s / cols, var = s2 / cols - mean * mean, inv = rsqrtf(var + eps);
    for (int c = lane; c < cols; c += 32) y[(size_t)row * cols + c] = (xr[c] - mean) * inv;
}
"""


def _case_args():
    rng = np.random.default_rng(11)
    n = 1000
    x = rng.random(n, dtype=np.float32)
    xs = (rng.random((5, 777), dtype=np.float32) - 0.5) * 20
    soft = np.exp(xs - xs.max(1, keepdims=True))
    soft /= soft.sum(1, keepdims=True)
    xi = rng.integers(-100, 100, 512).astype(np.int32)
    xh = rng.integers(0, 50, 5000).astype(np.int32)
    a = rng.random((70, 45), dtype=np.float32)
    w = rng.random(7, dtype=np.float32)
    M, N, K = 100, 72, 40
    A, B = rng.random((M, K), dtype=np.float32), rng.random((K, N), dtype=np.float32)
    xl = rng.random((37, 300), dtype=np.float32)
    ln = (xl - xl.mean(1, keepdims=True)) / np.sqrt(xl.var(1, keepdims=True) + 1e-5)
    i32 = np.int32
    z = lambda *s, dt=np.float32: np.zeros(s, dt)  # noqa: E731
    return {
        # name: (grid, block, shared bytes, args, index of the output, expected or predicate)
        "red_syncwarp": ((4,), (256,), 0, [x, z(1), i32(n)], 1, lambda o: abs(o[0] - x.sum()) < 1e-2),
        "blelloch": ((1,), (256,), 0, [xi, z(512, dt=np.int32), i32(500)], 1,
                     lambda o: (o[:500] == np.cumsum(xi[:500])).all()),
        "hist_shared": ((8,), (128,), 50 * 4, [xh, z(50, dt=np.int32), i32(5000), i32(50)], 1,
                        lambda o: (o == np.bincount(xh, minlength=50)).all()),
        "transpose": ((2, 3), (32, 8), 0, [a, z(45, 70), i32(70), i32(45)], 1, lambda o: (o == a.T).all()),
        "softmax": ((5,), (128,), 0, [xs, z(5, 777), i32(5), i32(777)], 1,
                    lambda o: np.allclose(o, soft, rtol=1e-4, atol=1e-6)),
        "last_block": ((8,), (128,), 0, [x, z(8), z(1), i32(n)], 2, lambda o: abs(o[0] - x.sum()) < 1e-2),
        "cg_reduce": ((4,), (256,), 0, [x, z(1), i32(n)], 1, lambda o: abs(o[0] - x.sum()) < 1e-2),
        "flag_benign": ((4,), (256,), 0, [x, z(1, dt=np.int32), np.float32(0.5), i32(n)], 1, lambda o: o[0] == 1),
        "conv1d_halo": ((4,), (256,), (256 + 6) * 4, [x, w, z(n - 6), i32(n), i32(7)], 2,
                        lambda o: np.allclose(o, np.correlate(x, w, "valid"), rtol=1e-5)),
        "mm_reg": ((2, 2), (16, 16), 0, [A, B, z(M, N), i32(M), i32(N), i32(K)], 2,
                   lambda o: np.allclose(o, A @ B, rtol=1e-4)),
        "count_pos": ((4,), (256,), 0, [x, z(1, dt=np.int32), i32(n)], 1, lambda o: o[0] == (x > 0.5).sum()),
        "compact_warp": ((4,), (256,), 0, [x, np.full(1024, -1, np.int32), z(32, dt=np.int32), i32(n)], 2,
                         lambda o: o.sum() == (x > 0.5).sum()),
        "layernorm_warp": ((10,), (128,), 0, [xl, z(37, 300), i32(37), i32(300), np.float32(1e-5)], 1,
                           lambda o: np.allclose(o, ln, atol=1e-4)),
    }


@pytest.fixture(scope="module")
def correct():
    return compile_module(CORRECT), _case_args()


@pytest.mark.parametrize("name", list(_case_args()))
def test_correct_kernels_pass_checking(correct, name):
    mod, cases = correct
    grid, block, shared, args, out_index, ok = cases[name]
    for checking in (False, True):
        fresh = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        mod.get_function(name).launch(grid, block, fresh, shared_mem=shared, checking=checking)
        assert ok(fresh[out_index]), (name, checking)


def test_device_variables_big_local_arrays_and_printf(capfd):
    """__device__ state starts each checked run from the same point; big local arrays fit;
    device printf reaches stdout once per launch, checked or not."""
    src = r"""
    extern "C" __global__ void hello(int v) { if (threadIdx.x == 1) printf("hello %d from block %d\n", v, blockIdx.x); }
    __device__ unsigned int block_counter = 0;
    __device__ float table[4] = {1, 2, 3, 4};
    extern "C" __global__ void reset_counter() { block_counter = 0; }
    extern "C" __global__ void dynamic_blocks(const float* x, float* y, int n) {
        __shared__ unsigned bid;
        if (threadIdx.x == 0) bid = atomicAdd(&block_counter, 1);
        __syncthreads();
        int i = bid * blockDim.x + threadIdx.x;
        if (i < n) y[i] = 2.0f * x[i] + table[i % 4];
    }
    extern "C" __global__ void big_local(const float* x, float* y, int n) {
        float buf[30000];
        for (int i = 0; i < 30000; i++) buf[i] = x[(i + threadIdx.x) % n];
        __syncthreads();
        float s = 0.0f;
        for (int i = 0; i < 30000; i += 7) s += buf[i];
        y[threadIdx.x] = s;
    }
    """
    mod = compile_module(src)
    x = np.arange(1000, dtype=np.float32)
    expect = 2 * x + np.array([1, 2, 3, 4], np.float32)[np.arange(1000) % 4]
    for checking in (False, True, True):
        y = np.zeros(1000, np.float32)
        mod.get_function("reset_counter").launch((1,), (1,), [], checking=checking)
        mod.get_function("dynamic_blocks").launch((4,), (256,), [x, y, np.int32(1000)], checking=checking)
        np.testing.assert_array_equal(y, expect)
    capfd.readouterr()
    mod.get_function("hello").launch((2,), (32,), [5], checking=True)
    assert capfd.readouterr().out.splitlines() == ["hello 5 from block 0", "hello 5 from block 1"]
    y = np.zeros(64, np.float32)
    mod.get_function("big_local").launch((1,), (64,), [x, y, np.int32(1000)])
    assert y[0] == np.float32(sum(x[i % 1000] for i in range(0, 30000, 7)))


def test_stack_overflow_and_device_assert_are_reported(broken):
    y = np.zeros(4, np.int32)
    broken.get_function("recurse").launch((1,), (4,), [y, np.int32(3)])
    assert (y == 3).all()
    with pytest.raises(EmulatorError) as err:
        broken.get_function("recurse").launch((1,), (4,), [y, np.int32(100_000)])
    assert err.value.kind == "memory_error" and "stack overflow" in err.value.detail
    x = np.array([1, 2, -3, 4], np.int32)
    with pytest.raises(EmulatorError) as err:
        broken.get_function("asserts").launch((1,), (4,), [x])
    assert err.value.kind == "launch_error" and "x[threadIdx.x] >= 0" in err.value.detail
    broken.get_function("recurse").launch((1,), (4,), [y, np.int32(5)])  # and the runtime carries on
    assert (y == 5).all()
