import cupy as cp
from cupyx import jit

# Compute y[i] = max(x[i], 0) for every i < n (float32). y arrives filled with NaN.
# cupyx.jit fits this task well: the kernel is Python syntax transpiled to CUDA, with the same
# thread/block model as a RawKernel (jit.threadIdx, jit.blockIdx, jit.blockDim).
# The built-ins (jit.threadIdx, ...) are unsigned: cp.int32(...) keeps index arithmetic with
# the int arguments in one signed type (mixing them is a cupyx.jit compile error).
@jit.rawkernel()
def _kernel(x, y, n):
    i = cp.int32(jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x)
    # TODO: guard i < n, then write y[i] (x holds float32: compare with cp.float32(0))


def solve(x, y, n):
    threads = 256  # a multiple of 32 (the warp size)
    blocks = (n + threads - 1) // threads  # enough blocks to cover n, rounded up
    _kernel((blocks,), (threads,), (x, y, cp.int32(n)))  # cp.int32: the kernel's n is an int
