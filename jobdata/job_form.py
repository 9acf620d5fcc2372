"""The job pages' forms: the filters of the job list, and a job's facts as a recruiter edits
them. Each reader returns (values, errors by field) so the page can show both."""
from __future__ import annotations

import json
import re

from marshmallow import ValidationError

from skillmap.degree import LEVELS as DEGREES
from skillmap.salary import CURRENCIES
from skillmap.sections import NEEDS
from skillmap.seniority import LEVELS as SENIORITY_LEVELS
from skillmap.taxonomy import TRACKS, find_skill, load_taxonomy
from skillmap.workplace import WORKPLACES

from .edits import EDITABLE
from .schemas import JobQuerySchema

PERIODS = ("year", "month", "hour")
FILTERS = ("q", "track", "seniority", "workplace", "location", "min_salary", "max_salary",
           "currency")


_AMOUNT = re.compile(r"^\s*[$€£¥₹]?\s*(\d+(?:[.,]\d+)?)\s*([kKmM]?)\s*$")


def money(text: str) -> str:
    """An amount as people type it ("150k", "1.5M", "$150,000", "150 000") as plain digits;
    anything else comes back as it was, for the schema to refuse with its own message."""
    compact = text.replace(" ", "").replace("\u00a0", "")
    if re.fullmatch(r"[$€£¥₹]?\d{1,3}(,\d{3})+(\.\d+)?", compact):
        compact = compact.replace(",", "")
    m = _AMOUNT.match(compact)
    if not m:
        return text
    number = float(m.group(1).replace(",", "."))
    number *= {"k": 1e3, "m": 1e6}.get(m.group(2).lower(), 1)
    return str(int(round(number))) if number == int(number) or m.group(2) else m.group(1)


def skill_ids(text: str) -> tuple[list[str], list[str]]:
    """Comma-separated skill names, aliases or ids -> (ids, what matched no skill)."""
    tax = load_taxonomy()
    ids, unknown = [], []
    for part in text.split(","):
        if not part.strip():
            continue
        skill = find_skill(tax, part)
        if skill is None:
            unknown.append(part.strip())
        elif skill.id not in ids:
            ids.append(skill.id)
    return ids, unknown


def read_filters(args) -> tuple[dict, dict]:
    """The job list's query string -> (filters for list_jobs, errors by field).

    The page takes what the API takes (skill=cuda&skill=nccl), plus `skills`: names typed into
    the page's field, comma-separated."""
    raw = {key: args.get(key, "").strip() for key in FILTERS if args.get(key, "").strip()}
    for key in ("min_salary", "max_salary"):
        if key in raw:
            raw[key] = money(raw[key])
    errors = {}
    ids = [s for s in args.getlist("skill") if s.strip()]
    found, unknown = skill_ids(args.get("skills", ""))
    if unknown:
        errors["skills"] = f"no skill is called {unknown[0][:60]!r}: pick one from the suggestions"
    ids += [s for s in found if s not in ids]
    if ids:
        raw["skill"] = ids
    if not raw.get("min_salary") and not raw.get("max_salary"):
        raw.pop("currency", None)
    try:
        values = JobQuerySchema(partial=True).load(raw)
    except ValidationError as err:
        for field, messages in err.messages.items():
            errors.setdefault(field, messages[0] if isinstance(messages, list) else str(messages))
        if "skill" in err.messages:   # the API's message points at the API; the page has a field
            unknown = next((s for s in ids if s not in load_taxonomy()), "")
            errors["skill"] = (f"no skill is called {unknown[:60]!r}: type a skill's name in "
                               "Skills and pick one from the suggestions")
        values = {}
    values.pop("page", None)
    values.pop("per_page", None)
    return ({} if errors else values), errors


def _choice(form, field: str, allowed, errors: dict):
    value = form.get(field, "").strip()
    if not value:
        return None
    if value not in allowed:
        errors[field] = f"{field.replace('_', ' ')} must be one of: {', '.join(allowed)}"
        return None
    return value


def _number(form, field: str, errors: dict, low: float, high: float, integer: bool = False,
            amount: bool = False):
    value = form.get(field, "").strip()
    value = money(value) if amount else value.replace(",", "")
    if not value:
        return None
    try:
        number = int(value) if integer else float(value)
    except ValueError:
        errors[field] = f"{field.replace('_', ' ')} must be a {'whole ' if integer else ''}number"
        return None
    if not low <= number <= high:
        errors[field] = f"{field.replace('_', ' ')} must be between {low:g} and {high:g}"
        return None
    return number


def read_facts(form) -> tuple[dict, dict]:
    """The edit form -> (facts in jobdata.edits' shape, errors by field)."""
    errors: dict = {}
    facts = {
        "primary_track": _choice(form, "primary_track", TRACKS, errors),
        "seniority": _choice(form, "seniority", SENIORITY_LEVELS, errors),
        "min_years": _number(form, "min_years", errors, 0, 50, integer=True),
        "degree": _choice(form, "degree", DEGREES, errors),
        "workplace": _choice(form, "workplace", WORKPLACES, errors),
    }
    low = _number(form, "salary_min", errors, 0, 100_000_000, amount=True)
    high = _number(form, "salary_max", errors, 0, 100_000_000, amount=True)
    currency = _choice(form, "salary_currency", CURRENCIES, errors) or "USD"
    period = _choice(form, "salary_period", PERIODS, errors) or "year"
    if low is None and high is not None:
        low = high
    if low is not None and high is not None and high < low:
        errors["salary_max"] = "salary max must not be below salary min"
    facts["salary"] = ({"min": low, "max": high if high is not None else low,
                        "currency": currency, "period": period} if low is not None else None)
    skills = {}
    tax = load_taxonomy()
    for key in form:
        if key.startswith("need."):
            skill_id, need = key[len("need."):], form.get(key)
            if skill_id in tax and need in NEEDS:
                skills[skill_id] = need
    added, unknown = skill_ids(form.get("add_skills", ""))
    if unknown:
        errors["add_skills"] = f"no skill is called {unknown[0][:60]!r}: pick one from the suggestions"
    added_need = form.get("add_need", "required")
    for skill_id in added:
        skills.setdefault(skill_id, added_need if added_need in NEEDS else "required")
    facts["skills"] = skills
    return facts, errors


def shown_facts(form) -> dict | None:
    """The facts the form showed (its hidden `shown` field), or None if it is unreadable."""
    try:
        shown = json.loads(form.get("shown", ""))
    except ValueError:
        return None
    if not isinstance(shown, dict) or not isinstance(shown.get("skills"), dict) \
            or any(field not in shown for field in EDITABLE):
        return None
    return shown
