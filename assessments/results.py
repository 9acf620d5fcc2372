"""What graded work adds up to: an assessment's results, the evidence behind verified skills,
leaderboards."""
from __future__ import annotations

import csv
import io

from sqlalchemy import select

from gpu_tasks import bank
from accounts.models import Role, User
from extensions import db
from refusals import NotFound
from skillmap.verified import Evidence

from . import integrity, shown
from .models import SimilarityReview, Submission, SubmissionKind, SubmissionStatus
from .service import owned_assessment

_DONE = SubmissionStatus.DONE.value
_GRADED = SubmissionKind.SUBMISSION.value


def _best(subs: list[Submission]) -> Submission | None:
    """The best graded attempt: highest score, then the fastest timing, then the earliest."""
    done = [s for s in subs if s.status == _DONE]
    if not done:
        return None
    return min(done, key=lambda s: (-(s.score or 0), s.median_ms if s.median_ms is not None
                                    else float("inf"), s.id))


def _flags(task: str, best: dict[int, Submission]) -> dict[int, list[str]]:
    """Flags for these submissions that copy the task's reference solution. Likeness to another
    candidate's work is `similar` (copied_from_others, with its link and review state)."""
    if not best:
        return {}
    flags: dict[int, list[str]] = {}
    for match in integrity.similar_pairs(task, {s.id: s.source for s in best.values()}, {}):
        if match.other_id is None:
            flags.setdefault(match.submission_id, []).append(match.describe())
    return flags


def similar_for(reader: User, subs: list[Submission]) -> dict[int, list[dict]]:
    """Each submission's similarity flags against earlier work by another candidate, for a
    recruiter: whether it was cleared, and whether the reader may open the other submission."""
    from .submissions import may_read
    found = copied_from_others(subs, cleared=True)
    if not found:
        return {}
    done = set(db.session.execute(select(SimilarityReview.submission_id, SimilarityReview.other_id)
                                  .where(SimilarityReview.submission_id.in_(list(found)))).all())
    out = {}
    for sid, flags in found.items():
        out[sid] = [dict(f, cleared=(sid, f["other_id"]) in done,
                         readable=may_read(reader, db.session.get(Submission, f["other_id"])))
                    for f in flags]
    return out


def assessment_results(user: User, assessment_id: int) -> dict:
    """Per candidate and task: the best submission's verdict, score and time, with review flags."""
    assessment = owned_assessment(user, assessment_id)
    admitted = [i for i in assessment.invitations if i.candidate_id is not None]
    subs = list(db.session.scalars(select(Submission).where(
        Submission.assessment_id == assessment.id, Submission.kind == _GRADED)))
    rows, best_by_task = [], {t: {} for t in assessment.tasks}
    for inv in admitted:
        for task in assessment.tasks:
            best = _best([s for s in subs if s.user_id == inv.candidate_id and s.task == task])
            if best is not None:
                best_by_task[task][inv.candidate_id] = best
    flags = {}
    for task, best in best_by_task.items():
        flags.update(_flags(task, best))
    similar = similar_for(user, [s for best in best_by_task.values() for s in best.values()])
    for inv in admitted:
        tasks = []
        for task in assessment.tasks:
            mine = [s for s in subs if s.user_id == inv.candidate_id and s.task == task]
            best = best_by_task[task].get(inv.candidate_id)
            review = list(flags.get(best.id, [])) if best else []
            timing = (best.report or {}).get("timing") if best else None
            if timing and timing.get("flags"):
                review.append("timing flagged for review: " + ", ".join(timing["flags"]))
            tasks.append({
                "task": task, "attempts": len(mine),
                "pending": sum(1 for s in mine if not SubmissionStatus(s.status).final),
                "submission_id": best.id if best else None,
                "verdict": best.verdict if best else None,
                "score": best.score if best else None,
                "median_ms": best.median_ms if best else None,
                "submitted_at": best.created_at if best else None,
                "minutes_after_start": (round((best.created_at - inv.started_at).total_seconds() / 60, 1)
                                        if best else None),
                "flags": review,
                "similar": similar.get(best.id, []) if best else [],
            })
        rows.append({"candidate_id": inv.candidate_id, "email": inv.candidate.email,
                     "name": inv.candidate.identity()["name"],
                     "started_at": inv.started_at, "deadline": inv.deadline,
                     "total_score": round(sum(t["score"] or 0 for t in tasks) / len(tasks), 1),
                     "tasks": tasks})
    rows.sort(key=lambda r: -r["total_score"])
    return {"assessment_id": assessment.id, "tasks": list(assessment.tasks),
            "invited": len(assessment.invitations), "started": len(admitted), "candidates": rows}


