"""Charts drawn on the server as inline SVG: a skill radar, a roofline, a salary range bar and a
roadmap timeline. Pure functions, data in and markup out; each chart has a <title> and a <desc>,
and the page beside it keeps the same numbers as text (a chart supplements the data, never
replaces it). Colours and sizes live in static/style.css under the `chart-` classes."""
from __future__ import annotations

import math

from markupsafe import Markup, escape

from skillmap.match import CLAIMED_CREDIT
from skillmap.taxonomy import TRACKS, load_taxonomy

# viewBoxes about as wide as a phone's content column, so 15-unit text stays near 13 px there.
WIDTH = 420
EMPTY = Markup("")


def _finite(value) -> float | None:
    """A finite float, or None (reports spell NaN and infinities as strings)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _positive(value) -> float | None:
    number = _finite(value)
    return number if number is not None and number > 0 else None


def _svg(chart_id: str, kind: str, height: float, title: str, desc: str, body: list[str]) -> Markup:
    return Markup(
        f'<svg class="chart chart-{kind}" id="{escape(chart_id)}" viewBox="0 0 {WIDTH} {height:.0f}" '
        f'width="100%" role="img" aria-labelledby="{escape(chart_id)}-title {escape(chart_id)}-desc">'
        f'<title id="{escape(chart_id)}-title">{escape(title)}</title>'
        f'<desc id="{escape(chart_id)}-desc">{escape(desc)}</desc>{"".join(body)}</svg>')


def _text(x: float, y: float, content: str, cls: str = "chart-label", anchor: str = "start") -> str:
    return (f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}">'
            f'{escape(content)}</text>')


def _line(x1: float, y1: float, x2: float, y2: float, cls: str) -> str:
    return f'<line class="{cls}" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"/>'


def _points(pairs) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in pairs)


def _wrap(text: str, width: int) -> list[str]:
    """Words into lines of at most `width` characters (a longer word keeps a line of its own)."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


# ---- skill radar --------------------------------------------------------------------------------


def track_strengths(verified: dict, claimed, taxonomy=None, tracks: dict | None = None) -> list[dict]:
    """Per track, in TRACKS order: how strongly verified and claimed skills point at it (0-1).

    Each skill is evidence for a track in proportion to its taxonomy weight there, combined as
    independent proofs like skillmap.verified's levels: verified = 1 - prod(1 - level * weight).
    Claims top out at match.CLAIMED_CREDIT, what matching credits a claim, so a long résumé never
    looks like graded work: claimed = CLAIMED_CREDIT * (1 - prod(1 - weight)). [] when neither.
    `tracks` (skillmap.verified.verified_tracks: from the tasks, each counted once) replaces the
    verified side where the evidence is known.
    """
    tax = taxonomy or load_taxonomy()
    verified = {sid: _unit(level) for sid, level in (verified or {}).items() if sid in tax}
    claimed = {sid for sid in claimed or () if sid in tax}
    if not verified and not claimed:
        return []
    axes = []
    for i, track in enumerate(TRACKS):
        unproven_v, unproven_c = 1.0, 1.0
        for sid, level in verified.items():
            unproven_v *= 1.0 - level * tax.get(sid).weight_tuple[i]
        for sid in claimed:
            unproven_c *= 1.0 - tax.get(sid).weight_tuple[i]
        axes.append({"track": track, "name": tax.tracks.get(track, {}).get("name", track),
                     "verified": round(_unit(tracks.get(track)) if tracks is not None
                                       else 1.0 - unproven_v, 2),
                     "claimed": round(CLAIMED_CREDIT * (1.0 - unproven_c), 2)})
    return axes


def _unit(value) -> float:
    """A strength clamped to 0-1; missing or NaN is 0."""
    return max(0.0, min(1.0, _finite(value) or 0.0))


def _axis_label(name: str) -> str:
    """"GPU software optimization" -> "Software optimization": every axis is about GPUs."""
    short = name[4:] if name.startswith("GPU ") else name
    return short[:1].upper() + short[1:]


