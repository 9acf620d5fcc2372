import cupy as cp
from cupyx import jit

# y (m) = a (m x n, row-major) @ x (n), float32. y arrives filled with NaN.
# cupyx.jit fits this task well: one warp per row, lanes reading the row with coalesced
# loads, then a shuffle reduction (jit.shfl_down_sync(0xFFFFFFFF, value, offset)).
# A 2-D array keeps its shape inside the kernel: index it as a[row, col], not a[flat].
# The built-ins (jit.threadIdx, ...) are unsigned: cp.int32(...) keeps index arithmetic with
# the int arguments in one signed type (mixing them is a cupyx.jit compile error).
@jit.rawkernel()
def _kernel(a, x, y, m, n):
    lane = cp.int32(jit.threadIdx.x % 32)
    row = cp.int32(jit.blockIdx.x * (jit.blockDim.x // 32) + jit.threadIdx.x // 32)
    # TODO: for row < m, sum a[row, j] * x[j] over j = lane, lane + 32, ... in a float,
    # reduce across the warp, and let lane 0 write y[row]


def solve(a, x, y, m, n):
    warps_per_block = 8
    _kernel(((m + warps_per_block - 1) // warps_per_block,), (32 * warps_per_block,),
            (a, x, y, cp.int32(m), cp.int32(n)))
