"""Task: rectified linear unit, element-wise."""
import numpy as np

from gpu_tasks.base import (
    ELEMENTWISE_BENCH, ELEMENTWISE_CUDA_CASES, Arg, Task, cases, f32, f64, output_like,
)

STATEMENT = """\
# ReLU

Compute `y[i] = max(x[i], 0)` for every `i < n`.

```python
def solve(x, y, n):
    ...
```

| argument | kind | dtype | shape |
|---|---|---|---|
| `x` | input | float32 | `(n,)` |
| `y` | output | float32 | `(n,)` |
| `n` | Python `int` | | `1 <= n` |

- Write into `y` in place (it arrives filled with NaN) and leave `x` unchanged.
- `x` holds negative values, positive values of very different magnitudes and exact zeros
  (`+0.0` and `-0.0`; either zero is accepted for them).
- Checked exactly: every element must equal the reference.

Example: `x = [-1.5, 0.0, 2.25]` gives `y = [0.0, 0.0, 2.25]`.
"""


def generate(rng: np.random.Generator, dims: dict) -> dict:
    n = dims["n"]
    x = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3, n)
    zeros = rng.random(n) < 0.1
    x[zeros] = 0.0
    neg_zero = rng.random(n) < 0.03
    x[neg_zero] = -0.0
    return {"x": f32(x), "y": output_like(n, "float32"), "n": int(n)}


def reference(inputs: dict) -> dict:
    return {"y": np.maximum(f64(inputs["x"]), 0.0)}


def cost(dims: dict) -> tuple[int, int]:
    n = dims["n"]
    return 8 * n, n


TASK = Task(
    slug="relu",
    title="ReLU",
    summary="Apply ReLU, max(x, 0), to every element of a float32 vector.",
    difficulty="easy",
    skills=("cuda", "cupy", "cuda_thread_hierarchy", "memory_coalescing"),
    statement=STATEMENT,
    args=(
        Arg("x", "in", "float32", "(n,)"),
        Arg("y", "out", "float32", "(n,)"),
        Arg("n", "scalar", "int"),
    ),
    tests={
        "cpu": cases(
            ("tiny", {"n": 1}),
            ("small", {"n": 33}),
            ("prime", {"n": 1021}),
            ("odd_256", {"n": 4099}),
            ("large", {"n": 524_287}),
        ),
        "cuda": ELEMENTWISE_CUDA_CASES,
    },
    samples=cases(
        ("tiny", {"n": 6}),
        ("odd", {"n": 300}),
    ),
    bench=ELEMENTWISE_BENCH,
    check="exact",
    tolerance={},
    generate=generate,
    reference=reference,
    cost=cost,
)
