import cupy as cp

# Per row: y = (x - mean) / sqrt(var + eps) * gamma + beta, biased variance. Rows have a large
# common offset: compute the mean first, then the mean of squared deviations (not E[x^2] -
# E[x]^2), each with a block-wide tree reduction. eps is a Python float: pass cp.float32(eps).
_kernel = cp.RawKernel(r'''
extern "C" __global__ void layer_norm(const float* x, const float* gamma, const float* beta,
                                      float* y, int rows, int cols, float eps) {
    __shared__ float scratch[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    // TODO
}
''', "layer_norm")


def solve(x, gamma, beta, y, rows, cols, eps):
    _kernel((rows,), (256,), (x, gamma, beta, y, cp.int32(rows), cp.int32(cols), cp.float32(eps)))
