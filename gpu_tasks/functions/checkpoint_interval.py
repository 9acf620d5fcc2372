"""`checkpoint_interval`: Daly's checkpoint interval and the efficiency it gives, per training job,
from node MTBF, node count, checkpoint write time and restart time. Python; timed on 100,000 jobs."""
from __future__ import annotations

from numbers import Real

import numpy as np

from .model import FunctionTask, cases

FIELDS = ("interval_s", "efficiency")
RTOL = 1e-6

STATEMENT = f"""Choose how often each training job checkpoints, and say how much of its time it
then spends on useful work.

```python
def checkpoint_plan(node_mtbf_h, nodes, checkpoint_s, restart_s) -> dict:
    # numpy arrays with one element per job, all the same length: node_mtbf_h (float64, hours),
    # nodes (int64), checkpoint_s and restart_s (float64, seconds)
    # returns {{"interval_s": [...], "efficiency": [...]}}, one float per job (lists or arrays)
```

A job runs on `nodes` nodes and stops when any of them fails, so its mean time between failures
is `M = node_mtbf_h x 3600 / nodes` seconds. Writing a checkpoint takes `d = checkpoint_s`;
after a failure the job restarts in `R = restart_s` and resumes from its last checkpoint.

**The interval** is the compute time between two checkpoints, Daly's higher-order estimate:

- when `d < 2M`: `interval = sqrt(2 d M) x (1 + sqrt(d / (2M)) / 3 + d / (2M) / 9) - d`;
- otherwise (checkpoints too slow for the failure rate): `interval = M`.

**The efficiency** is the fraction of wall-clock time spent on useful work, with failures
arriving at random (exponentially distributed) and that interval `t`:
`efficiency = t / (M x exp(R / M) x (exp((t + d) / M) - 1))`.

Both answers must be within a relative 10^{int(np.log10(RTOL))} of the judge's, finite, one per job; a wrong
answer names the first job that is off, its inputs, expected against actual, and the likely
mistake. Jobs run on 1 to 32,768 nodes of 2,000 to 200,000 hours MTBF, checkpoint in 5 s to
1 h and restart in 30 s to 1 h.

**Scoring.** 60 points when every job of every hidden test is right. Up to 40 more for speed:
40 x min(1, reference time / your time) on the largest hidden test (100,000 jobs), both timed in
the same judging; the reference evaluates the formulas on whole numpy arrays (about 0.002 s on
the judge's machine), so a loop over jobs in Python earns few of these points."""

PYTHON_STARTER = '''import numpy as np


def checkpoint_plan(node_mtbf_h, nodes, checkpoint_s, restart_s):
    """One interval and one efficiency per job (numpy arrays in, lists or arrays out)."""
    mtbf_s = node_mtbf_h * 3600.0          # TODO: the job fails when any of its nodes fails
    interval = np.sqrt(2.0 * checkpoint_s * mtbf_s)    # TODO: Daly's estimate, and d >= 2M
    efficiency = np.ones_like(interval)     # TODO: the statement's expected efficiency
    return {"interval_s": interval, "efficiency": efficiency}
'''

PYTHON_SIGNATURE = "def checkpoint_plan(node_mtbf_h, nodes, checkpoint_s, restart_s) -> dict"


def _dims(jobs: int, regime: str = "mixed") -> dict:
    return {"jobs": jobs, "regime": regime}


TASK = FunctionTask(
    slug="checkpoint_interval", title="Checkpoint interval", difficulty="easy",
    track="infrastructure", skills=("checkpointing", "fault_tolerance", "probability", "numpy", "python"),
    summary="Pick each training job's checkpoint interval from its failure rate and predict its efficiency.",
    statement=STATEMENT, function="checkpoint_plan",
    python_signature=PYTHON_SIGNATURE, cpp_signature=None, languages=("python",),
    tests={"cpu": cases(
        ("one_job", _dims(1, "small")),
        ("small_jobs", _dims(7, "small")),
        ("large_training", _dims(50, "large")),
        ("slow_storage", _dims(31, "slow")),
        ("sweep", _dims(1000)),
        ("fleet", _dims(100_000)),
    )},
    samples=cases(("sample_small", _dims(3, "small")), ("sample_slow", _dims(3, "slow"))),
    starters={"python": PYTHON_STARTER},
)

REGIMES = {   # ranges of node MTBF (h), nodes, checkpoint write (s), restart (s)
    "small": ((20_000, 200_000), (1, 64), (5, 120), (30, 600)),
    "large": ((5_000, 50_000), (1024, 32_768), (30, 900), (300, 3600)),
    "slow": ((2_000, 10_000), (2048, 32_768), (600, 3600), (600, 3600)),
    "mixed": ((2_000, 200_000), (1, 32_768), (5, 3600), (30, 3600)),
}


