"""Task: inclusive prefix sum (scan) of int32 values."""
import numpy as np

from gpu_tasks.base import Arg, Task, cases, output_like

STATEMENT = """\
# Inclusive prefix sum

Compute the inclusive scan `y[i] = x[0] + x[1] + ... + x[i]` for every `i < n`.

```python
def solve(x, y, n):
    ...
```

| argument | kind | dtype | shape |
|---|---|---|---|
| `x` | input | int32, values in `[-100, 100]` | `(n,)` |
| `y` | output | int32 | `(n,)` |
| `n` | Python `int` | | `1 <= n <= 2**24 + 1024` |

- Every partial sum fits in int32.
- `y` arrives filled with -123456789; every element must be written. Leave `x` unchanged.
- `n` ranges from 1 to tens of millions: the scan must be correct across blocks, not only
  inside one (e.g. scan each block, scan the per-block totals, add them back).
- Checked exactly.

Example: `x = [3, -1, 4, 1, -5]` gives `y = [3, 2, 6, 7, 2]`.
"""


def generate(rng: np.random.Generator, dims: dict) -> dict:
    n = dims["n"]
    return {
        "x": rng.integers(-100, 101, n, dtype=np.int64).astype(np.int32),
        "y": output_like(n, "int32"),
        "n": int(n),
    }


def reference(inputs: dict) -> dict:
    return {"y": np.cumsum(np.asarray(inputs["x"], dtype=np.int64))}


def cost(dims: dict) -> tuple[int, int]:
    n = dims["n"]
    return 8 * n, n


TASK = Task(
    slug="prefix_sum",
    title="Inclusive prefix sum",
    summary="Compute the inclusive prefix sum (scan) of an int32 vector.",
    difficulty="hard",
    skills=("cuda", "shared_memory", "parallel_scan", "warp_shuffle"),
    statement=STATEMENT,
    args=(
        Arg("x", "in", "int32", "(n,)"),
        Arg("y", "out", "int32", "(n,)"),
        Arg("n", "scalar", "int"),
    ),
    tests={
        "cpu": cases(
            ("tiny", {"n": 1}),
            ("small", {"n": 33}),
            ("prime", {"n": 1021}),
            ("two_blocks", {"n": 1025}),
            ("odd_256", {"n": 4099}),
            ("medium", {"n": 65_537}),
            ("large", {"n": 200_003}),
        ),
        "cuda": cases(
            ("tiny", {"n": 1}),
            ("prime", {"n": 1021}),
            ("odd_256", {"n": 1_000_003}),
            ("large", {"n": (1 << 24) + 7}),
        ),
    },
    samples=cases(
        ("tiny", {"n": 5}),
        ("odd", {"n": 300}),
    ),
    bench={"cpu": {"n": 1 << 17}, "cuda": {"n": 1 << 24}},
    check="exact",
    tolerance={},
    generate=generate,
    reference=reference,
    cost=cost,
)
