"""The verilog kind's wrong_answer outcomes: a mismatch, with the inputs and outputs of the cycles
(or, with several clocks, the edges) before it as a table, and a crossing without a
synchronizer found in the netlist."""
from __future__ import annotations

from ...outcome import Outcome
from ...verdicts import Verdict

HISTORY = 6                # cycles of inputs shown before a mismatch
HISTORY_EDGES = 10         # edges of any clock shown before a mismatch, with several clocks


def unsynchronized(where: str, problems: list[str]) -> Outcome:
    """A crossing without a synchronizer (cdc.py's rules), found in the netlist before any edge."""
    more = f" ({len(problems) - 1} more in the details)" if len(problems) > 1 else ""
    return Outcome(Verdict.WRONG_ANSWER, f"clock-domain crossing {where}: {problems[0]}{more}",
                   details="Clock-domain crossings that break the statement's rules (read from the design's "
                           "netlist, Yosys):\n" + "\n".join(f"- {p}" for p in problems[:20]))


def outcome(task, where: str, cycle: int, m, edges: list, rows: list, ports: list) -> Outcome:
    """The verdict, with the inputs and outputs of the cycles up to the mismatch as a table. With
    several clocks: the edges of all of them in time order, each with the outputs just before
    it (what the edge samples)."""
    widths = {p["name"]: p["width"] for p in ports}
    ins = [p.name for p in task.ports if p.direction == "input" and p.name not in task.clocks]
    outs = [p.name for p in task.ports if p.direction == "output"]

    def show(name: str, value) -> str:
        w = widths.get(name, 1)
        return str(value) if w < 8 or value is None else f"{w}'h{int(value):x}"   # data in hex

    if task.domains:
        e = edges[cycle]
        message = (f"{e.clock} cycle {e.cycle} (t={e.time} ns) {where}: `{m.signal}` is {m.actual}, "
                   f"expected {m.expected}: {m.why}")
        table = [["t (ns)", "edge", *ins, "|", *outs]]
        for c in range(max(cycle - HISTORY_EDGES, 0), cycle + 1):
            table.append([str(edges[c].time), f"{edges[c].clock} {edges[c].cycle}",
                          *(show(n, edges[c].inputs.get(n)) for n in ins), "|",
                          *(show(n, rows[c]["before"].get(n)) for n in outs)])
        title = "Edges of the clocks in time order, the inputs applied just before each and the outputs just before it:"
    else:
        message = f"cycle {cycle} {where}: `{m.signal}` is {m.actual}, expected {m.expected}: {m.why}"
        table = [["cycle", *ins, "|", *outs]]
        for c in range(max(cycle - HISTORY, 0), cycle + 1):
            table.append([str(c), *(show(n, edges[c].inputs.get(n)) for n in ins), "|",
                          *(show(n, rows[c]["after"].get(n)) for n in outs)])
        title = "Inputs at each edge and outputs after it:"
    cols = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    lines = ["  ".join(v.rjust(cols[i]) for i, v in enumerate(r)) for r in table]
    return Outcome(Verdict.WRONG_ANSWER, message, details=title + "\n" + "\n".join(lines))
