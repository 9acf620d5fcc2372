"""Posted pay: ranges (`$148,000 - $235,750`, `148,000 USD - 235,750 USD`, `$152K–$287.5K`,
`20 000 - 28 000 zł / month`) and single rates (`$95/hr`, `£600 per day` is not pay we report),
each with its currency and period.

Regular expressions rather than tokens: the tokenizer splits `$152K–$287.5K` unpredictably.
Numbers are found first (they are sparse), then each looks at its neighbours for a currency and
a multiplier, and two amounts joined by a dash or "to" make a range. That keeps the work linear.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_SYMBOLS = {"US$": "USD", "CA$": "CAD", "C$": "CAD", "A$": "AUD", "AU$": "AUD", "S$": "SGD",
            "$": "USD", "€": "EUR", "£": "GBP", "₹": "INR", "¥": "JPY", "Rs.": "INR", "Rs": "INR",
            "zł": "PLN"}
_CODES = "USD|EUR|GBP|CAD|INR|AUD|CHF|JPY|SGD|ILS|SEK|NOK|DKK|PLN|CNY|TWD|KRW|NZD|HKD"
CURRENCIES = tuple(_CODES.split("|"))  # every currency a salary can be read in
_SYMBOL_RE = "|".join(re.escape(s) for s in sorted(_SYMBOLS, key=len, reverse=True))

_NUMBER = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{2,3})+(?:\.\d+)?|(?<![\w.,])\d{1,3}(?:\.\d{3})+(?![\d,])"
                     r"|(?<![\w.,])\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?![\d,.])|(?<![\w.,])\d+(?:\.\d+)?")
_BEFORE = re.compile(rf"(?:(?P<code>{_CODES})\s*)?(?P<sym>{_SYMBOL_RE})?\s*$", re.I)
_AFTER = re.compile(r"\s*(?P<mult>[kK](?![a-zA-Z])|[mM](?![a-zA-Z])|thousand\b|million\b|lakhs?\b|LPA\b)?"
                    rf"(?:\s*(?:(?P<code>{_CODES})(?![A-Za-z])|(?P<sym>[€£₹]|zł)))?", re.I)
_JOIN = re.compile(r"\s*(?:-|–|—|to|and|through)\s*$", re.I)
_PERIODS = (
    ("hour", re.compile(r"(?:per|an|/|a)\s*(?:hour|hr)\b|hourly", re.I)),
    ("month", re.compile(r"(?:per|a|/)\s*(?:month|mo)\b|monthly", re.I)),
    ("year", re.compile(r"(?:per|a|/|an)\s*(?:year|yr|annum)\b|annual|yearly|\bLPA\b|p\.a\.", re.I)),
)
_MULTIPLIERS = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "lakh": 1e5, "lakhs": 1e5,
                "lpa": 1e5}
_PLAUSIBLE = {"year": (1_000, 50_000_000), "month": (100, 5_000_000), "hour": (5, 20_000)}


@dataclass
class _Amount:
    start: int      # including a currency prefix
    end: int        # including a multiplier and a currency suffix
    digits: str
    currency: str | None
    multiplier: str
    prefix_start: int  # where the bare number starts, for joining


# Currency marks, case-sensitive on purpose ("usd" in prose is rare; scanning is cheaper).
_MARK = re.compile(rf"[$€£₹¥]|Rs\.?|zł|\bLPA\b|\b(?:{_CODES})\b")
_REACH = 45  # characters around a currency mark where the amounts of a range can be


def _windows(text: str) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for mark in _MARK.finditer(text):
        start, end = max(0, mark.start() - _REACH), min(len(text), mark.end() + _REACH)
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(a, b) for a, b in merged]


def _amounts(text: str) -> list[_Amount]:
    """Numbers near a currency mark, with their currency and multiplier."""
    return [a for start, end in _windows(text) for a in _amounts_in(text, start, end)]


def _amounts_in(text: str, start: int, end: int) -> list[_Amount]:
    out = []
    for m in _NUMBER.finditer(text, start, end):
        before = _BEFORE.search(text, max(0, m.start() - 8), m.start())
        after = _AFTER.match(text, m.end())
        code = (after.group("code") or (before.group("code") if before else None))
        sym = (before.group("sym") if before else None) or after.group("sym")
        currency = code.upper() if code else (_SYMBOLS.get(sym) if sym else None)
        start = before.start() if before and (before.group("sym") or before.group("code")) else m.start()
        if currency is None and (after.group("mult") or "").lower().startswith(("lakh", "lpa")):
            currency = "INR"
        out.append(_Amount(start, after.end() if after.group(0).strip() else m.end(), m.group(0),
                           currency, (after.group("mult") or "").lower(), m.start()))
    return out


def _number(digits: str, currency: str | None) -> float:
    digits = re.sub(r"[ \u00a0\u202f]", "", digits)  # 20 000 zł
    if re.fullmatch(r"\d{1,3}(?:\.\d{3})+", digits) and currency not in (None, "USD", "GBP"):
        return float(digits.replace(".", ""))  # European thousands separator: 85.000 EUR
    return float(digits.replace(",", ""))


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


_RATE_AFTER = re.compile(r"\s*(?:/\s*|per\s+|an?\s+)(?:hour|hr|year|yr|annum|month|mo)\b", re.I)
_PAY_BEFORE = re.compile(r"(?:salary|pay|compensation|rate|wage|stipend|base|earn|paid)\b[^.$€£₹\n]{0,50}$", re.I)
_NOT_PAY = re.compile(r"bonus|sign[\s-]?on|signing|relocation|equity|stock|401|match|funding|raised|valuation"
                      r"|revenue|budget|credit|reimburse|allowance|\bup to\b", re.I)


def _single_rate(text: str, amount: _Amount) -> dict | None:
    """A posted single rate: `$95/hr`, `$95 per hour`, `Pay rate: $60.00`."""
    if amount.currency is None or amount.multiplier in ("m", "million"):
        return None
    rate = _RATE_AFTER.match(text, amount.end)
    context = text[max(0, amount.start - 40):amount.end + 30]
    if _NOT_PAY.search(context) or not (rate or _PAY_BEFORE.search(text, max(0, amount.start - 70), amount.start)):
        return None
    value = _number(amount.digits, amount.currency) * _MULTIPLIERS.get(amount.multiplier, 1)
    period = _period(text, amount.start, amount.end) or ("hour" if value < 500 else "year")
    lo_ok, hi_ok = _PLAUSIBLE[period]
    if not lo_ok <= value <= hi_ok:
        return None
    return {"min": value, "max": value, "currency": amount.currency, "period": period,
            "start": amount.start, "end": rate.end() if rate else amount.end}


def salary_bands(text: str) -> list[dict]:
    """Every plausible salary range or single rate in the text, in order."""
    amounts = _amounts(text)
    bands = _ranges(text, amounts)
    used = {(b["start"], b["end"]) for b in bands}
    singles = [r for a in amounts
               if not any(s <= a.start < e for s, e in used)
               for r in [_single_rate(text, a)] if r is not None]
    return sorted(bands + singles, key=lambda b: b["start"])


def _ranges(text: str, amounts: list[_Amount]) -> list[dict]:
    bands = []
    for a, b in zip(amounts, amounts[1:]):
        if not _JOIN.match(text[a.end:b.start]) or text[a.end:b.start].count("\n"):
            continue
        currency = a.currency or b.currency
        if currency is None:
            continue  # "3-5 years", "401(k)": a salary names its currency
        low, high = _number(a.digits, currency), _number(b.digits, currency)
        mult_a = a.multiplier or (b.multiplier if low < 1000 else "")  # "$152-287K"
        low *= _MULTIPLIERS.get(mult_a, 1)
        high *= _MULTIPLIERS.get(b.multiplier, 1)
        if not 0 < low <= high:
            continue
        period = _period(text, a.start, b.end) or ("hour" if high < 500 else "year")
        lo_ok, hi_ok = _PLAUSIBLE[period]
        if not (lo_ok <= low and high <= hi_ok):
            continue
        bands.append({"min": low, "max": high, "currency": currency, "period": period,
                      "start": a.start, "end": b.end})
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

    def as_number(value: float):
        return int(value) if float(value).is_integer() else round(value, 2)

    return {"min": as_number(low), "max": as_number(high), "currency": first["currency"],
            "period": first["period"]}
