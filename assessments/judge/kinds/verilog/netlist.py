"""A design as Yosys elaborates it for one parameter set: flattened, processes turned into
flip-flops and memories, read from `write_json` (`flatten`); a netlist changed here written back
as Verilog for Verilator (`to_verilog`); and the questions cdc.py asks of it (`Netlist`: who
drives a bit, who reads it, what a bit depends on combinationally). Runs in the compile sandbox
on the source text alone. Standard library only.
"""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

SOURCE_FILE = "design.sv"
TIMEOUT_S = 120
_ERROR = re.compile(r"^(?:(\S+:\d+): )?ERROR: (.*)$", re.M)

# Flip-flops (Yosys's internal cells): the pins they sample at their clock's edge, and the rest.
FLIP_FLOPS = {"$dff", "$dffe", "$adff", "$adffe", "$sdff", "$sdffe", "$sdffce", "$dffsr", "$dffsre",
              "$aldff", "$aldffe"}
SAMPLED = ("D", "EN", "SRST")
# Bitwise cells: output bit i depends on input bit i of each named port (and every bit of `whole`).
_BITWISE = {"$not": ("A",), "$pos": ("A",), "$buf": ("A",), "$and": ("A", "B"), "$or": ("A", "B"),
            "$xor": ("A", "B"), "$xnor": ("A", "B"), "$mux": ("A", "B"), "$bwmux": ("A", "B", "S")}
_WHOLE = {"$mux": ("S",)}


class YosysError(Exception):
    """Yosys refused the design (its first error), ran too long, or could not run."""

    def __init__(self, message: str, log: str = "", internal: bool = False, timed_out: bool = False):
        super().__init__(message)
        self.log = log
        self.internal = internal
        self.timed_out = timed_out


