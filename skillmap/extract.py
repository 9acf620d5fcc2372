"""The spaCy pipeline that reads a job description: sections, skills, years, degree, salary.

Built on `spacy.blank("en")`: no model download, so it installs anywhere.
"""
from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache

import spacy
from spacy.util import compile_infix_regex, compile_suffix_regex
from spacy.language import Language
from spacy.tokens import Doc

from . import skills as _skills  # noqa: F401  (registers the kp_skills factory)
from .degree import min_degree
from .salary import posted_salary
from .sections import PREFERRED, SegmentIndex, effective_section, segments
from .taxonomy import DEFAULT_PATH, load_taxonomy
from .years import min_years

MAX_EVIDENCE = 5


def doc_text(doc: Doc) -> str:
    """The text once per doc: `Doc.text` rebuilds it from every token on each access."""
    if "text" not in doc.user_data:
        doc.user_data["text"] = doc.text
    return doc.user_data["text"]


@Language.component("kp_sections")
def mark_sections(doc: Doc) -> Doc:
    """Evidence units with their section kind, in `doc.user_data["segments"]`."""
    doc.user_data["segments"] = segments(doc_text(doc))
    return doc


@Language.component("kp_facts")
def extract_facts(doc: Doc) -> Doc:
    """Years, degree and salary, in `doc.user_data`."""
    index = SegmentIndex(doc.user_data["segments"])
    text = doc_text(doc)
    doc.user_data["min_years"] = min_years(index, text)
    doc.user_data["degree"] = min_degree(index, text)
    doc.user_data["salary"] = posted_salary(doc_text(doc))
    return doc


def read(text: str, taxonomy_path: str | None = None) -> Doc:
    """Run the pipeline on a text."""
    nlp = build_pipeline(taxonomy_path)
    if any(c in text for c in _LOOKALIKE_CHARS):
        text = text.translate(_LOOKALIKES)
    doc = nlp.make_doc(text)
    doc.user_data["text"] = text
    return nlp(doc)


def blank_english() -> Language:
    """`spacy.blank("en")` whose tokenizer also splits after `C++` ("C++/CUDA", "C++-based") and
    a sentence-final period after a capital ("in SystemC.", "in C.")."""
    nlp = spacy.blank("en")
    infixes = list(nlp.Defaults.infixes) + [r"(?<=\+\+)[/,\-]"]
    suffixes = list(nlp.Defaults.suffixes) + [r"(?<=[A-Z+#])\."]
    nlp.tokenizer.infix_finditer = compile_infix_regex(infixes).finditer
    nlp.tokenizer.suffix_search = compile_suffix_regex(suffixes).search
    return nlp


# Same-length replacements, so character offsets into the original text stay valid.
_LOOKALIKE_CHARS = ("\u2010", "\u2011", "\u00a0", "\u202f")
_LOOKALIKES = str.maketrans({c: "-" if c in "\u2010\u2011" else " " for c in _LOOKALIKE_CHARS})


@lru_cache(maxsize=2)
def build_pipeline(taxonomy_path: str | None = None) -> Language:
    nlp = blank_english()
    nlp.add_pipe("kp_sections")
    nlp.add_pipe("kp_skills", config={"taxonomy_path": taxonomy_path})
    nlp.add_pipe("kp_facts")
    return nlp


def skill_mentions(doc: Doc, taxonomy_path: str | None = None) -> list[dict]:
    """One entry per skill found: id, name, category, required, evidence (in order of first mention)."""
    tax = load_taxonomy(taxonomy_path or DEFAULT_PATH)
    segs = doc.user_data["segments"]
    seg_starts = [s.start for s in segs]
    found: dict[str, dict] = {}
    for span in doc.spans["skills"]:
        start, end = span.start_char, span.end_char
        skill = tax.get(span.label_)
        entry = found.get(skill.id)
        if entry is not None and entry["required"] and len(entry["evidence"]) >= MAX_EVIDENCE:
            entry["mentions"] += 1
            continue  # nothing more to learn from this mention
        index = bisect_right(seg_starts, start) - 1
        seg = segs[index] if index >= 0 and segs[index].end >= end else None
        section = effective_section(seg, start - seg.start) if seg else "other"
        if entry is None:
            entry = found[skill.id] = {
                "id": skill.id, "name": skill.name, "category": skill.category,
                "required": False, "mentions": 0, "evidence": [],
            }
        entry["mentions"] += 1
        entry["required"] = entry["required"] or section != PREFERRED
        if len(entry["evidence"]) < MAX_EVIDENCE:
            entry["evidence"].append({
                "text": seg.text if seg else span.sent.text, "start": start, "end": end,
                "match": span.text, "section": section,
            })
    return list(found.values())
