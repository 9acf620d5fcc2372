"""Similar code: submissions nearly the same as another's, or as the task's reference solution.

Code is normalised first: comments go, every identifier that is not a keyword, a CUDA/CuPy
name or an attribute becomes `V`, numbers become `N`, whitespace disappears; lines the task's starters already
contain are dropped (everyone starts from them). What remains is compared as TF-IDF vectors of
token 4-grams (scikit-learn); cosine similarity at or above THRESHOLD is reported. Calibrated on
the task bank's fixtures (tests/assessments/test_integrity.py): a renamed, re-indented copy of a
reference scores 1.0, variants that differ in one line 0.91-0.96, different solutions of the same
task in the same style 0.85 at most, and no fixture comes near a reference. Trivial solutions
(under MIN_TOKENS of own code) are never flagged: everyone writes vector_add the same way.
"""
from __future__ import annotations

import keyword
import re
from dataclasses import dataclass

import gpu_tasks
from gpu_tasks import bank

THRESHOLD = 0.9
MIN_TOKENS = 40  # less own code than this (a one-line kernel body) says nothing about who wrote it

_TOKEN = re.compile(r"""
    (?P<comment>\#[^\n]*|//[^\n]*|/\*.*?\*/)
  | (?P<name>[A-Za-z_]\w*)
  | (?P<number>\d+\.?\d*(?:[eE][+-]?\d+)?[fFuUlL]*)
  | (?P<newline>\n)
  | (?P<op>\S)
""", re.VERBOSE | re.DOTALL)

# Names that carry meaning rather than a writer's taste: kept as they are.
_KEPT = set(keyword.kwlist) | {
    "cp", "cupy", "cupyx", "jit", "np", "numpy", "RawKernel", "RawModule", "ElementwiseKernel",
    "ReductionKernel", "rawkernel", "solve", "float", "int", "double", "unsigned", "void", "const",
    "extern", "__global__", "__device__", "__shared__", "__syncthreads", "threadIdx", "blockIdx",
    "blockDim", "gridDim", "for", "if", "else", "while", "return", "atomicAdd",
    "__shfl_down_sync", "__shfl_xor_sync", "float32", "int32", "size", "shape", "range", "len",
    "min", "max", "sum", "exp", "expf", "sqrt", "sqrtf", "rsqrtf", "fmaxf", "fminf", "int32_t",
    # Verilog and cocotb: the language's words, not a writer's names
    "module", "endmodule", "input", "output", "wire", "reg", "logic", "always", "always_ff",
    "always_comb", "posedge", "negedge", "assign", "begin", "end", "case", "endcase", "parameter",
    "localparam", "generate", "endgenerate", "genvar", "integer", "cocotb", "await", "async",
    "dut", "RisingEdge", "FallingEdge", "Timer", "Clock", "value",
}


def normalise(source: str) -> list[str]:
    """The code as lines of normalised tokens."""
    lines, current = [], []
    for m in _TOKEN.finditer(source):
        kind = m.lastgroup
        if kind == "comment":
            continue
        if kind == "newline":
            if current:
                lines.append(" ".join(current))
                current = []
            continue
        text = m.group()
        if kind == "name":
            # attributes (threadIdx.x, cp.RawKernel, out.fill) are API, not the writer's names
            kept = text in _KEPT or (current and current[-1] == ".")
            current.append(text if kept else "V")
        elif kind == "number":
            current.append("N")
        else:
            current.append(text)
    if current:
        lines.append(" ".join(current))
    return lines


def _starter_lines(task: str) -> set[str]:
    lines: set[str] = set()
    for code in bank.starters_of(bank.find(task)).values():
        lines.update(normalise(code))
    return lines


def _reference(task) -> str:
    if bank.kind_of(task) == "cupy":
        return gpu_tasks.reference_source(task.slug)
    return task.reference_path.read_text(encoding="utf-8")


def compares(slug: str) -> bool:
    """Whether submissions of this task are compared (a task of the bank with a reference)."""
    task = bank.find(slug)
    return task is not None and (bank.kind_of(task) == "cupy"
                                 or getattr(task, "reference_path", None) is not None)


def own_code(source: str, boilerplate: set[str]) -> str:
    return "\n".join(line for line in normalise(source) if line not in boilerplate)


@dataclass(frozen=True)
class Match:
    submission_id: int
    other_id: int | None      # None: the reference solution
    similarity: float

    def describe(self) -> str:
        pct = f"{self.similarity:.0%}"
        if self.other_id is None:
            return f"similar to the reference solution ({pct})"
        return f"similar to submission {self.other_id} ({pct})"


def similar_pairs(task: str, subjects: dict[int, str], others: dict[int, str],
                  threshold: float = THRESHOLD) -> list[Match]:
    """For each subject submission, every other submission (or the reference) it nearly copies.

    `subjects` and `others` map submission ids to sources; pairs by the same author should be
    left out of `others` by the caller.
    """
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import cosine_similarity

    boiler = _starter_lines(task)
    ref_key = "reference"
    docs = {sid: own_code(src, boiler) for sid, src in {**others, **subjects}.items()}
    docs[ref_key] = own_code(_reference(bank.find(task)), boiler)
    docs = {k: v for k, v in docs.items() if len(v.split()) >= MIN_TOKENS}
    wanted = [sid for sid in subjects if sid in docs]
    if not wanted or len(docs) < 2:
        return []
    keys = list(docs)
    vectors = TfidfVectorizer(analyzer="word", token_pattern=r"\S+", ngram_range=(4, 4),
                              lowercase=False, sublinear_tf=True).fit_transform(docs[k] for k in keys)
    index = {k: i for i, k in enumerate(keys)}
    sims = cosine_similarity(vectors[[index[s] for s in wanted]], vectors)
    out = []
    for row, sid in zip(sims, wanted):
        for col, other in enumerate(keys):
            if other == sid or row[col] < threshold:
                continue
            if other != ref_key and other not in others and other not in subjects:
                continue
            out.append(Match(sid, None if other == ref_key else other, round(float(row[col]), 3)))
    return sorted(out, key=lambda m: (m.submission_id, -m.similarity))
