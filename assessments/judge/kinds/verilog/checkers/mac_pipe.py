"""The `mac_pipe` task's checker (the contract in the task's statement)."""
from __future__ import annotations

from collections import deque

from .base import Checker, Mismatch, _hex

LATENCY = 2


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


class _Slot:
    """An edge's input as the pipeline carries it."""
    __slots__ = ("valid", "clear", "a", "b", "cycle", "reset")

    def __init__(self, valid=0, clear=0, a=0, b=0, cycle=-1, reset=None):
        self.valid, self.clear, self.a, self.b, self.cycle = valid, clear, a, b, cycle
        self.reset = reset      # the reset cycle that emptied this slot, if any


class _Mac:
    """A cycle model of the accumulator after each edge: the contract's by default, or one with a
    known mistake, kept beside it to say what a wrong design does."""

    def __init__(self, w: int, lat=LATENCY, clear_lat=None, valid_lat=None, signed=True, bits=None,
                 clear_keeps=True, flush=True):
        self.w, self.out_bits = w, 2 * w + 8
        self.bits = bits or self.out_bits
        self.lat = lat
        self.clear_lat = lat if clear_lat is None else clear_lat
        self.valid_lat = lat if valid_lat is None else valid_lat
        self.signed, self.clear_keeps, self.flush = signed, clear_keeps, flush
        self.depth = max(self.lat, self.clear_lat, self.valid_lat) + 1
        self.slots: deque = deque([_Slot()] * self.depth, maxlen=self.depth)
        self.sum = 0            # signed, within self.bits
        self.valid = 0

    def product(self, slot: _Slot) -> int:
        if not slot.valid:
            return 0
        if self.signed:
            return _signed(slot.a, self.w) * _signed(slot.b, self.w)
        return slot.a * slot.b

    def step(self, cycle: int, inputs: dict) -> None:
        mask = (1 << self.w) - 1
        taken = _Slot(inputs["in_valid"] & 1, inputs["clear"] & 1, inputs["a"] & mask, inputs["b"] & mask, cycle)
        if not inputs["rst_n"]:
            if self.flush:
                self.slots.extend([_Slot(cycle=cycle, reset=cycle)] * self.depth)
            else:   # the mistake: only acc and out_valid reset, the pipeline runs on
                self.slots.append(taken)
            self.sum = self.valid = 0
            return
        self.slots.append(taken)
        landing, clearing = self.slots[-1 - self.lat], self.slots[-1 - self.clear_lat]
        base = 0 if clearing.clear else self.sum
        if clearing.clear and not self.clear_keeps:
            landing = _Slot()
        self.sum = _signed(base + self.product(landing), self.bits)
        self.valid = self.slots[-1 - self.valid_lat].valid

    def outputs(self) -> tuple[int, int]:
        return self.sum & ((1 << self.out_bits) - 1), self.valid


