"""`cache_sim`: one level of set-associative cache, write-back and write-allocate, LRU or FIFO,
counted over an address trace (the contract in TASKS-TRACKS.md). Python and C++."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .model import CppCall, CppParam, FunctionTask, cases, not_an_int

FIELDS = ("hits", "misses", "evictions", "writebacks")
POLICIES = ("lru", "fifo")
SHOWN_ACCESSES = 8

STATEMENT = """Simulate one level of a set-associative cache over a trace of memory accesses and
count what happens.

```python
def simulate(addresses, writes, size_bytes, line_bytes, ways, policy) -> dict:
    # addresses: numpy uint64 array of byte addresses; writes: numpy bool array, same length
    # returns {"hits": int, "misses": int, "evictions": int, "writebacks": int}
```
```cpp
extern "C" void simulate(const uint64_t* addresses, const uint8_t* writes, int64_t n,
                         int64_t size_bytes, int64_t line_bytes, int64_t ways,
                         int policy,  /* 0 = lru, 1 = fifo */  int64_t out[4]);
```

The cache is write-back and write-allocate and starts empty. `sets = size_bytes / (line_bytes *
ways)`; `size_bytes`, `line_bytes`, `ways` and `sets` are powers of two. An access's line is
`address / line_bytes` and its set `line % sets`. Every access is a hit (its line is in its set)
or a miss, which fills the line into its set; a miss into a full set first evicts one line:

- `lru` (in Python the string `"lru"`, in C++ `policy == 0`): the least recently used line; a
  hit or a fill makes a line the most recent.
- `fifo` (`"fifo"`, `policy == 1`): the line filled earliest; hits change nothing.

A write (`writes[i]` true, or nonzero in C++) makes its line dirty, whether it hits or misses.
An eviction of a dirty line is also a writeback; dirty lines still cached when the trace ends
are not written back (no final flush). In C++ write `out[0..3]` = hits, misses, evictions,
writebacks.

Addresses span the whole uint64 range (mind signed arithmetic); traces have up to 4,194,304
accesses, caches from 1 KiB to 1 MiB, lines from 16 to 256 bytes, from 1 way to fully
associative (one set).

