"""The `skid_buffer` task's checker (the contract in the task's statement)."""
from __future__ import annotations
from collections import deque

from .base import Checker, Mismatch, _hex


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
    slug = "skid_buffer"

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
