"""Posted salary ranges: `$148,000 - $235,750`, `148,000 USD - 235,750 USD`, `$152K–$287.5K`.

Regular expressions rather than tokens: the tokenizer splits `$152K–$287.5K` unpredictably.
"""
from __future__ import annotations

import re

_SYMBOLS = {"US$": "USD", "CA$": "CAD", "C$": "CAD", "A$": "AUD", "AU$": "AUD", "S$": "SGD",
            "$": "USD", "€": "EUR", "£": "GBP", "₹": "INR", "¥": "JPY", "Rs.": "INR", "Rs": "INR"}
_CODES = "USD|EUR|GBP|CAD|INR|AUD|CHF|JPY|SGD|ILS|SEK|NOK|DKK|PLN|CNY|TWD|KRW|NZD|HKD"
_SYMBOL_RE = "|".join(re.escape(s) for s in sorted(_SYMBOLS, key=len, reverse=True))
_AMOUNT = (
    rf"(?:(?P<{{p}}code0>{_CODES})\s*)?(?P<{{p}}sym>{_SYMBOL_RE})?\s*"
    r"(?P<{p}num>\d{{1,3}}(?:,\d{{2,3}})+(?:\.\d+)?|\d{{1,3}}(?:\.\d{{3}})+(?!\d)|\d+(?:\.\d+)?)"
    r"\s*(?P<{p}mult>[kK](?![a-zA-Z])|[mM](?![a-zA-Z])|thousand|million|lakhs?|LPA)?"
    rf"(?:\s*(?P<{{p}}code>{_CODES})(?![A-Za-z]))?"
)
_RANGE = re.compile(
    _AMOUNT.format(p="a") + r"\s*(?:-|–|—|to|and|through)\s*" + _AMOUNT.format(p="b"), re.I)
_PERIODS = (
    ("hour", re.compile(r"(?:per|an|/|a)\s*(?:hour|hr)\b|hourly", re.I)),
    ("month", re.compile(r"(?:per|a|/)\s*(?:month|mo)\b|monthly", re.I)),
    ("year", re.compile(r"(?:per|a|/|an)\s*(?:year|yr|annum)\b|annual|yearly|\bLPA\b|p\.a\.", re.I)),
)
_MULTIPLIERS = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "lakh": 1e5, "lakhs": 1e5,
                "lpa": 1e5}
_PLAUSIBLE = {"year": (1_000, 50_000_000), "month": (100, 5_000_000), "hour": (5, 20_000)}


def _number(text: str, currency: str | None) -> float:
    if re.fullmatch(r"\d{1,3}(?:\.\d{3})+", text) and currency not in (None, "USD", "GBP"):
        return float(text.replace(".", ""))  # European thousands separator: 85.000 EUR
    return float(text.replace(",", ""))


def _currency(m: re.Match, p: str) -> str | None:
    code = m.group(p + "code") or m.group(p + "code0")
    if code:
        return code.upper()
    sym = m.group(p + "sym")
    return _SYMBOLS.get(sym) if sym else None


def _period(text: str, start: int, end: int) -> str | None:
    after = text[end:end + 40]
    before = text[max(0, start - 60):start]
    for name, pattern in _PERIODS:
        if pattern.search(after):
            return name
    for name, pattern in _PERIODS:
        if pattern.search(before):
            return name
    return None


def salary_bands(text: str) -> list[dict]:
    """Every plausible salary range in the text, in order."""
    bands = []
    for m in _RANGE.finditer(text):
        cur_a, cur_b = _currency(m, "a"), _currency(m, "b")
        currency = cur_a or cur_b
        if currency is None:
            continue  # "3-5 years", "401(k)": a salary names its currency
        low, high = _number(m.group("anum"), currency), _number(m.group("bnum"), currency)
        mult_a, mult_b = (m.group("amult") or "").lower(), (m.group("bmult") or "").lower()
        if mult_b and not mult_a and low < 1000:
            mult_a = mult_b  # "$152-287K"
        low *= _MULTIPLIERS.get(mult_a, 1)
        high *= _MULTIPLIERS.get(mult_b, 1)
        if not 0 < low <= high:
            continue
        period = _period(text, m.start(), m.end()) or ("hour" if high < 500 else "year")
        lo_ok, hi_ok = _PLAUSIBLE[period]
        if not (lo_ok <= low and high <= hi_ok):
            continue
        bands.append({"min": low, "max": high, "currency": currency, "period": period,
                      "start": m.start(), "end": m.end()})
    return bands


def posted_salary(text: str) -> dict | None:
    """The span from the lowest minimum to the highest maximum, in the first band's currency and period."""
    bands = salary_bands(text)
    if not bands:
        return None
    first = bands[0]
    same = [b for b in bands if (b["currency"], b["period"]) == (first["currency"], first["period"])]
    low = min(b["min"] for b in same)
    high = max(b["max"] for b in same)
    as_int = lambda v: int(v) if float(v).is_integer() else round(v, 2)
    return {"min": as_int(low), "max": as_int(high), "currency": first["currency"],
            "period": first["period"]}