**Scoring.** 60 points when every hidden trace's four counts are right. Up to 40 more for speed:
40 x min(1, 1.1 x reference time / your time) on the largest hidden trace (4,194,304 accesses,
LRU, 256 KiB, 16 ways), both timed in the same judging on the same inputs (a short run is
repeated, the best kept): a Python submission against the judge's Python reference (a dict per
set, one pass over the trace: about 1.5 s on the judge's 2-core machine), a C++ submission
against the judge's C++ reference built the same way (g++ -O2; each set's ways searched
linearly, the oldest stamp evicted: about 0.2 s)."""

PYTHON_STARTER = '''import numpy as np


def simulate(addresses, writes, size_bytes, line_bytes, ways, policy):
    """addresses: numpy uint64 array of byte addresses; writes: numpy bool array, same length;
    policy: "lru" or "fifo". Returns the four counts."""
    sets = size_bytes // (line_bytes * ways)
    hits = misses = evictions = writebacks = 0
    # TODO: one pass over the trace; each set holds at most `ways` lines
    misses = len(addresses)
    return {"hits": hits, "misses": misses, "evictions": evictions, "writebacks": writebacks}
'''

CPP_STARTER = '''#include <cstdint>

extern "C" void simulate(const uint64_t* addresses, const uint8_t* writes, int64_t n,
                         int64_t size_bytes, int64_t line_bytes, int64_t ways,
                         int policy, int64_t out[4]) {
    const int64_t sets = size_bytes / (line_bytes * ways);
    int64_t hits = 0, misses = 0, evictions = 0, writebacks = 0;
    // TODO: one pass over the trace; each set holds at most `ways` lines
    misses = n;
    out[0] = hits;
    out[1] = misses;
    out[2] = evictions;
    out[3] = writebacks;
}
'''

PYTHON_SIGNATURE = "def simulate(addresses, writes, size_bytes, line_bytes, ways, policy) -> dict"
CPP_SIGNATURE = ('extern "C" void simulate(const uint64_t* addresses, const uint8_t* writes, '
                 'int64_t n, int64_t size_bytes, int64_t line_bytes, int64_t ways, int policy, '
                 'int64_t out[4])')


def _knobs(size_bytes: int, line_bytes: int, ways: int, policy: str) -> dict:
    return {"size_bytes": size_bytes, "line_bytes": line_bytes, "ways": ways, "policy": policy}


TASK = FunctionTask(
    slug="cache_sim", title="Set-associative cache simulator", difficulty="medium",
    track="architecture_modeling",
    skills=("memory_hierarchy", "computer_architecture", "trace_driven_simulation",
            "cpp_performance_models", "python", "cpp"),
    summary="Count hits, misses, evictions and writebacks of an LRU or FIFO cache over an address trace.",
    statement=STATEMENT, function="simulate",
    python_signature=PYTHON_SIGNATURE, cpp_signature=CPP_SIGNATURE, languages=("python", "cpp"),
    tests={"cpu": cases(
        ("direct_mapped", {"n": 20_000, **_knobs(4096, 32, 1, "lru")}),
        ("lru_4way", {"n": 100_000, **_knobs(32 * 1024, 64, 4, "lru")}),
        ("fifo_4way", {"n": 100_000, **_knobs(32 * 1024, 64, 4, "fifo")}),
        ("fully_associative_lru", {"n": 50_000, **_knobs(2048, 64, 32, "lru")}),
        ("fully_associative_fifo", {"n": 50_000, **_knobs(2048, 64, 32, "fifo")}),
        ("small_lines_fifo", {"n": 100_000, **_knobs(1024, 16, 2, "fifo")}),
        ("many_sets_lru", {"n": 400_000, **_knobs(1024 * 1024, 64, 2, "lru")}),
        ("wide_lines_fifo", {"n": 1_000_000, **_knobs(512 * 1024, 256, 8, "fifo")}),
        ("large_lru", {"n": 4_194_304, **_knobs(256 * 1024, 64, 16, "lru")}),
    )},
    samples=cases(
        ("sample_lru", {"n": 64, **_knobs(256, 16, 2, "lru")}),
        ("sample_fifo", {"n": 64, **_knobs(256, 16, 2, "fifo")}),
    ),
    starters={"python": PYTHON_STARTER, "cpp": CPP_STARTER},
)


# ---- inputs -------------------------------------------------------------------------------------
def generate(rng: np.random.Generator, dims: dict) -> list[dict]:
    """One trace: segments of reuse in a hot set, streaming, set conflicts and random accesses,
    in regions anywhere in the 64-bit address space (one at its very top)."""
    n = int(dims["n"])
    size, line, ways = int(dims["size_bytes"]), int(dims["line_bytes"]), int(dims["ways"])
    sets = size // (line * ways)
    bases = rng.integers(0, 1 << 63, size=6, dtype=np.uint64) * np.uint64(2)
    bases = np.append(bases, [np.uint64((1 << 64) - (1 << 22)), np.uint64(0)])
    bases &= ~np.uint64(line - 1)
    addresses = np.empty(n, dtype=np.uint64)
    writes = np.empty(n, dtype=bool)
    pos = 0
    while pos < n:
        length = min(n - pos, int(rng.integers(max(n // 64, 1), max(n // 6, 2) + 1)))
        base = bases[int(rng.integers(len(bases)))]
        shape = int(rng.integers(4))
        if shape == 0:      # reuse: random lines of a working set about the cache's size
            lines = max(1, int(sets * ways * rng.uniform(0.3, 2.5)))
            offsets = rng.integers(0, lines, size=length, dtype=np.uint64) * np.uint64(line)
            offsets += rng.integers(0, line, size=length, dtype=np.uint64)
        elif shape == 1:    # streaming through memory in small steps
            step = int(rng.choice([4, 8, 16, line]))
            offsets = np.arange(length, dtype=np.uint64) * np.uint64(step)
        elif shape == 2:    # more lines than ways, all in one set
            k = ways + int(rng.integers(-1, ways + 2))
            which = rng.integers(0, max(k, 1), size=length, dtype=np.uint64)
            offsets = which * np.uint64(sets * line) + np.uint64(int(rng.integers(sets)) * line)
        else:               # anywhere in a large region
            offsets = rng.integers(0, 1 << 40, size=length, dtype=np.uint64)
        with np.errstate(over="ignore"):
            addresses[pos:pos + length] = base + offsets   # wraps past 2^64 like the hardware
        writes[pos:pos + length] = rng.random(length) < float(rng.choice([0.0, 0.1, 0.3, 0.7]))
        pos += length
    return [{"addresses": addresses, "writes": writes, "size_bytes": size, "line_bytes": line,
             "ways": ways, "policy": str(dims["policy"])}]


# ---- the reference ------------------------------------------------------------------------------
def _simulate(addresses, writes, size_bytes, line_bytes, ways, policy, *,
              set_of_address: bool = False, dirty_on_write_hit: bool = True) -> dict:
    """A dict per set, line -> dirty, in LRU or fill order. The keyword arguments replay likely
    mistakes for the checker's explanations. Also counts the dirty lines left at the end."""
    sets = size_bytes // (line_bytes * ways)
    shift = np.uint64(line_bytes.bit_length() - 1)
    addrs = np.asarray(addresses, dtype=np.uint64)
    lines_arr = addrs >> shift
    sets_arr = (addrs if set_of_address else lines_arr) & np.uint64(sets - 1)
    cache: list[dict] = [{} for _ in range(sets)]
    lru = policy == "lru"
    hits = misses = evictions = writebacks = 0
    for line, s, w in zip(lines_arr.tolist(), sets_arr.tolist(), np.asarray(writes, dtype=bool).tolist()):
        d = cache[s]
        dirty = d.get(line)
        if dirty is not None:
            hits += 1
            if lru:
                del d[line]
                d[line] = dirty or (w and dirty_on_write_hit)
            elif w and dirty_on_write_hit:
                d[line] = True
            continue
        misses += 1
        if len(d) == ways:
            evictions += 1
            if d.pop(next(iter(d))):
                writebacks += 1
        d[line] = w
    left_dirty = sum(sum(1 for v in d.values() if v) for d in cache)
    return {"hits": hits, "misses": misses, "evictions": evictions, "writebacks": writebacks,
            "dirty_at_end": left_dirty}


