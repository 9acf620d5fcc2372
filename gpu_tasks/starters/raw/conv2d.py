import cupy as cp

# y[i, j] = sum over a, b < k of x[i + a, j + b] * w[a, b] for the (rows - k + 1) x
# (cols - k + 1) valid outputs (float32, row-major). A 16x16 block can stage its input tile
# plus a k - 1 halo in shared memory.
_kernel = cp.RawKernel(r'''
extern "C" __global__ void conv2d(const float* x, const float* w, float* y, int rows, int cols, int k) {
    int ox = blockIdx.x * blockDim.x + threadIdx.x;
    int oy = blockIdx.y * blockDim.y + threadIdx.y;
    // TODO
}
''', "conv2d")


def solve(x, w, y, rows, cols, k):
    out_rows, out_cols = rows - k + 1, cols - k + 1
    grid = ((out_cols + 15) // 16, (out_rows + 15) // 16)
    _kernel(grid, (16, 16), (x, w, y, cp.int32(rows), cp.int32(cols), cp.int32(k)))
