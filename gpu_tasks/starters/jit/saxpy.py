import cupy as cp
from cupyx import jit

# Compute out[i] = alpha * x[i] + y[i] for every i < n (float32). out arrives filled with NaN.
# cupyx.jit fits this task well: the kernel is Python syntax transpiled to CUDA, with the same
# thread/block model as a RawKernel. Argument types come from the launch: pass alpha as
# cp.float32 so the arithmetic stays in float32.
# The built-ins (jit.threadIdx, ...) are unsigned: cp.int32(...) keeps index arithmetic with
# the int arguments in one signed type (mixing them is a cupyx.jit compile error).
@jit.rawkernel()
def _kernel(x, y, out, alpha, n):
    i = cp.int32(jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x)
    # TODO: guard i < n, then write out[i]


def solve(x, y, out, alpha, n):
    threads = 256  # a multiple of 32 (the warp size)
    blocks = (n + threads - 1) // threads  # enough blocks to cover n, rounded up
    _kernel((blocks,), (threads,), (x, y, out, cp.float32(alpha), cp.int32(n)))