def reference(args: dict) -> dict:
    full = _simulate(**args)
    return {k: full[k] for k in FIELDS}


# ---- checking -----------------------------------------------------------------------------------
def check(args: dict, expected: dict, actual) -> str | None:
    if not isinstance(actual, dict):
        return f"simulate returned {type(actual).__name__}, expected a dict with {', '.join(FIELDS)}"
    missing = [k for k in FIELDS if k not in actual]
    if missing:
        return f"the result has no {', '.join(repr(k) for k in missing)} (it needs {', '.join(FIELDS)})"
    for k in FIELDS:
        refused = not_an_int(k, actual[k], expected[k])
        if refused:
            return refused
    wrong = [k for k in FIELDS if actual[k] != expected[k]]
    if not wrong:
        return None
    n = len(args["addresses"])
    first = wrong[0]
    said = f"`{first}` is {actual[first]}, expected {expected[first]}"
    return f"{said}: {_why(args, expected, actual, n)}"


def _why(args: dict, expected: dict, actual: dict, n: int) -> str:
    """The likeliest mistake that gives these counts, found by replaying them."""
    if actual["hits"] + actual["misses"] != n:
        return (f"hits + misses is {actual['hits'] + actual['misses']} but the trace has {n} accesses; "
                "every access is exactly one hit or one miss")
    same_misses = actual["hits"] == expected["hits"]
    if same_misses and actual["evictions"] != expected["evictions"]:
        if actual["evictions"] == actual["misses"]:
            return "every miss is counted as an eviction, but a miss into a set with a free way evicts nothing"
        return "the hits and misses are right, so the evictions are counted on the wrong events"
    if same_misses and actual["evictions"] == expected["evictions"]:
        full = _simulate(**args)
        wb, left = actual["writebacks"], full["dirty_at_end"]
        if wb == expected["writebacks"] + left and left:
            return (f"that is {left} too many, the dirty lines still cached at the end: there is no final "
                    "flush, only evictions of dirty lines are writebacks")
        if wb == actual["evictions"]:
            return "every eviction is counted as a writeback; only a line written since its fill is written back"
        if wb == _simulate(**args, dirty_on_write_hit=False)["writebacks"]:
            return "a write that hits must also make its line dirty"
        return "the hits, misses and evictions are right, so the dirty state of lines is off"
    policy = args["policy"]
    other = "fifo" if policy == "lru" else "lru"
    if _matches(_simulate(**{**args, "policy": other}), actual):
        if policy == "lru":
            return ("the counts are those of FIFO replacement: with lru a hit must make its line the most "
                    "recently used")
        return "the counts are those of LRU replacement: with fifo a hit changes nothing, the earliest fill goes"
    if _matches(_simulate(**args, set_of_address=True), actual):
        return "the set is taken from the byte address; it is the line number (address / line_bytes) % sets"
    return (f"the replacement ({policy}, {args['ways']} ways, "
            f"{args['size_bytes'] // (args['line_bytes'] * args['ways'])} sets) keeps other lines than it should")


