import cupy as cp

_saxpy = cp.RawKernel(r'''
extern "C" __global__ void saxpy(const float* __restrict__ x, const float* __restrict__ y,
                                 float* __restrict__ out, float alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fmaf(alpha, x[i], y[i]);
}
''', "saxpy")


def solve(x, y, out, alpha, n):
    threads = 256
    _saxpy(((n + threads - 1) // threads,), (threads,), (x, y, out, cp.float32(alpha), cp.int32(n)))
