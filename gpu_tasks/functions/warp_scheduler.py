"""`warp_scheduler`: an SM's warp schedulers issuing from per-warp instruction streams (ALU and
load latencies, register dependencies, one load per cycle per SM) under loose round-robin or
greedy-then-oldest; every warp's finish cycle. Python and C++."""
from __future__ import annotations

import numpy as np

from .model import CppCall, CppParam, FunctionTask, cases, not_an_int

POLICIES = ("lrr", "gto")
ALU, LOAD = 0, 1
MAX_WARPS = 64
REPLAY_LIMIT = 100_000     # instructions: above this the checker explains without replaying

STATEMENT = """Simulate the warp schedulers of one GPU streaming multiprocessor (SM) over the
instruction streams of its warps, cycle by cycle, and give the cycle at which each warp finishes.

```python
def simulate_sm(offsets, op, latency, dep, schedulers, policy) -> dict:
    # warp w's instructions are op[offsets[w]:offsets[w+1]] (likewise latency, dep), in order
    # offsets: numpy int64 array of warps + 1; op: uint8 array (0 = ALU, 1 = load);
    # latency, dep: int32 arrays; policy: "lrr" or "gto"
    # returns {"cycles": int, "finish": one int per warp (a list or an integer array)}
```
```cpp
extern "C" void simulate_sm(const int64_t* offsets, int64_t warps, const uint8_t* op,
                            const int32_t* latency, const int32_t* dep, int64_t n,
                            int32_t schedulers, int32_t policy,  /* 0 = lrr, 1 = gto */
                            int64_t finish[64],  /* finish[w] for w < warps */
                            int64_t cycles[1]);  /* the total */
```

**The machine.** Warp `w` belongs to scheduler `w % schedulers`; every warp starts at cycle 0
with its first instruction. In each cycle `t = 0, 1, 2, ...` the schedulers take turns in order
0, 1, ..., and each issues at most one instruction: the next instruction of one of its *ready*
warps, chosen by the policy. An instruction issued at cycle `t` completes at `t + latency`.
A warp is ready at `t` when

1. it has instructions left;
2. its next instruction's operand is available: when `dep = k > 0` the instruction reads the
   result of the warp's instruction `k` places earlier, available from that instruction's
   completion cycle on (`dep = 0`: no operand to wait for);
3. its next instruction is not a load, or no load has issued yet in cycle `t`: the SM's
   load/store unit accepts **one load per cycle**, so a later scheduler's load waits.

**Policies**, per scheduler, over its warps in increasing id:

- `lrr` (loose round-robin): starting from the warp after the one it last issued from (from
  its first warp before any issue) and wrapping around, issue from the first ready warp.
- `gto` (greedy then oldest): issue from the warp it last issued from while that warp is ready;
  otherwise from the ready warp with the lowest id, which becomes the one it stays with.

A warp finishes when its last-completing instruction completes (not necessarily its last
one); `finish[w]` is that cycle and `cycles` the latest of them (in C++ both arrays arrive
zeroed).

A wrong answer names the first warp whose finish differs, expected against actual, and the
likely mistake. Up to 64 warps, 1 to 4 schedulers, 500,000 instructions in all; latencies from
1 to 1,000.

**Scoring.** 60 points when every hidden test's finish cycles and total are right. Up to 40
more for speed: 40 x min(1, reference time / your time) on the largest hidden test (48 warps, 4
schedulers, GTO, 500,000 instructions), both timed in the same judging: a Python submission
against the judge's Python reference (cycle by cycle, skipping cycles where nothing can issue:
0.5 to 5 s on the judge's machine, by kernel), a C++ submission against its C++ reference built
the same way (g++ -O2: under 0.1 s)."""

PYTHON_STARTER = '''import numpy as np


def simulate_sm(offsets, op, latency, dep, schedulers, policy):
    """Finish cycle of every warp and the total; policy "lrr" or "gto"."""
    warps = len(offsets) - 1
    finish = np.zeros(warps, dtype=np.int64)
    # TODO: cycle by cycle, each scheduler issues from one ready warp chosen by the policy
    for w in range(warps):
        finish[w] = int(np.sum(latency[offsets[w]:offsets[w + 1]]))
    return {"cycles": int(finish.max()), "finish": finish}
'''

