import cupy as cp

# 64x64 output tile per block of 256 threads, each thread accumulating a 4x4 sub-tile in
# registers; a and b pass through shared memory in 16-wide k-slices. Thread (tx, ty) owns rows
# ty + 16*i and columns tx + 16*j, so its shared-memory reads are broadcasts or consecutive.
_sgemm = cp.RawKernel(r'''
#define BM 64
#define BN 64
#define BK 16
#define THREADS 256

extern "C" __global__ void __launch_bounds__(THREADS)
sgemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
      int M, int N, int K) {
    __shared__ float As[BK][BM + 1];
    __shared__ float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int tx = tid % 16, ty = tid / 16;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

    float acc[4][4];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int r = 0; r < (BM * BK) / THREADS; ++r) {
            int e = tid + r * THREADS;
            int row = e / BK, col = e % BK;
            int gm = m0 + row, gk = k0 + col;
            As[col][row] = (gm < M && gk < K) ? A[(size_t)gm * K + gk] : 0.0f;
        }
        for (int r = 0; r < (BK * BN) / THREADS; ++r) {
            int e = tid + r * THREADS;
            int row = e / BN, col = e % BN;
            int gk = k0 + row, gn = n0 + col;
            Bs[row][col] = (gk < K && gn < N) ? B[(size_t)gk * N + gn] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a_reg[4], b_reg[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) a_reg[i] = As[kk][ty + 16 * i];
#pragma unroll
            for (int j = 0; j < 4; ++j) b_reg[j] = Bs[kk][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a_reg[i], b_reg[j], acc[i][j]);
        }
        __syncthreads();
    }

    for (int i = 0; i < 4; ++i) {
        int gm = m0 + ty + 16 * i;
        if (gm >= M) continue;
        for (int j = 0; j < 4; ++j) {
            int gn = n0 + tx + 16 * j;
            if (gn < N) C[(size_t)gm * N + gn] = acc[i][j];
        }
    }
}
''', "sgemm")


def solve(a, b, c, m, n, k):
    grid = ((n + 63) // 64, (m + 63) // 64)
    _sgemm(grid, (256,), (a, b, c, cp.int32(m), cp.int32(n), cp.int32(k)))
