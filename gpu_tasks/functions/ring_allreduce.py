"""`ring_allreduce`: a schedule of sends on a one-way ring that leaves every rank with every chunk
summed over all ranks exactly once (the contract in TASKS-TRACKS.md). Python; quality: steps."""
from __future__ import annotations

from numbers import Integral

import numpy as np

from .model import FunctionTask, cases

OPS = ("reduce", "copy")
SHOWN_RANKS = 5

STATEMENT = """Write the communication schedule of an all-reduce on a ring, the algorithm NCCL and
MPI libraries use for large messages.

```python
def schedule(p) -> list:
    # a list of steps; a step is a list of (src, dst, chunk, op) sends that happen together,
    # op "reduce" (dst adds the chunk into its own) or "copy" (dst overwrites its own)
```

`p` ranks (`p >= 2`) sit on a one-way ring: rank `i` sends only to rank `(i + 1) % p`. Each rank
holds its own vector split into `p` chunks, numbered `0` to `p - 1`. A send `(src, dst, chunk,
op)` moves rank `src`'s copy of chunk `chunk` to rank `dst`, which adds it into its own copy of
that chunk (`"reduce"`) or replaces its own copy with it (`"copy"`). In a step a rank sends at
most one chunk and receives at most one, and every send of a step carries the sender's chunk as
it was before the step (all sends of a step happen at once).

The schedule is right when, after its last step, every rank holds every chunk summed over all
`p` ranks exactly once. The judge runs it on `p` from 2 to 64 and names the first thing wrong: a
send to a rank other than the next one, a rank sending twice in a step, or the first rank and
chunk that ends with a contribution counted twice or missing. A schedule of more than `4p^2`
steps is refused. Sends may be tuples or lists; ranks and chunks are ints, `op` a string.

**Scoring.** 60 points when every hidden `p`'s schedule is right. Up to 40 more for its length:
40 x 2(p - 1) / your number of steps, averaged over the hidden tests (2(p - 1) steps is the
least a ring needs: p - 1 to reduce, p - 1 to share the result)."""

PYTHON_STARTER = '''def schedule(p):
    """A list of steps; a step is a list of (src, dst, chunk, op) sends, op "reduce" or "copy"."""
    steps = []
    # TODO: every rank must end with every chunk summed over all p ranks exactly once
    steps.append([(rank, (rank + 1) % p, rank, "reduce") for rank in range(p)])
    return steps
'''

PYTHON_SIGNATURE = "def schedule(p) -> list"

# A wrong answer's report shows the judge's answer as one right answer, not the only one.
MANY_ANSWERS = True

TASK = FunctionTask(
    slug="ring_allreduce", title="Ring all-reduce schedule", difficulty="easy",
    track="infrastructure", skills=("collective_communication", "python"),
    summary="Schedule the sends of an all-reduce on a one-way ring of p ranks, in as few steps as possible.",
    statement=STATEMENT, function="schedule",
    python_signature=PYTHON_SIGNATURE, cpp_signature=None, languages=("python",),
    tests={"cpu": cases(
        ("two_ranks", {"p_low": 2, "p_high": 2, "calls": 1}),
        ("three_ranks", {"p_low": 3, "p_high": 3, "calls": 1}),
        ("one_node", {"p_low": 4, "p_high": 8, "calls": 3}),
        ("few_nodes", {"p_low": 9, "p_high": 31, "calls": 3}),
        ("many_nodes", {"p_low": 33, "p_high": 63, "calls": 2}),
        ("sixty_four", {"p_low": 64, "p_high": 64, "calls": 1}),
    )},
    samples=cases(("sample_four", {"p_low": 4, "p_high": 4, "calls": 1}),
                  ("sample_five", {"p_low": 5, "p_high": 5, "calls": 1})),
    starters={"python": PYTHON_STARTER},
    performance=("quality",), quality_goal="max",
)


def generate(rng: np.random.Generator, dims: dict) -> list[dict]:
    """Ring sizes drawn from the test's range."""
    ps = rng.integers(int(dims["p_low"]), int(dims["p_high"]) + 1, size=int(dims["calls"]))
    return [{"p": int(p)} for p in ps]


def reference(args: dict) -> list:
    """Reduce-scatter then all-gather: in step s rank r passes on the chunk it received last."""
    p = args["p"]
    reduce_scatter = [[(r, (r + 1) % p, (r - s) % p, "reduce") for r in range(p)] for s in range(p - 1)]
    all_gather = [[(r, (r + 1) % p, (r + 1 - s) % p, "copy") for r in range(p)] for s in range(p - 1)]
    return reduce_scatter + all_gather


