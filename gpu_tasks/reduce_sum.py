"""Task: sum of a float32 vector."""
import numpy as np

from gpu_tasks.base import Arg, Task, cases, f32, f64, output_like

STATEMENT = """\
# Sum reduction

Compute `out[0] = x[0] + x[1] + ... + x[n-1]`.

```python
def solve(x, out, n):
    ...
```

| argument | kind | dtype | shape |
|---|---|---|---|
| `x` | input | float32 | `(n,)` |
| `out` | output | float32 | `(1,)` |
| `n` | Python `int` | | `1 <= n` |

- `out` arrives holding NaN, not zero: initialise it (e.g. `out.fill(0)`) before accumulating
  into it with `atomicAdd`.
- `x` has mixed signs and a non-zero mean; `n` goes from 1 to tens of millions and is rarely a
  power of two. Leave `x` unchanged.
- Checked against the exact sum: `|out[0] - sum| <= 1e-4 * sum(|x|)`. Any summation order is
  fine; adding tens of millions of values one by one into a single float32 is not.
- A good kernel reads `x` once with coalesced loads, reduces within a block (shared memory tree
  or warp shuffles) and combines the blocks' partial sums (atomicAdd or a second pass).

Example: `x = [1.5, -2.0, 4.0]` gives `out = [3.5]`.
"""


def generate(rng: np.random.Generator, dims: dict) -> dict:
    n = dims["n"]
    return {"x": f32(rng.normal(0.3, 1.0, n)), "out": output_like(1, "float32"), "n": int(n)}


def reference(inputs: dict) -> dict:
    return {"out": np.array([np.sum(f64(inputs["x"]))])}


def scale(inputs: dict) -> float:
    return float(np.sum(np.abs(f64(inputs["x"]))))


def cost(dims: dict) -> tuple[int, int]:
    n = dims["n"]
    return 4 * n + 4, n


TASK = Task(
    slug="reduce_sum",
    title="Sum reduction",
    summary="Sum a float32 vector into a single value.",
    difficulty="medium",
    skills=("cuda", "shared_memory", "parallel_reduction", "warp_shuffle", "atomic_operations"),
    statement=STATEMENT,
    args=(
        Arg("x", "in", "float32", "(n,)"),
        Arg("out", "out", "float32", "(1,)"),
        Arg("n", "scalar", "int"),
    ),
    tests={
        "cpu": cases(
            ("tiny", {"n": 1}),
            ("pair", {"n": 2}),
            ("prime", {"n": 1021}),
            ("odd_256", {"n": 4097}),
            ("medium", {"n": 65_537}),
            ("large", {"n": 131_071}),
        ),
        "cuda": cases(
            ("tiny", {"n": 1}),
            ("prime", {"n": 1021}),
            ("odd_256", {"n": 1_000_003}),
            ("large", {"n": (1 << 24) + 3}),
        ),
    },
    samples=cases(
        ("tiny", {"n": 5}),
        ("odd", {"n": 300}),
    ),
    bench={"cpu": {"n": 1 << 17}, "cuda": {"n": 1 << 26}},
    check="sum_abs",
    tolerance={"rtol": 1e-4},
    generate=generate,
    reference=reference,
    cost=cost,
    scale=scale,
)
