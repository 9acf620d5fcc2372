"""Task: valid 2-D cross-correlation with a square filter."""
import numpy as np

from gpu_tasks.base import Arg, Task, cases, f32, f64, output_like, rounding_atol

STATEMENT = """\
# 2-D convolution (valid cross-correlation)

`x` is a `rows x cols` image and `w` a `k x k` filter. Compute, for every `i < rows - k + 1`
and `j < cols - k + 1`:

`y[i, j] = sum over a < k, b < k of x[i + a, j + b] * w[a, b]`

```python
def solve(x, w, y, rows, cols, k):
    ...
```

| argument | kind | dtype | shape |
|---|---|---|---|
| `x` | input | float32 | `(rows, cols)`, row-major |
| `w` | input | float32 | `(k, k)`, row-major |
| `y` | output | float32 | `(rows - k + 1, cols - k + 1)`, row-major |
| `rows`, `cols`, `k` | Python `int` | | `1 <= k <= min(rows, cols)`, `k <= 31` |

- No padding and no flipping of `w` (deep-learning "convolution").
- `y` arrives filled with NaN; every element must be written. Leave `x` and `w` unchanged.
- Images are rectangular with sides that are rarely multiples of a tile.
- Checked by norm: `||y - ref|| <= 1e-5 ||ref|| + 1e-6 ||ref(|x|, |w|)||`, the second term the
  scale of float32 rounding in each sum (the same correlation on absolute values), so an
  output that cancels to nearly zero is not failed for rounding.
- Neighbouring outputs share most of their inputs: a block can stage a tile of `x` plus a
  `k - 1` halo (and the filter) in shared memory.

Example: `x = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]`, `w = [[1, 0], [0, -1]]` gives
`y = [[-4, -4], [-4, -4]]`.
"""


def generate(rng: np.random.Generator, dims: dict) -> dict:
    rows, cols, k = dims["rows"], dims["cols"], dims["k"]
    return {
        "x": f32(rng.uniform(-1.0, 1.0, (rows, cols))),
        "w": f32(rng.uniform(-1.0, 1.0, (k, k))),
        "y": output_like((rows - k + 1, cols - k + 1), "float32"),
        "rows": int(rows),
        "cols": int(cols),
        "k": int(k),
    }


def reference(inputs: dict) -> dict:
    x, w = f64(inputs["x"]), f64(inputs["w"])
    k = w.shape[0]
    windows = np.lib.stride_tricks.sliding_window_view(x, (k, k))
    return {"y": np.einsum("ijab,ab->ij", windows, w)}


def cost(dims: dict) -> tuple[int, int]:
    rows, cols, k = dims["rows"], dims["cols"], dims["k"]
    out = (rows - k + 1) * (cols - k + 1)
    return 4 * (rows * cols + k * k + out), 2 * k * k * out


TASK = Task(
    slug="conv2d",
    title="2-D convolution",
    summary="Valid 2-D cross-correlation of a float32 image with a square filter.",
    difficulty="medium",
    skills=("cuda", "convolution", "shared_memory", "memory_coalescing", "cuda_thread_hierarchy"),
    statement=STATEMENT,
    args=(
        Arg("x", "in", "float32", "(rows, cols)"),
        Arg("w", "in", "float32", "(k, k)"),
        Arg("y", "out", "float32", "(rows - k + 1, cols - k + 1)"),
        Arg("rows", "scalar", "int"),
        Arg("cols", "scalar", "int"),
        Arg("k", "scalar", "int"),
    ),
    tests={
        "cpu": cases(
            ("tiny", {"rows": 1, "cols": 1, "k": 1}),
            ("full", {"rows": 7, "cols": 7, "k": 7}),
            ("row", {"rows": 3, "cols": 1021, "k": 3}),
            ("rect", {"rows": 33, "cols": 65, "k": 3}),
            ("odd", {"rows": 100, "cols": 257, "k": 5}),
            ("wide_filter", {"rows": 61, "cols": 47, "k": 15}),
        ),
        "cuda": cases(
            ("tiny", {"rows": 1, "cols": 1, "k": 1}),
            ("prime", {"rows": 1021, "cols": 997, "k": 3}),
            ("wide_filter", {"rows": 1031, "cols": 2053, "k": 31}),
            ("large", {"rows": 4099, "cols": 4097, "k": 5}),
        ),
    },
    samples=cases(
        ("tiny", {"rows": 4, "cols": 5, "k": 2}),
        ("odd", {"rows": 20, "cols": 33, "k": 3}),
    ),
    bench={"cpu": {"rows": 256, "cols": 256, "k": 5}, "cuda": {"rows": 8192, "cols": 8192, "k": 5}},
    check="norm",
    tolerance={"rtol": 1e-5},
    atol=rounding_atol(reference, "y"),
    generate=generate,
    reference=reference,
    cost=cost,
)
