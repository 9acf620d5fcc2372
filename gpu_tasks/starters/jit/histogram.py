import cupy as cp
from cupyx import jit

# hist[v] = number of i < n with x[i] == v, for v < bins (int32). x values lie in [0, bins).
# hist arrives holding -123456789 in every bin: clear it first.
# cupyx.jit fits this task well: increments with jit.atomic_add(hist, v, 1); a per-block
# histogram in shared memory (jit.shared_memory, merged into hist at the end) cuts contention
# on the hot bin. Keep a global-memory path for bins too large for shared memory.
# The built-ins (jit.threadIdx, ...) are unsigned: cp.int32(...) keeps index arithmetic with
# the int arguments in one signed type (mixing them is a cupyx.jit compile error).
@jit.rawkernel()
def _kernel(x, hist, n, bins):
    start = cp.int32(jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x)
    step = cp.int32(jit.gridDim.x * jit.blockDim.x)
    # TODO: for each i in range(start, n, step), count x[i] in hist


def solve(x, hist, n, bins):
    hist.fill(0)
    threads = 256
    blocks = min((n + threads - 1) // threads, 512)  # the grid-stride loop covers the rest
    _kernel((blocks,), (threads,), (x, hist, cp.int32(n), cp.int32(bins)))
