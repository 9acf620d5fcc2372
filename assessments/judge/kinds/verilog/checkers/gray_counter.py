"""The `gray_counter` task's checker (the contract in the task's statement)."""
from __future__ import annotations

from .base import Checker, Mismatch, _bin, _hex

WRAP_LIMIT = 1 << 12    # the longest count run of the directed phases


class _Counter:
    """A cycle model of the counter after each edge: the contract's by default, or one with a
    known mistake, kept beside it to say what a wrong design does."""

    def __init__(self, w: int, bits: int | None = None, code="reflected", late=False, ignore_en=False,
                 start=0, saturate=False, ahead=False):
        self.mask = (1 << w) - 1
        self.top = (1 << (bits or w)) - 1      # the counter's own width may differ from W
        self.code, self.late, self.ignore_en = code, late, ignore_en
        self.start, self.saturate = start, saturate
        self.ahead = ahead                      # outputs show the count plus the en being applied
        self.count = 0
        self.shown = 0                          # the count that gray encodes
        self.en = 0                             # en as the outputs are read

    def step(self, inputs: dict) -> None:
        self.en = inputs["en"] & 1
        if not inputs["rst_n"]:
            self.count = self.shown = self.start
            return
        before = self.count
        if (inputs["en"] & 1 or self.ignore_en) and not (self.saturate and before == self.top):
            self.count = (before + 1) & self.top
        self.shown = before if self.late else self.count

    def outputs(self) -> tuple[int, int]:
        if self.ahead:
            s = (self.count + self.en) & self.top
            return s & self.mask, (s ^ (s >> 1)) & self.mask
        s = self.shown
        gray = s ^ (s >> 1) if self.code == "reflected" else s ^ (s << 1) if self.code == "shift_left" else s
        return self.count & self.mask, gray & self.mask


