"""The cycles around a mismatch as a waveform: the report's `waveform` (JSON), a VCD of it to
download, and a small SVG timing diagram for the submission page. Pure functions.

    {"first_cycle": 40, "mismatch": {"cycle": 45, "signal": "full", "expected": "1"},
     "signals": [{"name": "wr_en", "direction": "input", "width": 1, "values": [1, 1, ...]}, ...]}

Each value is the input applied at that cycle's rising edge, or the output after it.

A design with several clocks gets `edges_window`: one column per edge of any clock, in time
order, with each edge's time in ns and every clock's rising and falling edges; the VCD and the
SVG then draw time to scale, each input changing just before the edge it was applied at and each
output just after the edge it follows.
"""
from __future__ import annotations

from html import escape

WINDOW = 16     # cycles shown up to and including the mismatch


def _signals(ports: list[dict], left_out: set, columns: range, inputs, rows: list[dict]) -> list[dict]:
    """Every input and output port but `left_out`, with its value in each column: an input as
    applied (`inputs(c)`: the inputs of column c), an output as it was after."""
    signals = []
    for p in ports:
        if p["name"] in left_out or p["direction"] not in ("input", "output"):
            continue
        name = p["name"]
        if p["direction"] == "input":
            values = [int(inputs(c).get(name, 0)) for c in columns]
        else:
            values = [int(rows[c]["after"].get(name, 0)) for c in columns]
        signals.append({"name": name, "direction": p["direction"], "width": int(p["width"]), "values": values})
    return signals


def window(ports: list[dict], clock: str, stimulus: list[dict], rows: list[dict], cycle: int,
           signal: str, expected: str) -> dict:
    first = max(cycle - WINDOW + 1, 0)
    signals = _signals(ports, {clock}, range(first, cycle + 1), stimulus.__getitem__, rows)
    return {"first_cycle": first, "signals": signals,
            "mismatch": {"cycle": cycle, "signal": signal, "expected": expected}}


def edges_window(ports: list[dict], edges: list, rows: list[dict], index: int, signal: str, expected: str,
                 hidden: set | frozenset = frozenset()) -> dict:
    """The last WINDOW edges up to `index` (clocks.Edge each), for a design with several clocks;
    `hidden`: ports the judge added to the model, left out."""
    first = max(index - WINDOW + 1, 0)
    names = {e.clock for e in edges}
    signals = _signals(ports, names | set(hidden), range(first, index + 1), lambda c: edges[c].inputs, rows)
    clocks = []
    for name in sorted(names, key=[e.clock for e in edges].index):
        own = [c for c, e in enumerate(edges) if e.clock == name]
        shown = [c for c in own if first <= c <= index]
        before = [c for c in own if c < first][-1:]      # its last rise before the window sets its level
        rises, falls = [], []
        for c in before + shown:
            k = own.index(c)
            period = (edges[own[k + 1]].time - edges[c].time if k + 1 < len(own)
                      else edges[c].time - edges[own[k - 1]].time if k else 2)
            rises.append(edges[c].time)
            falls.append(edges[c].time + period / 2)
        clocks.append({"name": name, "rises": rises, "falls": falls,
                       "cycles": [edges[c].cycle for c in before + shown]})
    miss = edges[index]
    return {"first_cycle": first, "times": [edges[c].time for c in range(first, index + 1)],
            "edges": [edges[c].clock for c in range(first, index + 1)], "clocks": clocks, "signals": signals,
            "mismatch": {"cycle": index, "signal": signal, "expected": expected, "clock": miss.clock,
                         "clock_cycle": miss.cycle, "time": miss.time}}


def _ident(i: int) -> str:
    chars = "".join(chr(c) for c in range(33, 127))
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, len(chars))
        out = chars[r] + out
    return out


