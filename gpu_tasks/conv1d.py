"""Task: valid 1-D cross-correlation."""
import numpy as np

from gpu_tasks.base import Arg, Task, cases, f32, f64, output_like, rounding_atol

STATEMENT = """\
# 1-D convolution (valid cross-correlation)

Compute `y[i] = sum over j < k of x[i + j] * w[j]` for every `i < n - k + 1` (no padding, no
flipping of `w`, as in deep-learning "convolution").

```python
def solve(x, w, y, n, k):
    ...
```

| argument | kind | dtype | shape |
|---|---|---|---|
| `x` | input | float32 | `(n,)` |
| `w` | input | float32 | `(k,)` |
| `y` | output | float32 | `(n - k + 1,)` |
| `n`, `k` | Python `int` | | `1 <= k <= n` |

- `y` has `n - k + 1` elements (1 when `k == n`); it arrives filled with NaN and every element
  must be written. Leave `x` and `w` unchanged.
- `k` ranges from 1 to a few hundred. Neighbouring outputs share `k - 1` inputs: staging a tile
  of `x` (plus its halo) and `w` in shared memory avoids re-reading them from global memory.
- Checked by norm: `||y - ref|| <= 1e-5 ||ref|| + 1e-6 ||ref(|x|, |w|)||`, the second term the
  scale of float32 rounding in each sum (the same correlation on absolute values), so an
  output that cancels to nearly zero is not failed for rounding.

Example: `x = [1, 2, 3, 4]`, `w = [1, 0, -1]` gives `y = [-2, -2]`.
"""


def generate(rng: np.random.Generator, dims: dict) -> dict:
    n, k = dims["n"], dims["k"]
    return {
        "x": f32(rng.uniform(-1.0, 1.0, n)),
        "w": f32(rng.uniform(-1.0, 1.0, k)),
        "y": output_like(n - k + 1, "float32"),
        "n": int(n),
        "k": int(k),
    }


def reference(inputs: dict) -> dict:
    x, w = f64(inputs["x"]), f64(inputs["w"])
    return {"y": np.correlate(x, w, mode="valid")}


def cost(dims: dict) -> tuple[int, int]:
    n, k = dims["n"], dims["k"]
    out = n - k + 1
    return 4 * (n + k + out), 2 * k * out


TASK = Task(
    slug="conv1d",
    title="1-D convolution",
    summary="Valid 1-D cross-correlation of a float32 signal with a filter.",
    difficulty="medium",
    skills=("cuda", "convolution", "shared_memory", "memory_coalescing"),
    statement=STATEMENT,
    args=(
        Arg("x", "in", "float32", "(n,)"),
        Arg("w", "in", "float32", "(k,)"),
        Arg("y", "out", "float32", "(n - k + 1,)"),
        Arg("n", "scalar", "int"),
        Arg("k", "scalar", "int"),
    ),
    tests={
        "cpu": cases(
            ("tiny", {"n": 1, "k": 1}),
            ("full", {"n": 1000, "k": 1000}),
            ("identity", {"n": 4099, "k": 1}),
            ("prime", {"n": 1021, "k": 7}),
            ("medium", {"n": 100_003, "k": 31}),
            ("wide", {"n": 20_011, "k": 257}),
        ),
        "cuda": cases(
            ("tiny", {"n": 1, "k": 1}),
            ("prime", {"n": 1021, "k": 17}),
            ("wide", {"n": 1_000_003, "k": 255}),
            ("large", {"n": (1 << 24) + 3, "k": 63}),
        ),
    },
    samples=cases(
        ("tiny", {"n": 8, "k": 3}),
        ("odd", {"n": 300, "k": 7}),
    ),
    bench={"cpu": {"n": 1 << 17, "k": 31}, "cuda": {"n": 1 << 24, "k": 127}},
    check="norm",
    tolerance={"rtol": 1e-5},
    atol=rounding_atol(reference, "y"),
    generate=generate,
    reference=reference,
    cost=cost,
)
