"""`dram_timing`: one DRAM channel's banks under an open-page policy, FCFS or FR-FCFS, with the
timing parameters as arguments; each request's completion cycle and the row-buffer outcomes.
Python and C++."""
from __future__ import annotations

import numpy as np

from .model import CppCall, CppParam, FunctionTask, cases, not_an_int

TIMINGS = ("tRCD", "tRP", "tRAS", "tCL", "tCWL", "tBURST")
FIGURES = ("cycles", "total_latency", "max_latency", "hits", "misses", "conflicts")
COUNTS = FIGURES[3:]
POLICIES = ("fcfs", "frfcfs")
SHOWN = 6
REPLAY_LIMIT = 100_000     # requests: above this the checker explains without replaying

STATEMENT = """Model one DRAM channel: a memory controller in front of `banks` banks with an
open-page policy. Time every request and report the channel's figures.

```python
def simulate_dram(arrival, bank, row, is_write, banks, policy, timing) -> dict:
    # arrival: numpy int64 array, non-decreasing; bank, row: numpy int32 arrays; is_write: bool array
    # policy: "fcfs" or "frfcfs"; timing: {"tRCD", "tRP", "tRAS", "tCL", "tCWL", "tBURST"} -> int cycles
    # returns {"cycles": int, "total_latency": int, "max_latency": int,
    #          "hits": int, "misses": int, "conflicts": int}
```
```cpp
extern "C" void simulate_dram(const int64_t* arrival, const int32_t* bank, const int32_t* row,
                              const uint8_t* is_write, int64_t n, int32_t banks,
                              int32_t policy,  /* 0 = fcfs, 1 = frfcfs */
                              int64_t tRCD, int64_t tRP, int64_t tRAS, int64_t tCL,
                              int64_t tCWL, int64_t tBURST,
                              int64_t out[6]);  /* the six figures, in the order above */
```

Every bank starts closed (no open row). The controller serves **one request at a time**. It
chooses the next request at a decision cycle `T`: first the arrival of request 0, then the
cycle of the previous request's column command. The queue at `T` holds the requests that have
arrived (`arrival <= T`) and are not served; when it is empty, `T` moves on to the next arrival.
It picks:

- `fcfs` (C++ `policy == 0`): the queued request with the lowest index;
- `frfcfs` (`policy == 1`): the lowest-index queued request whose row is the open row of its
  bank (a row hit); when there is none, the lowest-index queued request.

Serving request `r` (bank `b`, row `x`) chosen at `T`; `prev` is the cycle of the previous
request's column command (none before the first):

| `b` at `T` | counted as | commands |
|---|---|---|
| row `x` open | hit | `COL = max(T, prev + tBURST)` |
| closed | miss | `ACT = T`, `COL = max(ACT + tRCD, prev + tBURST)` |
| another row open | conflict | `PRE = max(T, lastACT_b + tRAS, lastDone_b)`, `ACT = PRE + tRP`, `COL = max(ACT + tRCD, prev + tBURST)` |

`lastACT_b` is the cycle of bank `b`'s latest activate and `lastDone_b` the completion of the
latest request served on `b`. The request completes at `done[r] = COL + tCL + tBURST` for a
read and `COL + tCWL + tBURST` for a write; row `x` is then open in `b`. The figures:
`cycles` is the latest `done[r]`, `total_latency` the sum of `done[r] - arrival[r]` over all
requests, `max_latency` the largest of them; `hits`, `misses` and `conflicts` count the
requests by the table's middle column.

A wrong answer names the first figure that differs, expected against actual, and the likely
mistake with the first request it changes. Traces have up to 1,000,000 requests, 1 to 16
banks, rows below 65,536; the timing parameters are from 1 to 64 cycles with `tRAS >= tRCD`.

**Scoring.** 60 points when every hidden trace's six figures are right. Up to 40 more for
speed: 40 x min(1, reference time / your time) on the largest hidden trace (1,000,000 requests,
FR-FCFS, 16 banks), both timed in the same judging: a Python submission against the judge's
Python reference (the requests of each bank and row linked in order, one pass: 3 to 5 s on the
judge's machine), a C++ submission against its C++ reference built the same way (g++ -O2: about
0.3 s)."""

