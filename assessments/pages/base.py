"""What every page module shares: the blueprint, verdict and status wording, and helpers."""
from __future__ import annotations

from datetime import datetime

from flask import Blueprint, abort, current_app, request, url_for
from flask_login import current_user
from markupsafe import Markup

from accounts.models import Role, utcnow

from refusals import Refusal

from .. import catalog, service
from ..models import SubmissionKind

bp = Blueprint("assessment_pages", __name__)

STYLE_LABELS = {
    "raw": ("Raw kernel", "cupy.RawKernel: the kernel in CUDA C++"),
    "elementwise": ("Elementwise", "cupy.ElementwiseKernel: one C++ expression per element"),
    "reduction": ("Reduction", "cupy.ReductionKernel: map, reduce and post-map expressions"),
    "jit": ("JIT", "cupyx.jit.rawkernel: the kernel written in Python"),
    "array": ("Array", "CuPy array expressions: CuPy generates the kernels"),
    "python": ("Python", "Python 3 with NumPy: define the function"),
    "cpp": ("C++", "C++17 compiled with g++ -O2: define the extern \"C\" function"),
}

VERDICTS = {
    "accepted": ("Accepted", "good", "Every test passed."),
    "wrong_answer": ("Wrong answer", "bad", "An output differs from the reference."),
    "compile_error": ("Compile error", "warn", "A kernel did not compile."),
    "runtime_error": ("Runtime error", "bad", "The code raised an error or crashed."),
    "time_limit_exceeded": ("Time limit exceeded", "warn", "A test ran past its time limit."),
    "memory_limit_exceeded": ("Memory limit exceeded", "warn", "The code used too much memory."),
    "memory_error": ("Memory error", "bad", "A kernel accessed memory out of bounds."),
    "race_detected": ("Race detected", "bad", "Threads raced on shared or global memory."),
    "security_violation": ("Refused", "bad", "The code tried something the judge does not allow."),
    "internal_error": ("Judge error", "warn", "The judge could not finish; this is not your fault."),
}

STATUS_TEXT = {
    "queued": "Queued: waiting for a grader",
    "running": "Running",
    "done": "Done",
    "failed": "Grading failed",
}

MAX_TEXT_CHARS = 50_000


# ---- helpers ------------------------------------------------------------------------------


@bp.app_template_filter("kp_utc")
def _utc(value: datetime | None, fmt: str = "%Y-%m-%d %H:%M UTC") -> str:
    return value.strftime(fmt) if value else ""


@bp.app_template_filter("kp_iso")
def _iso(value: datetime | None) -> str:
    """A naive UTC datetime as ISO 8601 with a Z, for the page's scripts."""
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value else ""


@bp.app_template_filter("kp_num")
def _num(value, digits: int = 4) -> str:
    if value is None:
        return "–"
    if isinstance(value, str):  # "nan", "inf" from the report's JSON
        return value
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


bp.add_app_template_global(_num, "kp_num")


@bp.app_template_filter("kp_language")
def _language(value: str | None, missing: str = "–") -> str:
    """A function task's language as people write it: python -> Python, cpp -> C++."""
    if not value:
        return missing
    return STYLE_LABELS[value][0] if value in ("python", "cpp") else value


@bp.app_template_filter("kp_count")
def _count(value) -> str:
    """A counter as people read it: 950, 12.4k, 3.1M, 2.15G."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "–"
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= div:
            return f"{value / div:.3g}{unit}"
    return f"{value:.3g}" if isinstance(value, float) and value != int(value) else str(int(value))


@bp.app_template_filter("kp_us")
def _us(value) -> str:
    """Microseconds as µs or ms."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "–"
    return f"{value / 1000:.3g} ms" if value >= 1000 else f"{value:.3g} µs"


