"""A job's facts: its parse, with what the organisation's recruiters corrected on top.

Corrections are kept apart from the parse ({field: value}; skills as {skill id: need, or None
for removed}) so a better parser, or a new text, still improves every field nobody touched.
"""
from __future__ import annotations

EDITABLE = ("primary_track", "seniority", "min_years", "degree", "workplace", "salary")
HOURS_PER_YEAR, MONTHS_PER_YEAR = 2080, 12


def effective(parse: dict, overrides: dict | None) -> dict:
    """The facts shown and filtered on: EDITABLE fields plus `skills` ({id: need})."""
    overrides = overrides or {}
    facts = {field: overrides.get(field, parse.get(field)) for field in EDITABLE}
    skills = {s["id"]: s["need"] for s in parse.get("skills", [])}
    for skill_id, need in (overrides.get("skills") or {}).items():
        if need is None:
            skills.pop(skill_id, None)
        else:
            skills[skill_id] = need
    facts["skills"] = skills
    return facts


def corrected(parse: dict, overrides: dict | None) -> dict:
    """The parse as the organisation corrected it: the shape of parse_job's result, for
    everything that reads a job's parse (matching, roadmaps, salary bands)."""
    if not overrides:
        return parse
    out = {**parse, **{f: overrides[f] for f in EDITABLE if f in overrides}}
    needs = effective(parse, overrides)["skills"]
    skills = [{**s, "need": needs[s["id"]], "required": needs[s["id"]] == "required"}
              for s in parse.get("skills", []) if s["id"] in needs]
    found = {s["id"] for s in skills}
    skills += [_added_skill(sid, need) for sid, need in needs.items() if sid not in found]
    out["skills"] = skills
    return out


def _added_skill(skill_id: str, need: str) -> dict:
    """A skill a recruiter added: named from the taxonomy, with no evidence in the text."""
    from skillmap.taxonomy import load_taxonomy

    skill = load_taxonomy().skills.get(skill_id)
    return {"id": skill_id, "name": skill.name if skill else skill_id,
            "category": skill.category if skill else None, "need": need,
            "required": need == "required", "mentions": 0, "offsets": [], "evidence": []}


def corrections(submitted: dict, shown: dict, parsed: dict, previous: dict | None) -> dict:
    """The overrides to keep after an edit form was sent.

    `shown` is what the form showed, `submitted` what came back, `parsed` the facts the parser
    alone gives the (possibly new) text. A field is a correction when the recruiter changed it
    now, or corrected it before and left it; either way only while it differs from the parse."""
    previous = previous or {}
    kept: dict = {}
    for field in EDITABLE:
        if (submitted[field] != shown[field] or field in previous) \
                and submitted[field] != parsed[field]:
            kept[field] = submitted[field]
    before = previous.get("skills") or {}
    skills = {}
    for skill_id in set(submitted["skills"]) | set(shown["skills"]) | set(before):
        value = submitted["skills"].get(skill_id)
        if (value != shown["skills"].get(skill_id) or skill_id in before) \
                and value != parsed["skills"].get(skill_id):
            skills[skill_id] = value
    if skills:
        kept["skills"] = skills
    return kept


def yearly_salary(salary: dict | None) -> tuple[float | None, float | None, str | None]:
    """(low, high, currency) per year, for filtering; hourly pay counts 2,080 hours a year."""
    if not salary or salary.get("min") is None:
        return None, None, None
    factor = {"hour": HOURS_PER_YEAR, "month": MONTHS_PER_YEAR}.get(salary.get("period"), 1)
    high = salary.get("max") if salary.get("max") is not None else salary["min"]
    return float(salary["min"]) * factor, float(high) * factor, salary.get("currency")
