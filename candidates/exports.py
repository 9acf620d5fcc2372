"""One-page exports: a learner's roadmap and a candidate's match report, as printable HTML and
as PDF (WeasyPrint). The PDF renderer fetches nothing: every style is inline, and a URL in a
template would be refused rather than fetched."""
from __future__ import annotations

from flask import render_template

from accounts.models import utcnow
from jobdata.salary import TRACKS
from skillmap.taxonomy import load_taxonomy

LEVEL_NAMES = {"entry": "Entry", "mid": "Mid", "senior": "Senior", "staff_principal": "Staff / principal"}


def _no_fetch(url, *args, **kwargs):
    raise ValueError(f"exports fetch nothing: {url}")


def to_pdf(html: str) -> bytes:
    from weasyprint import HTML

    return HTML(string=html, url_fetcher=_no_fetch).write_pdf()


def roadmap_html(plan: dict, done: list[str]) -> str:
    tracks = {t: load_taxonomy().tracks[t]["name"] for t in TRACKS}
    return render_template("learning/roadmap_print.html", plan=plan, done=done, tracks=tracks,
                           levels=LEVEL_NAMES, generated=utcnow().strftime("%Y-%m-%d"))


def match_html(report: dict, job) -> str:
    return render_template("learning/match_print.html", report=report, job=job,
                           generated=utcnow().strftime("%Y-%m-%d"))