@bp.app_template_global("kp_minutes_left")
def minutes_left(deadline: datetime | None) -> int:
    if deadline is None:
        return 0
    return max(0, int((deadline - utcnow()).total_seconds() // 60))


@bp.app_template_filter("kp_bytes")
def _bytes(n) -> str:
    if n is None:
        return "?"
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB"


bp.add_app_template_global(catalog.tasks_noun, "kp_tasks_noun")


@bp.app_template_global("kp_waveform_svg")
def waveform_svg(window: dict) -> Markup:
    """A wrong design's waveform as an inline SVG timing diagram (names and values escaped)."""
    from assessments.judge.kinds.verilog import waveform
    try:
        return Markup(waveform.to_svg(window))
    except (KeyError, TypeError, ValueError, IndexError):   # a report from an older judge
        return Markup("")


@bp.app_template_global("kp_verdict")
def verdict_info(verdict: str | None, message: str | None = None) -> dict:
    """Title, tone, one line and icon of a verdict; `message` (the report's) tells a Python
    syntax error from a kernel that did not compile."""
    title, tone, text = VERDICTS.get(verdict or "", ((verdict or "no verdict").replace("_", " ")
                                                     .capitalize(), "warn", ""))
    if verdict == "compile_error" and (message or "").startswith("syntax error"):
        text = "The Python file did not compile: its syntax or indentation is wrong."
    return {"value": verdict, "title": title, "tone": tone, "text": text,
            "icon": {"good": "✓", "bad": "✗", "warn": "!"}[tone]}


@bp.app_template_global("kp_status_text")
def status_text(status: str) -> str:
    return STATUS_TEXT.get(status, status)


def _markdown(text: str, title: str | None = None) -> Markup:
    """A task statement as HTML: raw HTML off (escaped), tables on. Its headings move one level
    down under the page's <h1>, and a leading heading that repeats the title is dropped."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text or "")
    if (len(tokens) >= 3 and tokens[0].type == "heading_open" and title
            and tokens[1].content.strip().casefold() == title.strip().casefold()):
        tokens = tokens[3:]
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(6, int(token.tag[1]) + 1)}"
    html = md.renderer.render(tokens, md.options, {})
    # a code block wider than the column scrolls: keyboard users must be able to reach it
    return Markup(html.replace("<pre>", '<pre tabindex="0">'))


def _unstorable(text: str) -> bool:
    return "\x00" in text


def _wants_json() -> bool:
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


def _task_or_404(slug: str):
    try:
        return catalog.task_or_error(slug)
    except catalog.UnknownTask:
        abort(404)


def _is_recruiter(user) -> bool:
    return bool(user.is_authenticated and user.has_role(Role.RECRUITER) and user.organisation_id)


def _submit_rate() -> str:
    return current_app.config.get("SUBMISSION_RATE_LIMIT", "20/minute;300/hour")


def _user_key() -> str:
    if current_user.is_authenticated:
        return f"user:{current_user.id}"
    return f"ip:{request.remote_addr}"


def _sub_urls(sub_id: int, kind: SubmissionKind | str) -> tuple[str, str]:
    if SubmissionKind(kind) is SubmissionKind.RUN:
        return (url_for(".run", run_id=sub_id), url_for(".run_status", run_id=sub_id))
    return (url_for(".submission", sub_id=sub_id), url_for(".submission_status", sub_id=sub_id))


def _assessment_context(assessment_id: int | None, slug: str | None = None) -> dict | None:
    """The candidate's assessment around a task page: the assessment and their deadline.

    None when no assessment was asked for; 404 when the user cannot see it (or the task is not
    one of its tasks). A recruiter looking at the task from their own assessment gets the
    assessment without a deadline (they do not take it)."""
    if assessment_id is None:
        return None
    if not current_user.is_authenticated:
        return None  # the sign-in link keeps ?assessment= in its next
    try:
        assessment = service.visible_assessment(current_user, assessment_id)
    except Refusal:
        abort(404)
    if slug is not None and slug not in assessment.tasks:
        abort(404)
    entry = service.entry_for(current_user, assessment)
    return {"assessment": assessment, "entry": entry,
            "deadline": entry.deadline if entry else None,
            "closed": bool(entry and utcnow() > entry.deadline)}