CPP_STARTER = '''#include <algorithm>
#include <cstdint>

extern "C" void simulate_sm(const int64_t* offsets, int64_t warps, const uint8_t* op,
                            const int32_t* latency, const int32_t* dep, int64_t n,
                            int32_t schedulers, int32_t policy, int64_t finish[64], int64_t cycles[1]) {
    // TODO: cycle by cycle, each scheduler issues from one ready warp chosen by the policy
    cycles[0] = 0;
    for (int64_t w = 0; w < warps; ++w) {
        finish[w] = 0;
        for (int64_t i = offsets[w]; i < offsets[w + 1]; ++i) finish[w] += latency[i];
        cycles[0] = std::max(cycles[0], finish[w]);
    }
}
'''

PYTHON_SIGNATURE = "def simulate_sm(offsets, op, latency, dep, schedulers, policy) -> dict"
CPP_SIGNATURE = ('extern "C" void simulate_sm(const int64_t* offsets, int64_t warps, const uint8_t* op, '
                 'const int32_t* latency, const int32_t* dep, int64_t n, int32_t schedulers, '
                 'int32_t policy, int64_t finish[64], int64_t cycles[1])')


def _dims(warps: int, schedulers: int, policy: str, instructions: int, **more) -> dict:
    return {"warps": warps, "schedulers": schedulers, "policy": policy, "instructions": instructions, **more}


TASK = FunctionTask(
    slug="warp_scheduler", title="GPU warp scheduler: LRR and GTO", difficulty="hard",
    track="architecture_modeling",
    skills=("gpu_architecture", "microarchitecture", "cycle_accurate_modeling",
            "cpp_performance_models", "python", "cpp"),
    summary="Issue warps' instruction streams cycle by cycle under loose round-robin or "
            "greedy-then-oldest scheduling, with latencies, dependencies and one load per cycle.",
    statement=STATEMENT, function="simulate_sm",
    python_signature=PYTHON_SIGNATURE, cpp_signature=CPP_SIGNATURE, languages=("python", "cpp"),
    tests={"cpu": cases(
        ("tiny_lrr", _dims(4, 1, "lrr", 24, calls=40)),
        ("tiny_gto", _dims(4, 1, "gto", 24, calls=40)),
        ("two_schedulers_lrr", _dims(6, 2, "lrr", 120, calls=20)),
        ("two_schedulers_gto", _dims(7, 2, "gto", 140, calls=20)),
        ("memory_bound_gto", _dims(32, 4, "gto", 20_000, loads=0.35)),
        ("compute_bound_lrr", _dims(32, 4, "lrr", 20_000, loads=0.05)),
        ("one_scheduler_gto", _dims(16, 1, "gto", 50_000)),
        ("many_warps_lrr", _dims(64, 4, "lrr", 200_000)),
        ("large_gto", _dims(48, 4, "gto", 500_000)),
    )},
    samples=cases(
        ("sample_lrr", _dims(4, 2, "lrr", 16, calls=2)),
        ("sample_gto", _dims(4, 2, "gto", 16, calls=2)),
    ),
    starters={"python": PYTHON_STARTER, "cpp": CPP_STARTER},
)


# ---- inputs -------------------------------------------------------------------------------------
def generate(rng: np.random.Generator, dims: dict) -> list[dict]:
    """`calls` kernels: every warp repeats one loop body (loads, ALU and SFU operations, chains of
    dependencies), the trip count varying a little by warp; loads hit (about 30 cycles) or miss
    (hundreds) instance by instance."""
    return [_kernel(rng, dims) for _ in range(int(dims.get("calls", 1)))]


