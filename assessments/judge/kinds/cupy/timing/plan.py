"""Which buffer slot and input variant each timed repeat uses, and which repeats get re-checked."""
from __future__ import annotations

import numpy as np


class Planner:
    """Which slot and input variant each repeat uses, and which repeats get re-checked.

    Slots come in shuffled rounds. A re-checked repeat puts a variant on a slot that has never
    held it before, so an output remembered by address is always the wrong one there; the
    other repeats keep to variants the slot has held, alternating where it has held several,
    which saves the unseen ones for the checks.
    """

    def __init__(self, slots: int, variants: int, rng: np.random.Generator):
        self.k, self.m, self.rng = slots, variants, rng
        self.seen: list[list[int]] = [[] for _ in range(slots)]
        self.last: list[int | None] = [None] * slots
        self._queue: list[int] = []
        self._prev: int | None = None

    def _slot(self) -> int:
        if not self._queue:
            order = [int(s) for s in self.rng.permutation(self.k)]
            if self.k > 1 and order[0] == self._prev:
                order[0], order[-1] = order[-1], order[0]
            self._queue = order
        self._prev = self._queue.pop(0)
        return self._prev

    def _unseen(self, s: int) -> list[int]:
        return [v for v in range(self.m) if v not in self.seen[s]]

    def solve_plan(self, n: int, checks: int = 0) -> tuple[list[tuple[int, int]], list[int]]:
        """(plan, positions to re-check): up to `checks` slots whose last repeat in this plan
        brings them a variant they never held, after they held another."""
        slots = [self._slot() for _ in range(n)]
        last_pos = {s: i for i, s in enumerate(slots)}
        held_before = {s: bool(self.seen[s]) or slots.index(s) < last_pos[s] for s in last_pos}
        fresh = [s for s in last_pos if held_before[s] and self._unseen(s)]
        chosen = {fresh[j] for j in self.rng.permutation(len(fresh))[:checks]}
        plan = []
        for i, s in enumerate(slots):
            if s in chosen and i == last_pos[s]:
                pool = self._unseen(s)
            elif not self.seen[s]:
                pool = list(range(self.m))
            else:
                pool = [v for v in self.seen[s] if v != self.last[s]] or self.seen[s]
            v = int(pool[int(self.rng.integers(len(pool)))])
            if v not in self.seen[s]:
                self.seen[s].append(v)
            self.last[s] = v
            plan.append((s, v))
        return plan, sorted(last_pos[s] for s in chosen)

    def empty_plan(self, n: int) -> list[tuple[int, int]]:
        # The empty solve sees no data, so it leaves the variants' history alone.
        return [(int(self.rng.integers(self.k)), int(self.rng.integers(self.m))) for _ in range(n)]
