"""Clock-domain crossings of a design with several clocks, read from its Yosys netlist
(netlist.py), and the judge's metastability model built into that netlist. Runs in the compile
sandbox on the source text alone. Standard library only.

The rules (the task's statement gives them): every flip-flop is clocked by one of the task's
clocks, straight from its port; a signal of one domain reaches a flip-flop of another only
through a synchronizer, a flip-flop of the destination domain whose pin D is the source
flip-flop's output itself (no logic between) and whose own output feeds only further flip-flops
of its domain (at least one: the second stage); an output of a domain depends on nothing of
another domain but through such a synchronizer; stored words may be read from another domain
(the pointers hold them still): a memory's, and flip-flops loaded from a domain's `data` inputs
(a FIFO's `wdata`); resets and clocks are outside these rules.

The model (`instrument`): for each source bit that synchronizers sample, a shadow flip-flop on
the source clock keeps the bit's value from before the source's latest edge, and a multiplexer
before the first stage gives that value instead of the current one when the judge's input
`late` asks for it. Outputs `now` and `was` show the judge both values; it sets `late` per
destination edge, only for bits whose source had an edge since the destination's last one
(metastability.py), so a bit that changed at the source's latest edge is seen one destination
cycle late, or on time.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import netlist
from .netlist import FLIP_FLOPS, SAMPLED, Netlist

CHUNK = 64      # bits per added port: the model's ports are at most 64 bits wide


@dataclass
class Crossing:
    """One source bit sampled by synchronizers of another domain."""
    bit: int
    source: str                 # the source's clock
    dest: str                   # the destination's clock
    stages: list = field(default_factory=list)   # (first-stage cell, index in its D pin)


class _Domains:
    """Which domain each flip-flop, memory port, input and output of the netlist belongs to."""

    def __init__(self, net: Netlist, domains: list[dict]):
        self.net = net
        self.clocks = [d["clock"] for d in domains]
        self.by_bit = {net.ports[d["clock"]]["bits"][0]: d["clock"] for d in domains if d["clock"] in net.ports}
        self.inputs = {p: d["clock"] for d in domains for p in d["inputs"]}
        self.outputs = {p: d["clock"] for d in domains for p in d["outputs"]}
        self.flops: dict[str, str | None] = {}
        for name, cell in net.cells.items():
            if cell["type"] in FLIP_FLOPS:
                self.flops[name] = self.by_bit.get(cell["connections"]["CLK"][0])
        self._memo: dict = {}
        data = {p for d in domains for p in d.get("data", ())}
        self.storage = {name for name in self.flops            # words loaded from a data input
                        if any(lf[0] == "in" and lf[1] in data
                               for b in net.cells[name]["connections"].get("D", ()) for lf in self.leaves(b))}

    def of_leaf(self, leaf) -> str | None:
        """The domain a leaf belongs to; None for what may cross freely (stored words)."""
        if leaf[0] == "q":
            cell = self.net.driver[leaf[1]][0]
            return None if cell in self.storage else self.flops.get(cell)
        if leaf[0] == "in":
            return self.inputs.get(leaf[1])
        return self.by_bit.get(leaf[2])   # a clocked read port: its clock

    def leaves(self, bit) -> frozenset:
        """What `bit` depends on combinationally: flip-flop outputs ("q", bit), the task's inputs
        ("in", name) and clocked memory read ports ("rd", cell, clock bit). A memory's stored
        words are not followed (see the module's rules); an asynchronous read follows its address."""
        if not isinstance(bit, int):
            return frozenset()
        stack = [bit]
        while stack:
            b = stack[-1]
            if b in self._memo:
                stack.pop()
                continue
            deps, direct = self._step(b)
            todo = [d for d in deps if isinstance(d, int) and d not in self._memo]
            if todo and not self._memo.get(("open", b)):
                self._memo[("open", b)] = True    # a combinational loop ends here (Yosys reports it)
                stack.extend(todo)
                continue
            out = set(direct)
            for d in deps:
                out |= self._memo.get(d, frozenset()) if isinstance(d, int) else set()
            self._memo[b] = frozenset(out)
            stack.pop()
        return self._memo[bit]

    def _step(self, bit) -> tuple[list, list]:
        """(bits to follow, leaves found) for one bit's driver."""
        drv = self.net.driver.get(bit)
        if drv is None:
            return [], []
        cell, pin, index = drv
        if cell is None:
            return [], ([("in", pin)] if pin in self.inputs else [])
        c = self.net.cells[cell]
        if c["type"] in FLIP_FLOPS:
            return [], [("q", bit)]
        if c["type"].startswith("$mem"):
            port = _read_port(c, index)
            if port["clocked"]:
                return [], [("rd", cell, port["clock"])]
            return port["addr"] + port["en"], []
        return self.net.inputs_of(cell, pin, index), []


def _read_port(cell: dict, data_index: int) -> dict:
    p, conns = cell["parameters"], cell["connections"]
    ports, width, abits = netlist.number(p["RD_PORTS"]), netlist.number(p["WIDTH"]), netlist.number(p["ABITS"])
    k = min(data_index // max(width, 1), max(ports - 1, 0))
    clocked = netlist.bits(p.get("RD_CLK_ENABLE", "0"), ports)[k]
    return {"clocked": bool(clocked), "clock": conns["RD_CLK"][k],
            "addr": conns["RD_ADDR"][k * abits:(k + 1) * abits], "en": conns["RD_EN"][k:k + 1]}


def _memory_pins(cell: dict) -> list[tuple[str, int, list]]:
    """(what, clock bit, sampled bits) of each write port and clocked read port of a memory."""
    p, conns = cell["parameters"], cell["connections"]
    out = []
    width, abits = netlist.number(p["WIDTH"]), netlist.number(p["ABITS"])
    ports = netlist.number(p.get("WR_PORTS", 0))
    for k in range(ports):
        sampled = (conns["WR_EN"][k * width:(k + 1) * width] + conns["WR_ADDR"][k * abits:(k + 1) * abits]
                   + conns["WR_DATA"][k * width:(k + 1) * width])
        out.append(("write port", conns["WR_CLK"][k], sampled))
    ports = netlist.number(p.get("RD_PORTS", 0))
    enabled = netlist.bits(p.get("RD_CLK_ENABLE", "0"), ports)
    for k in range(ports):
        if enabled[k]:
            out.append(("read port", conns["RD_CLK"][k],
                        conns["RD_ADDR"][k * abits:(k + 1) * abits] + conns["RD_EN"][k:k + 1]))
    return out


def analyze(net: Netlist, domains: list[dict]) -> tuple[list[Crossing], list[str]]:
    """The crossings through synchronizers, and every broken rule as a sentence."""
    dom = _Domains(net, domains)
    clocks = " or ".join(f"`{c}`" for c in dom.clocks)
    problems: list[str] = []
    for cell, clock in sorted(dom.flops.items()):
        if clock is None:
            clk = net.cells[cell]["connections"]["CLK"][0]
            problems.append(f"the flip-flop `{net.cell_name(cell)}` is clocked by `{net.name(clk)}`, not by "
                            f"{clocks} straight from its port, so its clock domain is unknown (derive or "
                            f"gate no clocks)")

    def foreign(bit, clock):
        return sorted((lf for lf in dom.leaves(bit) if dom.of_leaf(lf) not in (None, clock)), key=str)

    def what(leaf) -> str:
        if leaf[0] == "in":
            return f"the input `{leaf[1]}` of the `{dom.inputs[leaf[1]]}` side"
        if leaf[0] == "rd":
            return f"a read of the memory `{net.cell_name(leaf[1])}`, clocked by `{dom.of_leaf(leaf)}`,"
        return f"`{net.register(leaf[1])[0]}`, clocked by `{dom.of_leaf(leaf)}`,"

    for name, clock in sorted(dom.outputs.items()):
        for b in net.ports.get(name, {}).get("bits", []):
            bad = foreign(b, clock)
            if bad:
                problems.append(f"the output `{name}` of the `{clock}` side depends on {what(bad[0])} with no "
                                f"synchronizer between: a signal that crosses into `{clock}` must first be sampled "
                                f"by two flip-flops clocked by `{clock}`")
                break
    crossings: dict[tuple, Crossing] = {}
    for cell, clock in sorted(dom.flops.items()):
        if clock is None:
            continue
        conns = net.cells[cell]["connections"]
        for pin in SAMPLED:
            reported = False      # one sentence per pin: its bits usually cross together
            for i, b in enumerate(conns.get(pin, ())):
                bad = foreign(b, clock)
                if not bad:
                    continue
                drv = net.driver.get(b)
                logic = bool(drv) and drv[0] is not None and net.cells[drv[0]]["type"] not in FLIP_FLOPS
                if pin == "D" and bad == [("q", b)]:
                    source = dom.of_leaf(bad[0])
                    crossings.setdefault((b, clock), Crossing(b, source, clock)).stages.append((cell, i))
                    continue
                if reported:
                    continue
                reported = True
                problems.append(f"{what(bad[0])} reaches the `{clock}` flip-flop `{net.register(conns['Q'][i])[0]}` "
                                f"{'through logic' if logic else 'directly'}"
                                f"{'' if pin == 'D' else f' (its {_PIN[pin]})'}, with no synchronizer: a signal "
                                f"that crosses must first be sampled by a flip-flop clocked by `{clock}` fed by the "
                                f"source flip-flop alone, followed by a second one")
    for cell, c in sorted(net.cells.items()):
        if not c["type"].startswith("$mem"):
            continue
        for kind, clk, sampled in _memory_pins(c):
            clock = dom.by_bit.get(clk)
            bad = next((x for b in sampled for x in foreign(b, clock)), None) if clock else None
            if bad:
                problems.append(f"{what(bad)} reaches the {kind} of the memory `{net.cell_name(cell)}`, clocked by "
                                f"`{clock}`, with no synchronizer")
    for x in crossings.values():
        problems += _stage_problems(net, dom, x)
    return list(crossings.values()), list(dict.fromkeys(problems))   # a register's bits say the same


_PIN = {"EN": "enable", "SRST": "synchronous reset"}


def _stage_problems(net: Netlist, dom: _Domains, x: Crossing) -> list[str]:
    out = []
    for cell, i in x.stages:
        q = net.cells[cell]["connections"]["Q"][i]
        readers = net.readers.get(q, [])
        flops = [r for r in readers if r[0] is not None and dom.flops.get(r[0]) == x.dest and r[1] == "D"]
        first, source = net.register(q)[0], net.register(x.bit)[0]
        if not flops:
            out.append(f"`{first}` samples `{source}` (clocked by `{x.source}`) but no second flip-flop clocked by "
                       f"`{x.dest}` follows it: a synchronizer needs two in a row, the first may go metastable")
        elif len(flops) != len(readers):
            out.append(f"`{first}`, the first flip-flop of the synchronizer that brings `{source}` into `{x.dest}`, "
                       f"also feeds logic: use only the synchronizer's last stage, the first may be metastable")
    return out


def instrument(net: Netlist, crossings: list[Crossing]) -> dict:
    """The model of the module docstring, added to `net.module`; what the judge needs to drive it."""
    stem = net.fresh_name("kp_cdc_")
    module, n = net.module, len(crossings)
    late, shadow, muxed = net.new_bits(n), net.new_bits(n), net.new_bits(n)
    ports: dict[str, list] = {"late": [], "now": [], "was": []}
    for k, x in enumerate(crossings):
        src = net.cells[net.driver[x.bit][0]]
        clock = src["connections"]["CLK"]
        polarity = netlist.number(src["parameters"].get("CLK_POLARITY", "1"))
        module["cells"][f"{stem}shadow{k}"] = _cell("$dff", {"WIDTH": 1, "CLK_POLARITY": polarity},
                                                    {"CLK": clock, "D": [x.bit], "Q": [shadow[k]]}, ("Q",))
        module["cells"][f"{stem}mux{k}"] = _cell("$mux", {"WIDTH": 1},
                                                 {"A": [x.bit], "B": [shadow[k]], "S": [late[k]], "Y": [muxed[k]]}, ("Y",))
        for cell, i in x.stages:
            module["cells"][cell]["connections"]["D"][i] = muxed[k]
    for j in range(0, n, CHUNK):
        for role, direction, sig in (("late", "input", late), ("now", "output", [x.bit for x in crossings]),
                                     ("was", "output", shadow)):
            name = f"{stem}{role}{j // CHUNK}"
            module["ports"][name] = {"direction": direction, "bits": sig[j:j + CHUNK]}
            module["netnames"][name] = {"hide_name": 0, "bits": sig[j:j + CHUNK], "attributes": {}}
            ports[role].append(name)
    bits = []
    for x in crossings:
        register, index = net.register(x.bit)
        bits.append({"register": register, "index": index, "from": x.source, "to": x.dest})
    return {"ports": ports, "bits": bits}


def _cell(kind: str, params: dict, conns: dict, outputs: tuple) -> dict:
    return {"hide_name": 0, "type": kind, "attributes": {},
            "parameters": {k: f"{v:032b}" for k, v in params.items()},
            "port_directions": {p: "output" if p in outputs else "input" for p in conns},
            "connections": conns}


def model_source(workdir: str, source: str, top: str, params: dict, domains: list[dict]) -> tuple[str, dict]:
    """The design at `params` with the metastability model built in, as Verilog, and its crossings:
    {"problems": [sentence], "ports": {"late", "now", "was": [port names]}, "bits": [...]}.
    netlist.YosysError when Yosys refuses the design."""
    net = Netlist(netlist.flatten(workdir, source, top, params))
    crossings, problems = analyze(net, domains)
    model = instrument(net, crossings)
    model["problems"] = problems
    return netlist.to_verilog(workdir, top, net.module), model
