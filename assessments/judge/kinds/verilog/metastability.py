"""The judge's side of the metastability model that cdc.py builds into a design with several
clocks: which crossing bits are seen late at each edge (drawn at random), and the captures that
tear a register, a mix of its old and new bits.

At an edge of clock D, a bit crossing from clock S into D may be late only if S had an edge after
D's previous edge (and after S's reset was last asserted): the shadow flip-flop then holds the
bit's value from before S's latest edge, and `late` selects it. A bit that changed at that edge
is seen one D cycle late, or on time, each with probability one half; one that changed earlier
has been still for a whole D cycle and is seen as it is. Parent side, standard library only.
"""
from __future__ import annotations

import random

from .cdc import CHUNK
from .checkers import Mismatch
from .checkers.base import _bin as _literal


class Metastability:
    """One test's draws: `plan` gives each edge's `late` inputs; `tear` judges a capture."""

    def __init__(self, crossings: dict, domains, rng: random.Random):
        self.bits = crossings.get("bits") or []
        ports = crossings.get("ports") or {}
        self.ports, self.views = ports.get("late") or [], [ports.get(k) or [] for k in ("now", "was")]
        self.resets = {d.clock: d.reset for d in domains}
        self.rng = rng
        # per destination clock: (register, source clock, mask of its bits) of each crossing register
        self.registers: dict[str, list] = {}
        for k, b in enumerate(self.bits):
            entries = self.registers.setdefault(b["to"], [])
            entry = next((x for x in entries if x[:2] == [b["register"], b["from"]]), None)
            if entry is None:
                entries.append([b["register"], b["from"], 0])
                entry = entries[-1]
            entry[2] |= 1 << k
        self.late: list[int] = []          # per edge: the late bits drawn
        self.sources: list[dict] = []      # per edge: {source clock: (its latest edge's cycle, time)} when fresh

    def plan(self, edges) -> list[dict]:
        """Each edge's `late` inputs, {port: value}: zero for a bit whose source had no edge since
        the destination's last one, a coin toss for the others."""
        latest: dict[str, tuple] = {}      # clock -> (cycle, time) of its latest edge
        previous: dict[str, float] = {}    # clock -> time of its previous edge
        asserted: dict[str, float] = {}    # clock -> time its reset was last seen low
        out, chunk = [], (1 << CHUNK) - 1
        for e in edges:
            for clock, reset in self.resets.items():
                if not e.inputs.get(reset, 1):
                    asserted[clock] = e.time
            fresh = {s: latest[s] for s in latest
                     if latest[s][1] > previous.get(e.clock, -1) and latest[s][1] > asserted.get(s, -1)}
            may = 0
            for _, source, mask in self.registers.get(e.clock, ()):
                if source in fresh:
                    may |= mask
            value = may & self.rng.getrandbits(len(self.bits)) if may else 0
            self.late.append(value)
            self.sources.append(fresh)
            out.append({p: (value >> (CHUNK * j)) & chunk for j, p in enumerate(self.ports)})
            previous[e.clock] = e.time
            latest[e.clock] = (e.cycle, e.time)
        return out

    def _read(self, outputs: dict, ports: list[str]) -> int:
        return sum(int(outputs.get(p, 0)) << (CHUNK * j) for j, p in enumerate(ports))

    def tear(self, index: int, edge, outputs: dict) -> Mismatch | None:
        """A register crossing into this edge's clock captured with some of the bits that changed
        at the source's latest edge late and some not: a value it never held."""
        late = self.late[index]
        if not late or not edge.inputs.get(self.resets.get(edge.clock, ""), 1):
            return None   # nothing late, or the destination's synchronizers held in reset
        now, was = (self._read(outputs, ports) for ports in self.views)
        for register, source, mask in self.registers.get(edge.clock, ()):
            changed = (now ^ was) & mask
            slow = changed & late
            if not slow or slow == changed:
                continue
            ks = [k for k in range(len(self.bits)) if mask >> k & 1]
            width = max((self.bits[k]["index"] or 0) for k in ks) + 1

            def value(word: int) -> int:
                return sum((word >> k & 1) << (self.bits[k]["index"] or 0) for k in ks)

            old, new, seen = value(was), value(now), value((now & ~slow) | (was & slow))
            cycle, time = self.sources[index][source]
            return Mismatch(
                register, f"{_literal(old, width)} or {_literal(new, width)}", _literal(seen, width),
                f"as captured by its synchronizer into {edge.clock}: `{register}` (clocked by {source}) crosses "
                f"bit by bit, and {bin(changed).count('1')} of its bits changed at {source} cycle {cycle} (t={time} "
                f"ns), the last {source} edge before this one, from {_literal(old, width)} to {_literal(new, width)}. "
                f"Under the judge's metastability model each may be seen one {edge.clock} cycle late, "
                f"independently, and the synchronizer took {_literal(seen, width)}, a value `{register}` never "
                f"held: a value of several bits must cross in Gray code, one bit changing per edge")
        return None