def _matches(full: dict, actual: dict) -> bool:
    return all(full[k] == actual[k] for k in ("hits", "misses"))


def show(args: dict) -> str:
    """The inputs as a person reads them: the knobs, the trace's length and first accesses."""
    addrs, writes = args["addresses"], args["writes"]
    n = len(addrs)
    first = ", ".join(f"{'W' if w else 'R'} 0x{int(a):x}" for a, w in zip(addrs[:SHOWN_ACCESSES], writes[:SHOWN_ACCESSES]))
    sets = args["size_bytes"] // (args["line_bytes"] * args["ways"])
    more = f", ... ({n - SHOWN_ACCESSES} more)" if n > SHOWN_ACCESSES else ""
    return (f"size_bytes={args['size_bytes']}, line_bytes={args['line_bytes']}, ways={args['ways']} "
            f"({sets} sets), policy={args['policy']!r}; {n} accesses ({int(np.count_nonzero(writes))} "
            f"writes): {first}{more}")


# ---- C++ ------------------------------------------------------------------------------------------
def _to_cpp(args: dict) -> dict:
    return {"addresses": np.ascontiguousarray(args["addresses"], dtype=np.uint64),
            "writes": np.ascontiguousarray(args["writes"], dtype=np.uint8),
            "size_bytes": args["size_bytes"], "line_bytes": args["line_bytes"], "ways": args["ways"],
            "policy": POLICIES.index(args["policy"])}


def _from_cpp(args: dict, outs: dict) -> dict:
    return {k: int(v) for k, v in zip(FIELDS, outs["out"])}


CPP = CppCall(
    params=(CppParam("addresses", "in:uint64"), CppParam("writes", "in:uint8"),
            CppParam("n", "len:addresses"), CppParam("size_bytes", "int64"),
            CppParam("line_bytes", "int64"), CppParam("ways", "int64"), CppParam("policy", "int32"),
            CppParam("out", "out:int64[4]")),
    to_cpp=_to_cpp, from_cpp=_from_cpp)

# The C++ submissions' performance baseline, built and called as they are (never served).
CPP_REFERENCE = (Path(__file__).resolve().parent / "reference" / "cache_sim.cpp").read_text()
