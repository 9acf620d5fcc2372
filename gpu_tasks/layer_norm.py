"""Task: layer normalisation over rows with an affine transform."""
import numpy as np

from gpu_tasks.base import Arg, Task, cases, f32, f64, output_like

STATEMENT = """\
# Layer normalisation

For every row `r` of the `rows x cols` matrix `x`, with the row's mean and biased variance
`mean = sum_j x[r, j] / cols` and `var = sum_j (x[r, j] - mean)^2 / cols`:

`y[r, j] = (x[r, j] - mean) / sqrt(var + eps) * gamma[j] + beta[j]`

```python
def solve(x, gamma, beta, y, rows, cols, eps):
    ...
```

| argument | kind | dtype | shape |
|---|---|---|---|
| `x` | input | float32 | `(rows, cols)`, row-major |
| `gamma`, `beta` | input | float32 | `(cols,)` |
| `y` | output | float32 | `(rows, cols)`, row-major |
| `rows`, `cols` | Python `int` | | `>= 1` |
| `eps` | Python `float` | | e.g. `1e-5` |

- Rows carry a large common offset: row means have magnitudes of several hundred while the
  spread inside a row is 20 to 32 times smaller. In float32 the one-pass formula
  `E[x^2] - E[x]^2` cancels catastrophically: compute the mean first and then the mean of
  squared deviations (two passes over the row, or Welford's update with a parallel merge).
  Sum a row with per-thread partial sums combined in a tree; a single thread adding thousands
  of values one after another loses too many digits.
- `eps` is a Python `float`: a kernel parameter declared `float` needs `cupy.float32(eps)`.
- `y` arrives filled with NaN; every element must be written. Leave the inputs unchanged.
- Checked element-wise: `|y - ref| <= 1e-5 + 1e-4 * |ref|`.

Example: `x = [[1, 2, 3, 4]]`, `gamma = [1, 1, 1, 1]`, `beta = [0, 0, 0, 0]`, `eps = 1e-5`:
mean 2.5, variance 1.25, `y = [[-1.3416354, -0.4472118, 0.4472118, 1.3416354]]`.
"""


def generate(rng: np.random.Generator, dims: dict) -> dict:
    rows, cols = dims["rows"], dims["cols"]
    offset = rng.choice([-1.0, 1.0], (rows, 1)) * rng.uniform(600.0, 1000.0, (rows, 1))
    spread = np.abs(offset) / rng.uniform(20.0, 32.0, (rows, 1))
    z = rng.standard_normal((rows, cols))
    if cols > 1:
        z = (z - z.mean(axis=1, keepdims=True)) / z.std(axis=1, keepdims=True)
    else:
        z[:] = 0.0
    return {
        "x": f32(offset + spread * z),
        "gamma": f32(rng.uniform(0.5, 1.5, cols)),
        "beta": f32(rng.normal(0.0, 1.0, cols)),
        "y": output_like((rows, cols), "float32"),
        "rows": int(rows),
        "cols": int(cols),
        "eps": 1e-5,
    }


def reference(inputs: dict) -> dict:
    x = f64(inputs["x"])
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    y = (x - mean) / np.sqrt(var + inputs["eps"]) * f64(inputs["gamma"]) + f64(inputs["beta"])
    return {"y": y}


def cost(dims: dict) -> tuple[int, int]:
    rows, cols = dims["rows"], dims["cols"]
    return 4 * (2 * rows * cols + 2 * cols), 8 * rows * cols


TASK = Task(
    slug="layer_norm",
    title="Layer normalisation",
    summary="Layer normalisation of each row of a float32 matrix, with scale and shift.",
    difficulty="hard",
    skills=("cuda", "normalization_kernels", "numerical_stability", "parallel_reduction", "warp_shuffle", "shared_memory"),
    statement=STATEMENT,
    args=(
        Arg("x", "in", "float32", "(rows, cols)"),
        Arg("gamma", "in", "float32", "(cols,)"),
        Arg("beta", "in", "float32", "(cols,)"),
        Arg("y", "out", "float32", "(rows, cols)"),
        Arg("rows", "scalar", "int"),
        Arg("cols", "scalar", "int"),
        Arg("eps", "scalar", "float"),
    ),
    tests={
        "cpu": cases(
            ("tiny", {"rows": 1, "cols": 1}),
            ("row", {"rows": 1, "cols": 1021}),
            ("narrow", {"rows": 7, "cols": 3}),
            ("rect", {"rows": 33, "cols": 257}),
            ("medium", {"rows": 64, "cols": 1000}),
            ("wide", {"rows": 4, "cols": 4097}),
        ),
        "cuda": cases(
            ("tiny", {"rows": 1, "cols": 1}),
            ("narrow", {"rows": 100_003, "cols": 7}),
            ("prime", {"rows": 4099, "cols": 1021}),
            ("wide", {"rows": 64, "cols": 20_011}),
            ("large", {"rows": 8191, "cols": 4097}),
        ),
    },
    samples=cases(
        ("tiny", {"rows": 2, "cols": 5}),
        ("odd", {"rows": 6, "cols": 100}),
    ),
    bench={"cpu": {"rows": 128, "cols": 1024}, "cuda": {"rows": 8192, "cols": 4096}},
    check="allclose",
    tolerance={"rtol": 1e-4, "atol": 1e-5},
    generate=generate,
    reference=reference,
    cost=cost,
)
