"""Task: element-wise vector addition."""
import numpy as np

from gpu_tasks.base import (
    ELEMENTWISE_BENCH, ELEMENTWISE_CUDA_CASES, Arg, Task, cases, f32, f64, output_like,
)

STATEMENT = """\
# Vector addition

Compute `c[i] = a[i] + b[i]` for every `i < n`.

```python
def solve(a, b, c, n):
    ...
```

| argument | kind | dtype | shape |
|---|---|---|---|
| `a`, `b` | input | float32 | `(n,)` |
| `c` | output | float32 | `(n,)` |
| `n` | Python `int` | | `1 <= n` |

- `a`, `b` and `c` are device arrays (`cupy.ndarray`), C-contiguous. Write the result into `c`
  in place and return `None`; leave `a` and `b` unchanged.
- `c` arrives filled with NaN: every element must be written.
- `n` is not a multiple of the block size in most tests (1, primes such as 1021, millions).
  Threads past the end must not touch memory.
- Checked element-wise: `|c - ref| <= 1e-7 + 1e-6 * |ref|`.

Example: `a = [1, 2, 3]`, `b = [10, 20, 30]` gives `c = [11, 22, 33]`.

When passing `n` to a `RawKernel` with an `int` parameter, convert it: `cupy.int32(n)`.
"""


def generate(rng: np.random.Generator, dims: dict) -> dict:
    n = dims["n"]
    return {
        "a": f32(rng.normal(0.0, 4.0, n)),
        "b": f32(rng.normal(1.0, 4.0, n)),
        "c": output_like(n, "float32"),
        "n": int(n),
    }


def reference(inputs: dict) -> dict:
    return {"c": f64(inputs["a"]) + f64(inputs["b"])}


def cost(dims: dict) -> tuple[int, int]:
    n = dims["n"]
    return 12 * n, n


TASK = Task(
    slug="vector_add",
    title="Vector addition",
    summary="Add two float32 vectors element by element.",
    difficulty="easy",
    skills=("cuda", "cupy", "cuda_thread_hierarchy", "memory_coalescing"),
    statement=STATEMENT,
    args=(
        Arg("a", "in", "float32", "(n,)"),
        Arg("b", "in", "float32", "(n,)"),
        Arg("c", "out", "float32", "(n,)"),
        Arg("n", "scalar", "int"),
    ),
    tests={
        "cpu": cases(
            ("tiny", {"n": 1}),
            ("small", {"n": 31}),
            ("prime", {"n": 1021}),
            ("odd_256", {"n": 4097}),
            ("medium", {"n": 100_003}),
            ("large", {"n": 524_287}),
        ),
        "cuda": ELEMENTWISE_CUDA_CASES,
    },
    samples=cases(
        ("tiny", {"n": 5}),
        ("odd", {"n": 300}),
    ),
    bench=ELEMENTWISE_BENCH,
    check="allclose",
    tolerance={"rtol": 1e-6, "atol": 1e-7},
    generate=generate,
    reference=reference,
    cost=cost,
)
