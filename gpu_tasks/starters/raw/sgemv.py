import cupy as cp

# y (m) = a (m x n, row-major) @ x (n), float32.
# Suggested: one warp per row, coalesced loads along the row, a shuffle reduction.
_kernel = cp.RawKernel(r'''
extern "C" __global__ void sgemv(const float* a, const float* x, float* y, int m, int n) {
    int lane = threadIdx.x & 31;
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    // TODO
}
''', "sgemv")


def solve(a, x, y, m, n):
    _kernel(((m + 7) // 8,), (256,), (a, x, y, cp.int32(m), cp.int32(n)))
