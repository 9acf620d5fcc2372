"""The `uart_tx` task's checker (the contract in the task's statement)."""
from __future__ import annotations

from .base import Checker, Mismatch, _hex

IDLE = (1, 0)   # (tx, busy) with no frame on the line


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _bit_name(i: int) -> str:
    return "the start bit" if i == 0 else "the stop bit" if i == 9 else f"data[{i - 1}]"


class _Line:
    """A cycle model of a transmitter after each edge: the contract's by default, or one with a
    known mistake, kept beside it to say what a wrong design does."""

    def __init__(self, n: int, bit_len: int | None = None, stop_len: int | None = None, msb_first=False,
                 restart=False, chain=True, busy_in_stop=True, latch=True):
        self.n = n
        self.bit_len = bit_len or n
        self.stop_len = self.bit_len if stop_len is None else stop_len
        self.length = 9 * self.bit_len + self.stop_len     # edges from acceptance to the frame's end
        self.msb_first, self.restart, self.chain = msb_first, restart, chain
        self.busy_in_stop, self.latch = busy_in_stop, latch
        self.byte: int | None = None    # the byte on the line; None when idle
        self.live = 0                   # data at the last edge
        self.t = 0                      # edges since the byte was accepted
        self.at = 0                     # the cycle that accepted it
        self.ended: tuple = ()          # why the line is idle: ("reset", cycle) or ("frame", cycle, byte, at)
        self.ignored: list[int] = []    # cycles of the starts ignored during this frame

    def step(self, cycle: int, inputs: dict) -> None:
        start, data = inputs["start"] & 1, inputs["data"] & 0xFF
        self.live = data
        if not inputs["rst_n"]:
            self.byte, self.ended = None, ("reset", cycle)
        elif self.byte is None:
            if start:
                self._accept(cycle, data)
        elif self.t + 1 >= self.length:
            self.ended = ("frame", cycle, self.byte, self.at)
            self.byte = None
            if start and self.chain:
                self._accept(cycle, data)
        elif start and self.restart:
            self._accept(cycle, data)
        else:
            self.t += 1
            if start:
                self.ignored.append(cycle)

    def _accept(self, cycle: int, data: int) -> None:
        self.byte, self.t, self.at, self.ignored = data, 0, cycle, []

    @property
    def bit(self) -> int:
        return self.t // self.bit_len if self.t < 9 * self.bit_len else 9

    def outputs(self) -> tuple[int, int]:
        if self.byte is None:
            return IDLE
        i = self.bit
        if i == 0:
            return 0, 1
        if i == 9:
            return 1, int(self.busy_in_stop)
        byte = self.byte if self.latch else self.live
        return byte >> (8 - i if self.msb_first else i - 1) & 1, 1


