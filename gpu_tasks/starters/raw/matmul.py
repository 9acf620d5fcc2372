import cupy as cp

# c (m x n) = a (m x k) @ b (k x n), float32, row-major. Note the argument order m, n, k.
# Suggested: tiles of a and b in shared memory, several outputs per thread, guarded loads.
_kernel = cp.RawKernel(r'''
#define TILE 16
extern "C" __global__ void matmul(const float* a, const float* b, float* c, int m, int n, int k) {
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    // TODO: loop over k in TILE steps: load, __syncthreads(), multiply-accumulate, __syncthreads()
}
''', "matmul")


def solve(a, b, c, m, n, k):
    grid = ((n + 15) // 16, (m + 15) // 16)
    _kernel(grid, (16, 16), (a, b, c, cp.int32(m), cp.int32(n), cp.int32(k)))
