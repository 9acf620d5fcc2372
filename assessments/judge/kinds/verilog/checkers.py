"""Checkers for the hardware-design tasks: what a design's outputs must be, cycle by cycle, and
the stimulus that exercises it. Standard library only; nothing here imports the project.

The driver's cycle protocol, which every checker is written for. For each cycle c = 0, 1, ...:
  1. apply `inputs` (every input but clk) with clk low, evaluate, read all outputs, and call
     `before_edge(c, inputs, outputs)`;
  2. optionally, for each variation in `probe(c)` (a dict of some inputs), apply it on top of the
     current inputs without a clock, evaluate and read all outputs; then restore the cycle's own
     inputs, evaluate, and call `probed(c, [(variation, outputs), ...])`;
  3. raise clk (the rising edge), evaluate, read all outputs, call `after_edge(c, inputs, outputs)`.
Each call returns the first `Mismatch` it finds or None; the driver stops at the first mismatch.

Rules shared by the checkers:
  - Nothing is judged until an edge with rst_n low: before it the design's state is undefined.
  - Outputs read before the edge of a reset cycle (rst_n low) are not judged: a design may gate
    its outputs with rst_n while reset is asserted. What they must be after the edge is judged.
  - Values are plain ints (masked to the port's width); expected/actual are shown as Verilog
    literals so that a hardware engineer reads them as such.
"""
from __future__ import annotations

import random
from collections import deque
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


