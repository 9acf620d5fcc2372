"""`branch_predictor`: a gshare predictor (global history XOR the branch address into a table of
2-bit saturating counters) over a branch trace; mispredictions in all and per interval.
Python and C++."""
from __future__ import annotations

import numpy as np

from .model import CppCall, CppParam, FunctionTask, cases, not_an_int

INTERVAL = 4096
MAX_BRANCHES = 2_097_152
MAX_INTERVALS = MAX_BRANCHES // INTERVAL
REPLAY_LIMIT = 300_000     # branches: above this the checker explains without replaying

STATEMENT = f"""Simulate a gshare branch predictor over a trace of conditional branches and count its
mispredictions.

```python
def gshare(pcs, taken, history_bits, table_bits) -> dict:
    # pcs: numpy uint64 array of branch addresses; taken: numpy bool array (the outcomes)
    # returns {{"mispredictions": int, "per_interval": [int, ...]}}
```
```cpp
extern "C" void gshare(const uint64_t* pcs, const uint8_t* taken, int64_t n,
                       int32_t history_bits, int32_t table_bits,
                       int64_t mispredictions[1],
                       int64_t per_interval[{MAX_INTERVALS}]);   /* the first ceil(n / {INTERVAL}) are read */
```

The predictor has a table of `2^table_bits` two-bit saturating counters, all starting at 1
(weakly not-taken), and a global history register of `history_bits` bits starting at 0
(`0 <= history_bits <= table_bits <= 24`). For each branch `i`, in order:

1. `index = ((pcs[i] >> 2) XOR history) mod 2^table_bits` (the shift is unsigned);
2. the prediction is *taken* when `table[index] >= 2`, *not taken* otherwise; it is a
   misprediction when it differs from `taken[i]`;
3. `table[index]` moves one step toward the outcome: +1 if taken, -1 if not, staying within
   0..3 (a counter at 3 stays at 3 when taken, one at 0 stays at 0 when not taken);
4. `history = ((history << 1) | taken[i]) mod 2^history_bits`: the newest outcome in bit 0.

`per_interval[k]` counts the mispredictions among branches `{INTERVAL}k` to `{INTERVAL}k + {INTERVAL - 1}`
(the last interval may be shorter; in Python a list of `ceil(n / {INTERVAL})` ints), and
`mispredictions` all of them (in C++ both arrays arrive zeroed). With `history_bits = 0` this is
a bimodal predictor.

A wrong answer names the first interval whose count differs, expected against actual, and the
likely mistake with the first branch it predicts differently. Traces of up to {MAX_BRANCHES:,}
branches from loops, biased, patterned, correlated and data-dependent branches.

**Scoring.** 60 points when every hidden trace's counts are right. Up to 40 more for speed:
40 x min(1, reference time / your time) on the largest hidden trace ({MAX_BRANCHES:,} branches,
14 history bits, 16 table bits), both timed in the same judging: a Python submission against
the judge's Python reference (the indices computed with numpy, then one loop over the branches:
1 to 2 s on the judge's machine), a C++ submission against its C++ reference (one loop, g++
-O2: about 0.03 s)."""

PYTHON_STARTER = f'''import numpy as np

INTERVAL = {INTERVAL}


def gshare(pcs, taken, history_bits, table_bits):
    """Mispredictions of a gshare predictor, in all and per interval of {INTERVAL} branches."""
    n = len(pcs)
    table = np.ones(1 << table_bits, dtype=np.int8)     # 2-bit counters, weakly not-taken
    history = 0
    missed = np.zeros(n, dtype=bool)
    # TODO: index, predict, update the counter, then the history, for each branch in order
    missed[:] = taken                                   # as if always predicting not-taken
    per_interval = [int(missed[k:k + INTERVAL].sum()) for k in range(0, n, INTERVAL)]
    return {{"mispredictions": int(missed.sum()), "per_interval": per_interval}}
'''

