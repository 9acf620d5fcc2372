import cupy as cp
from cupyx import jit

# a is rows x cols (row-major); write its transpose into b (cols x rows):
# b[j, i] = a[i, j]. b arrives filled with NaN. Sides are rarely multiples of 32.
# cupyx.jit fits this task well: like a RawKernel, a block can stage a 32x32 tile in shared
# memory so that both the reads of a and the writes of b are coalesced.
# jit.shared_memory is one-dimensional: index the tile as tile[row * 33 + col].
# A 2-D array keeps its shape inside the kernel: index it as a[row, col], not a[flat].
# The built-ins (jit.threadIdx, ...) are unsigned: cp.int32(...) keeps index arithmetic with
# the int arguments in one signed type (mixing them is a cupyx.jit compile error).
@jit.rawkernel()
def _kernel(a, b, rows, cols):
    tile = jit.shared_memory(cp.float32, 32 * 33)  # 33 columns: padding against bank conflicts
    col = cp.int32(jit.blockIdx.x * 32 + jit.threadIdx.x)
    row = cp.int32(jit.blockIdx.y * 32 + jit.threadIdx.y)
    # TODO: copy the 32x32 tile of a at (row, col) into tile (blockDim.y is 8: four row steps,
    # guarded against the edges), jit.syncthreads(), then write it transposed into b


def solve(a, b, rows, cols):
    grid = ((cols + 31) // 32, (rows + 31) // 32)  # one block per 32x32 tile of a
    _kernel(grid, (32, 8), (a, b, cp.int32(rows), cp.int32(cols)))
