import cupy as cp

# Inclusive scan: y[i] = x[0] + ... + x[i] (int32). y arrives filled with -123456789.
# n can be tens of millions, so the scan must work across tiles.
# ReductionKernel fits this task poorly: a scan keeps every partial sum, a reduction only the
# total. Use it for a part: the totals of fixed-size tiles (x padded to whole tiles with array
# code); scan the totals with array code, then finish the scan inside each tile with another
# style (array code, ElementwiseKernel or a RawKernel).
# Per output: map_expr on every element, reduce_expr combines partials `a` and `b` (starting
# from identity), post_map_expr stores the result `a` into the output.
_tile_totals = cp.ReductionKernel(
    "int32 x",  # input
    "int32 total",  # output: one value per tile
    "0",  # TODO map_expr: what one element contributes
    "a",  # TODO reduce_expr: combine two partials a and b
    "total = a",  # post_map_expr: store the reduced value
    "0",  # TODO identity: the neutral start of reduce_expr
    "prefix_sum_tile_totals",
)

TILE = 256


def solve(x, y, n):
    tiles = (n + TILE - 1) // TILE
    padded = cp.zeros(tiles * TILE, dtype=cp.int32)  # zeros past n change no sum
    padded[:n] = x
    totals = _tile_totals(padded.reshape(tiles, TILE), axis=1)  # shape (tiles,)
    # TODO: turn the totals into each tile's offset (the sum of all previous tiles), scan
    # inside each tile, add the offsets and store the first n values into y