class SyncFifoChecker(Checker):
    """An exact model of `sync_fifo`: full, empty and count always; dout when not empty. Outputs
    read before the edge must still describe the state after the last edge, so an output that
    follows wr_en or rd_en combinationally is caught there."""

    def __init__(self, params: dict[str, int]):
        super().__init__(params)
        self.width, self.depth = params.get("WIDTH", 8), params.get("DEPTH", 16)
        self.entries: deque | None = None   # (write number since reset, value); None before reset
        self.writes = 0
        self.last = "reset"                 # what the last edge did, for messages
        self.popped: tuple | None = None    # the entry the last edge read
        self.after: dict | None = None      # outputs read after the last edge
        self.before: dict | None = None     # outputs read before this cycle's edge

    def before_edge(self, cycle, inputs, outputs):
        self.before = dict(outputs)
        if self.entries is None or not inputs["rst_n"]:
            return None
        return self._compare(inputs, outputs, before=True)

    def after_edge(self, cycle, inputs, outputs):
        if not inputs["rst_n"]:
            self.entries, self.writes, self.last, self.popped = deque(), 0, "reset", None
        elif self.entries is None:
            return None
        else:
            self._step(inputs)
        mismatch = self._compare(inputs, outputs, before=False)
        self.after = dict(outputs)
        return mismatch

    def _step(self, inputs):
        n, wr, rd = len(self.entries), inputs["wr_en"] & 1, inputs["rd_en"] & 1
        do_wr, do_rd = wr and n < self.depth, rd and n > 0     # both decided on the state before the edge
        self.popped = self.entries.popleft() if do_rd else None
        if do_wr:
            self.writes += 1
            self.entries.append((self.writes, inputs["din"] & ((1 << self.width) - 1)))
        parts = ([("a write" if do_wr else "a write while full (ignored)")] if wr else []) + \
                ([("a read" if do_rd else "a read while empty (ignored)")] if rd else [])
        self.last = f"{' and '.join(parts) or 'no write or read'}, at {n} of {self.depth} entries"

    def _compare(self, inputs, outputs, before):
        n = len(self.entries)
        expected = {"full": int(n == self.depth), "empty": int(n == 0), "count": n}
        for sig, value in expected.items():
            if outputs[sig] != value:
                return Mismatch(sig, str(value), str(outputs[sig]),
                                self._changed(sig, inputs, outputs, before) or self._why(sig, value, n))
        if n and outputs["dout"] != self.entries[0][1]:
            seq, value = self.entries[0]
            why = self._changed("dout", inputs, outputs, before) or (
                f"dout should show the oldest entry, word #{seq} written since reset "
                f"({_hex(value, self.width)}), without waiting for a read (first-word fall-through; "
                f"last edge: {self.last}){self._dout_hint(outputs['dout'], before)}")
            return Mismatch("dout", _hex(value, self.width), _hex(outputs["dout"], self.width), why)
        return None

    def _changed(self, sig, inputs, outputs, before):
        """The sentence for an output that moved between the last edge and this cycle's inputs."""
        if before and self.after is not None and outputs[sig] != self.after[sig]:
            show = (lambda v: _hex(v, self.width)) if sig == "dout" else str
            return (f"{sig} changed from {show(self.after[sig])} to {show(outputs[sig])} when this cycle's inputs "
                    f"were applied (wr_en={inputs['wr_en']}, rd_en={inputs['rd_en']}) with no clock edge; "
                    f"it must describe the stored entries only, not follow the inputs")
        return None

    def _why(self, sig, value, n):
        state = f"(DEPTH={self.depth}; last edge: {self.last})"
        if sig == "full":
            return (f"full should be high with all {self.depth} entries stored {state}" if value else
                    f"full should be low with {n} of {self.depth} entries stored {state}")
        if sig == "empty":
            return (f"empty should be high with no entries stored {state}" if value else
                    f"empty should be low with {_entries(n)} stored {state}")
        return f"count should be {n}, the number of entries stored {state}"

    def _dout_hint(self, actual, before):
        if self.width < 8:      # narrow words coincide too often to name one
            return ""
        if not before and self.popped and actual == self.popped[1]:
            return f"; it still shows word #{self.popped[0]}, read at the last edge, as if dout were registered a cycle late"
        if not before and self.before and actual == self.before["dout"]:
            return "; it kept its value from before the edge, as if dout were registered a cycle late"
        for seq, value in list(self.entries)[1:]:
            if actual == value:
                return f"; it shows word #{seq}, which is not the oldest"
        return ""

    def stimulus(self, rng, cycles):
        depth, mask = self.depth, (1 << self.width) - 1
        seq: list[dict[str, int]] = []

        def add(n, wr, rd, rst_n=1, din=None):
            for _ in range(n):
                seq.append({"rst_n": rst_n, "wr_en": wr, "rd_en": rd,
                            "din": rng.getrandbits(self.width) if din is None else din})

        add(2, 1, 1, rst_n=0)                 # reset wins over both enables
        add(2, 0, 1)                          # read while empty: ignored
        add(1, 1, 1)                          # read and write at empty: only the write
        add(1, 0, 1)
        add(1, 1, 0, din=mask)                # all ones and all zeros through
        add(1, 1, 0, din=0)
        add(depth + 2, 1, 0)                  # fill to full, then writes while full: ignored
        for _ in range(3):
            add(1, 1, 1)                      # read and write at full: only the read
            add(1, 1, 0)                      # refill
        add(depth + 2, 0, 1)                  # drain to empty, then reads while empty
        add(1, 1, 1)                          # read and write at empty, then both at one entry
        add(3, 1, 1)
        add(depth // 2, 1, 0)
        add(min(4 * depth, 128), 1, 1)        # long burst of simultaneous reads and writes
        add(max(1, depth // 4), 1, 0)         # reset in the middle, with entries stored
        add(1, 1, 1, rst_n=0)
        add(2, 0, 1)
        biases = ((0.9, 0.2), (0.2, 0.9), (0.5, 0.5), (0.8, 0.8), (1.0, 0.0), (0.0, 1.0))
        while len(seq) < cycles:              # random segments that swing between full and empty
            p_wr, p_rd = rng.choice(biases)
            for _ in range(min(rng.randint(4, 2 * depth + 4), cycles - len(seq))):
                add(1, int(rng.random() < p_wr), int(rng.random() < p_rd))
        return seq


class RrArbiterChecker(Checker):
    """An exact model of `rr_arbiter`: grant before the edge from the pointer before it, and after
    the edge from the updated pointer (req is held across the edge)."""

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


class SkidBufferChecker(Checker):
    """A scoreboard and property checker for `skid_buffer`; different correct designs differ in
    timing, so there is no cycle-exact model. Handshakes are taken from the inputs and the
    outputs read before the edge (the values the edge samples). Checked:
      - every accepted word is delivered once, in order, with its data;
      - once m_valid is high it stays high with m_data unchanged until the word is taken;
      - at most two words are held (accepted minus delivered);
      - after a reset edge m_valid is low and s_ready high;
      - s_ready and m_valid come from flip-flops: they must not change between the read after an
        edge and the read before the next one (only inputs changed), nor under probe()'s
        variations of s_valid and m_ready;
      - throughput: after STARTUP edges with s_valid and m_ready both high, a word must enter and
        a word leave at every further such edge;
      - a held word must not sit with m_valid low for more than LOST edges."""

    STARTUP = 3
    LOST = 4

    def __init__(self, params: dict[str, int]):
        super().__init__(params)
        self.width = params.get("WIDTH", 32)
        self.pending: deque | None = None   # (word number, value, cycle accepted); None before reset
        self.accepted = 0
        self.delivered: tuple | None = None # last word delivered: (number, value, cycle accepted, cycle delivered)
        self.shown: tuple | None = None     # (m_data, word number) last read with m_valid high, not yet taken
        self.after: dict | None = None      # outputs read after the last edge
        self.before: dict | None = None     # outputs read before this cycle's edge (None if not judged)
        self.streak = 0                     # consecutive edges with s_valid and m_ready high
        self.waiting = 0                    # consecutive edges ending with words held and m_valid low

    def before_edge(self, cycle, inputs, outputs):
        self.before = None
        if self.pending is None or not inputs["rst_n"]:
            return None
        self.before = dict(outputs)
        found = (self._registered(outputs, "when this cycle's inputs were applied", inputs)
                 or self._held(outputs, "with no clock edge")
                 or self._data(outputs))
        self._show(outputs)
        return found

    def after_edge(self, cycle, inputs, outputs):
        if not inputs["rst_n"]:
            self.pending, self.shown, self.streak, self.waiting, self.delivered = deque(), None, 0, 0, None
            self.after = dict(outputs)
            if outputs["m_valid"]:
                return Mismatch("m_valid", "0", "1", "m_valid should be low after a reset edge: a reset discards every word held")
            if not outputs["s_ready"]:
                return Mismatch("s_ready", "1", "0", "s_ready should be high after a reset edge, with nothing held")
            return None
        if self.pending is None or self.before is None:
            return None
        before, held = self.before, len(self.pending)
        s_fire = bool(inputs["s_valid"] and before["s_ready"])
        m_fire = bool(inputs["m_ready"] and before["m_valid"])
        if m_fire and self.pending:
            self.delivered = self.pending.popleft() + (cycle,)
            self.shown = None
        if s_fire:
            self.accepted += 1
            self.pending.append((self.accepted, inputs["s_data"] & ((1 << self.width) - 1), cycle))
        self.streak = self.streak + 1 if inputs["s_valid"] and inputs["m_ready"] else 0
        self.waiting = self.waiting + 1 if self.pending and not outputs["m_valid"] else 0
        found = None
        if len(self.pending) > 2:
            found = Mismatch("s_ready", "0", "1",
                             f"s_ready was high at this edge with {held} words already held and none leaving "
                             f"(m_ready={inputs['m_ready']}), so {len(self.pending)} are now held; at most two may be")
        elif self.streak > self.STARTUP and not (s_fire and m_fire):
            sig = "m_valid" if s_fire else "s_ready"
            found = Mismatch(sig, "1", "0",
                             f"with s_valid and m_ready held high for {self.streak} cycles, one word should pass "
                             f"every cycle, but {sig} was low at this edge ({held} word{'s' * (held != 1)} held)")
        found = (found or self._held(outputs, "at an edge where m_ready was low")
                 or self._data(outputs))
        if not found and self.waiting > self.LOST:
            seq, value, at = self.pending[0]
            found = Mismatch("m_valid", "1", "0",
                             f"word #{seq} ({_hex(value, self.width)}), accepted at cycle {at}, has been held for "
                             f"{self.waiting} edges with m_valid low: it is lost or stuck")
        self._show(outputs)
        self.after = dict(outputs)
        return found

    def probe(self, cycle):
        # All four combinations, each applied whole, so their order does not matter.
        return [{"s_valid": s, "m_ready": m} for s in (0, 1) for m in (0, 1)]

    def probed(self, cycle, variations_and_outputs):
        if self.before is None:
            return None
        for variation, outputs in variations_and_outputs:
            for sig in ("s_ready", "m_valid"):
                if outputs[sig] != self.before[sig]:
                    driven = ", ".join(f"{k}={v}" for k, v in variation.items())
                    return Mismatch(sig, str(self.before[sig]), str(outputs[sig]),
                                    f"{sig} went from {self.before[sig]} to {outputs[sig]} when the inputs were driven to {driven} "
                                    f"with no clock edge: it must come straight from a flip-flop, with no "
                                    f"combinational path from s_valid or m_ready")
        return None

    def _show(self, outputs):
        if outputs["m_valid"] and self.shown is None:
            self.shown = (outputs["m_data"], self.pending[0][0] if self.pending else None)

    def _registered(self, outputs, when, inputs):
        if self.after is None:
            return None
        for sig in ("s_ready", "m_valid"):
            if outputs[sig] != self.after[sig]:
                return Mismatch(sig, str(self.after[sig]), str(outputs[sig]),
                                f"{sig} went from {self.after[sig]} to {outputs[sig]} {when} "
                                f"(s_valid={inputs['s_valid']}, m_ready={inputs['m_ready']}) with no clock edge: "
                                f"it must come straight from a flip-flop, with no combinational path from s_valid or m_ready")
        return None

    def _held(self, outputs, when):
        """A word on m_data that has not been taken must stay, with its data."""
        if self.shown is None:
            return None
        value, seq = self.shown
        word = f"word #{seq}" if seq else "the word"
        if not outputs["m_valid"]:
            return Mismatch("m_valid", "1", "0",
                            f"m_valid fell {when} although {word} ({_hex(value, self.width)}) had not been taken; "
                            f"m_valid must stay high until m_ready takes it")
        if outputs["m_data"] != value:
            return Mismatch("m_data", _hex(value, self.width), _hex(outputs["m_data"], self.width),
                            f"m_data changed {when} while m_valid was high and {word} had not been taken; "
                            f"it must hold until m_ready takes it")
        return None

    def _data(self, outputs):
        """The word on m_data must be the oldest accepted and not yet delivered."""
        if not outputs["m_valid"]:
            return None
        if not self.pending:
            return Mismatch("m_valid", "0", "1",
                            f"m_valid is high but all {self.accepted} words accepted since reset have been "
                            f"delivered: a word is repeated or invented")
        seq, value, at = self.pending[0]
        if outputs["m_data"] == value:
            return None
        hint = ""
        if self.width >= 8:     # narrow words coincide too often to name one
            later = [s for s, v, _ in list(self.pending)[1:] if v == outputs["m_data"]]
            if later:
                hint = f"; it shows word #{later[0]}, so word #{seq} was dropped or overtaken"
            elif self.delivered and self.delivered[1] == outputs["m_data"]:
                hint = f"; it repeats word #{self.delivered[0]}, already delivered at cycle {self.delivered[3]}"
        return Mismatch("m_data", _hex(value, self.width), _hex(outputs["m_data"], self.width),
                        f"m_data should be word #{seq} ({_hex(value, self.width)}, accepted at cycle {at}), the "
                        f"oldest word not yet delivered{hint}")

    def stimulus(self, rng, cycles):
        seq: list[dict[str, int]] = []

        def add(n, s_valid, m_ready, rst_n=1):
            for _ in range(n):
                seq.append({"rst_n": rst_n, "s_valid": s_valid, "m_ready": m_ready,
                            "s_data": rng.getrandbits(self.width)})

        add(2, 1, 1, rst_n=0)            # reset with both sides active
        add(20, 1, 1)                    # streaming from empty: one word per cycle
        add(4, 1, 0)                     # m_ready falls mid-stream: the skid register fills
        add(12, 1, 1)                    # streaming again from full
        for _ in range(8):               # backpressure every other cycle
            add(1, 1, 0)
            add(1, 1, 1)
        for _ in range(8):               # a source with gaps
            add(1, 0, 1)
            add(1, 1, 1)
        add(1, 1, 0)                     # one word, stalled, then drained
        add(3, 0, 0)
        add(4, 0, 1)
        add(4, 1, 0)                     # reset in the middle with two words held
        add(1, 1, 0, rst_n=0)
        add(4, 0, 1)                     # nothing may come out after it
        add(12, 1, 1)
        biases = ((0.5, 0.5), (0.9, 0.3), (0.3, 0.9), (1.0, 1.0), (0.9, 0.9), (1.0, 0.5))
        while len(seq) < cycles - 8:
            p_valid, p_ready = rng.choice(biases)
            for _ in range(min(rng.randint(5, 40), cycles - 8 - len(seq))):
                add(1, int(rng.random() < p_valid), int(rng.random() < p_ready))
        add(8, 0, 1)                     # drain: every word held must come out
        return seq


CHECKERS = {"sync_fifo": SyncFifoChecker, "rr_arbiter": RrArbiterChecker, "skid_buffer": SkidBufferChecker}

# The contract's ranges with their edges; the default parameters come first.
PARAMETER_SETS = {
    "sync_fifo": [{"WIDTH": 8, "DEPTH": 16}, {"WIDTH": 1, "DEPTH": 2}, {"WIDTH": 64, "DEPTH": 2},
                  {"WIDTH": 5, "DEPTH": 4}, {"WIDTH": 16, "DEPTH": 64}, {"WIDTH": 64, "DEPTH": 1024}],
    "rr_arbiter": [{"N": 4}, {"N": 2}, {"N": 3}, {"N": 5}, {"N": 8}, {"N": 32}],
    "skid_buffer": [{"WIDTH": 32}, {"WIDTH": 1}, {"WIDTH": 8}, {"WIDTH": 64}],
}
