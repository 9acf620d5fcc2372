"""Salary bands for a track, level and location, with every source that made them.

Three sources, each kept apart in the answer so that every figure can be traced:

- **BLS OEWS, May 2025** (`jobdata/data/oews_may2025_gpu_occupations.csv`, U.S. government work,
  public domain, shipped with the project):
  annual wages by occupation, nationally and for five metro areas. No occupation code is "GPU
  engineer"; each track stands for the codes whose work it does (TRACK_SOC) and the band mixes
  them by employment. OEWS percentiles describe a whole occupation, not a level, so a level reads
  a window of the distribution (LEVEL_WINDOW): entry the lower quarter, staff/principal the top.
- **Level ranges** of the GPU performance engineer profile (seed 001, US market, 2024): entry,
  mid, senior and expert ranges; they describe software optimization work only.
- **Postings stored in KernelPath** in the last 12 months with a yearly salary in the same
  currency: the quartiles of their ranges' midpoints, with the count per level.

Unknown locations fall back to national figures with a note; currencies are never mixed (a band
is in USD unless postings in another currency are asked for).
"""
from __future__ import annotations

import csv
import statistics
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from pathlib import Path

from refusals import Invalid

TRACKS = ("infrastructure", "hardware_design", "architecture_modeling", "software_optimization")
LEVELS = ("entry", "mid", "senior", "staff_principal")
# The parser's seniority names for the same levels.
SENIORITY_LEVEL = {"junior": "entry", "mid": "mid", "senior": "senior", "staff_principal": "staff_principal"}
OEWS_PATH = Path(__file__).resolve().parent / "data" / "oews_may2025_gpu_occupations.csv"
OEWS_CITATION = "BLS OEWS, May 2025"

# Which occupations do each track's work (SOC 2018 codes), and why.
TRACK_SOC = {
    "infrastructure": {
        "15-1244": "network and computer systems administrators run the fleets",
        "15-1241": "network architects design the fabrics (InfiniBand, RoCE)",
        "15-1252": "software developers write the cluster tooling and schedulers",
    },
    "hardware_design": {
        "17-2061": "computer hardware engineers design and verify the chips",
        "17-2072": "electronics engineers (except computer) do the circuit and physical design",
    },
    "architecture_modeling": {
        "17-2061": "computer hardware engineers own the microarchitecture",
        "15-1221": "computer and information research scientists build the performance models",
    },
    "software_optimization": {
        "15-1252": "software developers write kernels, compilers and drivers",
        "15-1221": "computer and information research scientists do the algorithm work",
    },
}
# Which OEWS column stands for each of a level's (p10, p25, median, p75, p90): a level is a
# window of the occupation's distribution, shifted up a quarter per level; None where the data
# has nothing beyond its 10th or 90th percentile.
LEVEL_WINDOW = {
    "entry": (None, "p10", "p25", "median", "p75"),
    "mid": ("p10", "p25", "median", "p75", "p90"),
    "senior": ("p25", "median", "p75", "p90", None),
    "staff_principal": ("median", "p75", "p90", None, None),
}
# Metro areas in the file, and the place names that mean them.
AREAS = {
    "San Jose-Sunnyvale-Santa Clara CA": ("san jose", "sunnyvale", "santa clara", "silicon valley",
                                          "mountain view", "palo alto", "cupertino", "milpitas"),
    "San Francisco-Oakland-Fremont CA": ("san francisco", "oakland", "fremont", "berkeley", "bay area"),
    "Seattle-Tacoma-Bellevue WA": ("seattle", "tacoma", "bellevue", "redmond", "kirkland"),
    "Austin-Round Rock-San Marcos TX": ("austin", "round rock", "san marcos"),
}
NATIONAL = "U.S."

# Seed 001, "Salary Ranges (US Market, 2024)", for GPU performance engineering.
SEED_001 = {
    "entry": (80_000, 120_000),
    "mid": (120_000, 180_000),
    "senior": (180_000, 340_000),
    "staff_principal": (270_000, 420_000),
}
SEED_001_CITATION = "GPU performance engineer career profile: level ranges, US market, 2024"


class SalaryError(Invalid):
    """An unknown track or level."""


@dataclass(frozen=True)
class OewsRow:
    area: str
    soc: str
    occupation: str
    employment: int
    wages: dict  # p10, p25, median, p75, p90, mean -> USD per year (None where not published)


@lru_cache(maxsize=2)
def load_oews(path: Path = OEWS_PATH) -> tuple[OewsRow, ...]:
    rows = []
    with open(path, newline="", encoding="utf-8") as fh:
        for raw in csv.DictReader(fh):
            def number(key):
                value = (raw.get(key) or "").replace(",", "").strip()
                return float(value) if value and value.replace(".", "", 1).isdigit() else None
            rows.append(OewsRow(area=raw["area"], soc=raw["soc"], occupation=raw["occupation"],
                                employment=int(number("employment") or 0),
                                wages={k: number(k) for k in ("p10", "p25", "median", "p75", "p90", "mean")}))
    return tuple(rows)


def resolve_area(location: str | None) -> tuple[str, str | None]:
    """(OEWS area, note) for a free-text location; national with a note when unknown."""
    if not location or not location.strip():
        return NATIONAL, None
    text = location.lower()
    if text.strip() in ("us", "u.s.", "usa", "united states", "national", "remote", "remote (us)"):
        return NATIONAL, None
    for area, names in AREAS.items():
        if any(name in text for name in names):
            return area, None
    return NATIONAL, f"no wage data for {location!r}: national figures shown"