CPP_STARTER = f'''#include <cstdint>
#include <vector>

extern "C" void gshare(const uint64_t* pcs, const uint8_t* taken, int64_t n,
                       int32_t history_bits, int32_t table_bits,
                       int64_t mispredictions[1], int64_t per_interval[{MAX_INTERVALS}]) {{
    std::vector<uint8_t> table(std::size_t(1) << table_bits, 1);   // 2-bit counters, weakly not-taken
    uint64_t history = 0;
    // TODO: index, predict, update the counter, then the history, for each branch in order
    for (int64_t i = 0; i < n; ++i) {{
        const bool missed = taken[i];                     // as if always predicting not-taken
        mispredictions[0] += missed;
        per_interval[i / {INTERVAL}] += missed;
    }}
}}
'''

PYTHON_SIGNATURE = "def gshare(pcs, taken, history_bits, table_bits) -> dict"
CPP_SIGNATURE = ('extern "C" void gshare(const uint64_t* pcs, const uint8_t* taken, int64_t n, '
                 'int32_t history_bits, int32_t table_bits, int64_t mispredictions[1], '
                 f'int64_t per_interval[{MAX_INTERVALS}])')


def _dims(n: int, history_bits: int, table_bits: int, **more) -> dict:
    return {"n": n, "history_bits": history_bits, "table_bits": table_bits, **more}


TASK = FunctionTask(
    slug="branch_predictor", title="gshare branch predictor", difficulty="medium",
    track="architecture_modeling",
    skills=("branch_prediction", "microarchitecture", "trace_driven_simulation",
            "cpp_performance_models", "python", "cpp"),
    summary="Count a gshare predictor's mispredictions (global history XOR address, 2-bit "
            "saturating counters) over a branch trace, in all and per interval.",
    statement=STATEMENT, function="gshare",
    python_signature=PYTHON_SIGNATURE, cpp_signature=CPP_SIGNATURE, languages=("python", "cpp"),
    tests={"cpu": cases(
        ("tiny_tables", _dims(40, 2, 3, calls=40, tiny=True)),
        ("tiny_no_history", _dims(40, 0, 3, calls=20, tiny=True)),
        ("bimodal", _dims(50_000, 0, 10)),
        ("short_history", _dims(100_000, 4, 12)),
        ("history_fills_index", _dims(100_000, 12, 12)),
        ("large_table_short_history", _dims(200_000, 6, 20)),
        ("long_history", _dims(500_000, 18, 18)),
        ("large", _dims(MAX_BRANCHES, 14, 16)),
    )},
    samples=cases(
        ("sample_gshare", _dims(24, 2, 3, calls=2, tiny=True)),
        ("sample_bimodal", _dims(24, 0, 3, calls=2, tiny=True)),
    ),
    starters={"python": PYTHON_STARTER, "cpp": CPP_STARTER},
)


# ---- inputs -------------------------------------------------------------------------------------
def generate(rng: np.random.Generator, dims: dict) -> list[dict]:
    """`calls` traces from a small program: loop nests whose bodies hold biased, patterned,
    correlated and random branches and inner loops, the same code met again and again."""
    out = []
    for _ in range(int(dims.get("calls", 1))):
        n = int(dims["n"])
        if dims.get("tiny"):     # a few branches at few addresses, so that counters saturate and alias
            pcs = (0x1000 + 4 * rng.integers(0, 6, size=6, dtype=np.uint64))[rng.integers(0, 6, size=n)]
            taken = rng.random(n) < rng.choice([0.2, 0.5, 0.8])
        else:
            pcs, taken = _program_trace(rng, n)
        out.append({"pcs": pcs.astype(np.uint64), "taken": taken.astype(bool),
                    "history_bits": int(dims["history_bits"]), "table_bits": int(dims["table_bits"])})
    return out


