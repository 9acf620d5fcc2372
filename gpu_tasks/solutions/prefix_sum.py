import cupy as cp

# Three steps for any n: scan each tile of 1024 values in one block (4 per thread, staged in
# padded shared memory, warp shuffles for the scan of thread totals), scan the tiles' totals
# (recursively, the same way), then add each tile's offset.
_module = cp.RawModule(code=r'''
#define THREADS 256
#define ITEMS 4
#define TILE (THREADS * ITEMS)
#define PAD(i) ((i) + ((i) >> 5))

__device__ __forceinline__ int warp_inclusive_scan(int v, int lane) {
    for (int d = 1; d < 32; d <<= 1) {
        int t = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += t;
    }
    return v;
}

extern "C" __global__ void scan_tiles(const int* __restrict__ x, int* __restrict__ y,
                                      int* __restrict__ tile_sums, int n) {
    __shared__ int s[PAD(TILE)];
    __shared__ int warp_totals[THREADS / 32];
    const long long base = (long long)blockIdx.x * TILE;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

    for (int k = 0; k < ITEMS; ++k) {
        int i = tid + k * THREADS;
        s[PAD(i)] = base + i < n ? x[base + i] : 0;
    }
    __syncthreads();

    int v[ITEMS];
    int run = 0;
    for (int k = 0; k < ITEMS; ++k) {
        run += s[PAD(tid * ITEMS + k)];
        v[k] = run;
    }
    int incl = warp_inclusive_scan(run, lane);
    if (lane == 31) warp_totals[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        int t = lane < THREADS / 32 ? warp_totals[lane] : 0;
        t = warp_inclusive_scan(t, lane);
        if (lane < THREADS / 32) warp_totals[lane] = t;
    }
    __syncthreads();

    int offset = incl - run + (warp > 0 ? warp_totals[warp - 1] : 0);
    for (int k = 0; k < ITEMS; ++k) s[PAD(tid * ITEMS + k)] = v[k] + offset;
    __syncthreads();
    for (int k = 0; k < ITEMS; ++k) {
        int i = tid + k * THREADS;
        if (base + i < n) y[base + i] = s[PAD(i)];
    }
    if (tid == THREADS - 1) tile_sums[blockIdx.x] = v[ITEMS - 1] + offset;
}

extern "C" __global__ void add_offsets(int* __restrict__ y, const int* __restrict__ scanned_sums, int n) {
    if (blockIdx.x == 0) return;
    const int add = scanned_sums[blockIdx.x - 1];
    const long long base = (long long)blockIdx.x * TILE;
    for (int k = 0; k < ITEMS; ++k) {
        long long g = base + threadIdx.x + k * THREADS;
        if (g < n) y[g] += add;
    }
}
''')
_scan_tiles = _module.get_function("scan_tiles")
_add_offsets = _module.get_function("add_offsets")

_THREADS = 256
_TILE = 1024


def _scan(x, y, n):
    tiles = (n + _TILE - 1) // _TILE
    sums = cp.empty(tiles, dtype=cp.int32)
    _scan_tiles((tiles,), (_THREADS,), (x, y, sums, cp.int32(n)))
    if tiles > 1:
        scanned = cp.empty(tiles, dtype=cp.int32)
        _scan(sums, scanned, tiles)
        _add_offsets((tiles,), (_THREADS,), (y, scanned, cp.int32(n)))


def solve(x, y, n):
    _scan(x, y, n)