# ---- checking by simulation ---------------------------------------------------------------------
def check(args: dict, expected: list, actual) -> str | None:
    p = args["p"]
    sends = _parse(p, actual)
    if isinstance(sends, str):
        return sends
    # held[r, c, k]: how many times rank k's contribution is in rank r's chunk c, capped at 2
    held = np.zeros((p, p, p), dtype=np.int8)
    held[np.arange(p), :, np.arange(p)] = 1
    for step in sends:
        if step:
            src, dst, chunk, reduce = (np.array(col) for col in zip(*step))
            arriving = held[src, chunk]            # read before any send of the step lands
            reduce = reduce.astype(bool)
            held[dst[reduce], chunk[reduce]] = np.minimum(held[dst[reduce], chunk[reduce]] + arriving[reduce], 2)
            held[dst[~reduce], chunk[~reduce]] = arriving[~reduce]
    wrong = np.argwhere((held != 1).any(axis=2))
    if len(wrong) == 0:
        return None
    r, c = (int(x) for x in wrong[0])
    steps = f"{len(sends)} step{'s' if len(sends) != 1 else ''}"
    return f"after {steps} with p={p}, {_describe(held, r, c)}: {_likely(held, p)}"


def _parse(p: int, actual) -> list | str:
    """The sends as (src, dst, chunk, is_reduce) per step, or the first broken rule."""
    if not isinstance(actual, (list, tuple)):
        return f"schedule returned {type(actual).__name__}, expected a list of steps"
    if len(actual) > 4 * p * p:
        return f"the schedule has {len(actual)} steps for p={p}; more than 4p^2 = {4 * p * p} is refused"
    steps = []
    for i, step in enumerate(actual):
        if not isinstance(step, (list, tuple)) or (len(step) == 4 and isinstance(step[3], str)):
            return f"step {i} is {_plain(step)}; a step is a list of (src, dst, chunk, op) sends"
        sent_by: dict[int, int] = {}
        parsed = []
        for send in step:
            if not (isinstance(send, (list, tuple)) and len(send) == 4):
                return f"step {i} holds {_plain(send)}; a send is (src, dst, chunk, op)"
            src, dst, chunk, op = send
            if not all(isinstance(x, Integral) and not isinstance(x, bool) and 0 <= x < p
                       for x in (src, dst, chunk)):
                return f"step {i}: send {list(send)!r} needs src, dst and chunk to be ints from 0 to {p - 1}"
            if op not in OPS:
                return f"step {i}: send {list(send)!r} has op {op!r}; op is \"reduce\" or \"copy\""
            if dst != (src + 1) % p:
                return (f"step {i}: rank {src} sends chunk {chunk} to rank {dst}, but on the one-way "
                        f"ring rank {src} sends only to rank {(src + 1) % p}")
            if src in sent_by:
                return (f"step {i}: rank {src} sends two chunks ({sent_by[src]} and {chunk}); a rank "
                        "sends at most one chunk per step, so the two halves cannot share a step")
            sent_by[src] = chunk
            parsed.append((int(src), int(dst), int(chunk), op == "reduce"))
        steps.append(parsed)
    return steps


def _plain(value) -> str:
    text = repr(list(value) if isinstance(value, tuple) else value)
    return text if len(text) <= 80 else text[:77] + "..."


def _describe(held: np.ndarray, r: int, c: int) -> str:
    counts = held[r, c]
    twice = np.flatnonzero(counts > 1)
    if len(twice):
        return f"rank {r}'s chunk {c} holds {_contributions(twice)} more than once"
    return f"rank {r}'s chunk {c} lacks {_contributions(np.flatnonzero(counts == 0))}"


def _contributions(ranks: np.ndarray) -> str:
    if len(ranks) == 1:
        return f"rank {int(ranks[0])}'s contribution"
    shown = ", ".join(str(int(k)) for k in ranks[:SHOWN_RANKS])
    more = f" and {len(ranks) - SHOWN_RANKS} more" if len(ranks) > SHOWN_RANKS else ""
    return f"the contributions of ranks {shown}{more}"


def _likely(held: np.ndarray, p: int) -> str:
    complete = (held == 1).all(axis=2)          # complete[r, c]: rank r holds chunk c right
    if (held > 1).any():
        return ("a reduce adds a chunk that already holds that contribution: once a chunk is "
                "complete it travels by copy, and the reduce half takes p - 1 steps, not p")
    if complete.sum() == p and (complete.sum(axis=0) == 1).all():
        return ("each chunk is complete on one rank only, as after the reduce-scatter half; the "
                "all-gather half (p - 1 steps of copy) must pass it around the ring")
    return ("some contributions never arrive: each chunk must pass through all p ranks while it is "
            "reduced, then the complete chunk must reach every rank")


def quality(args: dict, actual: list) -> float:
    """The contract's measure: 2(p - 1) / the number of steps (1 for the shortest schedule)."""
    return 2 * (args["p"] - 1) / max(len(actual), 1)


def show(args: dict) -> str:
    return f"p={args['p']} ranks"