def results_csv(results: dict) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["candidate_id", "name", "email", "started_at", "total_score", "task", "verdict",
                     "score", "median_ms", "minutes_after_start", "attempts", "submission_id",
                     "flags"])
    for row in results["candidates"]:
        for t in row["tasks"]:
            writer.writerow([row["candidate_id"], row["name"], row["email"],
                             row["started_at"].isoformat(), row["total_score"],
                             t["task"], t["verdict"] or "", t["score"] if t["score"] is not None else "",
                             t["median_ms"] if t["median_ms"] is not None else "",
                             t["minutes_after_start"] if t["minutes_after_start"] is not None else "",
                             t["attempts"], t["submission_id"] or "", "; ".join(t["flags"])])
    return out.getvalue()


def evidence_of(candidate_ids) -> dict[int, tuple[list[Evidence], set[int], list[dict]]]:
    """Per candidate: the evidence of their accepted, graded work; the ids of submissions not
    counted because they copy the reference solution; and the submissions held back because they
    nearly copy an earlier one by another candidate and no recruiter has cleared that yet (each
    {submission_id, other_id, similarity, task}). One query for all the candidates."""
    accepted = list(db.session.scalars(select(Submission).where(
        Submission.user_id.in_(list(candidate_ids)), Submission.kind == _GRADED,
        Submission.status == _DONE, Submission.verdict == "accepted").order_by(Submission.id)))
    by_user: dict[int, list[Submission]] = {}
    for sub in accepted:
        by_user.setdefault(sub.user_id, []).append(sub)
    held = copied_from_others(accepted)
    out = {}
    for user_id, subs in by_user.items():
        copied = _copied_from_reference(subs)
        evidence = []
        for sub in subs:
            task = bank.find(sub.task)
            if task is None or sub.id in copied or sub.id in held:
                continue
            timed = sub.backend == "cuda" and bool((sub.report or {}).get("timing"))
            score = float(sub.score or 0)
            evidence.append(Evidence(sub.id, sub.task, task.difficulty, score,
                                     shown.skills_shown(task.skills, sub.source,
                                                        timed_score=score if timed else None,
                                                        kind=bank.kind_of(task),
                                                        language=sub.language),
                                     sub.finished_at or sub.created_at, sub.assessment_id,
                                     timed=timed))
        out[user_id] = (evidence, copied, [flag for s in subs for flag in held.get(s.id, [])])
    return out


def copied_from_others(subs: list[Submission], cleared: bool = False) -> dict[int, list[dict]]:
    """Of these submissions, those nearly the same as an earlier accepted one by another
    candidate (the earlier one keeps its credit), each with what it resembles; pairs a recruiter
    cleared are left out unless `cleared`."""
    by_task: dict[str, dict[int, Submission]] = {}
    for sub in subs:
        if integrity.compares(sub.task):
            by_task.setdefault(sub.task, {})[sub.id] = sub
    found: dict[int, list[dict]] = {}
    for task, subjects in by_task.items():
        # Earlier accepted work on the task (the subjects among it compare with each other too).
        latest = max(subjects)
        others = {s.id: (s.user_id, s.source) for s in db.session.scalars(select(Submission).where(
            Submission.task == task, Submission.kind == _GRADED, Submission.status == _DONE,
            Submission.verdict == "accepted", Submission.id < latest))}
        others.update({sid: (s.user_id, s.source) for sid, s in subjects.items()})
        for match in integrity.similar_pairs(task, {sid: s.source for sid, s in subjects.items()},
                                             {k: v[1] for k, v in others.items() if k not in subjects}):
            other = match.other_id
            if other is None or other > match.submission_id \
                    or others[other][0] == subjects[match.submission_id].user_id:
                continue
            found.setdefault(match.submission_id, []).append(
                {"submission_id": match.submission_id, "other_id": other, "task": task,
                 "similarity": match.similarity})
    if found and not cleared:
        done = set(db.session.execute(select(SimilarityReview.submission_id, SimilarityReview.other_id)
                                      .where(SimilarityReview.submission_id.in_(list(found)))).all())
        found = {sid: kept for sid, flags in found.items()
                 if (kept := [f for f in flags if (sid, f["other_id"]) not in done])}
    return found