class UartTxChecker(Checker):
    """An exact model of `uart_tx`: tx and busy after every edge, and unchanged until the next
    edge. Models of common mistakes run beside it; when the design fails, one that has matched
    every output so far names the mistake."""
    slug = "uart_tx"

    def __init__(self, params: dict[str, int]):
        super().__init__(params)
        self.n = n = params.get("CLKS_PER_BIT", 16)
        self.model: _Line | None = None     # None before the first reset
        # (model of a mistake, what it means): the first one still consistent is named; "restart" is
        # worded when named, as it cites the cycle of the start that was ignored
        self.mistakes: list[tuple[_Line, str]] = [
            (_Line(n, restart=True), "restart"),
            (_Line(n, chain=False),
             "the outputs so far match a transmitter that accepts a byte only when idle, which leaves an "
             "idle cycle between frames sent back to back"),
            (_Line(n, busy_in_stop=False),
             "the outputs so far match busy falling as the stop bit begins; busy must stay high through "
             "the stop bit, until the edge that ends it"),
            (_Line(n, stop_len=0),
             f"the outputs so far match frames without a stop bit: after data[7], tx must be 1 for "
             f"CLKS_PER_BIT={n} cycles with busy still high"),
            (_Line(n, stop_len=n - 1),
             f"the outputs so far match a stop bit one cycle short; it must last CLKS_PER_BIT={n} cycles "
             f"like the other bits"),
            (_Line(n, bit_len=n + 1),
             f"the outputs so far match bits that last {n + 1} cycles instead of CLKS_PER_BIT={n} (a bit "
             f"counter that counts one cycle too many)"),
            (_Line(n, bit_len=n - 1),
             f"the outputs so far match bits that last {n - 1} cycles instead of CLKS_PER_BIT={n} (a bit "
             f"counter that stops one cycle early)"),
            (_Line(n, msb_first=True),
             "the outputs so far match a transmitter that sends the byte MSB first; data[0] must follow "
             "the start bit"),
            (_Line(n, latch=False),
             "the outputs so far match a transmitter that sends from `data` as it is at each edge; the "
             "byte must be taken at the edge that accepts it, as data may change while busy"),
        ]

    def before_edge(self, cycle, inputs, outputs):
        if self.model is None or not inputs["rst_n"]:
            return None
        expected = dict(zip(("tx", "busy"), self.model.outputs()))
        for sig in ("tx", "busy"):
            if outputs[sig] != expected[sig]:
                return Mismatch(sig, str(expected[sig]), str(outputs[sig]),
                                f"{sig} changed from {expected[sig]} to {outputs[sig]} when this cycle's inputs "
                                f"were applied (start={inputs['start']}, data={_hex(inputs['data'], 8)}) with no "
                                f"clock edge: tx and busy must change only at rising edges of clk")
        return None

    def after_edge(self, cycle, inputs, outputs):
        if self.model is None:
            if inputs["rst_n"]:
                return None
            self.model = _Line(self.n)
        actual = (outputs["tx"], outputs["busy"])
        self.model.step(cycle, inputs)
        for mistake, _ in self.mistakes:
            mistake.step(cycle, inputs)
        self.mistakes = [(m, why) for m, why in self.mistakes if m.outputs() == actual]
        expected = self.model.outputs()
        for sig, want, got in zip(("tx", "busy"), expected, actual):
            if want != got:
                return Mismatch(sig, str(want), str(got), self._why(sig, want, cycle, inputs) + self._hint())
        return None

    def _hint(self) -> str:
        if not self.mistakes:
            return ""
        mistake, why = self.mistakes[0]
        if why == "restart":
            first = self.model.ignored[0] if self.model.ignored else mistake.at
            why = (f"start was high at cycle {first}, while this frame was being sent, and the outputs since "
                   f"match starting over with the byte then on data; start must be ignored until the edge "
                   f"that ends the stop bit")
        return "; " + why

    def _frame(self) -> str:
        m = self.model
        return f"byte {_hex(m.byte, 8)}, accepted at cycle {m.at}"

    def _idle(self) -> str:
        ended = self.model.ended
        if ended[0] == "reset":
            return f"start has been low since the reset at cycle {ended[1]}"
        _, at_end, byte, at = ended
        return (f"the frame of byte {_hex(byte, 8)} (accepted at cycle {at}) ended at the edge of cycle "
                f"{at_end}, and start has been low since")

    def _why(self, sig: str, want: int, cycle: int, inputs: dict) -> str:
        m, n = self.model, self.n
        if not inputs["rst_n"]:
            return f"{sig} should be {want} after a reset edge: a reset leaves the transmitter idle"
        if m.byte is None:
            if m.ended == ("reset", cycle) or m.ended[1] != cycle:
                return f"{sig} should be {want} with the transmitter idle: {self._idle()}"
            return (f"{sig} should be {want} after this edge, which ends the stop bit of byte "
                    f"{_hex(m.ended[2], 8)} (accepted at cycle {m.ended[3]}, {10 * n} cycles before), with "
                    f"start low: the transmitter is idle again")
        if m.t == 0:
            if m.ended[0] == "frame" and m.ended[1] == cycle:
                free = (f"this edge ends the stop bit of byte {_hex(m.ended[2], 8)} (accepted at cycle "
                        f"{m.ended[3]}) and start is high at it")
            else:
                free = "start is high at this edge with the transmitter idle"
            then = ("tx should be 0, the start bit beginning right after this edge" if sig == "tx" else
                    f"busy should be 1 from this edge until the one that ends the stop bit (cycle {cycle + 10 * n})")
            return f"{free}, so byte {_hex(m.byte, 8)} is accepted here: {then}"
        i = m.bit
        where = (f"{_bit_name(i)} of {self._frame()}, in its {_ordinal(m.t - i * n + 1)} of CLKS_PER_BIT={n} "
                 f"cycles")
        if sig == "busy":
            return (f"busy should stay high until the edge that ends the stop bit (cycle {m.at + 10 * n}); the "
                    f"line is in {where}")
        return f"tx should be {want}, {where}"

    def stimulus(self, rng, cycles):
        n, frame = self.n, 10 * self.n
        seq: list[dict[str, int]] = []

        def add(count, start=0, rst_n=1, data=None):
            for _ in range(count):
                seq.append({"rst_n": rst_n, "start": start,
                            "data": rng.getrandbits(8) if data is None else data})

        def pulses(offsets, span, data=None):
            """A start pulse at each offset from now, low otherwise, for `span` cycles."""
            for off in range(span):
                add(1, int(off in offsets), data=data if off == 0 else None)

        add(2, 1, rst_n=0)                        # reset wins over start
        add(3)                                    # idle: tx high, busy low
        pulses({0}, frame + 2, data=0x00)         # all zeros, then idle again
        pulses({0}, frame + 2, data=0xFF)         # all ones
        pulses({0}, frame + 2, data=0x01)         # a lone one: the bit order
        # start while busy, at several points of the frame, the last one edge before its end: ignored
        pulses({0, 1, n - 1, n, 5 * n + n // 2, frame - 1}, frame + 3)
        add(frame + 1, 1)                         # start held high: two frames back to back, data changing
        add(frame + 2)
        # a pulse at the edge that ends the stop bit (accepted back to back), then one edge after it
        pulses({0, frame, 2 * frame + 1}, 3 * frame + 3)
        add(frame + 5)                            # long idle
        pulses({0}, 4 * n + 3)                    # reset in the middle of a frame, start high with it
        add(1, 1, rst_n=0)
        pulses({0}, frame + 2)                    # a byte at the first edge after the reset
        directed = len(seq)
        while len(seq) < cycles:                  # random start densities, with an occasional reset
            if rng.random() < 0.05:
                add(rng.randint(1, 2), rng.randint(0, 1), rst_n=0)
            p = rng.choice((0.0, 0.3 / frame, 1.0 / frame, 3.0 / frame, 0.2, 0.9, 1.0))
            for _ in range(rng.randint(frame // 2, 3 * frame)):
                add(1, int(rng.random() < p))
        return seq[:max(cycles, directed)]
