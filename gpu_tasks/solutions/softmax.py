import cupy as cp

# One block per row. Each thread keeps an online (max, sum of exp(x - max)) pair over its
# strided slice of the row; the pairs are merged with warp shuffles, then across warps through
# shared memory; a second pass writes exp(x - max) / sum.
_softmax = cp.RawKernel(r'''
#define NEG_BIG (-3.402823466e38f)

__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
    float mx = fmaxf(m, m2);
    s = s * __expf(m - mx) + s2 * __expf(m2 - mx);
    m = mx;
}

extern "C" __global__ void softmax(const float* __restrict__ x, float* __restrict__ y,
                                   int rows, int cols) {
    __shared__ float warp_m[32];
    __shared__ float warp_s[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int warps = blockDim.x >> 5;

    float m = NEG_BIG, s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        float v = xr[j];
        if (v > m) {
            s = s * __expf(m - v) + 1.0f;
            m = v;
        } else {
            s += __expf(v - m);
        }
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, offset);
        float s2 = __shfl_xor_sync(0xffffffffu, s, offset);
        merge(m, s, m2, s2);
    }
    if (lane == 0) {
        warp_m[warp] = m;
        warp_s[warp] = s;
    }
    __syncthreads();
    m = warp_m[0];
    s = warp_s[0];
    for (int w = 1; w < warps; ++w) merge(m, s, warp_m[w], warp_s[w]);

    const float inv = 1.0f / s;
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        yr[j] = __expf(xr[j] - m) * inv;
}
''', "softmax")


def _threads(cols):
    if cols <= 32:
        return 32
    if cols <= 1024:
        return 128
    return 256


def solve(x, y, rows, cols):
    _softmax((rows,), (_threads(cols),), (x, y, cp.int32(rows), cp.int32(cols)))
