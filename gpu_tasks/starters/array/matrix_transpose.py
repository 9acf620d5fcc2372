import cupy as cp

# a is rows x cols (row-major); write its transpose into b (cols x rows): b[j, i] = a[i, j].
# b arrives filled with NaN.
# Array-level CuPy fits this task well: views such as a transpose cost nothing until copied,
# and copying into b runs one GPU kernel. Write into b in place (b[...] = ...): rebinding the
# name b inside solve changes nothing the caller sees.


def solve(a, b, rows, cols):
    # TODO: store the transpose of a into b
    pass
