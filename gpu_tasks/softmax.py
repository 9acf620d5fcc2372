"""Task: numerically stable row-wise softmax."""
import numpy as np

from gpu_tasks.base import Arg, Task, cases, f32, f64, output_like

STATEMENT = """\
# Row-wise softmax

For every row `r` of the `rows x cols` matrix `x`:
`y[r, j] = exp(x[r, j]) / sum over l of exp(x[r, l])`.

```python
def solve(x, y, rows, cols):
    ...
```

| argument | kind | dtype | shape |
|---|---|---|---|
| `x` | input | float32 | `(rows, cols)`, row-major |
| `y` | output | float32 | `(rows, cols)`, row-major |
| `rows`, `cols` | Python `int` | | `>= 1` |

- Inputs reach +-100. `expf(100)` overflows float32 and `expf(-100)` underflows, so compute
  it stably: subtract the row maximum first, `exp(x - max) / sum(exp(x - max))`.
- Rows can be short (`cols = 1` or 3) or long (`cols = 100003`): one block (or one warp) per
  row with a max reduction and a sum reduction is the usual shape.
- `y` arrives filled with NaN; every element must be written. Leave `x` unchanged.
- Checked element-wise: `|y - ref| <= 1e-6 + 1e-4 * |ref|`. `__expf` is accurate enough.
- There is no `INFINITY` or `FLT_MAX` macro under NVRTC: use `-3.402823466e38f` or
  `__int_as_float(0xff800000)` as the identity of a max.

Example: `x = [[1, 2, 3]]` gives `y = [[0.0900306, 0.2447285, 0.6652410]]`; so does
`x = [[101, 102, 103]]`.
"""


def generate(rng: np.random.Generator, dims: dict) -> dict:
    rows, cols = dims["rows"], dims["cols"]
    offset = rng.uniform(-95.0, 95.0, (rows, 1))
    x = offset + rng.normal(0.0, 4.0, (rows, cols))
    extreme = rng.random((rows, cols)) < 0.002
    x[extreme] = rng.choice([-1.0, 1.0], int(extreme.sum())) * rng.uniform(97.0, 100.0, int(extreme.sum()))
    return {
        "x": f32(np.clip(x, -100.0, 100.0)),
        "y": output_like((rows, cols), "float32"),
        "rows": int(rows),
        "cols": int(cols),
    }


def reference(inputs: dict) -> dict:
    x = f64(inputs["x"])
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"y": e / e.sum(axis=1, keepdims=True)}


def cost(dims: dict) -> tuple[int, int]:
    size = dims["rows"] * dims["cols"]
    return 8 * size, 5 * size


TASK = Task(
    slug="softmax",
    title="Row-wise softmax",
    summary="Numerically stable softmax of each row of a float32 matrix.",
    difficulty="medium",
    skills=("cuda", "shared_memory", "parallel_reduction", "warp_shuffle", "numerical_stability"),
    statement=STATEMENT,
    args=(
        Arg("x", "in", "float32", "(rows, cols)"),
        Arg("y", "out", "float32", "(rows, cols)"),
        Arg("rows", "scalar", "int"),
        Arg("cols", "scalar", "int"),
    ),
    tests={
        "cpu": cases(
            ("tiny", {"rows": 1, "cols": 1}),
            ("row", {"rows": 1, "cols": 1021}),
            ("narrow", {"rows": 7, "cols": 3}),
            ("rect", {"rows": 33, "cols": 257}),
            ("medium", {"rows": 100, "cols": 1000}),
            ("long", {"rows": 3, "cols": 20_011}),
        ),
        "cuda": cases(
            ("tiny", {"rows": 1, "cols": 1}),
            ("narrow", {"rows": 100_003, "cols": 3}),
            ("prime", {"rows": 4099, "cols": 1021}),
            ("long", {"rows": 128, "cols": 100_003}),
            ("large", {"rows": 8191, "cols": 4097}),
        ),
    },
    samples=cases(
        ("tiny", {"rows": 2, "cols": 5}),
        ("odd", {"rows": 6, "cols": 100}),
    ),
    bench={"cpu": {"rows": 256, "cols": 1024}, "cuda": {"rows": 8192, "cols": 4096}},
    check="allclose",
    tolerance={"rtol": 1e-4, "atol": 1e-6},
    generate=generate,
    reference=reference,
    cost=cost,
)
