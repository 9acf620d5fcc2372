"""What every checker shares: the mismatch, the base class, value formatting."""
from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass
class Mismatch:
    signal: str     # the output that is wrong
    expected: str
    actual: str
    why: str        # one sentence: what the design should have done, and from what state


def _hex(value: int, width: int) -> str:
    return f"{width}'h{value:0{(width + 3) // 4}x}" if width > 1 else str(value)


def _bin(value: int, width: int) -> str:
    return f"{width}'b{value:0{width}b}" if width > 1 else str(value)


def _entries(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"


class Checker:
    """One instance judges one run of one design at one parameter set."""

    def __init__(self, params: dict[str, int]):
        self.params = dict(params)

    def before_edge(self, cycle: int, inputs: dict[str, int], outputs: dict[str, int]) -> Mismatch | None:
        return None

    def after_edge(self, cycle: int, inputs: dict[str, int], outputs: dict[str, int]) -> Mismatch | None:
        return None

    def stimulus(self, rng: random.Random, cycles: int) -> list[dict[str, int]]:
        """Inputs per cycle: directed phases, then constrained random up to `cycles` in all. The
        directed phases are kept whole when they alone need more (a deep FIFO's fill and drain).
        The same rng state gives the same list."""
        raise NotImplementedError

    def probe(self, cycle: int) -> list[dict[str, int]] | None:
        """Input variations to apply before this cycle's edge without a clock (step 2 above), or
        None. Depends on the cycle only, so a driver may collect them before it starts."""
        return None

    def probed(self, cycle: int, variations_and_outputs: list[tuple[dict[str, int], dict[str, int]]]) -> Mismatch | None:
        """Judges the outputs read under each of probe(cycle)'s variations; called after
        before_edge and before after_edge of the same cycle."""
        return None
