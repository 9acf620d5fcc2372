import cupy as cp

# hist[v] = number of i < n with x[i] == v, for v < bins (int32). hist holds -123456789 on
# entry: clear it. Increments must be atomic; a per-block histogram in shared memory helps.
_kernel = cp.RawKernel(r'''
extern "C" __global__ void histogram(const int* x, int* hist, int n, int bins) {
    // TODO
}
''', "histogram")


def solve(x, hist, n, bins):
    hist.fill(0)
    threads = 256
    blocks = min((n + threads - 1) // threads, 512)
    _kernel((blocks,), (threads,), (x, hist, cp.int32(n), cp.int32(bins)))