def generate(rng: np.random.Generator, dims: dict) -> list[dict]:
    """Jobs whose sizes and storage speeds span the regime's ranges (log-uniform); with slow
    storage, every other job checkpoints in at least 2M (the statement's second case)."""
    n = int(dims["jobs"])
    regime = str(dims["regime"])
    mtbf, nodes, ckpt, restart = REGIMES[regime]

    def log_uniform(lo: float, hi: float) -> np.ndarray:
        return np.exp(rng.uniform(np.log(lo), np.log(hi), size=n))

    args = {"node_mtbf_h": np.round(log_uniform(*mtbf), 1),
            "nodes": np.round(log_uniform(*nodes)).astype(np.int64),
            "checkpoint_s": np.round(log_uniform(*ckpt), 2),
            "restart_s": np.round(log_uniform(*restart), 1)}
    if regime == "slow":
        m = args["node_mtbf_h"] * 3600.0 / args["nodes"]
        floor = np.minimum(np.ceil(2.0 * m), ckpt[1])
        args["checkpoint_s"][::2] = np.maximum(args["checkpoint_s"], floor)[::2]
    return [args]


# ---- the reference ---------------------------------------------------------------------------------
def _plan(node_mtbf_h, nodes, checkpoint_s, restart_s, *, per_node=False, young=False, always_daly=False,
          restart_term=True, seconds_per_hour=3600.0) -> dict:
    """The statement's formulas on whole arrays; the keywords replay likely mistakes."""
    m = np.asarray(node_mtbf_h, dtype=np.float64) * seconds_per_hour
    if not per_node:
        m = m / np.asarray(nodes, dtype=np.float64)
    d = np.asarray(checkpoint_s, dtype=np.float64)
    r = np.asarray(restart_s, dtype=np.float64)
    x = d / (2.0 * m)
    if young:
        t = np.sqrt(2.0 * d * m)
    else:
        daly = np.sqrt(2.0 * d * m) * (1.0 + np.sqrt(x) / 3.0 + x / 9.0) - d
        t = daly if always_daly else np.where(d < 2.0 * m, daly, m)
    wall = m * np.expm1((t + d) / m) * (np.exp(r / m) if restart_term else 1.0)
    return {"interval_s": t, "efficiency": t / wall}


def reference(args: dict) -> dict:
    return _plan(**args)


# ---- checking ---------------------------------------------------------------------------------------
def check(args: dict, expected: dict, actual) -> str | None:
    if not isinstance(actual, dict):
        return f"checkpoint_plan returned {type(actual).__name__}, expected a dict with {' and '.join(FIELDS)}"
    n = len(args["nodes"])
    got = {}
    for k in FIELDS:
        if k not in actual:
            return f"the result has no {k!r} (it needs {' and '.join(FIELDS)})"
        values = actual[k]
        if not isinstance(values, (list, tuple, np.ndarray)) or len(values) != n:
            size = len(values) if isinstance(values, (list, tuple, np.ndarray)) else type(values).__name__
            return f"`{k}` must hold one float per job ({n}), got {size}"
        if not all(isinstance(v, Real) and not isinstance(v, bool) for v in values):
            return f"`{k}` must hold numbers, got {next(v for v in values if not isinstance(v, Real))!r}"
        got[k] = np.asarray(values, dtype=np.float64)
    want = {k: np.asarray(expected[k]) for k in FIELDS}
    for k in FIELDS:
        bad = ~np.isfinite(got[k]) | (np.abs(got[k] - want[k]) > RTOL * np.abs(want[k]))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            return (f"job {i} ({_inputs(args, i)}): {k} is {got[k][i]:.6g}, expected {want[k][i]:.6g}"
                    f"{_why(args, i, k, got[k][i])}")
    return None


def _inputs(args: dict, i: int) -> str:
    m = args["node_mtbf_h"][i] * 3600.0 / args["nodes"][i]
    return (f"node MTBF {args['node_mtbf_h'][i]:g} h, {args['nodes'][i]} nodes, so M = {m:.6g} s; "
            f"checkpoint {args['checkpoint_s'][i]:g} s, restart {args['restart_s'][i]:g} s")


MISTAKES = (
    ({"young": True}, "that is Young's sqrt(2 d M); the statement asks for Daly's higher-order estimate"),
    ({"per_node": True}, "M is the node MTBF divided by the number of nodes: any node's failure stops the job"),
    ({"always_daly": True}, "here d >= 2M, where the interval is M"),
    ({"restart_term": False}, "the restart time R enters the efficiency as the factor exp(R / M)"),
    ({"seconds_per_hour": 1.0}, "node_mtbf_h is in hours: M = node_mtbf_h x 3600 / nodes seconds"),
)


def _why(args: dict, i: int, field: str, value: float) -> str:
    if not np.isfinite(value):
        return ": it must be a finite number"
    one = {k: np.asarray(v)[i:i + 1] for k, v in args.items()}
    for mistake, why in MISTAKES:
        if np.isclose(_plan(**one, **mistake)[field][0], value, rtol=1e-6, atol=0):
            return f": {why}"
    if field == "efficiency":
        return ": the efficiency is t / (M exp(R / M) (exp((t + d) / M) - 1)) at the interval t"
    return ""


def show(args: dict) -> str:
    n = len(args["nodes"])
    return f"{n} job{'s' if n > 1 else ''}: " + "; ".join(
        f"{args['node_mtbf_h'][i]:g} h x {args['nodes'][i]} nodes, d={args['checkpoint_s'][i]:g} s, "
        f"R={args['restart_s'][i]:g} s" for i in range(min(n, 2))) + ("; ..." if n > 2 else "")