PYTHON_STARTER = '''import numpy as np


def simulate_dram(arrival, bank, row, is_write, banks, policy, timing):
    """The channel's six figures; policy "fcfs" or "frfcfs"."""
    n = len(arrival)
    open_row = [None] * banks
    done = np.zeros(n, dtype=np.int64)
    hits = misses = conflicts = 0
    # TODO: choose requests by the policy and time their PRE/ACT/column commands
    for r in range(n):
        done[r] = int(arrival[r]) + timing["tCL"]
        misses += 1
    latency = done - np.asarray(arrival, dtype=np.int64)
    return {"cycles": int(done.max()), "total_latency": int(latency.sum()),
            "max_latency": int(latency.max()), "hits": hits, "misses": misses, "conflicts": conflicts}
'''

CPP_STARTER = '''#include <algorithm>
#include <cstdint>
#include <vector>

extern "C" void simulate_dram(const int64_t* arrival, const int32_t* bank, const int32_t* row,
                              const uint8_t* is_write, int64_t n, int32_t banks, int32_t policy,
                              int64_t tRCD, int64_t tRP, int64_t tRAS, int64_t tCL,
                              int64_t tCWL, int64_t tBURST, int64_t out[6]) {
    std::vector<int32_t> open_row(banks, -1);
    int64_t cycles = 0, total = 0, worst = 0, hits = 0, misses = 0, conflicts = 0;
    // TODO: choose requests by the policy and time their PRE/ACT/column commands
    for (int64_t r = 0; r < n; ++r) {
        const int64_t done = arrival[r] + tCL;
        cycles = std::max(cycles, done);
        total += done - arrival[r];
        worst = std::max(worst, done - arrival[r]);
        ++misses;
    }
    out[0] = cycles;
    out[1] = total;
    out[2] = worst;
    out[3] = hits;
    out[4] = misses;
    out[5] = conflicts;
}
'''

PYTHON_SIGNATURE = "def simulate_dram(arrival, bank, row, is_write, banks, policy, timing) -> dict"
CPP_SIGNATURE = ('extern "C" void simulate_dram(const int64_t* arrival, const int32_t* bank, '
                 'const int32_t* row, const uint8_t* is_write, int64_t n, int32_t banks, '
                 'int32_t policy, int64_t tRCD, int64_t tRP, int64_t tRAS, int64_t tCL, '
                 'int64_t tCWL, int64_t tBURST, int64_t out[6])')

TASK = FunctionTask(
    slug="dram_timing", title="DRAM row-buffer timing model", difficulty="medium",
    track="architecture_modeling",
    skills=("hbm_dram", "memory_hierarchy", "cycle_accurate_modeling", "trace_driven_simulation",
            "cpp_performance_models", "python", "cpp"),
    summary="Time requests through one DRAM channel's banks (open page, FCFS or FR-FCFS): "
            "cycles, latencies and row hits, misses and conflicts.",
    statement=STATEMENT, function="simulate_dram",
    python_signature=PYTHON_SIGNATURE, cpp_signature=CPP_SIGNATURE, languages=("python", "cpp"),
    tests={"cpu": cases(
        ("tiny_fcfs", {"n": 12, "banks": 2, "policy": "fcfs", "calls": 40}),
        ("tiny_frfcfs", {"n": 12, "banks": 2, "policy": "frfcfs", "calls": 40}),
        ("one_bank_frfcfs", {"n": 2_000, "banks": 1, "policy": "frfcfs", "calls": 4}),
        ("eight_banks_fcfs", {"n": 50_000, "banks": 8, "policy": "fcfs"}),
        ("eight_banks_frfcfs", {"n": 50_000, "banks": 8, "policy": "frfcfs"}),
        ("four_banks_frfcfs", {"n": 200_000, "banks": 4, "policy": "frfcfs"}),
        ("sixteen_banks_fcfs", {"n": 400_000, "banks": 16, "policy": "fcfs"}),
        ("large_frfcfs", {"n": 1_000_000, "banks": 16, "policy": "frfcfs"}),
    )},
    samples=cases(
        ("sample_fcfs", {"n": 16, "banks": 2, "policy": "fcfs", "calls": 2}),
        ("sample_frfcfs", {"n": 16, "banks": 2, "policy": "frfcfs", "calls": 2}),
    ),
    starters={"python": PYTHON_STARTER, "cpp": CPP_STARTER},
)

