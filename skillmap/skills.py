"""The spaCy component that finds taxonomy skills in a posting.

Two PhraseMatchers: one on lower-cased tokens for ordinary names (`Infiniband`, `k8s`), one on
exact tokens for acronyms that collide with words (`HIP`, `IB`, `Go`, `C`).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

import spacy
from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from .taxonomy import DEFAULT_PATH, Taxonomy, load_taxonomy

# Exact forms that are also everyday words or letters: they count only in a list or after a
# preposition ("C/C++", "Python, Go", "fluent in Go"), never as "Go beyond" or "Section C".
AMBIGUOUS = frozenset({"Go", "R", "C", "D", "Ray", "Rust", "Volcano", "Weka", "Make", "Chisel",
                       "Spark", "Swift", "Julia", "Helm", "Ceph", "Shell"})
# Exact forms that name a skill only beside words of its field, anywhere in the same line or
# sentence: gem5's "Ruby" memory system (alone, Ruby is the language), Mesa the city.
CONTEXT = {
    "Ruby": re.compile(r"gem5|SLICC|Garnet|coheren|cache|memory system|protocol", re.I),
    "Garnet": re.compile(r"gem5|Ruby|network-on-chip|NoC|interconnect", re.I),
    "Mesa": re.compile(r"driver|graphics|OpenGL|Vulkan|Gallium|NIR|GPU|shader|compiler", re.I),
    "NIR": re.compile(r"Mesa|shader|compiler|driver|\bIR\b|SPIR-V|Vulkan|OpenGL", re.I),
    "Gallium": re.compile(r"Mesa|driver|OpenGL|Vulkan|graphics", re.I),
    "ANV": re.compile(r"Mesa|driver|Vulkan|Intel", re.I),
    "Vera": re.compile(r"Specman|verification|SystemVerilog|testbench|HVL|\bUVM\b|\bOVM\b", re.I),
    "Borg": re.compile(r"cluster|Kubernetes|scheduler|Mesos|YARN|orchestrat", re.I),
    "Nomad": re.compile(r"cluster|Kubernetes|scheduler|Mesos|YARN|orchestrat|HashiCorp", re.I),
}
_HARDWARE_FLOW = re.compile(r"\bRTL\b|\bCDC\b|\bRDC\b|Verilog|VHDL|SpyGlass|synthes|\bSTA\b|timing|netlist"
                            r"|\bUVM\b|\bSVA\b|assertion|testbench|verification|silicon|FPGA|ASIC|\bDFT\b", re.I)
for _form in ("lint", "Lint", "synthesis", "Synthesis", "formal", "Formal", "emulation", "Emulation"):
    CONTEXT[_form] = _HARDWARE_FLOW
# Words before an alias that make it mean something else: "cutting-edge AI" is not edge AI.
NOT_AFTER = {"edge_ai": frozenset({"cutting", "leading", "bleeding"})}
_COORDINATORS = frozenset({",", "/", "and", "or", "&"})
_LIST_NEIGHBOURS = frozenset({",", "/", "(", ")", "and", "or", "&", ":", ";", "in", "with", "using",
                              "of", "+", "-", "like", "e.g.", "including", "as"})


def _plural(form: str) -> str | None:
    last = form.split()[-1] if form.split() else form
    if not (last[-1:].isalpha() and len(last) >= 3) or last.endswith("s"):
        return None
    if last.endswith("y") and last[-2:-1].lower() not in "aeiou" and last.islower():
        return form[:-1] + "ies"  # topology -> topologies
    return form + "s"


def _variants(form: str) -> set[str]:
    """The form, its plural, and its hyphenated and spaced spellings
    ("FPGAs", "compute sanitizer", "clock-gating")."""
    out = {form}
    if "-" in form:
        out.add(form.replace("-", " "))
    if " " in form and len(form.split()) == 2:
        out.add(form.replace(" ", "-"))
    out.update(p for p in map(_plural, list(out)) if p)
    return out


# The taxonomy's forms, tokenized once and saved (by `make`, or on first use): tokenizing some
# 7,000 forms is most of the cost of building the pipeline, which every command-line parse pays.
TOKENS_PATH = Path(__file__).parent / "data" / "pattern_tokens.json"
# Bump when `extract.blank_english` changes how text is tokenized.
TOKENIZER_VERSION = "1"


def _forms_digest(forms: list[str]) -> str:
    h = hashlib.sha256(f"{TOKENIZER_VERSION}|{spacy.__version__}".encode())
    for form in forms:
        h.update(form.encode() + b"\0")
    return h.hexdigest()


def tokenized_forms(nlp: Language, forms: list[str], path: Path = TOKENS_PATH) -> dict[str, list[str]]:
    """form -> its tokens under `nlp`'s tokenizer, from the saved file when it matches these forms."""
    digest = _forms_digest(forms)
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved.get("digest") == digest:
            return saved["tokens"]
    except (OSError, ValueError, AttributeError):
        pass
    tokens = {form: [t.text for t in nlp.make_doc(form)] for form in forms}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".pattern_tokens.", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"digest": digest, "tokens": tokens}, fh)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only install tokenizes once per process instead
    return tokens


