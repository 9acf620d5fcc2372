import cupy as cp

# hist[v] = number of i < n with x[i] == v, for v < bins (int32). x values lie in [0, bins).
# hist arrives holding -123456789 in every bin: clear it first.
# ElementwiseKernel fits this task moderately: one thread per element of x, and a `raw`
# output can be updated at any index, with atomics (atomicAdd) since many threads hit the
# same bin. It cannot privatise the histogram in shared memory, so the hot bin is contended:
# correct, but slower than a RawKernel or cupyx.jit kernel with per-block histograms.
_kernel = cp.ElementwiseKernel(
    "int32 x",  # input: the loop runs over x's elements
    "raw int32 hist",  # raw: indexed by hand (hist[...]), not per element
    """
    // TODO: count this element of x in hist
    """,
    "histogram",
)


def solve(x, hist, n, bins):
    hist.fill(0)
    _kernel(x, hist)