# DDR4-3200, DDR5-4800, HBM2e and LPDDR4-like parameter sets, in controller cycles.
PRESETS = (
    {"tRCD": 22, "tRP": 22, "tRAS": 52, "tCL": 22, "tCWL": 16, "tBURST": 4},
    {"tRCD": 40, "tRP": 40, "tRAS": 64, "tCL": 40, "tCWL": 38, "tBURST": 8},
    {"tRCD": 14, "tRP": 14, "tRAS": 34, "tCL": 14, "tCWL": 4, "tBURST": 2},
    {"tRCD": 18, "tRP": 21, "tRAS": 42, "tCL": 28, "tCWL": 14, "tBURST": 8},
)
LINE_BITS_PER_ROW = 5     # 32 lines of 64 bytes per row and bank


# ---- inputs -------------------------------------------------------------------------------------
def generate(rng: np.random.Generator, dims: dict) -> list[dict]:
    """`calls` traces of `n` requests: streams, interleaved streams, same-bank strides, hot rows
    and random lines, mapped row:bank:column, arriving in bursts, at load or lightly."""
    return [_trace(rng, int(dims["n"]), int(dims["banks"]), str(dims["policy"]))
            for _ in range(int(dims.get("calls", 1)))]


def _timing(rng: np.random.Generator) -> dict:
    if rng.random() < 0.6:
        return dict(PRESETS[int(rng.integers(len(PRESETS)))])
    t = {k: int(rng.integers(1, 33)) for k in TIMINGS}
    t["tRAS"] = int(rng.integers(t["tRCD"], 65))
    return t