class SkillMatcher:
    """Marks skill mentions as `doc.spans["skills"]`, labelled with the skill id."""

    def __init__(self, nlp: Language, taxonomy: Taxonomy, tokens_path: Path = TOKENS_PATH):
        self.taxonomy = taxonomy
        self.lower = PhraseMatcher(nlp.vocab, attr="LOWER")
        self.exact = PhraseMatcher(nlp.vocab, attr="ORTH")
        self.lowered_forms: dict[str, str] = {}
        patterns = []
        for skill in taxonomy.skills.values():
            loose = sorted({v for a in skill.aliases for v in _variants(a)})
            strict = sorted({v for e in skill.exact for v in _variants(e)})
            patterns.append((skill.id, loose, strict))
            self.lowered_forms.update({a.lower(): skill.id for a in loose})
        forms = sorted({f for _, loose, strict in patterns for f in loose + strict})
        tokens = tokenized_forms(nlp, forms, tokens_path)

        def doc(form: str) -> Doc:
            return Doc(nlp.vocab, words=tokens[form])

        for skill_id, loose, strict in patterns:
            if loose:
                self.lower.add(skill_id, [doc(a) for a in loose])
            if strict:
                self.exact.add(skill_id, [doc(e) for e in strict])

    def _in_list_context(self, doc: Doc, start: int, end: int) -> bool:
        before = doc[start - 1].lower_ if start > 0 else ""
        after = doc[end].lower_ if end < len(doc) else ""
        return before in _LIST_NEIGHBOURS or after in _LIST_NEIGHBOURS

    @staticmethod
    def _in_field_context(doc: Doc, start: int, end: int, pattern: re.Pattern) -> bool:
        """Whether the line around the match also names the skill's field."""
        text = doc.user_data.get("text") or doc.text
        lo = text.rfind("\n", 0, doc[start].idx) + 1
        hi = text.find("\n", doc[end - 1].idx)
        window = text[max(lo, doc[start].idx - 300):(hi if hi >= 0 else len(text))][:600]
        return bool(pattern.search(window.replace(doc[start:end].text, " ", 1)))

    def _shared_prefix(self, doc: Doc, span: Span) -> Span | None:
        """`Nsight Systems/Compute`: the word after the slash borrows the span's prefix."""
        end = span.end
        if len(span) < 2 or end + 1 >= len(doc) or doc[end].text != "/":
            return None
        candidate = " ".join([t.lower_ for t in span[:-1]] + [doc[end + 1].lower_])
        skill_id = self.lowered_forms.get(candidate)
        # Only a sibling of the same kind: "Nsight Systems/Compute", not "controllers/operators".
        if skill_id is None or (self.taxonomy.get(skill_id).category
                                != self.taxonomy.get(span.label_).category):
            return None
        return Span(doc, end + 1, end + 2, label=skill_id)

    def _shared_suffix(self, doc: Doc, span: Span) -> list[Span]:
        """`data, tensor and pipeline parallelism`: words listed before the span borrow its tail."""
        if len(span) < 2:
            return []
        tail = " ".join(t.lower_ for t in span[1:])
        found, i = [], span.start - 1
        while i >= 1 and doc[i].lower_ in _COORDINATORS:
            i -= 1
            if doc[i].lower_ in _COORDINATORS:  # ", and", ", or"
                i -= 1
            if i < 0 or not doc[i].is_alpha:
                break
            skill_id = self.lowered_forms.get(f"{doc[i].lower_} {tail}")
            if skill_id is None or (self.taxonomy.get(skill_id).category
                                    != self.taxonomy.get(span.label_).category):
                break
            found.append(Span(doc, i, i + 1, label=skill_id))
            i -= 1
        return found

    def __call__(self, doc: Doc) -> Doc:
        spans = []
        for match_id, start, end in self.lower(doc):
            span = Span(doc, start, end, label=match_id)
            banned = NOT_AFTER.get(span.label_)
            if banned and any(doc[i].lower_ in banned for i in range(max(0, start - 2), start)):
                continue
            spans.append(span)
        for match_id, start, end in self.exact(doc):
            form = doc[start:end].text
            if form in AMBIGUOUS and not self._in_list_context(doc, start, end):
                continue
            if form in CONTEXT and not self._in_field_context(doc, start, end, CONTEXT[form]):
                continue
            spans.append(Span(doc, start, end, label=match_id))
        spans = filter_spans(spans)
        extra = [s for s in (self._shared_prefix(doc, span) for span in spans) if s is not None]
        extra += [s for span in spans for s in self._shared_suffix(doc, span)]
        if extra:
            spans = filter_spans(spans + extra)
        doc.spans["skills"] = spans
        return doc


@Language.factory("kp_skills", default_config={"taxonomy_path": None})
def make_skill_matcher(nlp: Language, name: str, taxonomy_path: str | None) -> SkillMatcher:
    return SkillMatcher(nlp, load_taxonomy(taxonomy_path or DEFAULT_PATH))
