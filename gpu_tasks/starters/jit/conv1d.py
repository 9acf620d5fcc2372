import cupy as cp
from cupyx import jit

# y[i] = sum over j < k of x[i + j] * w[j], for i < n - k + 1 (valid cross-correlation, no
# flipping of w). y has n - k + 1 elements and arrives filled with NaN.
# cupyx.jit fits this task well: one thread per output; staging a tile of x plus its k - 1
# halo in shared memory (jit.shared_memory, jit.syncthreads()) saves re-reading x.
# The built-ins (jit.threadIdx, ...) are unsigned: cp.int32(...) keeps index arithmetic with
# the int arguments in one signed type (mixing them is a cupyx.jit compile error).
@jit.rawkernel()
def _kernel(x, w, y, n, k):
    i = cp.int32(jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x)
    # TODO: for i < n - k + 1, accumulate the k products in a float (cp.float32(0)) and write y[i]


def solve(x, w, y, n, k):
    out_n = n - k + 1
    threads = 256
    _kernel(((out_n + threads - 1) // threads,), (threads,), (x, w, y, cp.int32(n), cp.int32(k)))