def to_vcd(w: dict, clock: str = "clk", timescale: str = "1ns", half_period: int = 5) -> str:
    """A VCD a waveform viewer opens: the clock and every signal, one cycle per 2 half periods
    (a window of several clocks: each clock and signal at its own times)."""
    if "clocks" in w:
        return _vcd_in_time(w)
    lines = [f"$timescale {timescale} $end", "$scope module dut $end",
             f"$var wire 1 {_ident(0)} {clock} $end"]
    for i, s in enumerate(w["signals"], 1):
        lines.append(f"$var wire {s['width']} {_ident(i)} {s['name']} $end")
    lines += ["$upscope $end", "$enddefinitions $end"]

    def value(s: dict, v: int, ident: str) -> str:
        return f"{v & 1}{ident}" if s["width"] == 1 else f"b{v:b} {ident}"

    n = len(w["signals"][0]["values"]) if w["signals"] else 0
    for k in range(n):
        t = 2 * half_period * k
        lines.append(f"#{t}")
        lines.append(f"0{_ident(0)}")
        for i, s in enumerate(w["signals"], 1):   # inputs change with the clock low; outputs follow the edge
            if s["direction"] == "input" and (k == 0 or s["values"][k] != s["values"][k - 1]):
                lines.append(value(s, s["values"][k], _ident(i)))
        lines.append(f"#{t + half_period}")
        lines.append(f"1{_ident(0)}")
        for i, s in enumerate(w["signals"], 1):
            if s["direction"] == "output" and (k == 0 or s["values"][k] != s["values"][k - 1]):
                lines.append(value(s, s["values"][k], _ident(i)))
    lines.append(f"#{2 * half_period * n}")
    return "\n".join(lines) + "\n"


_TICKS = 10     # VCD time units per ns in a window of several clocks: inputs and outputs 0.2 ns off the edge
_SKEW = 2


def _changes(w: dict) -> list[tuple[int, int, object]]:
    """(time in VCD units, signal number, value) of every change in a window of several clocks:
    clock k+1 is signal k+1, the window's signals follow."""
    out = []
    for k, clk in enumerate(w["clocks"], 1):
        for rise, fall in zip(clk["rises"], clk["falls"]):
            out += [(round(rise * _TICKS), k, 1), (round(fall * _TICKS), k, 0)]
    base = len(w["clocks"]) + 1
    for i, s in enumerate(w["signals"], base):
        skew = -_SKEW if s["direction"] == "input" else _SKEW
        for k, (t, v) in enumerate(zip(w["times"], s["values"])):
            if k == 0 or v != s["values"][k - 1]:
                out.append((round(t * _TICKS) + skew, i, v))
    return sorted(out, key=lambda c: (c[0], c[1]))


def _vcd_in_time(w: dict) -> str:
    lines = ["$timescale 100ps $end", "$scope module dut $end"]
    widths = {k: 1 for k in range(1, len(w["clocks"]) + 1)}
    for k, clk in enumerate(w["clocks"], 1):
        lines.append(f"$var wire 1 {_ident(k)} {clk['name']} $end")
    for i, s in enumerate(w["signals"], len(w["clocks"]) + 1):
        widths[i] = s["width"]
        lines.append(f"$var wire {s['width']} {_ident(i)} {s['name']} $end")
    lines += ["$upscope $end", "$enddefinitions $end"]
    changes = _changes(w)
    start = min((c[0] for c in changes), default=0)
    last = None
    for t, i, v in changes:
        if t != last:
            lines.append(f"#{t - start}")
            last = t
        lines.append(f"{int(v) & 1}{_ident(i)}" if widths[i] == 1 else f"b{int(v):b} {_ident(i)}")
    return "\n".join(lines) + "\n"


