import cupy as cp

# Row-wise softmax of a rows x cols float32 matrix. y arrives filled with NaN. Inputs reach
# +-100: subtract the row max before exponentiating (exp(100) overflows float32).
# ElementwiseKernel fits this task poorly on its own: each row needs a max and a sum, which an
# elementwise kernel cannot compute. Use it for the last step, once per element, with the row
# statistics from array code (or a ReductionKernel). Arrays of shape (rows, 1) broadcast along
# each row.
_normalise = cp.ElementwiseKernel(
    "float32 x, float32 row_max, float32 row_sum",  # row_max, row_sum: (rows, 1), broadcast
    "float32 y",  # output: the loop runs over the broadcast shape (rows, cols)
    """
    // TODO: set y from x and its row's max and sum of exponentials
    """,
    "softmax_normalise",
)


def solve(x, y, rows, cols):
    row_max = cp.zeros((rows, 1), dtype=cp.float32)  # TODO: each row's maximum
    row_sum = cp.ones((rows, 1), dtype=cp.float32)  # TODO: each row's sum of exp(x - max)
    _normalise(x, row_max, row_sum, y)
