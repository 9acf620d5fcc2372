"""Task: single-precision matrix-vector product."""
import numpy as np

from gpu_tasks.base import Arg, Task, cases, f32, f64, output_like, rounding_atol

STATEMENT = """\
# Matrix-vector product (SGEMV)

Compute `y = a @ x`: `y[i] = sum over j < n of a[i, j] * x[j]` for every `i < m`.

```python
def solve(a, x, y, m, n):
    ...
```

| argument | kind | dtype | shape |
|---|---|---|---|
| `a` | input | float32 | `(m, n)`, row-major |
| `x` | input | float32 | `(n,)` |
| `y` | output | float32 | `(m,)` |
| `m`, `n` | Python `int` | | `>= 1` |

- Shapes range from 1 x 1 to tall-skinny (100003 x 33) and short-wide (33 x 100003).
- `y` arrives filled with NaN; every element must be written. Leave `a` and `x` unchanged.
- Checked by norm: `||y - ref|| <= 1e-5 ||ref|| + 1e-6 || |a| @ |x| ||`, the second term the
  scale of float32 rounding in each dot product, so an output that cancels to nearly zero is
  not failed for rounding.
- The kernel is bound by reading `a` once: one thread per row reads `a` with a stride of `n`;
  a warp (or block) per row with coalesced loads and a shuffle reduction reads it contiguously.

Example: `a = [[1, 2], [3, 4]]`, `x = [1, -1]` gives `y = [-1, -1]`.
"""


def generate(rng: np.random.Generator, dims: dict) -> dict:
    m, n = dims["m"], dims["n"]
    return {
        "a": f32(rng.uniform(-1.0, 1.0, (m, n))),
        "x": f32(rng.uniform(-1.0, 1.0, n)),
        "y": output_like(m, "float32"),
        "m": int(m),
        "n": int(n),
    }


def reference(inputs: dict) -> dict:
    return {"y": f64(inputs["a"]) @ f64(inputs["x"])}


def cost(dims: dict) -> tuple[int, int]:
    m, n = dims["m"], dims["n"]
    return 4 * (m * n + n + m), 2 * m * n


TASK = Task(
    slug="sgemv",
    title="Matrix-vector product",
    summary="Multiply a float32 matrix by a vector (SGEMV).",
    difficulty="medium",
    skills=("cuda", "linear_algebra", "memory_coalescing", "warp_shuffle", "parallel_reduction", "roofline_model"),
    statement=STATEMENT,
    args=(
        Arg("a", "in", "float32", "(m, n)"),
        Arg("x", "in", "float32", "(n,)"),
        Arg("y", "out", "float32", "(m,)"),
        Arg("m", "scalar", "int"),
        Arg("n", "scalar", "int"),
    ),
    tests={
        "cpu": cases(
            ("tiny", {"m": 1, "n": 1}),
            ("row", {"m": 1, "n": 1021}),
            ("column", {"m": 1021, "n": 1}),
            ("rect", {"m": 97, "n": 300}),
            ("odd", {"m": 300, "n": 777}),
            ("large", {"m": 513, "n": 1000}),
        ),
        "cuda": cases(
            ("tiny", {"m": 1, "n": 1}),
            ("tall", {"m": 100_003, "n": 33}),
            ("wide", {"m": 33, "n": 100_003}),
            ("prime", {"m": 8191, "n": 8209}),
        ),
    },
    samples=cases(
        ("tiny", {"m": 3, "n": 4}),
        ("odd", {"m": 33, "n": 70}),
    ),
    bench={"cpu": {"m": 512, "n": 1024}, "cuda": {"m": 16384, "n": 8192}},
    check="norm",
    tolerance={"rtol": 1e-5},
    atol=rounding_atol(reference, "y"),
    generate=generate,
    reference=reference,
    cost=cost,
)