def clear_flag(user: User, submission_id: int, other_id: int) -> None:
    """A recruiter who may read the submission clears its similarity flag: its skills count."""
    from .submissions import readable
    sub = readable(user, submission_id)
    if sub.user_id == user.id or not user.has_role(Role.RECRUITER):
        raise NotFound("no such submission", field="submission_id")
    flags = copied_from_others([sub], cleared=True).get(sub.id, [])
    if not any(f["other_id"] == other_id for f in flags):
        raise NotFound("no such similarity flag", field="other_id")
    exists = db.session.scalar(select(SimilarityReview.id).where(
        SimilarityReview.submission_id == submission_id, SimilarityReview.other_id == other_id))
    if exists is None:
        db.session.add(SimilarityReview(submission_id=submission_id, other_id=other_id,
                                        cleared_by_id=user.id))
        db.session.commit()


def _copied_from_reference(subs: list[Submission]) -> set[int]:
    copied = set()
    by_task: dict[str, dict[int, str]] = {}
    for sub in subs:
        by_task.setdefault(sub.task, {})[sub.id] = sub.source
    for task, sources in by_task.items():
        if integrity.compares(task):
            copied |= {m.submission_id for m in integrity.similar_pairs(task, sources, {})
                       if m.other_id is None}
    return copied


def leaderboard(task: str, backend: str, device: str | None = None, limit: int = 50) -> dict:
    """Best accepted time per user (eligible timings only) for a task, backend and GPU; on the CPU
    backend, the "H100, estimated" board: each user's best estimated time (perfmodel.py).
    Only practice work its author put on the leaderboard (made public) is there: never an
    assessment's, never a solution its author kept private."""
    query = select(Submission).where(
        Submission.task == task, Submission.kind == _GRADED, Submission.status == _DONE,
        Submission.verdict == "accepted", Submission.backend == backend,
        Submission.assessment_id.is_(None), Submission.public.is_(True))
    rows = list(db.session.scalars(query.order_by(Submission.id)))
    devices = sorted({s.device for s in rows if s.device})
    if backend == "cuda":
        # Times on different GPUs do not compare: one board per GPU, the busiest by default.
        rows = [s for s in rows if s.leaderboard_eligible and s.median_ms is not None]
        if device is None and rows:
            counts: dict[str, int] = {}
            for s in rows:
                counts[s.device] = counts.get(s.device, 0) + 1
            device = max(sorted(counts), key=counts.get)
        rows = [s for s in rows if s.device == device]
    if backend == "cpu":
        # The "H100, estimated" board: estimates only, never beside measured times
        device = ESTIMATED_BOARD
        devices = [ESTIMATED_BOARD]
    best: dict[int, Submission] = {}
    time_of = _measured_ms if backend == "cuda" else _estimated_ms
    for sub in rows:
        kept = best.get(sub.user_id)
        if kept is None or (time_of(sub) is not None
                            and (time_of(kept) is None or time_of(sub) < time_of(kept))):
            best[sub.user_id] = sub
    # fastest first; on cpu, solutions without an estimate (older ones) after, by acceptance
    ranked = sorted(best.values(), key=lambda s: (time_of(s) is None, time_of(s) or 0.0, s.id))
    entries = [{"rank": i + 1, "user": s.user.public_name, "submission_id": s.id,
                "median_ms": s.median_ms if backend == "cuda" else None,
                "estimated_ms": _estimated_ms(s) if backend == "cpu" else None,
                "device": s.device if backend == "cuda" else ESTIMATED_BOARD, "score": s.score,
                "accepted_at": s.finished_at or s.created_at, "public": s.public,
                "source": s.source if s.public else None}
               for i, s in enumerate(ranked[:limit])]
    return {"task": task, "backend": backend, "device": device, "devices": devices,
            "entries": entries}


