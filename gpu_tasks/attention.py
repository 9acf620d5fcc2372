"""Task: single-head scaled dot-product attention."""
import math

import numpy as np

from gpu_tasks.base import Arg, Task, cases, f32, f64, output_like

STATEMENT = """\
# Scaled dot-product attention

One attention head without masking: with `s = q @ k.T / sqrt(dim)` (a `seq x seq` matrix of
scores), `p = softmax(s)` row by row, compute `out = p @ v`.

```python
def solve(q, k, v, out, seq, dim):
    ...
```

| argument | kind | dtype | shape |
|---|---|---|---|
| `q`, `k`, `v` | input | float32 | `(seq, dim)`, row-major |
| `out` | output | float32 | `(seq, dim)`, row-major |
| `seq`, `dim` | Python `int` | | `1 <= seq <= 8192`, `1 <= dim <= 256` |

- Some queries are long vectors: their scores reach magnitudes of 100 and more, so `exp` must
  be taken after subtracting the row maximum (or with an online max, as in FlashAttention).
- Compute in float32: TF32 or float16 scores lose too much at these magnitudes.
- `out` arrives filled with NaN; every element must be written. Leave `q`, `k`, `v` unchanged.
- Checked by norm: `||out - ref|| / ||ref|| <= 1e-4`.
- Avoid materialising the whole `seq x seq` score matrix in global memory: a block per query
  (or per tile of queries) can keep its scores or running softmax state on chip.

Example: `seq = 2`, `dim = 1`, `q = [[0], [0]]`, `k = [[1], [2]]`, `v = [[10], [20]]`: all
scores are 0, so `out = [[15], [15]]`.
"""


def generate(rng: np.random.Generator, dims: dict) -> dict:
    seq, dim = dims["seq"], dims["dim"]
    q = rng.standard_normal((seq, dim))
    q /= np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12)
    k = rng.standard_normal((seq, dim))
    k /= np.maximum(np.linalg.norm(k, axis=1, keepdims=True), 1e-12)
    # |score| <= |q_i| |k_j| / sqrt(dim): q rows get lengths up to 100 * sqrt(dim) (scores up to
    # +-100 when a key is aligned); keys are unit vectors scaled by 1 to 1.5.
    q_len = np.where(rng.random((seq, 1)) < 0.25, rng.uniform(40.0, 100.0, (seq, 1)), rng.uniform(0.5, 4.0, (seq, 1)))
    q *= q_len * math.sqrt(dim)
    k *= rng.uniform(1.0, 1.5, (seq, 1))
    if seq > 1:
        hot = rng.integers(0, seq)
        k[hot] = q[hot] / np.linalg.norm(q[hot]) * 1.0  # one key aligned with its query
        q[hot] *= 100.0 * math.sqrt(dim) / np.linalg.norm(q[hot])
    return {
        "q": f32(q),
        "k": f32(k),
        "v": f32(rng.standard_normal((seq, dim))),
        "out": output_like((seq, dim), "float32"),
        "seq": int(seq),
        "dim": int(dim),
    }


def reference(inputs: dict) -> dict:
    q, k, v = f64(inputs["q"]), f64(inputs["k"]), f64(inputs["v"])
    s = q @ k.T / math.sqrt(q.shape[1])
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return {"out": p @ v}


def cost(dims: dict) -> tuple[int, int]:
    seq, dim = dims["seq"], dims["dim"]
    return 16 * seq * dim, 4 * seq * seq * dim + 5 * seq * seq


TASK = Task(
    slug="attention",
    title="Scaled dot-product attention",
    summary="Scaled dot-product attention for one head, without masking.",
    difficulty="hard",
    skills=("cuda", "numerical_stability", "shared_memory", "parallel_reduction", "linear_algebra", "tiled_matmul"),
    statement=STATEMENT,
    args=(
        Arg("q", "in", "float32", "(seq, dim)"),
        Arg("k", "in", "float32", "(seq, dim)"),
        Arg("v", "in", "float32", "(seq, dim)"),
        Arg("out", "out", "float32", "(seq, dim)"),
        Arg("seq", "scalar", "int"),
        Arg("dim", "scalar", "int"),
    ),
    tests={
        "cpu": cases(
            ("tiny", {"seq": 1, "dim": 1}),
            ("narrow", {"seq": 37, "dim": 3}),
            ("rect", {"seq": 100, "dim": 64}),
            ("prime", {"seq": 127, "dim": 33}),
            ("wide", {"seq": 16, "dim": 256}),
        ),
        "cuda": cases(
            ("tiny", {"seq": 1, "dim": 1}),
            ("prime", {"seq": 1021, "dim": 67}),
            ("long", {"seq": 8191, "dim": 64}),
            ("large", {"seq": 4096, "dim": 128}),
        ),
    },
    samples=cases(
        ("tiny", {"seq": 3, "dim": 2}),
        ("odd", {"seq": 33, "dim": 16}),
    ),
    bench={"cpu": {"seq": 256, "dim": 64}, "cuda": {"seq": 4096, "dim": 128}},
    check="norm",
    tolerance={"rtol": 1e-4},
    generate=generate,
    reference=reference,
    cost=cost,
)