def skill_radar(axes: list[dict], chart_id: str = "skill-radar") -> Markup:
    """A radar of `axes` ({name, verified, claimed}, values 0-1): verified filled, claimed dashed."""
    if len(axes) < 3:
        return EMPTY
    axes = [dict(a, verified=_unit(a.get("verified")), claimed=_unit(a.get("claimed"))) for a in axes]
    cx, cy, radius, height = WIDTH / 2, 160, 95, 326
    n = len(axes)
    angles = [-math.pi / 2 + 2 * math.pi * i / n for i in range(n)]

    def at(i: int, value: float) -> tuple[float, float]:
        r = radius * value
        return cx + r * math.cos(angles[i]), cy + r * math.sin(angles[i])

    body = [f'<polygon class="{"chart-ring-outer" if ring == 1 else "chart-grid"}" '
            f'points="{_points(at(i, ring) for i in range(n))}"/>' for ring in (0.25, 0.5, 0.75, 1)]
    body += [_line(cx, cy, *at(i, 1), "chart-axis") for i in range(n)]
    body += [_text(cx + 5, cy - radius * ring + 15, label, "chart-tick")
             for ring, label in ((0.5, "0.5"), (1, "1"))]
    for key in ("claimed", "verified"):
        shape = _points(at(i, a[key]) for i, a in enumerate(axes))
        body.append(f'<polygon class="chart-{key}" points="{shape}"/>')
    body += [f'<circle class="chart-verified-dot" cx="{x:.1f}" cy="{y:.1f}" r="3.5"/>'
             for x, y in (at(i, a["verified"]) for i, a in enumerate(axes))]
    for i, axis in enumerate(axes):
        cos, sin = math.cos(angles[i]), math.sin(angles[i])
        side = abs(cos) > 0.3
        anchor = "middle" if not side else ("start" if cos > 0 else "end")
        lines = _wrap(_axis_label(axis["name"]), 12 if side else 30)
        x, y = cx + (radius + 12) * cos, cy + (radius + 12) * sin
        first = (y - 17 * (len(lines) - 1) - 4 if sin < -0.3 else y + 14 if sin > 0.3
                 else y + 5 - 8.5 * (len(lines) - 1))
        body += [_text(x, first + 17 * k, line, anchor=anchor) for k, line in enumerate(lines)]
    legend_y = height - 14
    body += ['<rect class="chart-verified" x="60" y="%.1f" width="18" height="12"/>' % (legend_y - 10),
             _text(84, legend_y, "Verified"),
             _line(200, legend_y - 4, 226, legend_y - 4, "chart-claimed"),
             _text(232, legend_y, "Claimed (at most %.1f)" % CLAIMED_CREDIT)]
    desc = "; ".join(f"{a['name']}: verified {a['verified']:.2f}, claimed {a['claimed']:.2f}"
                     for a in axes) + " (0 to 1)."
    return _svg(chart_id, "radar", height, "Skill strength by track", desc, body)


# ---- roofline -----------------------------------------------------------------------------------


def roofline_data(timing: dict | None, cost=None) -> dict | None:
    """Where a timed run sits against its device's ceilings, or None where nothing was timed.

    Bytes and FLOPs are the report's (the task's cost at the timed sizes); a report without them
    gets them from `cost(dims)`, the task's own function. Seconds are the timed median; the
    ceilings are the peaks the judge scored against. A run doing no arithmetic has no place on
    a logarithmic intensity axis, so it gets no chart (its GB/s are in the report's text).
    """
    if not isinstance(timing, dict):
        return None
    roof = timing.get("roofline") if isinstance(timing.get("roofline"), dict) else {}
    peaks = timing.get("peaks") if isinstance(timing.get("peaks"), dict) else {}
    median_ms = _positive(timing.get("median_ms"))
    seconds = _positive(roof.get("measured_s")) or (median_ms / 1e3 if median_ms else None)
    nbytes, flops = _positive(roof.get("bytes")), _positive(roof.get("flops"))
    if (nbytes is None or flops is None) and cost is not None and isinstance(timing.get("dims"), dict):
        try:
            nbytes, flops = (_positive(v) for v in cost(timing["dims"]))
        except (KeyError, TypeError, ValueError):
            return None
    bandwidth, peak = _positive(peaks.get("bandwidth_bytes_s")), _positive(peaks.get("flops_s"))
    if None in (seconds, nbytes, flops, bandwidth, peak):
        return None
    intensity = flops / nbytes
    attainable = min(peak, bandwidth * intensity)
    return {"intensity": intensity, "flops_s": flops / seconds, "bytes_s": nbytes / seconds,
            "peak_flops_s": peak, "peak_bytes_s": bandwidth, "ridge": peak / bandwidth,
            "attainable_flops_s": attainable, "fraction": flops / seconds / attainable,
            "bound": "memory" if bandwidth * intensity < peak else "compute",
            "device": str(peaks.get("name") or timing.get("device") or "the GPU"),
            "measured": bool(peaks.get("measured"))}


