"""The `crc8` task's checker (the contract in the task's statement)."""
from __future__ import annotations

from .base import Checker, Mismatch, _hex

POLY = 0x07
CHECK = b"123456789"    # the CRC catalogue's check string; its CRC-8/SMBUS is 0xF4
SHOWN = 12              # bytes of the current message quoted in a message


def _absorb(crc: int, data: int, poly: int = POLY, bits=range(7, -1, -1)) -> int:
    """The register after taking `data`'s bits in the order `bits`, each shifted in at the top."""
    for i in bits:
        feedback = (crc >> 7 ^ data >> i) & 1
        crc = (crc << 1 & 0xFF) ^ (poly if feedback else 0)
    return crc


def _absorb_reflected(crc: int, data: int) -> int:
    """The reflected form (LSB first, shifting right with 0x07 bit-reversed): another CRC."""
    crc ^= data
    for _ in range(8):
        crc = crc >> 1 ^ (0xE0 if crc & 1 else 0)
    return crc


class _Crc:
    """A cycle model of the register after each edge: the contract's by default, or one with a
    known mistake, kept beside it to say what a wrong design does."""

    def __init__(self, absorb=_absorb, seed=0, init="wins", ignore_valid=False, late=False, ahead=False):
        self.absorb, self.seed, self.init = absorb, seed, init
        self.ignore_valid, self.late = ignore_valid, late
        self.ahead = ahead          # crc shows the register with this cycle's byte already taken
        self.reg = self.shown = seed
        self.pending: int | None = None     # the byte on data with valid high, as crc is read

    def step(self, inputs: dict) -> None:
        init, valid, data = inputs["init"] & 1, inputs["valid"] & 1 or self.ignore_valid, inputs["data"] & 0xFF
        self.shown = self.reg
        self.pending = data if valid else None
        if not inputs["rst_n"]:
            self.reg = self.shown = self.seed
        elif init and self.init == "wins":
            self.reg = self.seed
        elif init and self.init == "keeps_byte":     # the byte at the init edge starts the message
            self.reg = self.absorb(self.seed, data) if valid else self.seed
        elif init and self.init == "after_valid" and not valid:
            self.reg = self.seed
        elif valid:
            self.reg = self.absorb(self.reg, data)

    def output(self) -> int:
        if self.ahead and self.pending is not None:
            return self.absorb(self.reg, self.pending)
        return self.shown if self.late else self.reg


