import cupy as cp

# 32x32 tiles staged in shared memory; the extra column keeps the column-wise reads free of
# bank conflicts. Each 32x8 block copies one tile in four row steps.
_transpose = cp.RawKernel(r'''
#define TILE 32
#define STEP 8
extern "C" __global__ void transpose(const float* __restrict__ a, float* __restrict__ b,
                                     int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += STEP) {
        if (col < cols && row + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = a[(size_t)(row + j) * cols + col];
    }
    __syncthreads();
    int out_col = blockIdx.y * TILE + threadIdx.x;
    int out_row = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += STEP) {
        if (out_col < rows && out_row + j < cols)
            b[(size_t)(out_row + j) * rows + out_col] = tile[threadIdx.x][threadIdx.y + j];
    }
}
''', "transpose")


def solve(a, b, rows, cols):
    grid = ((cols + 31) // 32, (rows + 31) // 32)
    _transpose(grid, (32, 8), (a, b, cp.int32(rows), cp.int32(cols)))
