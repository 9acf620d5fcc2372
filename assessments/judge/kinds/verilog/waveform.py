"""The cycles around a mismatch as a waveform: the report's `waveform` (JSON), a VCD of it to
download, and a small SVG timing diagram for the submission page. Pure functions.

    {"first_cycle": 40, "mismatch": {"cycle": 45, "signal": "full", "expected": "1"},
     "signals": [{"name": "wr_en", "direction": "input", "width": 1, "values": [1, 1, ...]}, ...]}

Each value is the input applied at that cycle's rising edge, or the output after it.
"""
from __future__ import annotations

from html import escape

WINDOW = 16     # cycles shown up to and including the mismatch


def window(ports: list[dict], clock: str, stimulus: list[dict], rows: list[dict], cycle: int,
           signal: str, expected: str) -> dict:
    first = max(cycle - WINDOW + 1, 0)
    signals = []
    for p in ports:
        if p["name"] == clock or p["direction"] not in ("input", "output"):
            continue
        source = ((lambda c, n=p["name"]: stimulus[c].get(n, 0)) if p["direction"] == "input"
                  else (lambda c, n=p["name"]: rows[c]["after"].get(n, 0)))
        signals.append({"name": p["name"], "direction": p["direction"], "width": int(p["width"]),
                        "values": [int(source(c)) for c in range(first, cycle + 1)]})
    return {"first_cycle": first, "signals": signals,
            "mismatch": {"cycle": cycle, "signal": signal, "expected": expected}}


def _ident(i: int) -> str:
    chars = "".join(chr(c) for c in range(33, 127))
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, len(chars))
        out = chars[r] + out
    return out


def to_vcd(w: dict, clock: str = "clk", timescale: str = "1ns", half_period: int = 5) -> str:
    """A VCD a waveform viewer opens: the clock and every signal, one cycle per 2 half periods."""
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


def to_svg(w: dict, cell: int = 28, row: int = 22, label: int = 90) -> str:
    """A timing diagram: one row per signal (1-bit as a line, wider as labelled buses), the
    mismatching signal's last cycle marked."""
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
