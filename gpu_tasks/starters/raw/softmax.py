import cupy as cp

# Row-wise softmax of a rows x cols float32 matrix. Inputs reach +-100: subtract the row max
# before exponentiating. No INFINITY/FLT_MAX under NVRTC: use -3.402823466e38f.
_kernel = cp.RawKernel(r'''
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) {
    __shared__ float scratch[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    // TODO: block max reduction, block sum of exp(x - max), write exp(x - max) / sum
}
''', "softmax")


def solve(x, y, rows, cols):
    _kernel((rows,), (256,), (x, y, cp.int32(rows), cp.int32(cols)))