def si(value: float, unit: str) -> str:
    """3.35e12, "B/s" -> "3.35 TB/s"."""
    for factor, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


def _decade(k: int) -> str:
    return f"{10.0 ** k:g}" if -3 <= k <= 4 else f"1e{k}"


def roofline_chart(data: dict | None, chart_id: str = "roofline") -> Markup:
    """Log-log roofline: the memory slope and compute ceiling, and the run's point under them."""
    if not data:
        return EMPTY
    ai, achieved, ridge = data["intensity"], data["flops_s"], data["ridge"]
    bw, peak = data["peak_bytes_s"], data["peak_flops_s"]
    x_lo = math.floor(math.log10(min(ai, ridge) / 2))
    x_hi = max(math.ceil(math.log10(max(ai, ridge) * 2)), x_lo + 2)
    y_hi = math.ceil(math.log10(max(peak, achieved) * 1.5))
    y_lo = min(math.floor(math.log10(min(achieved, bw * 10.0 ** x_lo) / 1.5)), y_hi - 2)
    left, right, top, bottom, height = 58, WIDTH - 28, 34, 262, 340

    def px(v: float) -> float:
        return left + (math.log10(v) - x_lo) / (x_hi - x_lo) * (right - left)

    def py(v: float) -> float:
        return bottom - (math.log10(v) - y_lo) / (y_hi - y_lo) * (bottom - top)

    y_step = 1 if y_hi - y_lo <= 7 else 2
    body = [_line(px(10.0 ** k), top, px(10.0 ** k), bottom, "chart-grid") for k in range(x_lo, x_hi + 1)]
    body += [_line(left, py(10.0 ** k), right, py(10.0 ** k), "chart-grid")
             for k in range(y_lo, y_hi + 1, y_step)]
    body += [_text(px(10.0 ** k), bottom + 18, _decade(k), "chart-tick", "middle")
             for k in range(x_lo, x_hi + 1)]
    body += [_text(left - 6, py(10.0 ** k) + 4, si(10.0 ** k, "").strip(), "chart-tick", "end")
             for k in range(y_lo, y_hi + 1, y_step)]
    body += [_line(left, top, left, bottom, "chart-axis"), _line(left, bottom, right, bottom, "chart-axis"),
             _text(left - 6, top - 14, "FLOP/s (log scale)", anchor="start"),
             _text((left + right) / 2, bottom + 40, "Arithmetic intensity (FLOP per byte)", anchor="middle")]
    start, knee, end = (px(10.0 ** x_lo), py(bw * 10.0 ** x_lo)), (px(ridge), py(peak)), (right, py(peak))
    body.append(f'<polyline class="chart-ceiling" points="{_points((start, knee, end))}"/>')
    slope = math.degrees(math.atan2(knee[1] - start[1], knee[0] - start[0]))
    mid = ((start[0] + knee[0]) / 2, (start[1] + knee[1]) / 2)
    body.append(f'<text class="chart-label" x="{mid[0]:.1f}" y="{mid[1]:.1f}" dy="-7" '
                f'text-anchor="middle" transform="rotate({slope:.1f} {mid[0]:.1f} {mid[1]:.1f})">'
                f'{escape(si(bw, "B/s"))} memory</text>')
    body.append(_text(right - 4, knee[1] - 7, f"{si(peak, 'FLOP/s')} compute", anchor="end"))
    x, y, roof_y = px(ai), py(achieved), py(data["attainable_flops_s"])
    body.append(_line(x, roof_y, x, y, "chart-gap"))
    body.append(f'<circle class="chart-point" cx="{x:.1f}" cy="{y:.1f}" r="6"/>')
    # The point's legend sits under the axis, where no ceiling or point can run into it.
    body += [f'<circle class="chart-point" cx="14" cy="{height - 19}" r="6"/>',
             _text(26, height - 14, f"This run: {si(achieved, 'FLOP/s')}, "
                   f"{data['fraction']:.0%} of the roofline", "chart-label chart-strong")]
    peaks = "measured" if data["measured"] else "datasheet"
    desc = (f"Arithmetic intensity {ai:.3g} FLOP per byte; achieved {si(achieved, 'FLOP/s')} "
            f"({si(data['bytes_s'], 'B/s')}), {data['fraction']:.0%} of the "
            f"{si(data['attainable_flops_s'], 'FLOP/s')} the roofline allows there; {data['bound']}-bound "
            f"(ridge at {ridge:.3g} FLOP per byte). Ceilings ({peaks} peaks of {data['device']}): "
            f"{si(bw, 'B/s')} memory bandwidth, {si(peak, 'FLOP/s')} compute.")
    return _svg(chart_id, "roofline", height, "Roofline: this run against the device's ceilings", desc, body)