class GrayCounterChecker(Checker):
    """An exact model of `gray_counter`: bin and gray after every edge, and unchanged until the
    next edge. Models of common mistakes run beside it; when an output fails, a model that has
    matched every output so far names the mistake, or else one that has matched that output."""
    slug = "gray_counter"

    def __init__(self, params: dict[str, int]):
        super().__init__(params)
        self.w = w = params.get("W", 4)
        self.model: _Counter | None = None      # None before the first reset
        self.prev = (0, 0)                      # the model's (bin, gray) before this cycle's edge
        self.held_since = ""                    # the last change of the count, for messages
        # (model of a mistake, what it does); alive: per output, the models that have matched the
        # design's value after every edge, the first of them named when that output fails
        self.mistakes: list[tuple[_Counter, str]] = [
            (_Counter(w, start=1), "a counter that resets to 1; bin must be 0 after a reset"),
            (_Counter(w, ignore_en=True),
             "a counter that increments at every edge; it must hold its value while en is low"),
            (_Counter(w, code="shift_left"),
             "gray computed as bin ^ (bin << 1); the binary-reflected Gray code is bin ^ (bin >> 1)"),
            (_Counter(w, code="none"), "gray equal to bin, with no Gray encoding"),
            (_Counter(w, late=True),
             "gray registered from bin's value before the edge, one increment behind bin; gray must "
             "encode the same count as bin"),
            (_Counter(w, saturate=True), f"a counter that stops at {(1 << w) - 1}; it must wrap to 0"),
            (_Counter(w, ahead=True),
             "the count plus en, decoded without a clock edge; bin and gray must show the state, "
             "changing only at rising edges of clk"),
        ]
        # A count wider than W: its extra bits reach gray's top bit after the wrap. At W=2 a 3-bit and
        # a 4-bit count show the same outputs, hence one sentence for both.
        wider = (f"a counter wider than W={w} bits, its extra bits reaching gray's top bit after the wrap; "
                 f"the count must be W bits wide")
        self.mistakes.append((_Counter(w, bits=w + 1), wider))
        if w < 4:    # the statement's default width, written in by hand
            self.mistakes.append((_Counter(w, bits=4), wider))
        elif w > 4:
            self.mistakes.append((_Counter(w, bits=4),
                                  f"a 4-bit counter whatever W; the count must be W={w} bits wide"))
        self.alive = {sig: list(range(len(self.mistakes))) for sig in ("bin", "gray")}

    def before_edge(self, cycle, inputs, outputs):
        if self.model is None or not inputs["rst_n"]:
            return None
        expected = dict(zip(("bin", "gray"), self.model.outputs()))
        for sig in ("bin", "gray"):
            if outputs[sig] != expected[sig]:
                show = self._show(sig)
                return Mismatch(sig, show(expected[sig]), show(outputs[sig]),
                                f"{sig} changed from {show(expected[sig])} to {show(outputs[sig])} when this "
                                f"cycle's inputs were applied (en={inputs['en']}) with no clock edge: bin and "
                                f"gray must come from the state, changing only at rising edges of clk")
        return None

    def after_edge(self, cycle, inputs, outputs):
        if self.model is None:
            if inputs["rst_n"]:
                return None
            self.model = _Counter(self.w)
        actual = (outputs["bin"], outputs["gray"])
        self.prev = self.model.outputs()
        self.model.step(inputs)
        for mistake, _ in self.mistakes:
            mistake.step(inputs)
        for i, sig in enumerate(("bin", "gray")):
            self.alive[sig] = [k for k in self.alive[sig] if self.mistakes[k][0].outputs()[i] == actual[i]]
        expected = self.model.outputs()
        for sig, want, got in zip(("bin", "gray"), expected, actual):
            if want != got:
                show = self._show(sig)
                return Mismatch(sig, show(want), show(got), self._why(sig, cycle, inputs, got) + self._hint(sig))
        if not inputs["rst_n"]:
            self.held_since = f"the reset at cycle {cycle}"
        elif self.prev[0] != expected[0]:
            self.held_since = f"the increment at cycle {cycle}"
        return None

    def _hint(self, sig: str) -> str:
        both = [k for k in self.alive[sig] if all(k in alive for alive in self.alive.values())]
        if both:    # a model that explains every output comes first
            return f"; the outputs so far match {self.mistakes[both[0]][1]}"
        if self.alive[sig]:
            return f"; {sig} so far matches {self.mistakes[self.alive[sig][0]][1]}"
        return ""

    def _show(self, sig):
        return (lambda v: _hex(v, self.w)) if sig == "bin" else (lambda v: _bin(v, self.w))

    def _why(self, sig: str, cycle: int, inputs: dict, got: int) -> str:
        w, (count, gray) = self.w, self.model.outputs()
        prev = self.prev[0]
        if not inputs["rst_n"]:
            return ("bin should be 0 after an edge with rst_n low (a reset)" if sig == "bin" else
                    f"gray should be {_bin(0, w)} after a reset, the Gray code of 0")
        if sig == "bin":
            if inputs["en"]:
                wrap = f", wrapping at W={w} bits" if count == 0 else ""
                return f"en was high at this edge, so the count goes from {prev} to {count}{wrap}"
            return f"en was low at this edge, so bin should keep its value, {prev}, held since {self.held_since}"
        why = f"gray should be {_bin(gray, w)}, the Gray code of bin = {count} (bin ^ (bin >> 1))"
        if count == prev:
            return why + f"; the count did not change at this edge (en={inputs['en']})"
        flipped = (gray ^ self.prev[1]).bit_length() - 1
        changed = bin(got ^ self.prev[1]).count("1")
        wrap = " (the wrap)" if count == 0 else ""
        step = f"; from {prev} to {count}{wrap} only bit {flipped} of gray changes"
        if changed == 0:
            step += f", but the design's gray stayed {_bin(self.prev[1], w)}"
        elif changed > 1:
            step += f", but the design's gray changed {changed} bits from {_bin(self.prev[1], w)}"
        return why + step

    def stimulus(self, rng, cycles):
        full = 1 << self.w
        seq: list[dict[str, int]] = []

        def add(count, en, rst_n=1):
            seq.extend({"rst_n": rst_n, "en": en} for _ in range(count))

        add(2, 1, rst_n=0)                      # reset wins over en
        add(3, 0)                               # held at 0
        add(1, 1)                               # one increment, then held
        add(2, 0)
        for _ in range(6):                      # en every other edge
            add(1, 1)
            add(1, 0)
        # A whole wrap and past it, en never dropping. Up to W=12 only: at W=16 a wrap takes 65,536
        # edges, over twenty times a test's cycles, so there the run reaches bit 12 of the count.
        add(min(full, WRAP_LIMIT) + 3, 1)
        add(rng.randint(2, 5), 0)
        add(rng.randint(5, 40), 1)              # reset in the middle, the count away from 0, en high with it
        add(1, 1, rst_n=0)
        add(3, 1)
        directed = len(seq)
        while len(seq) < cycles:                # random en densities, with an occasional reset
            if rng.random() < 0.03:
                add(rng.randint(1, 2), rng.randint(0, 1), rst_n=0)
            p = rng.choice((0.1, 0.5, 0.9, 1.0))
            for _ in range(rng.randint(8, 80)):
                add(1, int(rng.random() < p))
        return seq[:max(cycles, directed)]