def _trace(rng: np.random.Generator, n: int, banks: int, policy: str) -> dict:
    timing = _timing(rng)
    bank_bits = banks.bit_length() - 1
    small = n <= 64                                   # few rows, so that every outcome happens
    lines = np.empty(n, dtype=np.int64)
    gaps = np.empty(n, dtype=np.int64)
    writes = np.empty(n, dtype=bool)
    # the serial controller's cycles per request of each pattern, roughly
    activate = timing["tRP"] + timing["tRCD"]
    same_bank = max(timing["tRAS"], timing["tRCD"] + max(timing["tCL"], timing["tCWL"]) + timing["tBURST"]) + timing["tRP"]
    pos = 0
    while pos < n:
        k = min(n - pos, int(rng.integers(1, min(max(n // 8, 2), 20_000) + 1)))
        shape = int(rng.integers(5))
        base = int(rng.integers(0, 1 << 24))
        if shape == 0:      # one stream: a row's lines, then the next bank's
            seg, cost = base + np.arange(k), timing["tBURST"]
        elif shape == 1:    # several streams interleaved: rows of the same banks take turns
            s = int(rng.integers(2, 7))
            starts = base + rng.integers(0, 1 << 20, size=s) * 64
            seg, cost = starts[np.arange(k) % s] + np.arange(k) // s, activate
        elif shape == 2:    # a stride of whole rows in one bank
            step = (1 << (LINE_BITS_PER_ROW + bank_bits)) * int(rng.integers(1, 4))
            seg, cost = base + np.arange(k) * step, same_bank
        elif shape == 3:    # a few hot rows
            rows = rng.integers(0, 1 << 22, size=int(rng.integers(2, 9)))
            seg, cost = rows[rng.integers(0, len(rows), size=k)] * 32 + rng.integers(0, 32, size=k), activate
        else:               # random lines
            seg, cost = rng.integers(0, 1 << 30, size=k), activate
        lines[pos:pos + k] = seg
        # arrivals from a little over the channel's pace for this pattern to well under it
        mean_gap = cost * float(rng.uniform(0.9, 3.0))
        if k <= 512 and rng.random() < 0.3:     # a burst arriving at once, after a pause
            gaps[pos:pos + k] = 0
            gaps[pos] = int(mean_gap * k)
        else:
            gaps[pos:pos + k] = rng.poisson(mean_gap, size=k)
        writes[pos:pos + k] = rng.random(k) < float(rng.choice([0.0, 0.25, 0.5]))
        pos += k
    bank = (lines >> LINE_BITS_PER_ROW) & (banks - 1)
    row = (lines >> (LINE_BITS_PER_ROW + bank_bits)) & (3 if small else 0xFFFF)
    gaps[0] = int(rng.integers(0, 50))
    return {"arrival": np.cumsum(gaps), "bank": bank.astype(np.int32), "row": row.astype(np.int32),
            "is_write": writes, "banks": banks, "policy": policy, "timing": timing}


# ---- the reference ------------------------------------------------------------------------------
def _simulate(arrival, bank, row, is_write, banks, policy, timing, *, mistake: str = "") -> dict:
    """One pass in service order. The requests of each (bank, row) are linked in index order, so a
    bank's oldest row hit is the front of its open row's list. `mistake` replays a likely error
    for the checker's explanations. Gives `done` per request and the counts."""
    tRCD, tRP, tRAS, tCL, tCWL, tBURST = (int(timing[k]) for k in TIMINGS)
    never = -(1 << 62)                                   # a constraint that never binds
    spacing = never if mistake == "no_burst_spacing" else tBURST
    hit_wait = tRCD if mistake == "hit_pays_trcd" else 0
    tRAS = never if mistake == "no_tras" else tRAS
    tRP = 0 if mistake == "no_trp" else tRP
    tCWL = tCL if mistake == "write_as_read" else tCWL
    tail = 0 if mistake == "done_without_burst" else tBURST
    conflict_as_miss, waits = mistake == "conflict_as_miss", mistake == "waits_for_data"
    arr = np.asarray(arrival).tolist()
    bk = np.asarray(bank).tolist()
    n = len(arr)
    _, first, key_of = np.unique((np.asarray(bank, dtype=np.int64) << 16) | np.asarray(row, dtype=np.int64),
                                 return_index=True, return_inverse=True)
    key_of = key_of.reshape(-1)
    after = _next_same(key_of, n).tolist()
    front = first.tolist() + [n]            # each (bank, row)'s oldest unserved request; then "none"
    keys = key_of.tolist()
    wr = np.asarray(is_write, dtype=bool).tolist()
    done = [0] * n
    closed = len(front) - 1
    open_key, last_act, last_done = [closed] * banks, [0] * banks, [0] * banks
    seen_done = [0] * banks if mistake == "pre_ignores_done" else last_done
    hits = misses = conflicts = 0
    frfcfs = (policy == "frfcfs") != (mistake == "other_policy")
    served = bytearray(n + 1)
    head = arrived = 0
    T = arr[0] if n else 0
    prev = never
    for step in range(n):
        if frfcfs:
            if head == arrived and arr[arrived] > T:
                T = arr[arrived]
            while arrived < n and arr[arrived] <= T:
                arrived += 1
            r = head
            if arrived - head > 1:              # a choice: the oldest row hit that has arrived
                hit = min([front[k] for k in open_key])
                if hit < arrived:
                    r = hit
            front[keys[r]] = after[r]
            served[r] = 1
            while served[head]:
                head += 1
        else:
            r = step
            if arr[r] > T:
                T = arr[r]
        b, key = bk[r], keys[r]
        ready = prev + spacing
        if open_key[b] == key:
            hits += 1
            col = max(T + hit_wait, ready)
        else:
            if open_key[b] == closed:
                misses += 1
                act = T
            else:
                conflicts += 1
                act = T if conflict_as_miss else max(T, last_act[b] + tRAS, seen_done[b]) + tRP
            last_act[b] = act
            col = max(act + tRCD, ready)
            open_key[b] = key
        finish = col + (tCWL if wr[r] else tCL) + tail
        done[r] = last_done[b] = finish
        prev = col
        T = finish if waits else col
    return {"done": done, "hits": hits, "misses": misses, "conflicts": conflicts}


def _next_same(key_of: np.ndarray, n: int) -> np.ndarray:
    """For each request, the next one with the same (bank, row), else n."""
    order = np.argsort(key_of, kind="stable")
    after = np.full(n, n, dtype=np.int64)
    same = key_of[order[1:]] == key_of[order[:-1]]
    after[order[:-1][same]] = order[1:][same]
    return after


def reference(args: dict) -> dict:
    return _figures(args, _simulate(**args))


def _figures(args: dict, sim: dict) -> dict:
    latency = np.asarray(sim["done"], dtype=np.int64) - np.asarray(args["arrival"], dtype=np.int64)
    return {"cycles": max(sim["done"], default=0), "total_latency": int(latency.sum()),
            "max_latency": int(latency.max(initial=0)), **{k: sim[k] for k in COUNTS}}


# ---- checking -----------------------------------------------------------------------------------
MISTAKES = {   # replayed in this order; the first that gives the same six figures explains them
    "other_policy": None,
    "hit_pays_trcd": "a row hit was charged tRCD: a hit needs only its column command (COL = max(T, prev + tBURST))",
    "conflict_as_miss": "a conflict activated at once: the open row must first be precharged (PRE, then tRP)",
    "no_trp": "the activate after a precharge did not wait tRP (ACT = PRE + tRP)",
    "no_tras": "a precharge came earlier than tRAS after its bank's activate",
    "pre_ignores_done": "a precharge came before the bank's previous request had completed (lastDone_b)",
    "no_burst_spacing": "column commands were not spaced tBURST apart (COL >= prev + tBURST)",
    "done_without_burst": "completion is COL + tCL (or tCWL) + tBURST: the burst's cycles were left out",
    "write_as_read": "writes were timed with tCL; a write's data follows its column command after tCWL",
    "waits_for_data": ("the controller waited for each request's data before choosing the next; it "
                       "chooses at the previous request's column command"),
}
HINTS = {
    "cycles": "the latest completion is off: check the last requests' timing",
    "total_latency": "some completions are off; check the decision cycle T, the request chosen there and "
                     "its PRE/ACT/column command times against the table",
    "max_latency": "the sum of latencies is right but not the largest: max_latency is the largest done[r] - arrival[r]",
    "hits": "the requests are classified or served in another order: a request is a hit when its row is open in "
            "its bank as it is served, a miss when the bank has no open row (only before its first activate), a "
            "conflict when another row is open",
}


def check(args: dict, expected: dict, actual) -> str | None:
    if not isinstance(actual, dict):
        return f"simulate_dram returned {type(actual).__name__}, expected a dict with {', '.join(FIGURES)}"
    missing = [k for k in FIGURES if k not in actual]
    if missing:
        return f"the result has no {', '.join(repr(k) for k in missing)} (it needs {', '.join(FIGURES)})"
    for k in FIGURES:
        refused = not_an_int(k, actual[k], expected[k])
        if refused:
            return refused
    wrong = [k for k in (*COUNTS, *FIGURES[:3]) if actual[k] != expected[k]]
    if not wrong:
        return None
    first = wrong[0]
    said = f"`{first}` is {actual[first]}, expected {expected[first]}"
    if sum(actual[k] for k in COUNTS) != len(args["arrival"]):
        return (f"{said}: hits + misses + conflicts is {sum(actual[k] for k in COUNTS)} but the trace has "
                f"{len(args['arrival'])} requests; every request is exactly one of them")
    return f"{said}: {_why(args, actual, first)}"


def _why(args: dict, actual: dict, first: str) -> str:
    """The likeliest mistake, found by replaying each one, with the first request it changes."""
    if len(args["arrival"]) <= REPLAY_LIMIT:
        right = None
        for mistake, text in MISTAKES.items():
            sim = _simulate(**args, mistake=mistake)
            if _figures(args, sim) != {k: int(actual[k]) for k in FIGURES}:
                continue
            if mistake == "other_policy":
                other = "frfcfs" if args["policy"] == "fcfs" else "fcfs"
                text = (f"these are the figures under {other}; the policy asked is {args['policy']}"
                        + (": the oldest row hit goes first" if other == "fcfs" else
                           ": the lowest-index queued request goes first, hit or not"))
            right = right or _simulate(**args)["done"]
            r = next(i for i, (a, b) in enumerate(zip(sim["done"], right)) if a != b)
            return (f"{text}. The first request this changes is request {r} ({_describe(args, r)}): it would "
                    f"complete at cycle {sim['done'][r]} instead of {right[r]}")
    return HINTS.get(first, HINTS["hits"])


def _describe(args: dict, r: int) -> str:
    kind = "write" if args["is_write"][r] else "read"
    return f"{kind}, bank {int(args['bank'][r])}, row {int(args['row'][r])}, arrives at {int(args['arrival'][r])}"


def show(args: dict) -> str:
    """The inputs as a person reads them: knobs, timing and the first requests."""
    n = len(args["arrival"])
    first = "; ".join(f"#{r} {_describe(args, r)}" for r in range(min(n, SHOWN)))
    more = f"; ... ({n - SHOWN} more)" if n > SHOWN else ""
    timing = ", ".join(f"{k}={args['timing'][k]}" for k in TIMINGS)
    return f"banks={args['banks']}, policy={args['policy']!r}, {timing}; {n} requests: {first}{more}"


# ---- C++ ----------------------------------------------------------------------------------------
def _to_cpp(args: dict) -> dict:
    return {"arrival": np.ascontiguousarray(args["arrival"], dtype=np.int64),
            "bank": np.ascontiguousarray(args["bank"], dtype=np.int32),
            "row": np.ascontiguousarray(args["row"], dtype=np.int32),
            "is_write": np.ascontiguousarray(args["is_write"], dtype=np.uint8),
            "banks": args["banks"], "policy": POLICIES.index(args["policy"]), **args["timing"]}


def _from_cpp(args: dict, outs: dict) -> dict:
    return {k: int(v) for k, v in zip(FIGURES, outs["out"])}


CPP = CppCall(
    params=(CppParam("arrival", "in:int64"), CppParam("bank", "in:int32"), CppParam("row", "in:int32"),
            CppParam("is_write", "in:uint8"), CppParam("n", "len:arrival"), CppParam("banks", "int32"),
            CppParam("policy", "int32"), *(CppParam(k, "int64") for k in TIMINGS),
            CppParam("out", "out:int64[6]")),
    to_cpp=_to_cpp, from_cpp=_from_cpp)

CPP_REFERENCE = r'''#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

// Requests with the same (bank, row) are linked in index order; front[k] is the oldest unserved
// one of key k, so a bank's oldest row hit is the front of its open row's key.
extern "C" void simulate_dram(const int64_t* arrival, const int32_t* bank, const int32_t* row,
                              const uint8_t* is_write, int64_t n, int32_t banks, int32_t policy,
                              int64_t tRCD, int64_t tRP, int64_t tRAS, int64_t tCL,
                              int64_t tCWL, int64_t tBURST, int64_t out[6]) {
    std::unordered_map<int64_t, int64_t> last_of;
    std::vector<int64_t> key(n), after(n, n), front;
    last_of.reserve(n);
    for (int64_t i = 0; i < n; ++i) {
        auto [it, fresh] = last_of.try_emplace((int64_t)bank[i] << 16 | row[i], 0);
        if (fresh) {
            it->second = i;
            key[i] = (int64_t)front.size();
            front.push_back(i);
        } else {
            after[it->second] = i;
            key[i] = key[it->second];
            it->second = i;
        }
    }
    const int64_t closed = (int64_t)front.size();
    front.push_back(n);
    std::vector<int64_t> open_key(banks, closed), last_act(banks, 0), last_done(banks, 0);
    std::vector<uint8_t> served(n + 1, 0);
    int64_t head = 0, arrived = 0, T = n ? arrival[0] : 0, prev = INT64_MIN / 2;
    int64_t hits = 0, misses = 0, conflicts = 0, cycles = 0, total = 0, worst = 0;
    for (int64_t step = 0; step < n; ++step) {
        int64_t r = step;
        if (policy == 1) {
            if (head == arrived && arrival[arrived] > T) T = arrival[arrived];
            while (arrived < n && arrival[arrived] <= T) ++arrived;
            int64_t hit = n;                            // the oldest row hit that has arrived
            for (int32_t b = 0; b < banks; ++b) hit = std::min(hit, front[open_key[b]]);
            r = hit < arrived ? hit : head;
            front[key[r]] = after[r];
            served[r] = 1;
            while (served[head]) ++head;
        } else {
            T = std::max(T, arrival[r]);
        }
        const int32_t b = bank[r];
        const int64_t ready = prev + tBURST;
        int64_t col;
        if (open_key[b] == key[r]) {
            ++hits;
            col = std::max(T, ready);
        } else {
            int64_t act = T;
            if (open_key[b] == closed) ++misses;
            else {
                ++conflicts;
                act = std::max({T, last_act[b] + tRAS, last_done[b]}) + tRP;
            }
            last_act[b] = act;
            col = std::max(act + tRCD, ready);
            open_key[b] = key[r];
        }
        const int64_t done = last_done[b] = col + (is_write[r] ? tCWL : tCL) + tBURST;
        cycles = std::max(cycles, done);
        total += done - arrival[r];
        worst = std::max(worst, done - arrival[r]);
        prev = col;
        T = col;
    }
    const int64_t figures[6] = {cycles, total, worst, hits, misses, conflicts};
    std::copy(figures, figures + 6, out);
}
'''
