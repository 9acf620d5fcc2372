"""The spaCy pipeline that reads a job description: sections, skills, years, degree, salary.

Built on `spacy.blank("en")`: no model download, so it installs anywhere.
"""
from __future__ import annotations

import threading
from functools import lru_cache

from spacy.lang.en import English
from spacy.language import Language
from spacy.tokens import Doc

from . import skills as _skills  # noqa: F401  (registers the kp_skills factory)
from .experience import experience
from .salary import posted_salary
from .sections import NEED_RANK, SegmentIndex, clause_cue, effective_section, need_at, segments
from .taxonomy import DEFAULT_PATH, load_taxonomy

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
    """Experience paths, years, degree and salary, in `doc.user_data`."""
    index = SegmentIndex(doc.user_data["segments"])
    text = doc_text(doc)
    found = experience(index, text)
    doc.user_data["experience_paths"] = found["paths"]
    doc.user_data["min_years"] = found["min_years"]
    doc.user_data["degree"] = found["degree"]
    doc.user_data["salary"] = posted_salary(text)
    return doc


def read(text: str, taxonomy_path: str | None = None) -> Doc:
    """Run the pipeline on a text."""
    nlp = build_pipeline(taxonomy_path)
    return nlp(prepare(nlp, text))


def read_many(texts, taxonomy_path: str | None = None, batch_size: int = 32):
    """Run the pipeline on many texts (`nlp.pipe`), yielding Docs in order."""
    nlp = build_pipeline(taxonomy_path)
    return nlp.pipe((prepare(nlp, t) for t in texts), batch_size=batch_size)


def prepare(nlp: Language, text: str) -> Doc:
    """The tokenized Doc, after same-length replacements of look-alike characters."""
    if any(c in text for c in _LOOKALIKE_CHARS):
        text = text.translate(_LOOKALIKES)
    doc = nlp.make_doc(text)
    doc.user_data["text"] = text
    return doc


class _PostingDefaults(English.Defaults):
    # Also split after `C++` ("C++/CUDA", "C++-based") and a sentence-final period after a
    # capital ("in SystemC.", "in C.").
    infixes = list(English.Defaults.infixes) + [r"(?<=\+\+)[/,\-]"]
    suffixes = list(English.Defaults.suffixes) + [r"(?<=[A-Z+#])\."]


class PostingEnglish(English):
    """Blank English with the tokenizer rules above, built in one go (setting the rules on a
    built tokenizer would load its special cases twice)."""

    Defaults = _PostingDefaults


def blank_english() -> Language:
    """A blank English pipeline (no model download) with the posting tokenizer rules."""
    return PostingEnglish()


# Same-length replacements, so character offsets into the original text stay valid: hyphens,
# no-break spaces, and a byte-order mark or zero-width characters (read as spaces).
_LOOKALIKE_CHARS = ("\u2010", "\u2011", "\u00a0", "\u202f", "\ufeff", "\u200b", "\u200c", "\u200d")
_LOOKALIKES = str.maketrans({c: "-" if c in "\u2010\u2011" else " " for c in _LOOKALIKE_CHARS})


def build_pipeline(taxonomy_path: str | None = None) -> Language:
    """The pipeline for a taxonomy (the shipped one by default), built once per process."""
    return _pipeline(str(taxonomy_path) if taxonomy_path else None)


_BUILD_LOCK = threading.Lock()


def _pipeline(taxonomy_path: str | None) -> Language:
    # One build at a time: a warm-up thread and a first request must not both build it.
    with _BUILD_LOCK:
        return _build(taxonomy_path)


@lru_cache(maxsize=2)
def _build(taxonomy_path: str | None) -> Language:
    nlp = blank_english()
    nlp.add_pipe("kp_sections")
    nlp.add_pipe("kp_skills", config={"taxonomy_path": taxonomy_path})
    nlp.add_pipe("kp_facts")
    return nlp


def skill_mentions(doc: Doc, taxonomy_path: str | None = None) -> list[dict]:
    """One entry per skill found, in order of first mention: id, name, category, need (the
    strongest of its mentions: required > preferred > mentioned), `required` (need ==
    "required"), the number of mentions, every mention's offsets, and up to MAX_EVIDENCE
    evidence lines, the strongest first (a requirement line before an "About us" sentence)."""
    tax = load_taxonomy(taxonomy_path or DEFAULT_PATH)
    index = SegmentIndex(doc.user_data["segments"])
    found: dict[str, dict] = {}
    for span in doc.spans["skills"]:
        start, end = span.start_char, span.end_char
        skill = tax.get(span.label_)
        seg = index.at(start)
        local = start - seg.start if seg else 0
        if seg is not None:
            cue = clause_cue(seg.text, local, end - start)
            need = need_at(seg, local, end - start, cue)
            section = effective_section(seg, local, end - start, cue)
        else:
            need, section = "mentioned", "other"
        entry = found.get(skill.id)
        if entry is None:
            entry = found[skill.id] = {
                "id": skill.id, "name": skill.name, "category": skill.category,
                "need": need, "required": False, "mentions": 0, "offsets": [], "evidence": [],
            }
        entry["mentions"] += 1
        entry["offsets"].append([start, end])
        if NEED_RANK[need] > NEED_RANK[entry["need"]]:
            entry["need"] = need
        entry["evidence"].append({
            "text": seg.text if seg else span.sent.text, "start": start, "end": end,
            "match": span.text, "section": section, "need": need,
        })
    for entry in found.values():
        entry["required"] = entry["need"] == "required"
        # Strongest first, then in reading order; one line is evidence once.
        ranked = sorted(entry["evidence"], key=lambda e: (-NEED_RANK[e["need"]], e["start"]))
        seen, evidence = set(), []
        for item in ranked:
            if item["text"] not in seen and len(evidence) < MAX_EVIDENCE:
                seen.add(item["text"])
                evidence.append(item)
        entry["evidence"] = evidence
    return list(found.values())
