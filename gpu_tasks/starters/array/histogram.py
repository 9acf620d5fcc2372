import cupy as cp

# hist[v] = number of i < n with x[i] == v, for v < bins (int32). x values lie in [0, bins).
# hist arrives holding -123456789 in every bin: every bin must be written, empty ones too.
# Array-level CuPy fits this task well: CuPy has a histogram/counting routine that runs on the
# GPU. Mind its result's length (bins, even when the largest values never occur) and dtype
# (int64: assigning into hist converts). Write into hist in place (hist[...] = ...).


def solve(x, hist, n, bins):
    # TODO: count the values of x into hist
    pass