def _kernel(rng: np.random.Generator, dims: dict) -> dict:
    warps, total = int(dims["warps"]), int(dims["instructions"])
    load_share = float(dims.get("loads", rng.uniform(0.05, 0.4)))
    body = int(rng.integers(3, 13))
    body_op = (rng.random(body) < load_share).astype(np.uint8)
    body_op[int(rng.integers(body))] = LOAD if rng.random() < 0.8 else body_op[0]
    alu_lat = rng.choice([4, 4, 4, 5, 6, 8, 16, 20], size=body).astype(np.int32)
    chained = rng.random(body) < rng.uniform(0.3, 0.9)
    body_dep = np.where(chained, rng.integers(1, 5, size=body), 0).astype(np.int32)
    miss_rate = float(rng.choice([0.0, 0.1, 0.3, 0.7]))
    per_warp = max(1, total // warps)
    counts = np.maximum(1, (per_warp * rng.uniform(0.8, 1.2, size=warps)).astype(np.int64))
    if total <= 200:                     # small tests: any mix, including one-instruction warps
        counts = rng.integers(1, max(2, 2 * per_warp), size=warps)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    n = int(offsets[-1])
    position = np.arange(n) - np.repeat(offsets[:-1], counts)       # index within its warp
    phase = position % body
    op = body_op[phase]
    dep = np.minimum(body_dep[phase], position).astype(np.int32)    # never before the warp's start
    miss = rng.random(n) < miss_rate
    load_lat = np.where(miss, rng.integers(200, 1001, size=n), rng.integers(28, 35, size=n))
    latency = np.where(op == LOAD, load_lat, alu_lat[phase]).astype(np.int32)
    if total <= 200:
        latency = np.where(rng.random(n) < 0.2, rng.integers(1, 4, size=n), latency).astype(np.int32)
    return {"offsets": offsets, "op": op.astype(np.uint8), "latency": latency, "dep": dep,
            "schedulers": int(dims["schedulers"]), "policy": str(dims["policy"])}


# ---- the reference ------------------------------------------------------------------------------
def _simulate(offsets, op, latency, dep, schedulers, policy, *, mistake: str = "") -> dict:
    """Cycle by cycle; a cycle in which nothing issued jumps to the next cycle at which an operand
    becomes available. `mistake` replays a likely error for the checker's explanations."""
    off = np.asarray(offsets).tolist()
    ops, lat, dp = (np.asarray(a).tolist() for a in (op, latency, dep))
    warps, S = len(off) - 1, schedulers
    gto = (policy == "gto") != (mistake == "other_policy")
    late = 1 if mistake == "operand_one_late" else 0
    one_load = mistake != "no_load_limit"
    issued_at = [0] * len(ops)
    pc, end = off[:-1], off[1:]
    ready = [0] * warps                 # when the next instruction's operand is available
    finish = [0] * warps
    if mistake == "contiguous_warps":
        per = -(-warps // S)
        groups = [list(range(s * per, min(warps, (s + 1) * per))) for s in range(S)]
    else:
        groups = [list(range(s, warps, S)) for s in range(S)]
    nxt = [0] * S                       # lrr: position to start from
    greedy = [-1] * S                   # gto: the warp the scheduler stays with
    left = sum(1 for w in range(warps) if pc[w] < end[w])
    t = 0
    while left:
        load_taken = issued = False
        for s in range(S):
            ws = groups[s]
            w = -1
            if gto:
                g = greedy[s]
                if g >= 0 and pc[g] < end[g] and ready[g] <= t and not (load_taken and ops[pc[g]]):
                    w = g
                elif mistake != "gto_never_switches" or g < 0 or pc[g] == end[g]:
                    for v in ws:
                        if pc[v] < end[v] and ready[v] <= t and not (load_taken and ops[pc[v]]):
                            w = greedy[s] = v
                            break
            else:
                m = len(ws)
                start = 0 if mistake == "lrr_from_first" else nxt[s]
                for j in range(m):
                    v = ws[(start + j) % m]
                    if pc[v] < end[v] and ready[v] <= t and not (load_taken and ops[pc[v]]):
                        w = v
                        nxt[s] = (start + j + 1) % m
                        break
            if w < 0:
                continue
            i = pc[w]
            issued_at[i] = t
            done = t + lat[i]
            if done > finish[w] or mistake == "finish_at_last":
                finish[w] = done
            if ops[i] and one_load:
                load_taken = True
            issued = True
            i += 1
            pc[w] = i
            if i == end[w]:
                left -= 1
            elif dp[i]:
                ready[w] = max(t + 1, issued_at[i - dp[i]] + lat[i - dp[i]] + late)
            else:
                ready[w] = t + 1
        if issued:
            t += 1
        elif left:      # (a replayed mistake may idle with a warp ready: step at least one cycle)
            t = max(t + 1, min(ready[w] for w in range(warps) if pc[w] < end[w]))
    return {"cycles": max(finish, default=0), "finish": finish}


def reference(args: dict) -> dict:
    return _simulate(**args)


# ---- checking -----------------------------------------------------------------------------------
MISTAKES = {   # replayed in this order; the first that gives the same finish cycles explains them
    "lrr_from_first": ("with lrr every cycle started from the scheduler's first warp (oldest first); the "
                       "search starts after the warp it last issued from"),
    "other_policy": None,
    "gto_never_switches": ("with gto a scheduler stayed on its warp while that warp waited; it must switch "
                           "to the oldest ready warp whenever its warp is not ready"),
    "operand_one_late": ("an operand became available one cycle after its producer's completion; a "
                         "dependent instruction may issue at the completion cycle itself"),
    "no_load_limit": ("two loads issued in one cycle; the SM's load/store unit takes one load per cycle "
                      "(schedulers in order 0, 1, ...) and a later scheduler's load waits"),
    "finish_at_last": ("a warp's finish was its last instruction's completion; it is the latest completion "
                       "of any of its instructions (an earlier long load may complete later)"),
    "contiguous_warps": ("warps were given to schedulers in contiguous blocks; warp w belongs to scheduler "
                         "w % schedulers"),
}


def check(args: dict, expected: dict, actual) -> str | None:
    warps = len(args["offsets"]) - 1
    if not isinstance(actual, dict) or "finish" not in actual or "cycles" not in actual:
        return "simulate_sm must return a dict with 'cycles' (an int) and 'finish' (one int per warp)"
    finish = np.asarray(actual["finish"])
    if finish.shape != (warps,) or finish.dtype.kind not in "iu":
        return (f"`finish` must hold {warps} integers, one per warp; it has shape {finish.shape} "
                f"and dtype {finish.dtype}")
    cycles = actual["cycles"]
    refused = not_an_int("cycles", cycles)
    if refused:
        return refused
    wrong = np.flatnonzero(finish.astype(np.int64) != np.asarray(expected["finish"], dtype=np.int64))
    if wrong.size:
        w = int(wrong[0])
        said = (f"warp {w} ({_describe(args, w)}) finishes at cycle {int(finish[w])}, expected "
                f"{expected['finish'][w]} ({wrong.size} of {warps} warps differ)")
        return f"{said}: {_why(args, finish)}"
    if cycles != expected["cycles"]:
        return f"the finish cycles are right but `cycles` is {cycles}, expected {expected['cycles']}, the latest of them"
    return None


def _why(args: dict, finish: np.ndarray) -> str:
    if len(args["op"]) <= REPLAY_LIMIT:
        for mistake, text in MISTAKES.items():
            if np.array_equal(np.asarray(_simulate(**args, mistake=mistake)["finish"]), finish):
                if mistake == "other_policy":
                    other = "gto" if args["policy"] == "lrr" else "lrr"
                    return f"these are the finish cycles under {other}; the policy asked is {args['policy']}"
                return text
    return ("follow that warp's scheduler cycle by cycle: which warps were ready (operands, the one "
            "load per cycle) and which one the policy picks")


def _describe(args: dict, w: int) -> str:
    lo, hi = int(args["offsets"][w]), int(args["offsets"][w + 1])
    loads = int(np.count_nonzero(np.asarray(args["op"][lo:hi]) == LOAD))
    return f"scheduler {w % args['schedulers']}, {hi - lo} instructions, {loads} load{'' if loads == 1 else 's'}"


def show(args: dict) -> str:
    """The inputs as a person reads them: knobs and the first warp's first instructions."""
    warps, n = len(args["offsets"]) - 1, len(args["op"])
    hi = min(int(args["offsets"][1]), 8)
    first = ", ".join(f"{'LD' if args['op'][i] else 'ALU'}/{int(args['latency'][i])}"
                      + (f"<-{int(args['dep'][i])}" if args["dep"][i] else "") for i in range(hi))
    return (f"{warps} warps, {args['schedulers']} schedulers, policy={args['policy']!r}, {n} instructions; "
            f"warp 0 begins (op/latency<-dep): {first}")


# ---- C++ ----------------------------------------------------------------------------------------
def _to_cpp(args: dict) -> dict:
    return {"offsets": np.ascontiguousarray(args["offsets"], dtype=np.int64),
            "warps": len(args["offsets"]) - 1,
            "op": np.ascontiguousarray(args["op"], dtype=np.uint8),
            "latency": np.ascontiguousarray(args["latency"], dtype=np.int32),
            "dep": np.ascontiguousarray(args["dep"], dtype=np.int32),
            "schedulers": args["schedulers"], "policy": POLICIES.index(args["policy"])}


def _from_cpp(args: dict, outs: dict) -> dict:
    return {"cycles": int(outs["cycles"][0]), "finish": [int(v) for v in outs["finish"][:len(args["offsets"]) - 1]]}


CPP = CppCall(
    params=(CppParam("offsets", "in:int64"), CppParam("warps", "int64"), CppParam("op", "in:uint8"),
            CppParam("latency", "in:int32"), CppParam("dep", "in:int32"), CppParam("n", "len:op"),
            CppParam("schedulers", "int32"), CppParam("policy", "int32"),
            CppParam("finish", f"out:int64[{MAX_WARPS}]"), CppParam("cycles", "out:int64[1]")),
    to_cpp=_to_cpp, from_cpp=_from_cpp)

CPP_REFERENCE = r'''#include <algorithm>
#include <cstdint>
#include <vector>

extern "C" void simulate_sm(const int64_t* offsets, int64_t warps, const uint8_t* op,
                            const int32_t* latency, const int32_t* dep, int64_t n,
                            int32_t schedulers, int32_t policy, int64_t finish[64], int64_t cycles[1]) {
    std::vector<int64_t> pc(offsets, offsets + warps), issued_at(n), ready(warps, 0);
    std::vector<std::vector<int64_t>> groups(schedulers);
    for (int64_t w = 0; w < warps; ++w) groups[w % schedulers].push_back(w);
    std::vector<int64_t> next(schedulers, 0), greedy(schedulers, -1);
    int64_t left = 0;
    for (int64_t w = 0; w < warps; ++w) left += pc[w] < offsets[w + 1];
    int64_t t = 0;
    while (left) {
        bool load_taken = false, issued = false;
        auto can = [&](int64_t v) {
            return pc[v] < offsets[v + 1] && ready[v] <= t && !(load_taken && op[pc[v]]);
        };
        for (int32_t s = 0; s < schedulers; ++s) {
            const auto& ws = groups[s];
            const int64_t m = (int64_t)ws.size();
            int64_t w = -1;
            if (policy == 1) {
                if (greedy[s] >= 0 && can(greedy[s])) w = greedy[s];
                else for (int64_t v : ws) if (can(v)) { w = greedy[s] = v; break; }
            } else {
                for (int64_t j = 0; j < m; ++j) {
                    const int64_t v = ws[(next[s] + j) % m];
                    if (can(v)) { w = v; next[s] = (next[s] + j + 1) % m; break; }
                }
            }
            if (w < 0) continue;
            const int64_t i = pc[w]++;
            issued_at[i] = t;
            finish[w] = std::max(finish[w], t + latency[i]);
            load_taken |= op[i] == 1;
            issued = true;
            if (pc[w] == offsets[w + 1]) --left;
            else if (dep[pc[w]]) {
                const int64_t p = pc[w] - dep[pc[w]];
                ready[w] = std::max(t + 1, issued_at[p] + latency[p]);
            } else ready[w] = t + 1;
        }
        if (issued) { ++t; continue; }
        int64_t soonest = INT64_MAX;
        for (int64_t w = 0; w < warps; ++w)
            if (pc[w] < offsets[w + 1]) soonest = std::min(soonest, ready[w]);
        if (left) t = soonest;
    }
    cycles[0] = 0;
    for (int64_t w = 0; w < warps; ++w) cycles[0] = std::max(cycles[0], finish[w]);
}
'''