class Crc8Checker(Checker):
    """An exact model of `crc8`: crc after every edge, and unchanged until the next edge. Models
    of common mistakes run beside it; when the design fails, one that has matched every output so
    far names the mistake."""
    slug = "crc8"

    def __init__(self, params: dict[str, int]):
        super().__init__(params)
        self.model: _Crc | None = None      # None before the first reset
        self.prev = 0                       # the model's crc before this cycle's edge
        self.message: list[int] = []        # the bytes taken since the restart
        self.restart = ""                   # what started the message, for messages
        self.mistakes: list[tuple[_Crc, str]] = [
            (_Crc(seed=0xFF),
             "the outputs so far match a register that starts at 8'hff; CRC-8/SMBUS starts at 8'h00, after "
             "a reset and after init"),
            (_Crc(absorb=lambda c, d: _absorb(c, d, bits=range(8))),
             "the outputs so far match each byte taken LSB first, data[0] first; the bits go in data[7] "
             "first"),
            (_Crc(absorb=_absorb_reflected),
             "the outputs so far match a reflected CRC (the register shifting right with 8'he0, data[0] "
             "first); this CRC has no reflection: it shifts left with 8'h07, data[7] first"),
            (_Crc(absorb=lambda c, d: _absorb(c, d, poly=0x31)),
             "the outputs so far match the polynomial 8'h31 (x^8+x^5+x^4+1); this CRC's is 8'h07 "
             "(x^8+x^2+x+1)"),
            (_Crc(absorb=lambda c, d: _absorb(c, d, bits=range(7, 0, -1))),
             "the outputs so far match 7 bits taken per byte, data[7] to data[1]; all 8 bits go in at each "
             "edge with valid high"),
            (_Crc(absorb=lambda c, d: _absorb(c, d, bits=range(6, -1, -1))),
             "the outputs so far match 7 bits taken per byte, data[6] to data[0]; all 8 bits go in at each "
             "edge with valid high"),
            (_Crc(init="after_valid"),
             "the outputs so far match valid taking priority over init; init must restart the register at "
             "8'h00 even with valid high, discarding that edge's byte"),
            (_Crc(init="keeps_byte"),
             "the outputs so far match init with valid high starting the new message with that edge's byte; "
             "at an edge with init high the register becomes 8'h00 and the byte is discarded"),
            (_Crc(init="never"),
             "the outputs so far match init having no effect; it must restart the register at 8'h00"),
            (_Crc(ignore_valid=True),
             "the outputs so far match data absorbed at every edge; with valid low the register must keep "
             "its value"),
            (_Crc(ahead=True),
             "the outputs so far match crc showing the register with the byte on data already absorbed "
             "while valid is high; crc must be the register, changing only at rising edges of clk"),
            (_Crc(late=True),
             "the outputs so far match crc one edge late, as if registered again from the CRC register; crc "
             "must be the register itself"),
        ]

    def before_edge(self, cycle, inputs, outputs):
        if self.model is None or not inputs["rst_n"]:
            return None
        want = self.model.output()
        if outputs["crc"] != want:
            return Mismatch("crc", _hex(want, 8), _hex(outputs["crc"], 8),
                            f"crc changed from {_hex(want, 8)} to {_hex(outputs['crc'], 8)} when this cycle's "
                            f"inputs were applied ({self._inputs(inputs)}) with no clock edge: crc must change "
                            f"only at rising edges of clk")
        return None

    def after_edge(self, cycle, inputs, outputs):
        if self.model is None:
            if inputs["rst_n"]:
                return None
            self.model = _Crc()
        actual = outputs["crc"]
        self.prev = self.model.output()
        self.model.step(inputs)
        for mistake, _ in self.mistakes:
            mistake.step(inputs)
        self.mistakes = [(m, why) for m, why in self.mistakes if m.output() == actual]
        if not inputs["rst_n"] or inputs["init"]:
            self.message, self.restart = [], f"{'reset' if not inputs['rst_n'] else 'init'} at cycle {cycle}"
        elif inputs["valid"]:
            self.message.append(inputs["data"] & 0xFF)
        want = self.model.output()
        if actual == want:
            return None
        hint = f"; {self.mistakes[0][1]}" if self.mistakes else ""
        return Mismatch("crc", _hex(want, 8), _hex(actual, 8), self._why(inputs, want) + hint)

    def _inputs(self, inputs) -> str:
        return f"init={inputs['init']}, valid={inputs['valid']}, data={_hex(inputs['data'], 8)}"

    def _bytes(self, message: list[int]) -> str:
        n = len(message)
        if not n:
            return "no bytes"
        shown = " ".join(f"{b:02x}" for b in message[-SHOWN:])
        known = f", \"{bytes(message).decode()}\", the check string" if bytes(message) == CHECK else ""
        return f"{n} byte{'s' * (n != 1)} (hex {'... ' * (n > SHOWN)}{shown}{known})"

    def _why(self, inputs: dict, want: int) -> str:
        if not inputs["rst_n"]:
            return "crc should be 8'h00 after an edge with rst_n low (a reset)"
        if inputs["init"]:
            dropped = (f", and the byte on data ({_hex(inputs['data'], 8)}, with valid high) is discarded"
                       if inputs["valid"] else "")
            return f"init was high at this edge, so crc restarts at 8'h00{dropped}"
        if not inputs["valid"]:
            return (f"valid was low at this edge, so crc should keep its value, {_hex(want, 8)}, and data "
                    f"({_hex(inputs['data'], 8)}) is ignored")
        return (f"valid was high with data={_hex(inputs['data'], 8)}, so the register, {_hex(self.prev, 8)}, "
                f"absorbs the byte data[7] first with the polynomial 8'h07; the message since the "
                f"{self.restart} is {self._bytes(self.message)}")

    def stimulus(self, rng, cycles):
        seq: list[dict[str, int]] = []

        def add(count=1, valid=0, init=0, rst_n=1, data=None):
            for _ in range(count):
                seq.append({"rst_n": rst_n, "init": init, "valid": valid,
                            "data": rng.getrandbits(8) if data is None else data})

        add(2, 1, rst_n=0)                      # reset wins over valid
        add(2)                                  # idle: data ignored
        for b in CHECK:                         # the check string back to back, then held
            add(1, 1, data=b)
        add(2)
        add(1, init=1)
        for b in CHECK:                         # again, with gaps in valid and data moving in them
            add(1, 1, data=b)
            add(rng.randint(0, 2))
        for b in (0x01, 0x80, 0x00, 0xFF, 0x31):
            add(1, init=1)                      # single bytes from a fresh start: the bit order
            add(1, 1, data=b)
        add(5, 1)
        add(1, 1, init=1)                       # init in the middle of a message, with valid high
        add(4, 1)
        add(2, 1, init=1)                       # init held with valid
        add(3, 1)
        add(1, init=1)                          # init without valid
        for _ in range(8):
            add(1, 1)
            add(rng.randint(0, 3))
        add(3, 1)
        add(1, 1, init=1, rst_n=0)              # reset in the middle of a message, init with it
        add(4, 1)
        add(1, 1, rst_n=0)
        add(4, 1)
        directed = len(seq)
        while len(seq) < cycles:                # random valid and init densities, with an occasional reset
            if rng.random() < 0.02:
                add(rng.randint(1, 2), rng.randint(0, 1), rng.randint(0, 1), rst_n=0)
            p_valid = rng.choice((0.3, 0.7, 1.0))
            p_init = rng.choice((0.0, 0.02, 0.1))
            for _ in range(rng.randint(8, 80)):
                add(1, int(rng.random() < p_valid), int(rng.random() < p_init))
        return seq[:max(cycles, directed)]