def _svg_in_time(w: dict, per_edge: int, row: int, label: int) -> str:
    """to_svg for a window of several clocks: time to scale, clock rows first, each rise labelled
    with its cycle, the mismatch's edge marked by a line."""
    times, miss = w["times"], w["mismatch"]
    start, end = times[0] - 2, times[-1] + 2
    scale = per_edge * len(times) / max(end - start, 1)
    rows = ([(c["name"], 1, "clock", c) for c in w["clocks"]]
            + [(s["name"], s["width"], s["direction"], s) for s in w["signals"]])
    width, height = label + round((end - start) * scale) + 4, row * (len(rows) + 1) + 4

    def x(t: float) -> float:
        return round(label + (min(max(t, start), end) - start) * scale, 1)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="waveform" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="Waveform of '
             f'{escape(" and ".join(c["name"] for c in w["clocks"]))} from t={times[0]} to t={times[-1]} ns; '
             f'{escape(miss["signal"])} is wrong at {escape(miss["clock"])} cycle {miss["clock_cycle"]}">']
    for r, (name, bits, kind, s) in enumerate(rows, 1):
        y = row * r + 4
        high, low = y + 3, y + row - 5
        cls = "sig bad" if name == miss["signal"] else "sig"
        parts.append(f'<text x="2" y="{y + 14}" class="{cls}">{escape(name)}</text>')
        if kind == "clock":
            changes = sorted([(t, 1) for t in s["rises"]] + [(t, 0) for t in s["falls"]])
            level = next((v for t, v in reversed(changes) if t < start), 0)
            path = [f"{x(start)},{high if level else low}"]
            for t, v in changes:
                if start <= t <= end:
                    path += [f"{x(t)},{high if level else low}", f"{x(t)},{high if v else low}"]
                    level = v
            path.append(f"{x(end)},{high if level else low}")
            parts.append(f'<polyline points="{" ".join(path)}" class="wire" fill="none"/>')
            for t, c in zip(s["rises"], s["cycles"]):
                if start <= t <= end:
                    parts.append(f'<text x="{x(t) + 2}" y="{y + 2}" class="cycle">{c}</text>')
            continue
        skew = -0.2 if kind == "input" else 0.2
        cuts = [start] + [t + skew for t in times[1:]] + [end]
        values = s["values"]
        for k, v in enumerate(values):
            x0, x1 = x(cuts[k]), x(cuts[k + 1])
            if bits == 1:
                level = high if v else low
                parts.append(f'<line x1="{x0}" y1="{level}" x2="{x1}" y2="{level}" class="wire"/>')
                if k and values[k - 1] != v:
                    parts.append(f'<line x1="{x0}" y1="{high}" x2="{x0}" y2="{low}" class="wire"/>')
            elif k == 0 or values[k - 1] != v:
                run = next((j for j in range(k + 1, len(values)) if values[j] != v), len(values))
                x1 = x(cuts[run])
                parts.append(f'<rect x="{x0 + 1}" y="{high}" width="{max(x1 - x0 - 2, 1)}" height="{row - 8}" class="bus"/>')
                if x1 - x0 > 14:
                    parts.append(f'<text x="{x0 + 3}" y="{y + 14}" class="val">{v:x}</text>')
    mx = x(miss["time"])
    parts.append(f'<rect x="{mx - 2}" y="{row}" width="4" height="{height - row - 2}" class="miss"/>')
    parts.append("</svg>")
    return "".join(parts)


def to_svg(w: dict, cell: int = 28, row: int = 22, label: int = 90) -> str:
    """A timing diagram: one row per signal (1-bit as a line, wider as labelled buses), the
    mismatching signal's last cycle marked (a window of several clocks: time to scale)."""
    if "clocks" in w:
        return _svg_in_time(w, cell, row, label)
    n = len(w["signals"][0]["values"]) if w["signals"] else 0
    width, height = label + cell * n + 4, row * (len(w["signals"]) + 1) + 4
    first, miss = w["first_cycle"], w["mismatch"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="waveform" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="Waveform of cycles {first} to '
             f'{first + n - 1}; {escape(miss["signal"])} is wrong at cycle {miss["cycle"]}">']
    for k in range(n):
        x = label + cell * k
        parts.append(f'<text x="{x + 2}" y="14" class="cycle">{first + k}</text>')
    for r, s in enumerate(w["signals"], 1):
        y = row * r + 4
        cls = "sig bad" if s["name"] == miss["signal"] else "sig"
        parts.append(f'<text x="2" y="{y + 14}" class="{cls}">{escape(s["name"])}</text>')
        for k, v in enumerate(s["values"]):
            x = label + cell * k
            if s["width"] == 1:
                level = y + 3 if v else y + row - 5
                parts.append(f'<line x1="{x}" y1="{level}" x2="{x + cell}" y2="{level}" class="wire"/>')
                if k and s["values"][k - 1] != v:
                    parts.append(f'<line x1="{x}" y1="{y + 3}" x2="{x}" y2="{y + row - 5}" class="wire"/>')
            else:
                parts.append(f'<rect x="{x + 1}" y="{y + 3}" width="{cell - 2}" height="{row - 8}" class="bus"/>')
                parts.append(f'<text x="{x + 3}" y="{y + 14}" class="val">{v:x}</text>')
        if s["name"] == miss["signal"]:
            x = label + cell * (n - 1)
            parts.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{row - 2}" class="miss"/>')
    parts.append("</svg>")
    return "".join(parts)
