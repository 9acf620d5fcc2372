"""The `rr_arbiter` task's checker (the contract in the task's statement)."""
from __future__ import annotations

from .base import Checker, Mismatch, _bin


class RrArbiterChecker(Checker):
    """An exact model of `rr_arbiter`: grant before the edge from the pointer before it, and after
    the edge from the updated pointer (req is held across the edge)."""
    slug = "rr_arbiter"

    def __init__(self, params: dict[str, int]):
        super().__init__(params)
        self.n = params.get("N", 4)
        self.ptr: int | None = None     # None before the first reset
        self.origin = ""                # how the pointer got its value, for messages
        self.idle = 0                   # edges with req zero since the pointer last moved

    def _pick(self, req):
        for k in range(self.n):
            i = (self.ptr + k) % self.n
            if req >> i & 1:
                return i
        return None

    def before_edge(self, cycle, inputs, outputs):
        if self.ptr is None or not inputs["rst_n"]:
            return None
        return self._compare(inputs["req"], outputs["grant"])

    def after_edge(self, cycle, inputs, outputs):
        req = inputs["req"]
        if not inputs["rst_n"]:
            self.ptr, self.origin, self.idle = 0, f"reset at cycle {cycle}", 0
        elif self.ptr is None:
            return None
        else:
            i = self._pick(req)
            if i is None:
                self.idle += 1
            else:
                self.ptr, self.origin, self.idle = (i + 1) % self.n, f"one past requester {i}, granted at cycle {cycle}", 0
        return self._compare(req, outputs["grant"])

    def _compare(self, req, grant):
        i = self._pick(req)
        expected = 0 if i is None else 1 << i
        if grant == expected:
            return None
        n, ptr = self.n, self.ptr
        since = (f"; the {self.idle} edge{'s' * (self.idle != 1)} with req zero since then must not move it"
                 if self.idle else "")
        state = f"with req={_bin(req, n)} and the pointer at {ptr} ({self.origin}{since})"
        g = grant.bit_length() - 1
        if grant & (grant - 1):
            why = f"grant must be one-hot {state}" + (f"; requester {i} should win" if i is not None else "")
        elif grant and not req >> g & 1:
            why = f"grant selects requester {g}, which is not requesting, {state}"
        elif i is None:
            why = f"grant should be zero as no requester is requesting, {state}"
        elif not grant:
            why = f"grant should select requester {i}, the first requester at or after the pointer, {state}"
        else:
            why = f"requester {i} comes before requester {g} in round-robin order from the pointer, {state}"
        return Mismatch("grant", _bin(expected, n), _bin(grant, n), why)

    def stimulus(self, rng, cycles):
        n, full = self.n, (1 << self.n) - 1
        seq: list[dict[str, int]] = []

        def add(count, req, rst_n=1):
            seq.extend({"rst_n": rst_n, "req": req} for _ in range(count))

        add(2, full, rst_n=0)                         # reset wins: the pointer stays 0
        add(2 * n + 1, full)                          # all requesters: one full rotation and more
        for i in range(n):
            add(2, 1 << i)                            # a single requester keeps its grant
        for _ in range(min(n, 8) + 2):                # idle edges at several pointer positions
            add(rng.randint(1, 2), rng.randint(1, full))
            add(rng.randint(1, 2), 0)
            add(1, full)
        for _ in range(n):                            # two requesters take turns
            a, b = rng.sample(range(n), 2)
            add(3, 1 << a | 1 << b)
        add(n // 2 + 1, full)                         # reset in the middle, pointer away from 0
        add(1, full, rst_n=0)
        add(2, full)
        directed = len(seq)
        while len(seq) < cycles:                      # random requests of varied density, held 1-3 cycles
            density = rng.choice((0.1, 0.3, 0.5, 0.9))
            for _ in range(rng.randint(8, 40)):
                req = 0 if rng.random() < 0.1 else sum(1 << i for i in range(n) if rng.random() < density)
                add(rng.randint(1, 3), req)
        return seq[:max(cycles, directed)]
