import cupy as cp

# Inclusive scan: y[i] = x[0] + ... + x[i] (int32). y arrives filled with -123456789.
# n can be tens of millions, so the scan must work across tiles.
# ElementwiseKernel fits this task poorly: threads cannot see each other's results. Use it for
# parts: one thread scans one tile sequentially and reports the tile's total; array code scans
# the totals; a second pass (another ElementwiseKernel or array code) adds each tile's offset.
_tile_scan = cp.ElementwiseKernel(
    "raw int32 x, int32 n, int32 tile",  # raw: x is indexed by hand, not per element
    "raw int32 y, int32 total",  # the loop runs over total: one thread per tile
    """
    // TODO: scan x[j] for j in [i * tile, min(n, (i + 1) * tile)) into y; total = the tile's sum
    """,
    "prefix_sum_tiles",
)

TILE = 256


def solve(x, y, n):
    tiles = (n + TILE - 1) // TILE
    totals = cp.empty(tiles, dtype=cp.int32)
    _tile_scan(x, n, TILE, y, totals)
    # TODO: scan the totals (array code) into each tile's offset, the sum of all previous
    # tiles, and add it to that tile's part of y
