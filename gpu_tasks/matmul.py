"""Task: single-precision dense matrix multiply."""
import numpy as np

from gpu_tasks.base import Arg, Task, cases, f32, f64, output_like

STATEMENT = """\
# Matrix multiplication

Compute `c = a @ b` where `a` is `m x k`, `b` is `k x n` and `c` is `m x n`:
`c[i, j] = sum over p < k of a[i, p] * b[p, j]`.

```python
def solve(a, b, c, m, n, k):
    ...
```

| argument | kind | dtype | shape |
|---|---|---|---|
| `a` | input | float32 | `(m, k)`, row-major |
| `b` | input | float32 | `(k, n)`, row-major |
| `c` | output | float32 | `(m, n)`, row-major |
| `m`, `n`, `k` | Python `int` | | `>= 1` |

- Note the argument order `m, n, k`. Shapes are rectangular and rarely multiples of a tile
  (1 x 1 x 1, 17 x 13 x 29, 1021 x 997 x 509, 4096 x 4096 x 4096): guard the tile loads.
- Entries of `a` and `b` lie in `[-256, 256]`, so sums reach millions: accumulate in float32.
  TF32 tensor-core inputs are accurate enough; float16 is not (it overflows at 65504).
- `c` arrives filled with NaN; every element must be written. Leave `a` and `b` unchanged.
- Checked by norm: `||c - ref|| / ||ref|| <= 2e-3`.
- Tiling `a` and `b` through shared memory and computing several outputs per thread turns a
  memory-bound kernel into a compute-bound one.

Example: `a = [[1, 2]]` (1 x 2), `b = [[3], [4]]` (2 x 1) gives `c = [[11]]`.
"""


def generate(rng: np.random.Generator, dims: dict) -> dict:
    m, n, k = dims["m"], dims["n"], dims["k"]
    return {
        "a": f32(rng.uniform(-256.0, 256.0, (m, k))),
        "b": f32(rng.uniform(-256.0, 256.0, (k, n))),
        "c": output_like((m, n), "float32"),
        "m": int(m),
        "n": int(n),
        "k": int(k),
    }


def reference(inputs: dict) -> dict:
    return {"c": f64(inputs["a"]) @ f64(inputs["b"])}


def cost(dims: dict) -> tuple[int, int]:
    m, n, k = dims["m"], dims["n"], dims["k"]
    return 4 * (m * k + k * n + m * n), 2 * m * n * k


TASK = Task(
    slug="matmul",
    title="Matrix multiplication",
    summary="Multiply two rectangular float32 matrices (SGEMM).",
    difficulty="hard",
    skills=("cuda", "shared_memory", "tiled_matmul", "linear_algebra", "memory_coalescing", "occupancy"),
    statement=STATEMENT,
    args=(
        Arg("a", "in", "float32", "(m, k)"),
        Arg("b", "in", "float32", "(k, n)"),
        Arg("c", "out", "float32", "(m, n)"),
        Arg("m", "scalar", "int"),
        Arg("n", "scalar", "int"),
        Arg("k", "scalar", "int"),
    ),
    tests={
        "cpu": cases(
            ("tiny", {"m": 1, "n": 1, "k": 1}),
            ("row", {"m": 1, "n": 37, "k": 5}),
            ("column", {"m": 33, "n": 1, "k": 17}),
            ("rect", {"m": 17, "n": 13, "k": 29}),
            ("prime", {"m": 31, "n": 37, "k": 41}),
            ("large", {"m": 128, "n": 96, "k": 112}),
        ),
        "cuda": cases(
            ("tiny", {"m": 1, "n": 1, "k": 1}),
            ("rect", {"m": 17, "n": 13, "k": 29}),
            ("prime", {"m": 1021, "n": 997, "k": 509}),
            ("skinny", {"m": 4099, "n": 33, "k": 1025}),
            ("large", {"m": 2048, "n": 1536, "k": 1000}),
        ),
    },
    samples=cases(
        ("tiny", {"m": 3, "n": 5, "k": 4}),
        ("odd", {"m": 33, "n": 17, "k": 20}),
    ),
    bench={"cpu": {"m": 128, "n": 128, "k": 128}, "cuda": {"m": 4096, "n": 4096, "k": 4096}},
    check="norm",
    tolerance={"rtol": 2e-3},
    generate=generate,
    reference=reference,
    cost=cost,
)
