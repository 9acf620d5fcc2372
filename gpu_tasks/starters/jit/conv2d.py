import cupy as cp
from cupyx import jit

# y[i, j] = sum over a, b < k of x[i + a, j + b] * w[a, b] for the (rows - k + 1) x
# (cols - k + 1) valid outputs (float32, row-major, no flipping of w). y arrives filled with NaN.
# cupyx.jit fits this task well: one thread per output; a 16x16 block can stage its input
# tile plus a k - 1 halo in shared memory (jit.shared_memory is one-dimensional, sized at
# compile time: (16 + 30) * (16 + 30) floats cover k <= 31).
# A 2-D array keeps its shape inside the kernel: index it as a[row, col], not a[flat].
# The built-ins (jit.threadIdx, ...) are unsigned: cp.int32(...) keeps index arithmetic with
# the int arguments in one signed type (mixing them is a cupyx.jit compile error).
@jit.rawkernel()
def _kernel(x, w, y, rows, cols, k):
    ox = cp.int32(jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x)
    oy = cp.int32(jit.blockIdx.y * jit.blockDim.y + jit.threadIdx.y)
    # TODO: for outputs inside y, accumulate the k * k products in a float and write y


def solve(x, w, y, rows, cols, k):
    out_rows, out_cols = rows - k + 1, cols - k + 1
    grid = ((out_cols + 15) // 16, (out_rows + 15) // 16)  # x over columns, y over rows of y
    _kernel(grid, (16, 16), (x, w, y, cp.int32(rows), cp.int32(cols), cp.int32(k)))
