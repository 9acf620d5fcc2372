import cupy as cp
from cupyx import jit

# c (m x n) = a (m x k) @ b (k x n), float32, row-major. Note the argument order m, n, k.
# c arrives filled with NaN. Shapes are rarely multiples of a tile: guard the tile loads.
# cupyx.jit fits this task well: tiles of a and b in shared memory (jit.shared_memory is
# one-dimensional: index a tile as tile[row * TILE + col]), jit.syncthreads() between loading
# and using a tile; several outputs per thread raise the arithmetic intensity further.
TILE = 16


# A 2-D array keeps its shape inside the kernel: index it as a[row, col], not a[flat].
# The built-ins (jit.threadIdx, ...) are unsigned: cp.int32(...) keeps index arithmetic with
# the int arguments in one signed type (mixing them is a cupyx.jit compile error).
@jit.rawkernel()
def _kernel(a, b, c, m, n, k):
    a_tile = jit.shared_memory(cp.float32, 16 * 16)
    b_tile = jit.shared_memory(cp.float32, 16 * 16)
    row = cp.int32(jit.blockIdx.y * 16 + jit.threadIdx.y)
    col = cp.int32(jit.blockIdx.x * 16 + jit.threadIdx.x)
    # TODO: loop over k in steps of 16: load both tiles (0 outside the matrices),
    # jit.syncthreads(), multiply-accumulate in a float, jit.syncthreads(); then write c


def solve(a, b, c, m, n, k):
    grid = ((n + TILE - 1) // TILE, (m + TILE - 1) // TILE)  # x over columns, y over rows of c
    _kernel(grid, (TILE, TILE), (a, b, c, cp.int32(m), cp.int32(n), cp.int32(k)))
