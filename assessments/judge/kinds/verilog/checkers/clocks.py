"""Edges of several clocks in time order, for the tasks with more than one clock: each test runs
in segments, each with its own clock ratio and phase, so a test meets the first clock faster,
the second faster and the two close together, whatever its seed."""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterator

MAX_RATIO = 7           # the slower clock's period is at most this many of the faster's
# Ratio classes of a segment, as (low, high) of the second clock's period over the first's.
RATIOS = ((1.5, MAX_RATIO), (1 / MAX_RATIO, 1 / 1.5), (0.8, 1.25))


@dataclass(frozen=True)
class Edge:
    """One rising edge: its clock, its number among that clock's edges (from 0), its time in ns
    and every input as applied just before it."""
    clock: str
    cycle: int
    time: int
    inputs: dict


def timeline(rng: random.Random, clocks: tuple[str, ...], segment: int) -> Iterator[tuple[int, str]]:
    """(time, clock) of every rising edge, forever, in segments of `segment` edges. Clock k's edges
    fall at times k modulo len(clocks), so no two clocks ever rise at once."""
    n = len(clocks)
    now = 0
    while True:
        classes = list(RATIOS)
        rng.shuffle(classes)
        for cls in classes:
            ratios = [1.0]                                      # each clock's period over the first's
            for k in range(1, n):
                low, high = cls if k == 1 else rng.choice(RATIOS)
                ratios.append(low * (high / low) ** rng.random())   # log-uniform within the class
            base = rng.randrange(10, 21) * n                    # the fastest clock's period: 20-40 ns for two
            fastest = min(ratios)
            periods = [max(base, round(base * r / fastest / n) * n) for r in ratios]
            start = now + n - now % n
            nxt = [start + rng.randrange(1, p // n + 1) * n + k for k, p in enumerate(periods)]
            for _ in range(segment):
                k = min(range(n), key=nxt.__getitem__)
                now = nxt[k]
                yield now, clocks[k]
                nxt[k] += periods[k]

