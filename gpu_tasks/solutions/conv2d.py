import cupy as cp

# Each 16x16 block computes a 16x16 tile of outputs from a (16 + k - 1)^2 tile of x staged in
# shared memory together with the filter.
_conv2d = cp.RawKernel(r'''
#define T 16

extern "C" __global__ void conv2d(const float* __restrict__ x, const float* __restrict__ w,
                                  float* __restrict__ y, int rows, int cols, int k) {
    extern __shared__ float smem[];
    const int span = T + k - 1;
    float* xs = smem;
    float* ws = smem + span * span;
    const int tid = threadIdx.y * T + threadIdx.x;
    const int r0 = blockIdx.y * T, c0 = blockIdx.x * T;
    for (int idx = tid; idx < span * span; idx += T * T) {
        int r = r0 + idx / span, c = c0 + idx % span;
        xs[idx] = (r < rows && c < cols) ? x[(size_t)r * cols + c] : 0.0f;
    }
    for (int idx = tid; idx < k * k; idx += T * T) ws[idx] = w[idx];
    __syncthreads();

    const int out_rows = rows - k + 1, out_cols = cols - k + 1;
    const int oy = r0 + threadIdx.y, ox = c0 + threadIdx.x;
    if (oy < out_rows && ox < out_cols) {
        float acc = 0.0f;
        for (int a = 0; a < k; ++a) {
            const float* xrow = xs + (threadIdx.y + a) * span + threadIdx.x;
            const float* wrow = ws + a * k;
            for (int b = 0; b < k; ++b) acc = fmaf(xrow[b], wrow[b], acc);
        }
        y[(size_t)oy * out_cols + ox] = acc;
    }
}
''', "conv2d")


def solve(x, w, y, rows, cols, k):
    out_rows, out_cols = rows - k + 1, cols - k + 1
    grid = ((out_cols + 15) // 16, (out_rows + 15) // 16)
    shared = ((16 + k - 1) ** 2 + k * k) * 4
    _conv2d(grid, (16, 16), (x, w, y, cp.int32(rows), cp.int32(cols), cp.int32(k)), shared_mem=shared)
