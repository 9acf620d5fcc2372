import cupy as cp

# c (m x n) = a (m x k) @ b (k x n), float32, row-major. Note the argument order m, n, k.
# c arrives filled with NaN.
# ReductionKernel fits this task moderately: each element of c is a reduction over k of
# products, so broadcasting an (m, 1, k) view of a against an (1, n, k) view of b and reducing
# axis 2 is correct. Nothing is shared between outputs (and the CPU backend materialises the
# (m, n, k) broadcast), so array code (cuBLAS) or a tiled RawKernel is much faster.
# Per output: map_expr on every element, reduce_expr combines partials `a` and `b` (starting
# from identity), post_map_expr stores the result `a` into the output.
_kernel = cp.ReductionKernel(
    "float32 x, float32 y",  # inputs (not a, b: those are reduce_expr's names)
    "float32 z",  # output: one value per reduced group
    "0",  # TODO map_expr: what one pair of elements contributes
    "a",  # TODO reduce_expr: combine two partials a and b
    "z = a",  # post_map_expr: store the reduced value
    "0",  # TODO identity: the neutral start of reduce_expr
    "matmul",
)


def solve(a, b, c, m, n, k):
    left = a.reshape(m, 1, k)
    # TODO: this reshape keeps b's (k, n) element order; [0, j, p] must be b[p, j]
    right = b.reshape(1, n, k)
    _kernel(left, right, axis=2, out=c)  # broadcast to (m, n, k), reduce k, result (m, n)