def yosys(workdir: str, script: str, quiet: bool = True) -> str:
    """Yosys's log of `script` run in `workdir` (paths there made relative); YosysError when it
    refuses. `quiet=False` keeps the warnings (synthesis reads latches and loops from them)."""
    try:
        r = subprocess.run(["yosys", *(["-q"] if quiet else []), "-p", script], cwd=workdir,
                           capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise YosysError(f"Yosys took longer than {TIMEOUT_S} s", timed_out=True) from None
    except OSError as exc:
        raise YosysError(f"cannot run Yosys: {exc}", internal=True) from None
    log = (r.stdout + r.stderr).replace(workdir + "/", "")
    if r.returncode != 0:
        errors = [f"{where}: {what}" if where else what for where, what in _ERROR.findall(log)]
        raise YosysError(f"Yosys: {errors[0] if errors else 'refused the design'}", log[-4000:])
    return log


def elaborate_script(top: str, params: dict) -> str:
    """The script's start for a design written to SOURCE_FILE: read, `top` at `params`,
    processes to flip-flops, one flat module."""
    chparams = " ".join(f"-chparam {k} {int(v)}" for k, v in sorted(params.items()))
    return f"read_verilog -sv {SOURCE_FILE}; hierarchy -check -top {top} {chparams}; proc; flatten"


def flatten(workdir: str, source: str, top: str, params: dict) -> dict:
    """The top module at `params` as Yosys's JSON netlist (one module, hierarchy flattened)."""
    Path(workdir, SOURCE_FILE).write_text(source)
    # opt_dff folds enables and synchronous resets into the flip-flops, so that a flip-flop's D
    # pin shows the signal it samples; memories stay memories (the storage is not flip-flops).
    yosys(workdir, f"{elaborate_script(top, params)}; opt_expr; opt_clean; opt_dff; memory -nomap; "
                   f"opt_clean; write_json netlist.json")
    modules = json.loads(Path(workdir, "netlist.json").read_text())["modules"]
    found = [m for m in modules.values() if number(m.get("attributes", {}).get("top", "0"))]
    if not found or number(found[0].get("attributes", {}).get("blackbox", "0")):
        raise YosysError(f"`{top}` has nothing in it yet (Yosys takes an empty module for a black box)")
    return found[0]


def to_verilog(workdir: str, top: str, module: dict) -> str:
    """`module` (a netlist as flatten gives it, perhaps changed) as Verilog."""
    Path(workdir, "changed.json").write_text(json.dumps({"modules": {top: module}}))
    yosys(workdir, "read_json changed.json; write_verilog -noattr netlist.v")
    return Path(workdir, "netlist.v").read_text()


def bits(value: str, count: int) -> list[int]:
    """A parameter's bits, least significant first (Yosys writes them most significant first)."""
    if isinstance(value, int):
        return [(value >> i) & 1 for i in range(count)]
    digits = value[::-1]
    return [int(digits[i]) if i < len(digits) and digits[i] in "01" else 0 for i in range(count)]


def number(value) -> int:
    return value if isinstance(value, int) else int(value.replace("x", "0") or "0", 2)


class Netlist:
    """One module of Yosys's JSON: drivers and readers of every bit, names for messages."""

    def __init__(self, module: dict):
        self.module = module
        self.cells: dict = module.get("cells", {})
        self.ports: dict = module.get("ports", {})
        self.driver: dict = {}      # bit -> (cell name or None for a port, pin, index)
        self.readers: dict = {}     # bit -> [(cell name or None for a port, pin, index)]
        for name, port in self.ports.items():
            for i, b in enumerate(port["bits"]):
                if not isinstance(b, int):
                    continue   # an output tied to a constant
                if port["direction"] == "input":
                    self.driver[b] = (None, name, i)
                else:
                    self.readers.setdefault(b, []).append((None, name, i))
        for name, cell in self.cells.items():
            directions = cell.get("port_directions", {})
            for pin, sig in cell.get("connections", {}).items():
                for i, b in enumerate(sig):
                    if not isinstance(b, int):
                        continue   # a constant
                    if directions.get(pin) == "output":
                        self.driver[b] = (name, pin, i)
                    else:
                        self.readers.setdefault(b, []).append((name, pin, i))
        self._names = self._bit_names()

    def _bit_names(self) -> dict:
        """bit -> (register, index): the shortest public name carrying it."""
        out: dict = {}
        nets = self.module.get("netnames", {})
        for name, net in sorted(nets.items(), key=lambda kv: (kv[1].get("hide_name", 0), len(kv[0]), kv[0])):
            offset, upto, width = net.get("offset", 0), net.get("upto", 0), len(net["bits"])
            for i, b in enumerate(net["bits"]):
                if isinstance(b, int) and b not in out:
                    index = offset + (width - 1 - i if upto else i)
                    out[b] = (name.lstrip("\\"), index if width > 1 or offset else None)
        return out

    def name(self, bit) -> str:
        reg, index = self.register(bit)
        return reg if index is None else f"{reg}[{index}]"

    def register(self, bit) -> tuple[str, int | None]:
        return self._names.get(bit, (f"net{bit}", None))

    def cell_name(self, cell: str) -> str:
        """A flip-flop or memory by the name of its output (what a designer called it)."""
        c = self.cells[cell]
        out = c["connections"].get("Q") or c["connections"].get("RD_DATA") or []
        named = [self.register(b)[0] for b in out if isinstance(b, int)]
        if named:
            return named[0]
        return c.get("parameters", {}).get("MEMID", cell).lstrip("\\")

    def inputs_of(self, cell: str, pin: str, index: int) -> list:
        """The input bits a combinational cell's output bit depends on."""
        c = self.cells[cell]
        conns, kind = c["connections"], c["type"]
        if kind in _BITWISE and all(len(conns.get(p, ())) == len(conns[pin]) for p in _BITWISE[kind]):
            deps = [conns[p][index] for p in _BITWISE[kind]]
            return deps + [b for p in _WHOLE.get(kind, ()) for b in conns[p]]
        if kind == "$pmux":
            width = len(conns["Y"])
            return [conns["A"][index], *conns["B"][index::width], *conns["S"]]
        directions = c.get("port_directions", {})
        return [b for p, sig in conns.items() if directions.get(p) != "output" for b in sig]

    def new_bits(self, count: int) -> list[int]:
        top = max([b for b in self.driver] + [b for b in self.readers] + [1])
        start = max(top, getattr(self, "_next", 0)) + 1
        self._next = start + count - 1
        return list(range(start, start + count))

    def fresh_name(self, stem: str) -> str:
        """A name no port, net or cell of the module uses."""
        taken = set(self.ports) | {n.lstrip("\\") for n in self.module.get("netnames", {})} | set(self.cells)
        name = stem
        while any(t.startswith(name) for t in taken):
            name += "x"
        return name
