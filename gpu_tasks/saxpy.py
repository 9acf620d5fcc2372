"""Task: single-precision a*x plus y."""
import numpy as np

from gpu_tasks.base import (
    ELEMENTWISE_BENCH, ELEMENTWISE_CUDA_CASES, Arg, Task, cases, f32, f64, float32_scalar, output_like,
)

STATEMENT = """\
# SAXPY

Compute `out[i] = alpha * x[i] + y[i]` for every `i < n`.

```python
def solve(x, y, out, alpha, n):
    ...
```

| argument | kind | dtype | shape |
|---|---|---|---|
| `x`, `y` | input | float32 | `(n,)` |
| `out` | output | float32 | `(n,)` |
| `alpha` | Python `float` | | exactly representable in float32 |
| `n` | Python `int` | | `1 <= n` |

- Write into `out` in place (it arrives filled with NaN); leave `x` and `y` unchanged.
- `alpha` is a Python `float`, i.e. a 64-bit double. A `RawKernel` parameter declared `float`
  reads 4 bytes: pass `cupy.float32(alpha)` (and `cupy.int32(n)` for an `int`), or declare the
  parameter `double`.
- Checked by norm: `||out - ref|| / ||ref|| <= 1e-6`; a fused multiply-add is fine.

Example: `alpha = 2.0`, `x = [1, 2]`, `y = [10, 20]` gives `out = [12, 24]`.
"""


def generate(rng: np.random.Generator, dims: dict) -> dict:
    n = dims["n"]
    alpha = float32_scalar(rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 3.0))
    return {
        "x": f32(rng.normal(0.0, 2.0, n)),
        "y": f32(rng.normal(0.5, 2.0, n)),
        "out": output_like(n, "float32"),
        "alpha": alpha,
        "n": int(n),
    }


def reference(inputs: dict) -> dict:
    return {"out": inputs["alpha"] * f64(inputs["x"]) + f64(inputs["y"])}


def cost(dims: dict) -> tuple[int, int]:
    n = dims["n"]
    return 12 * n, 2 * n


TASK = Task(
    slug="saxpy",
    title="SAXPY",
    summary="Compute alpha * x + y for float32 vectors (SAXPY).",
    difficulty="easy",
    skills=("cuda", "cupy", "cuda_thread_hierarchy", "memory_coalescing"),
    statement=STATEMENT,
    args=(
        Arg("x", "in", "float32", "(n,)"),
        Arg("y", "in", "float32", "(n,)"),
        Arg("out", "out", "float32", "(n,)"),
        Arg("alpha", "scalar", "float"),
        Arg("n", "scalar", "int"),
    ),
    tests={
        "cpu": cases(
            ("tiny", {"n": 1}),
            ("small", {"n": 31}),
            ("prime", {"n": 1021}),
            ("odd_256", {"n": 4097}),
            ("large", {"n": 524_287}),
        ),
        "cuda": ELEMENTWISE_CUDA_CASES,
    },
    samples=cases(
        ("tiny", {"n": 5}),
        ("odd", {"n": 300}),
    ),
    bench=ELEMENTWISE_BENCH,
    check="norm",
    tolerance={"rtol": 1e-6},
    generate=generate,
    reference=reference,
    cost=cost,
)