def _program_trace(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    code = 0x400000 if rng.random() < 0.7 else 0xFFFFFFFF81000000    # user or kernel text
    loops = [_loop(rng, code + 0x40 * int(rng.integers(0, 1 << 16))) for _ in range(int(rng.integers(3, 24)))]
    pcs, taken, total = [], [], 0
    while total < n:
        p, t = _run_loop(rng, loops[int(rng.integers(len(loops)))])
        pcs.append(p)
        taken.append(t)
        total += len(p)
    return np.concatenate(pcs)[:n], np.concatenate(taken)[:n]


def _loop(rng: np.random.Generator, base: int) -> list[tuple]:
    """A loop body: (pc, kind, parameter) per branch, then the back edge."""
    body = []
    for j in range(int(rng.integers(1, 10))):
        pc = base + 4 * (3 * j + int(rng.integers(0, 3)))
        kind = str(rng.choice(["biased", "biased", "pattern", "correlated", "random", "inner"]))
        if kind == "biased":
            body.append((pc, kind, float(rng.choice([0.02, 0.1, 0.9, 0.98]))))
        elif kind == "pattern":
            body.append((pc, kind, rng.random(int(rng.integers(2, 9))) < 0.5))
        elif kind == "correlated" and body:
            body.append((pc, kind, (int(rng.integers(len(body))), bool(rng.random() < 0.5))))
        elif kind == "inner":
            body.append((pc, kind, int(rng.integers(2, 7))))
        else:
            body.append((pc, "random", 0.5))
    body.append((base + 4 * (3 * len(body) + 3), "back", None))
    return body


def _run_loop(rng: np.random.Generator, body: list[tuple]) -> tuple[np.ndarray, np.ndarray]:
    """One execution of the loop: a matrix of outcomes, iterations by branch columns."""
    trips = int(rng.integers(2, 200))
    cols_pc, cols = [], []
    for pc, kind, param in body:
        if kind == "biased" or kind == "random":
            col = [rng.random(trips) < param]
        elif kind == "pattern":
            col = [np.resize(param, trips)]
        elif kind == "correlated":
            source, negate = param
            col = [cols[source][-1] != negate]
        elif kind == "inner":            # an inner loop of `param` trips: taken, ..., taken, not taken
            col = [np.full(trips, k < param - 1) for k in range(param)]
        else:                            # the back edge: taken but on the last trip
            col = [np.arange(trips) < trips - 1]
        cols.append(col)
        cols_pc.extend([pc] * len(col))
    matrix = np.stack([c for col in cols for c in col], axis=1)
    return np.tile(np.array(cols_pc, dtype=np.uint64), trips), matrix.reshape(-1)


# ---- the reference ------------------------------------------------------------------------------
def _indices(pcs, taken, history_bits: int, table_bits: int, mistake: str = "") -> list[int]:
    """Every branch's table index; the history is a function of the earlier outcomes alone."""
    mask = (1 << table_bits) - 1
    address = np.asarray(pcs, dtype=np.uint64) >> np.uint64(0 if mistake == "pc_unshifted" else 2)
    outcomes = np.asarray(taken, dtype=np.uint64)
    bits = table_bits if mistake == "history_unmasked" else history_bits   # never cut back: all T bits
    history = np.zeros(len(outcomes), dtype=np.uint64)
    late = 0 if mistake == "history_first" else 1         # the outcome `late` branches back is bit 0
    for j in range(bits):
        shift = j + late
        if shift < len(outcomes):
            if mistake == "history_msb":      # the newest outcome enters at the top bit
                history[shift:] |= outcomes[:len(outcomes) - shift] << np.uint64(max(history_bits - 1 - j, 0))
            else:
                history[shift:] |= outcomes[:len(outcomes) - shift] << np.uint64(j)
    if mistake == "gselect":
        index = (address << np.uint64(history_bits)) | history
    else:
        index = address ^ history
    return (index & np.uint64(mask)).tolist()


def _simulate(pcs, taken, history_bits, table_bits, *, mistake: str = "") -> dict:
    """One loop over the branches with the indices precomputed. `mistake` replays a likely error
    for the checker's explanations; `wrong` lists the mispredicted branches."""
    index = _indices(pcs, taken, history_bits, table_bits, mistake)
    start = {"start_at_0": 0, "start_at_2": 2}.get(mistake, 1)
    table = [start] * (1 << table_bits)
    wraps = mistake == "wraps"
    wrong = []
    for i, (k, t) in enumerate(zip(index, np.asarray(taken, dtype=bool).tolist())):
        c = table[k]
        if (c >= 2) != t:
            wrong.append(i)
        if t:
            table[k] = c + 1 if c < 3 else (0 if wraps else 3)
        else:
            table[k] = c - 1 if c > 0 else (3 if wraps else 0)
    n = len(index)
    per_interval = np.bincount(np.asarray(wrong, dtype=np.int64) // INTERVAL,
                               minlength=-(-n // INTERVAL)).tolist()
    return {"mispredictions": len(wrong), "per_interval": per_interval, "wrong": wrong}


def reference(args: dict) -> dict:
    sim = _simulate(**args)
    return {"mispredictions": sim["mispredictions"], "per_interval": sim["per_interval"]}


# ---- checking -----------------------------------------------------------------------------------
MISTAKES = {   # replayed in this order; the first that gives the same counts explains them
    "history_first": ("the history was updated with a branch's outcome before its index was computed; "
                      "the index uses the history of the earlier branches only"),
    "wraps": "a counter wrapped around (3 + 1 -> 0 or 0 - 1 -> 3); counters saturate at 0 and 3",
    "start_at_0": "the counters started at 0; they start at 1 (weakly not-taken)",
    "start_at_2": "the counters started at 2; they start at 1 (weakly not-taken)",
    "pc_unshifted": "the index used the address itself; it uses pcs[i] >> 2",
    "history_unmasked": ("the history kept more than history_bits bits; it is cut to history_bits bits "
                         "after each update"),
    "history_msb": "the newest outcome entered the history at its top bit; it enters at bit 0",
    "gselect": "the history was concatenated to the address bits (gselect); gshare XORs them",
}


def check(args: dict, expected: dict, actual) -> str | None:
    n = len(args["pcs"])
    intervals = -(-n // INTERVAL)
    if not isinstance(actual, dict) or "mispredictions" not in actual or "per_interval" not in actual:
        return "gshare must return a dict with 'mispredictions' (an int) and 'per_interval' (a list of ints)"
    total, per = actual["mispredictions"], actual["per_interval"]
    refused = not_an_int("mispredictions", total)
    if refused:
        return refused
    per = np.asarray(per)
    if per.shape != (intervals,) or (intervals and per.dtype.kind not in "iu"):
        return (f"`per_interval` must hold {intervals} integer{'' if intervals == 1 else 's'}, one per "
                f"{INTERVAL} branches (the last may be shorter); it has shape {per.shape} and dtype {per.dtype}")
    wrong = np.flatnonzero(per.astype(np.int64) != np.asarray(expected["per_interval"], dtype=np.int64))
    if wrong.size:
        k = int(wrong[0])
        lo, hi = k * INTERVAL, min(n, (k + 1) * INTERVAL) - 1
        said = (f"branches {lo} to {hi} have {int(per[k])} mispredictions, expected "
                f"{expected['per_interval'][k]} ({wrong.size} of {intervals} intervals differ)")
        return f"{said}: {_why(args, per)}"
    if int(total) != expected["mispredictions"]:
        return (f"`mispredictions` is {int(total)}, expected {expected['mispredictions']}: the intervals are "
                "right, the total is their sum")
    return None


def _why(args: dict, per: np.ndarray) -> str:
    """The likeliest mistakes, found by replaying each one, with the first branch the first of them
    changes. A short trace has few intervals, so several mistakes may give its counts: all are named."""
    if len(args["pcs"]) > REPLAY_LIMIT:
        return ("follow the first mispredictions of that interval: the index from the history of the earlier "
                "branches, the counter's prediction, its saturating update, then the history")
    found = [(text, sim) for text, sim in ((t, _simulate(**args, mistake=m)) for m, t in MISTAKES.items())
             if np.array_equal(np.asarray(sim["per_interval"]), per)]
    if not found:
        return ("follow the first mispredictions of that interval: the index from the history of the earlier "
                "branches, the counter's prediction, its saturating update, then the history")
    text, sim = found[0]
    right = set(_simulate(**args)["wrong"])
    i = min(set(sim["wrong"]) ^ right)
    outcome = "taken" if args["taken"][i] else "not taken"
    stated, mistaken = ("mispredicted", "predicted correctly") if i in right else ("predicted correctly", "mispredicted")
    others = "".join(f" Or: {t}." for t, _ in found[1:])
    return (f"{text}. The first branch this changes is branch {i} (pc 0x{int(args['pcs'][i]):x}, "
            f"{outcome}): {stated} as stated, {mistaken} with this mistake.{others}")


def show(args: dict) -> str:
    """The inputs as a person reads them: the knobs and the first branches."""
    n = len(args["pcs"])
    first = ", ".join(f"0x{int(p):x} {'T' if t else 'N'}" for p, t in zip(args["pcs"][:8], args["taken"][:8]))
    more = f", ... ({n - 8} more)" if n > 8 else ""
    return (f"history_bits={args['history_bits']}, table_bits={args['table_bits']}; {n} branches "
            f"({int(np.count_nonzero(args['taken']))} taken): {first}{more}")


# ---- C++ ----------------------------------------------------------------------------------------
def _to_cpp(args: dict) -> dict:
    return {"pcs": np.ascontiguousarray(args["pcs"], dtype=np.uint64),
            "taken": np.ascontiguousarray(args["taken"], dtype=np.uint8),
            "history_bits": args["history_bits"], "table_bits": args["table_bits"]}


def _from_cpp(args: dict, outs: dict) -> dict:
    intervals = -(-len(args["pcs"]) // INTERVAL)
    return {"mispredictions": int(outs["mispredictions"][0]),
            "per_interval": [int(v) for v in outs["per_interval"][:intervals]]}


CPP = CppCall(
    params=(CppParam("pcs", "in:uint64"), CppParam("taken", "in:uint8"), CppParam("n", "len:pcs"),
            CppParam("history_bits", "int32"), CppParam("table_bits", "int32"),
            CppParam("mispredictions", "out:int64[1]"),
            CppParam("per_interval", f"out:int64[{MAX_INTERVALS}]")),
    to_cpp=_to_cpp, from_cpp=_from_cpp)

CPP_REFERENCE = f'''#include <cstdint>
#include <vector>

extern "C" void gshare(const uint64_t* pcs, const uint8_t* taken, int64_t n,
                       int32_t history_bits, int32_t table_bits,
                       int64_t mispredictions[1], int64_t per_interval[{MAX_INTERVALS}]) {{
    std::vector<uint8_t> table(std::size_t(1) << table_bits, 1);
    const uint64_t mask = (uint64_t(1) << table_bits) - 1, hmask = (uint64_t(1) << history_bits) - 1;
    uint64_t history = 0;
    for (int64_t i = 0; i < n; ++i) {{
        uint8_t& c = table[((pcs[i] >> 2) ^ history) & mask];
        const bool t = taken[i] != 0;
        if ((c >= 2) != t) {{
            ++mispredictions[0];
            ++per_interval[i / {INTERVAL}];
        }}
        if (t && c < 3) ++c;
        if (!t && c > 0) --c;
        history = ((history << 1) | uint64_t(t)) & hmask;
    }}
}}
'''
