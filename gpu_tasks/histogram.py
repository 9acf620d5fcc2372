"""Task: histogram of int32 values with atomics."""
import numpy as np

from gpu_tasks.base import Arg, Task, cases, output_like

STATEMENT = """\
# Histogram

Count how often each value occurs: `hist[v] = number of i < n with x[i] == v`, for every
`v < bins`.

```python
def solve(x, hist, n, bins):
    ...
```

| argument | kind | dtype | shape |
|---|---|---|---|
| `x` | input | int32, values in `[0, bins)` | `(n,)` |
| `hist` | output | int32 | `(bins,)` |
| `n`, `bins` | Python `int` | | `n >= 1`, `1 <= bins <= 131072` |

- `hist` arrives filled with -123456789, not zero: every bin must be written, empty bins
  included (clear it first, e.g. `hist.fill(0)`). Leave `x` unchanged.
- The data is skewed: one hot bin holds about a quarter of all values, others are rare or
  empty. Concurrent increments of the same bin must be atomic.
- Privatising the histogram per block in shared memory and merging it into `hist` at the end
  cuts contention on global memory; keep a fallback for `bins` too large for shared memory.
- Checked exactly.

Example: `x = [2, 0, 2, 3, 2]`, `bins = 4` gives `hist = [1, 0, 3, 1]`.
"""


def generate(rng: np.random.Generator, dims: dict) -> dict:
    n, bins = dims["n"], dims["bins"]
    hot = rng.integers(0, bins)
    perm = rng.permutation(bins)
    skewed = perm[np.minimum(rng.geometric(min(1.0, 8.0 / bins), n) - 1, bins - 1)]
    uniform = rng.integers(0, bins, n)
    pick = rng.random(n)
    x = np.where(pick < 0.25, hot, np.where(pick < 0.75, skewed, uniform))
    return {
        "x": x.astype(np.int32),
        "hist": output_like(bins, "int32"),
        "n": int(n),
        "bins": int(bins),
    }


def reference(inputs: dict) -> dict:
    bins = inputs["bins"]
    return {"hist": np.bincount(np.asarray(inputs["x"], dtype=np.int64), minlength=bins)[:bins]}


def cost(dims: dict) -> tuple[int, int]:
    return 4 * dims["n"] + 4 * dims["bins"], dims["n"]


TASK = Task(
    slug="histogram",
    title="Histogram",
    summary="Count how often each int32 value occurs, one bin per value.",
    difficulty="medium",
    skills=("cuda", "atomic_operations", "parallel_histogram", "shared_memory", "parallel_reduction"),
    statement=STATEMENT,
    args=(
        Arg("x", "in", "int32", "(n,)"),
        Arg("hist", "out", "int32", "(bins,)"),
        Arg("n", "scalar", "int"),
        Arg("bins", "scalar", "int"),
    ),
    tests={
        "cpu": cases(
            ("tiny", {"n": 1, "bins": 1}),
            ("one_bin", {"n": 1021, "bins": 1}),
            ("sparse", {"n": 5, "bins": 1000}),
            ("prime", {"n": 1021, "bins": 256}),
            ("odd_bins", {"n": 4099, "bins": 1000}),
            ("large", {"n": 200_003, "bins": 256}),
            ("many_bins", {"n": 100_003, "bins": 4099}),
        ),
        "cuda": cases(
            ("tiny", {"n": 1, "bins": 1}),
            ("prime", {"n": 1021, "bins": 256}),
            ("odd_bins", {"n": 1_000_003, "bins": 4099}),
            ("huge_bins", {"n": 1_000_003, "bins": 100_003}),
            ("large", {"n": (1 << 24) + 7, "bins": 256}),
        ),
    },
    samples=cases(
        ("tiny", {"n": 5, "bins": 4}),
        ("odd", {"n": 300, "bins": 37}),
    ),
    bench={"cpu": {"n": 1 << 17, "bins": 256}, "cuda": {"n": 1 << 26, "bins": 256}},
    check="exact",
    tolerance={},
    generate=generate,
    reference=reference,
    cost=cost,
)
