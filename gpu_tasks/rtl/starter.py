"""A design task's starter: the module header of its contract (parameters and ports, as the
statement declares them) and an empty body."""
from __future__ import annotations

import re


def range_of(width: str) -> str:
    """The packed range a port of this width declares: "" for one bit, "[7:0]", "[WIDTH-1:0]",
    "[$clog2(DEPTH):0]" for "$clog2(DEPTH)+1"."""
    width = width.strip()
    if width == "1":
        return ""
    if width.isdigit():
        return f"[{int(width) - 1}:0]"
    plus_one = re.fullmatch(r"(.+?)\s*\+\s*1", width)
    if plus_one:
        return f"[{plus_one.group(1)}:0]"
    return f"[{width}-1:0]"


def module_header(task) -> str:
    """`module NAME #(parameters) (ports);` laid out one declaration per line."""
    lines = [f"module {task.module}"]
    if task.defaults:
        params = [f"    parameter {k} = {v}" for k, v in task.defaults.items()]
        lines[0] += " #("
        lines += [",\n".join(params), ")"]
    ranges = [range_of(p.width) for p in task.ports]
    pad = max((len(r) for r in ranges), default=0)
    decls = []
    for p, r in zip(task.ports, ranges):
        direction = "input " if p.direction == "input" else "output"
        note = f"   // {p.note}" if p.note else ""
        decls.append((f"    {direction} wire {r.ljust(pad)} {p.name}", note))
    body = [d + ("," if i < len(decls) - 1 else "") + note for i, (d, note) in enumerate(decls)]
    lines[-1] += " ("
    return "\n".join(lines + body + [");"])


def module_skeleton(task) -> str:
    return (module_header(task) + "\n\n"
            "    // Your design. Declare an output `reg` (or `logic`) instead of `wire` to assign\n"
            "    // it in an always block.\n\n"
            "endmodule\n")
