import cupy as cp

# out[0] = sum of x[0..n) (float32). out has one element and arrives holding NaN.
# Array-level CuPy fits this task well: its reductions run as GPU kernels that sum in a tree,
# accurate enough in float32. A reduction over all of x gives a 0-d array; store it into out
# in place (out[...] = ..., or out= with a matching shape): rebinding the name out changes
# nothing the caller sees.


def solve(x, out, n):
    # TODO: reduce x and store the total into out
    pass
