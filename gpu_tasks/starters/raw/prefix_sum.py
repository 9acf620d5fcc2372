import cupy as cp

# Inclusive scan: y[i] = x[0] + ... + x[i] (int32). n can be tens of millions, so the scan
# must work across blocks: scan each block's tile, scan the tile totals, add them back.
_module = cp.RawModule(code=r'''
extern "C" __global__ void scan_tiles(const int* x, int* y, int* tile_sums, int n) {
    // TODO: inclusive scan of this block's tile; store the tile total in tile_sums[blockIdx.x]
}

extern "C" __global__ void add_offsets(int* y, const int* scanned_sums, int n) {
    // TODO: add the total of all previous tiles to this tile
}
''')
_scan_tiles = _module.get_function("scan_tiles")
_add_offsets = _module.get_function("add_offsets")


def solve(x, y, n):
    threads = 256
    tiles = (n + threads - 1) // threads
    sums = cp.empty(tiles, dtype=cp.int32)
    _scan_tiles((tiles,), (threads,), (x, y, sums, cp.int32(n)))
    # TODO: scan `sums` (recursively when there are many tiles) and launch _add_offsets