class MacPipeChecker(Checker):
    """An exact model of `mac_pipe`: acc and out_valid after every edge, and unchanged until the
    next edge. Models of common mistakes run beside it; when the design fails, one that has
    matched every output so far names the mistake."""
    slug = "mac_pipe"

    def __init__(self, params: dict[str, int]):
        super().__init__(params)
        self.w = w = params.get("W", 8)
        self.bits = 2 * w + 8
        self.model: _Mac | None = None      # None before the first reset
        self.before_sum = 0                 # the model's acc before this cycle's edge, signed
        self.mistakes: list[tuple[_Mac, str]] = [
            (_Mac(w, signed=False),
             "the outputs so far match a and b multiplied as unsigned numbers; they are two's complement"),
            (_Mac(w, lat=0, clear_lat=0, valid_lat=0),
             "the outputs so far match no pipeline at all, each product added at the edge that takes it"),
            (_Mac(w, lat=1, clear_lat=1, valid_lat=1),
             "the outputs so far match a pipeline one stage short, each product reaching acc one edge after "
             "the edge that takes it"),
            (_Mac(w, lat=3, clear_lat=3, valid_lat=3),
             "the outputs so far match a pipeline one stage too long, each product reaching acc three edges "
             "after the edge that takes it"),
            (_Mac(w, clear_lat=3),
             "the outputs so far match clear acting one edge late; clear must act on the sum with the "
             "product of its own edge"),
            (_Mac(w, clear_lat=1),
             "the outputs so far match clear acting one edge early; clear must act on the sum with the "
             "product of its own edge"),
            (_Mac(w, clear_keeps=False),
             "the outputs so far match clear dropping its own edge's product; with in_valid high, the sum "
             "restarts with that product"),
            (_Mac(w, bits=2 * w),
             f"the outputs so far match an accumulator of {2 * w} bits, sign-extended; the sum must be "
             f"kept to {self.bits} bits"),
            (_Mac(w, valid_lat=0),
             "the outputs so far match out_valid registered straight from in_valid, without the pipeline's "
             "two stages"),
            (_Mac(w, valid_lat=1),
             "the outputs so far match out_valid delayed one stage less than the product"),
            (_Mac(w, valid_lat=3),
             "the outputs so far match out_valid delayed one stage more than the product"),
            (_Mac(w, flush=False),
             "the outputs so far match a reset that leaves inputs in the pipeline; reset must discard the "
             "inputs taken before it"),
        ]

    def before_edge(self, cycle, inputs, outputs):
        if self.model is None or not inputs["rst_n"]:
            return None
        expected = dict(zip(("acc", "out_valid"), self.model.outputs()))
        for sig in ("acc", "out_valid"):
            if outputs[sig] != expected[sig]:
                show = (lambda v: _hex(v, self.bits)) if sig == "acc" else str
                return Mismatch(sig, show(expected[sig]), show(outputs[sig]),
                                f"{sig} changed from {show(expected[sig])} to {show(outputs[sig])} when this "
                                f"cycle's inputs were applied ({self._inputs(inputs)}) with no clock edge: acc "
                                f"and out_valid must change only at rising edges of clk")
        return None

    def after_edge(self, cycle, inputs, outputs):
        if self.model is None:
            if inputs["rst_n"]:
                return None
            self.model = _Mac(self.w)
        actual = (outputs["acc"], outputs["out_valid"])
        self.before_sum = self.model.sum
        self.model.step(cycle, inputs)
        for mistake, _ in self.mistakes:
            mistake.step(cycle, inputs)
        self.mistakes = [(m, why) for m, why in self.mistakes if m.outputs() == actual]
        acc, valid = self.model.outputs()
        hint = f"; {self.mistakes[0][1]}" if self.mistakes else ""
        if actual[0] != acc:
            return Mismatch("acc", _hex(acc, self.bits), _hex(actual[0], self.bits),
                            self._why_acc(cycle, inputs) + hint)
        if actual[1] != valid:
            return Mismatch("out_valid", str(valid), str(actual[1]), self._why_valid(cycle, inputs) + hint)
        return None

    def _inputs(self, inputs):
        w = self.w
        return (f"in_valid={inputs['in_valid']}, clear={inputs['clear']}, a={_signed(inputs['a'], w)}, "
                f"b={_signed(inputs['b'], w)}")

    def _emptied(self, cycle, inputs, sig, want) -> str | None:
        """The sentence when a reset explains the expected value."""
        if not inputs["rst_n"]:
            return f"{sig} should be {want} after a reset edge"
        slot = self.model.slots[-1 - LATENCY]
        if slot.reset is not None:
            return (f"{sig} should be {want}: the reset at cycle {slot.reset} discards the inputs in the "
                    f"pipeline, and the first input it counts is taken at the edge after it")
        return None

    def _why_acc(self, cycle, inputs) -> str:
        m = self.model
        want = m.sum
        emptied = self._emptied(cycle, inputs, "acc", want)
        if emptied:
            return emptied
        slot = m.slots[-1 - LATENCY]
        at = f"at cycle {slot.cycle}, two edges before"
        a, b = _signed(slot.a, self.w), _signed(slot.b, self.w)
        product = f"{a} * {b} = {a * b}"
        if slot.clear and slot.valid:
            return (f"acc should be {want}: clear and in_valid were high {at}, so the sum restarts with that "
                    f"edge's product, {product}")
        if slot.clear:
            return f"acc should be 0: clear was high {at} with in_valid low, so the sum restarts at 0"
        if not slot.valid:
            return f"acc should keep its value, {want}: in_valid was low {at}"
        wrapped = self.before_sum + a * b != want
        return (f"acc should be {want}: its value after the last edge, {self.before_sum}, plus the product taken "
                f"{at}, {product}" + (f", wrapped to {self.bits} bits" if wrapped else ""))

    def _why_valid(self, cycle, inputs) -> str:
        want = self.model.valid
        emptied = self._emptied(cycle, inputs, "out_valid", want)
        if emptied:
            return emptied
        slot = self.model.slots[-1 - LATENCY]
        return (f"out_valid should be {want}: in_valid was {slot.valid} at cycle {slot.cycle}, two edges "
                f"before, and out_valid follows it two edges later, with the acc that includes its product")

    def stimulus(self, rng, cycles):
        w = self.w
        lo, hi, mask = -(1 << (w - 1)), (1 << (w - 1)) - 1, (1 << w) - 1
        seq: list[dict[str, int]] = []

        def add(count, valid, clear=0, rst_n=1, a=None, b=None):
            for _ in range(count):
                seq.append({"rst_n": rst_n, "in_valid": valid, "clear": clear,
                            "a": rng.getrandbits(w) if a is None else a & mask,
                            "b": rng.getrandbits(w) if b is None else b & mask})

        add(2, 1, 1, rst_n=0)                 # reset wins over in_valid and clear
        add(3, 0)                             # invalid inputs add nothing
        add(1, 1)                             # one product, then it must stay
        add(3, 0)
        add(8, 1)                             # a burst
        for _ in range(6):                    # valid gaps
            add(1, 1)
            add(1, 0)
        add(1, 1, 1)                          # clear with a product: the sum restarts with it
        add(4, 1)
        add(1, 0, 1)                          # clear without one: the sum restarts at 0
        add(3, 1)
        add(3, 1, 1)                          # a burst of clears
        add(2, 1)
        for _ in range(4):                    # clear every other edge
            add(1, 1, 1)
            add(1, 1)
        add(2, 0, 1)                          # clears with no data, then idle
        add(2, 0)
        for a, b in ((lo, lo), (lo, hi), (hi, lo), (hi, hi), (-1, -1), (lo, -1), (-1, lo), (0, lo),
                     (hi, -1), (1, lo), (lo, 1), (-1, hi)):
            add(1, 1, a=a, b=b)               # extreme operands
        # Overflow both ways: the largest products until the sum wraps past its most positive
        # and its most negative value.
        top = 1 << (2 * w + 7)
        add(1, 1, 1, a=lo, b=lo)
        add(top // (lo * lo) + 8, 1, a=lo, b=lo)
        add(1, 1, 1, a=lo, b=hi)
        add(-(-top // -(lo * hi)) + 8, 1, a=lo, b=hi)
        add(3, 1)                             # reset with products and a clear in flight
        add(1, 1, 1)
        add(1, 1, rst_n=0)
        add(4, 1)
        add(2, 0)
        directed = len(seq)
        styles = ("random", "extreme", "small")
        while len(seq) < cycles:              # random segments: valid and clear densities, operand styles
            if rng.random() < 0.03:
                add(rng.randint(1, 2), rng.randint(0, 1), rng.randint(0, 1), rst_n=0)
            p_valid = rng.choice((0.3, 0.7, 1.0))
            p_clear = rng.choice((0.0, 0.02, 0.1, 0.5))
            style = rng.choice(styles)
            for _ in range(rng.randint(10, 80)):
                if style == "extreme":
                    a, b = rng.choice((lo, hi, -1, 0, 1)), rng.choice((lo, hi, -1, 0, 1))
                elif style == "small":
                    a, b = rng.randint(max(lo, -3), min(hi, 3)), rng.randint(max(lo, -3), min(hi, 3))
                else:
                    a = b = None
                add(1, int(rng.random() < p_valid), int(rng.random() < p_clear), a=a, b=b)
        return seq[:max(cycles, directed)]