# ---- salary range bar ---------------------------------------------------------------------------

PERCENTILES = ("p10", "p25", "median", "p75", "p90")


def money(value: float) -> str:
    """120000 -> "120k"; the chart's axis is one currency, named once."""
    return f"{value / 1000:.0f}k" if abs(value) >= 10_000 else f"{value:,.0f}"


def salary_bar(band: dict, currency: str = "USD", posting: dict | None = None,
               chart_id: str = "salary-chart") -> Markup:
    """The band's outer percentiles as a line, p25-p75 as a box, the median marked; the posting's
    own range beneath when it is yearly and in the band's currency."""
    figures = {k: v for k in PERCENTILES if (v := _finite((band or {}).get(k))) is not None}
    if not figures:
        return EMPTY
    posted = None
    if posting and posting.get("currency") == currency and posting.get("period") == "year":
        low, high = _finite(posting.get("min")), _finite(posting.get("max"))
        posted = (low, high) if low is not None and high is not None and low <= high else None
    values = list(figures.values()) + list(posted or ())
    lo, hi = min(values), max(values)
    if hi == lo:
        lo, hi = lo * 0.9 - 1, hi * 1.1 + 1
    left, right = 24, WIDTH - 24

    def px(v: float) -> float:
        return left + (v - lo) / (hi - lo) * (right - left)

    present = [k for k in PERCENTILES if k in figures]
    first, last = present[0], present[-1]
    a, b = px(figures[first]), px(figures[last])
    body = [_line(a, 40, b, 40, "chart-whisker"), _line(a, 32, a, 48, "chart-whisker"),
            _line(b, 32, b, 48, "chart-whisker")]
    if "p25" in figures and "p75" in figures:
        body.append(f'<rect class="chart-box" x="{px(figures["p25"]):.1f}" y="31" '
                    f'width="{px(figures["p75"]) - px(figures["p25"]):.1f}" height="18"/>')
    if "median" in figures:
        m = px(figures["median"])
        body += [_line(m, 26, m, 54, "chart-median"),
                 _text(min(max(m, left + 50), right - 50), 18, f"median {money(figures['median'])}",
                       "chart-label chart-strong", "middle")]
    crowded = first != last and b - a < 150
    if first != "median" or first != last:  # a lone median is labelled above already
        body.append(_text(a, 72, f"{first} {money(figures[first])}",
                          anchor="start" if a < WIDTH / 2 else "end"))
    if first != last:
        body.append(_text(b, 72 + 17 * crowded, f"{last} {money(figures[last])} {currency}",
                          anchor="end" if b > WIDTH / 2 else "start"))
    height = 84 + 17 * crowded
    if posted:
        p, q = px(posted[0]), px(posted[1])
        body += [_text(p if p < WIDTH / 2 else q, height + 12,
                       f"This posting {money(posted[0])}–{money(posted[1])}",
                       anchor="start" if p < WIDTH / 2 else "end"),
                 f'<rect class="chart-posting" x="{p:.1f}" y="{height + 20:.1f}" '
                 f'width="{max(q - p, 3):.1f}" height="12"/>']
        height += 44
    desc = ", ".join(f"{k} {figures[k]:,.0f}" for k in PERCENTILES if k in figures) + f" {currency} a year"
    if posted:
        desc += f"; this posting {posted[0]:,.0f} to {posted[1]:,.0f} {currency}"
    return _svg(chart_id, "salary", height, "Salary band", desc + ".", body)


