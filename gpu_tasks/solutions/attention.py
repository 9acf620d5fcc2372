import math

import cupy as cp

# One block per query row. The query and the row of scores stay in shared memory: a warp per
# key computes the scores with coalesced loads and a shuffle reduction, the block finds their
# maximum, exponentiates and sums them, and finally each thread forms output columns as
# probability-weighted sums of the rows of v.
_attention = cp.RawKernel(r'''
#define NEG_BIG (-3.402823466e38f)

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ float block_reduce(float v, float* scratch, bool is_max) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    v = is_max ? warp_max(v) : warp_sum(v);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    float total = scratch[0];
    for (int w = 1; w < warps; ++w) total = is_max ? fmaxf(total, scratch[w]) : total + scratch[w];
    __syncthreads();
    return total;
}

extern "C" __global__ void attention(const float* __restrict__ q, const float* __restrict__ k,
                                     const float* __restrict__ v, float* __restrict__ out,
                                     int seq, int dim, float scale) {
    extern __shared__ float smem[];
    __shared__ float scratch[32];
    float* qs = smem;
    float* p = smem + dim;
    const int i = blockIdx.x;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;

    for (int c = threadIdx.x; c < dim; c += blockDim.x) qs[c] = q[(size_t)i * dim + c];
    __syncthreads();

    float m = NEG_BIG;
    for (int j = warp; j < seq; j += warps) {
        const float* kr = k + (size_t)j * dim;
        float s = 0.0f;
        for (int c = lane; c < dim; c += 32) s = fmaf(qs[c], kr[c], s);
        s = warp_sum(s) * scale;
        if (lane == 0) p[j] = s;
        m = fmaxf(m, s);
    }
    m = block_reduce(m, scratch, true);

    float l = 0.0f;
    for (int j = threadIdx.x; j < seq; j += blockDim.x) {
        float e = expf(p[j] - m);
        p[j] = e;
        l += e;
    }
    l = block_reduce(l, scratch, false);
    const float inv = 1.0f / l;

    for (int c = threadIdx.x; c < dim; c += blockDim.x) {
        float acc = 0.0f;
        for (int j = 0; j < seq; ++j) acc = fmaf(p[j], v[(size_t)j * dim + c], acc);
        out[(size_t)i * dim + c] = acc * inv;
    }
}
''', "attention")


def solve(q, k, v, out, seq, dim):
    shared = (dim + seq) * 4
    _attention((seq,), (128,), (q, k, v, out, cp.int32(seq), cp.int32(dim),
                                cp.float32(1.0 / math.sqrt(dim))), shared_mem=shared)
