import cupy as cp

# Row-wise softmax of a rows x cols float32 matrix. y arrives filled with NaN. Inputs reach
# +-100: subtract the row max before exponentiating (exp(100) overflows float32).
# Array-level CuPy fits this task well: row reductions take axis=1 (keepdims=True keeps a
# (rows, 1) shape that broadcasts along each row). Each expression is a separate kernel and a
# temporary array: correct, though a fused kernel reads x fewer times. Write into y in place
# (y[...] = ...): rebinding the name y inside solve changes nothing the caller sees.


def solve(x, y, rows, cols):
    # TODO: compute the stable softmax of each row and store it into y
    pass