ESTIMATED_BOARD = "H100, estimated"
# How a board without timings ranks: a design by its synthesized size or its longest path, a
# testbench by the mutants it catches.
DESIGN_BOARDS = {"verilog": ("area", "depth"), "cocotb": ("mutants",), "python": ("score",),
                 "promql": ("score",)}


def _design_key(sub: Submission, by: str) -> tuple:
    report = sub.report or {}
    synth = report.get("synthesis") or {}
    cells, depth = synth.get("cells"), synth.get("depth")
    if by == "area":
        return (cells is None, cells or 0, depth or 0, sub.id)
    if by == "depth":
        return (depth is None, depth or 0, cells or 0, sub.id)
    if by == "score":   # the points its time or quality earned, then its time
        seconds = (report.get("measure") or {}).get("seconds")
        return (-(sub.score or 0.0), seconds if isinstance(seconds, (int, float)) else float("inf"), sub.id)
    return (-(sub.score or 0.0), sub.id)     # mutants caught, then the earliest


def design_leaderboard(task: str, kind: str, by: str | None = None, limit: int = 50) -> dict:
    """Each user's best accepted practice solution of a design or testbench task, made public:
    the smallest design (`area`, Yosys cells), the shallowest (`depth`, cells on the longest
    combinational path) or the testbench catching the most mutants (`mutants`)."""
    boards = DESIGN_BOARDS.get(kind, ("mutants",))
    by = by if by in boards else boards[0]
    rows = list(db.session.scalars(select(Submission).where(
        Submission.task == task, Submission.kind == _GRADED, Submission.status == _DONE,
        Submission.verdict == "accepted", Submission.assessment_id.is_(None),
        Submission.public.is_(True)).order_by(Submission.id)))
    best: dict[int, Submission] = {}
    for sub in rows:
        kept = best.get(sub.user_id)
        if kept is None or _design_key(sub, by) < _design_key(kept, by):
            best[sub.user_id] = sub
    ranked = sorted(best.values(), key=lambda s: _design_key(s, by))
    entries = []
    for i, s in enumerate(ranked[:limit]):
        synth = (s.report or {}).get("synthesis") or {}
        mutants = (s.report or {}).get("mutants") or []
        measure = (s.report or {}).get("measure") or {}
        entries.append({"rank": i + 1, "user": s.user.public_name, "submission_id": s.id,
                        "language": s.language, "seconds": measure.get("seconds"),
                        "quality": measure.get("quality"),
                        "median_ms": None, "estimated_ms": None, "device": None,
                        "cells": synth.get("cells"), "depth": synth.get("depth"),
                        "mutants_caught": sum(1 for m in mutants if m.get("caught")) if mutants else None,
                        "mutants": len(mutants) if mutants else None,
                        "score": s.score, "accepted_at": s.finished_at or s.created_at,
                        "public": s.public, "source": s.source if s.public else None})
    return {"task": task, "backend": "sim", "by": by, "boards": list(boards), "device": None,
            "devices": [], "entries": entries}


def _measured_ms(sub: Submission) -> float | None:
    return sub.median_ms


def _estimated_ms(sub: Submission) -> float | None:
    """The cpu backend's H100 estimate (report.profile) where it earned points."""
    profile = (sub.report or {}).get("profile") or {}
    us = profile.get("estimated_us")
    return us / 1000.0 if isinstance(us, (int, float)) and profile.get("eligible") else None
