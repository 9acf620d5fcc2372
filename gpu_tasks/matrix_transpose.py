"""Task: out-of-place matrix transpose."""
import numpy as np

from gpu_tasks.base import Arg, Task, cases, f32, f64, output_like

STATEMENT = """\
# Matrix transpose

`a` is a `rows x cols` matrix; write its transpose into `b` (`cols x rows`):
`b[j, i] = a[i, j]`.

```python
def solve(a, b, rows, cols):
    ...
```

| argument | kind | dtype | shape |
|---|---|---|---|
| `a` | input | float32 | `(rows, cols)`, row-major |
| `b` | output | float32 | `(cols, rows)`, row-major |
| `rows`, `cols` | Python `int` | | `>= 1` |

- In flat terms: `b[j * rows + i] = a[i * cols + j]`.
- Matrices are rectangular and their sides are rarely multiples of 32 (1 x 1021, 1021 x 1,
  257 x 255...).
- `b` arrives filled with NaN; every element must be written. Leave `a` unchanged.
- Checked exactly.
- A naive kernel is correct but either its reads or its writes are strided; staging a tile in
  shared memory (padded against bank conflicts) makes both coalesced.

Example: `a = [[1, 2, 3], [4, 5, 6]]` (2 x 3) gives `b = [[1, 4], [2, 5], [3, 6]]` (3 x 2).
"""


def generate(rng: np.random.Generator, dims: dict) -> dict:
    rows, cols = dims["rows"], dims["cols"]
    return {
        "a": f32(rng.uniform(-1000.0, 1000.0, (rows, cols))),
        "b": output_like((cols, rows), "float32"),
        "rows": int(rows),
        "cols": int(cols),
    }


def reference(inputs: dict) -> dict:
    return {"b": np.ascontiguousarray(f64(inputs["a"]).T)}


def cost(dims: dict) -> tuple[int, int]:
    return 8 * dims["rows"] * dims["cols"], 0


TASK = Task(
    slug="matrix_transpose",
    title="Matrix transpose",
    summary="Transpose a rectangular float32 matrix.",
    difficulty="medium",
    skills=("cuda", "cuda_thread_hierarchy", "shared_memory", "memory_coalescing", "bank_conflicts"),
    statement=STATEMENT,
    args=(
        Arg("a", "in", "float32", "(rows, cols)"),
        Arg("b", "out", "float32", "(cols, rows)"),
        Arg("rows", "scalar", "int"),
        Arg("cols", "scalar", "int"),
    ),
    tests={
        "cpu": cases(
            ("tiny", {"rows": 1, "cols": 1}),
            ("row", {"rows": 1, "cols": 1021}),
            ("column", {"rows": 1021, "cols": 1}),
            ("rect", {"rows": 33, "cols": 65}),
            ("odd", {"rows": 257, "cols": 255}),
            ("large", {"rows": 509, "cols": 300}),
        ),
        "cuda": cases(
            ("tiny", {"rows": 1, "cols": 1}),
            ("row", {"rows": 1, "cols": 100_003}),
            ("prime", {"rows": 1021, "cols": 997}),
            ("large", {"rows": 8191, "cols": 4097}),
        ),
    },
    samples=cases(
        ("tiny", {"rows": 2, "cols": 3}),
        ("odd", {"rows": 17, "cols": 33}),
    ),
    bench={"cpu": {"rows": 512, "cols": 512}, "cuda": {"rows": 8192, "cols": 8192}},
    check="exact",
    tolerance={},
    generate=generate,
    reference=reference,
    cost=cost,
)