# ---- roadmap timeline ---------------------------------------------------------------------------


def _tick_step(total: float) -> int:
    return next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000, 10**9) if total / s <= 6)


def roadmap_timeline(phases: list[dict], chart_id: str = "roadmap-timeline") -> Markup:
    """One row per phase on a shared axis of weeks: a bar from its first week to its last, a
    diamond for a phase done alongside the others (no weeks of its own)."""
    rows = [{"name": str(p.get("name", "")), "start": _finite(p.get("start_week")),
             "weeks": max(0.0, _finite(p.get("weeks")) or 0.0), "hours": _finite(p.get("hours"))}
            for p in phases or ()]
    rows = [r for r in rows if r["start"] is not None and r["start"] >= 0]
    total = max((r["start"] + r["weeks"] for r in rows), default=0)
    if total <= 0:
        return EMPTY
    left, right, row_h = 16, WIDTH - 16, 46

    def px(week: float) -> float:
        return left + week / total * (right - left)

    body = []
    for i, row in enumerate(rows):
        top, start, weeks = 8 + i * row_h, row["start"], row["weeks"]
        if weeks > 0:
            label = f"{row['name']} · weeks {start + 1:g}–{start + weeks:g}"
            if row["hours"]:
                label += f" · {row['hours']:g} h"
            body.append(f'<rect class="chart-phase" x="{px(start):.1f}" y="{top + 20}" '
                        f'width="{px(start + weeks) - px(start):.1f}" height="16"/>')
        else:
            label = f"{row['name']} · alongside, from week {start:g}"
            x, y = px(start), top + 28
            diamond = _points(((x, y - 8), (x + 8, y), (x, y + 8), (x - 8, y)))
            body.append(f'<polygon class="chart-milestone" points="{diamond}"/>')
        body.append(_text(left, top + 14, label))
    axis_y = 8 + len(rows) * row_h + 4
    step = _tick_step(total)
    body.append(_line(left, axis_y, right, axis_y, "chart-axis"))
    for week in range(0, int(total) + 1, step):
        body += [_line(px(week), axis_y, px(week), axis_y + 5, "chart-axis"),
                 _text(px(week), axis_y + 20, str(week), "chart-tick", "middle")]
    body.append(_text(right, axis_y + 38, f"weeks (of {total:g})", "chart-tick", "end"))
    desc = "; ".join(f"{r['name']}: " + (f"weeks {r['start'] + 1:g} to {r['start'] + r['weeks']:g}"
                                          if r["weeks"] > 0 else "alongside")
                     for r in rows) + f"; {total:g} weeks in all."
    return _svg(chart_id, "timeline", axis_y + 46, "Roadmap timeline", desc, body)


def init_app(app) -> None:
    app.jinja_env.globals.update(kp_skill_radar=skill_radar, kp_roofline=roofline_chart,
                                 kp_salary_bar=salary_bar, kp_roadmap_timeline=roadmap_timeline,
                                 kp_si=si)