def _bls_band(track: str, level: str, area: str, rows) -> dict | None:
    picked = [r for r in rows if r.area == area and r.soc in TRACK_SOC[track]]
    if not picked:
        return None
    window = LEVEL_WINDOW[level]
    figures = {}
    for name, column in zip(("p10", "p25", "median", "p75", "p90"), window):
        if column is None:
            continue
        usable = [r for r in picked if r.wages.get(column) is not None and r.employment > 0]
        if not usable:
            continue
        total = sum(r.employment for r in usable)
        figures[name] = round(sum(r.wages[column] * r.employment for r in usable) / total, -2)
    return {
        "source": OEWS_CITATION, "kind": "bls_oews", "area": area, "currency": "USD", "period": "year",
        "figures": figures,
        "method": f"employment-weighted {level} window ({', '.join(c or '-' for c in window)}) of the "
                  f"occupations standing for {track}",
        "rows": [{"area": r.area, "soc": r.soc, "occupation": r.occupation, "employment": r.employment,
                  "why": TRACK_SOC[track][r.soc], **{k: v for k, v in r.wages.items() if v is not None}}
                 for r in picked],
    }


def _seed_band(track: str, level: str) -> dict | None:
    if track != "software_optimization":
        return None
    low, high = SEED_001[level]
    return {"source": SEED_001_CITATION, "kind": "seed", "area": NATIONAL, "currency": "USD",
            "period": "year", "figures": {"p10": low, "median": (low + high) / 2, "p90": high},
            "method": "the profile's range for the level, read as its 10th to 90th percentile",
            "rows": [{"level": level, "min": low, "max": high}]}


def _posting_band(track: str, level: str, postings: list[dict], currency: str, now: datetime) -> dict | None:
    """Quartiles of the stored postings' midpoints: same track, currency, yearly, last 12 months."""
    since = now - timedelta(days=365)
    recent = [p for p in postings
              if p.get("track") == track and p.get("salary")
              and p["salary"].get("currency") == currency and p["salary"].get("period") == "year"
              and (p.get("created_at") is None or p["created_at"] >= since)]
    per_level = {lv: 0 for lv in LEVELS}
    for p in recent:
        lv = SENIORITY_LEVEL.get(p.get("seniority") or "")
        if lv:
            per_level[lv] += 1
    at_level = [p for p in recent if SENIORITY_LEVEL.get(p.get("seniority") or "") == level]
    if not at_level:
        return None
    mids = sorted((p["salary"]["min"] + p["salary"]["max"]) / 2 for p in at_level)
    figures = {"median": round(statistics.median(mids), -2)}
    if len(mids) >= 4:
        q = statistics.quantiles(mids, n=4)
        figures["p25"], figures["p75"] = round(q[0], -2), round(q[2], -2)
    plural = "" if len(at_level) == 1 else "s"
    return {"source": f"from {len(at_level)} posting{plural} in the last 12 months", "kind": "postings",
            "area": "postings anywhere", "currency": currency, "period": "year", "figures": figures,
            "method": "quartiles of the midpoints of posted ranges at this level",
            "postings_per_level": per_level,
            "rows": [{"job_id": p.get("id"), "title": p.get("title"), "min": p["salary"]["min"],
                      "max": p["salary"]["max"]} for p in at_level]}


def salary_band(track: str, level: str, location: str | None = None, postings: list[dict] = (),
                currency: str = "USD", now: datetime | None = None, oews_path: Path = OEWS_PATH) -> dict:
    """The band and its sources. Each band figure is the median of that figure over the sources
    that give it; `from` names them."""
    if track not in TRACKS:
        raise SalaryError(f"unknown track {track!r}; one of {', '.join(TRACKS)}", "track")
    if level not in LEVELS:
        raise SalaryError(f"unknown level {level!r}; one of {', '.join(LEVELS)}", "level")
    now = now or datetime.now(timezone.utc)
    area, note = resolve_area(location)
    notes = [note] if note else []
    sources = []
    if currency == "USD":
        bls = _bls_band(track, level, area, load_oews(oews_path))
        if bls is None and area != NATIONAL:
            bls = _bls_band(track, level, NATIONAL, load_oews(oews_path))
        sources += [s for s in (bls, _seed_band(track, level)) if s]
    else:
        notes.append(f"BLS and seed figures are in USD; only {currency} postings are used")
    posted = _posting_band(track, level, list(postings), currency, now)
    if posted:
        sources.append(posted)
    band, origin = {}, {}
    for name in ("p10", "p25", "median", "p75", "p90"):
        values = [(s["figures"][name], s["source"]) for s in sources if name in s["figures"]]
        if values:
            band[name] = round(statistics.median(v for v, _ in values), -2)
            origin[name] = [src for _, src in values]
    # Sources disagree: keep the band ordered (p10 <= ... <= p90) and say so.
    previous = None
    for name in ("p10", "p25", "median", "p75", "p90"):
        if name in band:
            if previous is not None and band[name] < band[previous]:
                notes.append(f"{name} raised to {previous} ({band[previous]:,.0f}): the sources disagree")
                band[name] = band[previous]
            previous = name
    if not band:
        notes.append("no source has figures for this track, level and currency")
    return {"track": track, "level": level, "location": location, "area": area,
            "currency": currency, "period": "year", "band": band, "from": origin,
            "sources": sources, "notes": notes}
