import cupy as cp

# Compute y[i] = max(x[i], 0) for every i < n (float32). y arrives filled with NaN.
_kernel = cp.RawKernel(r'''
extern "C" __global__ void relu(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // TODO
}
''', "relu")


def solve(x, y, n):
    threads = 256
    _kernel(((n + threads - 1) // threads,), (threads,), (x, y, cp.int32(n)))
