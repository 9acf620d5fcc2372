"""Assessments, their invitations, submissions and sample runs, and candidates' profiles."""
from __future__ import annotations

import enum
from datetime import datetime

from sqlalchemy import JSON, Float, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from accounts.models import Organisation, User, utcnow
from extensions import db


class SubmissionStatus(str, enum.Enum):
    """Where a submission is in its life; the judge's Verdict says how it went."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"        # the judge reached a verdict (any verdict)
    FAILED = "failed"    # grading itself broke down; no verdict

    @property
    def final(self) -> bool:
        return self in (SubmissionStatus.DONE, SubmissionStatus.FAILED)


class SubmissionKind(str, enum.Enum):
    SUBMISSION = "submission"   # hidden tests, scored, counted
    RUN = "run"                 # visible samples only: never scored or counted


class Backend(str, enum.Enum):
    CPU = "cpu"
    CUDA = "cuda"


class Assessment(db.Model):
    """A recruiter's timed set of tasks for one job."""

    __tablename__ = "assessments"

    id: Mapped[int] = mapped_column(primary_key=True)
    organisation_id: Mapped[int] = mapped_column(
        ForeignKey("organisations.id", ondelete="CASCADE"), index=True)
    job_id: Mapped[int | None] = mapped_column(ForeignKey("jobs.id", ondelete="SET NULL"), index=True)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    title: Mapped[str] = mapped_column(String(200))
    tasks: Mapped[list] = mapped_column(JSON)              # task slugs, in order
    time_limit_minutes: Mapped[int]
    backend: Mapped[str] = mapped_column(String(10), default=Backend.CPU.value)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    organisation: Mapped[Organisation] = relationship()
    invitations: Mapped[list["AssessmentInvitation"]] = relationship(
        back_populates="assessment", cascade="all, delete-orphan",
        order_by="AssessmentInvitation.id")

    @property
    def organisation_name(self) -> str:
        return self.organisation.name


class AssessmentInvitation(db.Model):
    """One candidate's single-use entry to an assessment; the clock starts when it is accepted."""

    __tablename__ = "assessment_invitations"

    id: Mapped[int] = mapped_column(primary_key=True)
    assessment_id: Mapped[int] = mapped_column(
        ForeignKey("assessments.id", ondelete="CASCADE"), index=True)
    email: Mapped[str] = mapped_column(String(254))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    invited_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    emailed: Mapped[bool] = mapped_column(default=False)
    candidate_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), index=True)
    started_at: Mapped[datetime | None]
    deadline: Mapped[datetime | None]

    assessment: Mapped[Assessment] = relationship(back_populates="invitations")
    candidate: Mapped[User | None] = relationship(foreign_keys=[candidate_id])


class Submission(db.Model):
    """A candidate's source for one task, and what grading made of it.

    The grading worker reads and writes this table without Flask (assessments/grading.py
    mirrors the columns it needs); keep the two in step.
    """

    __tablename__ = "submissions"
    __table_args__ = (
        Index("ix_submissions_task_kind_status", "task", "kind", "status"),
        Index("ix_submissions_user_task", "user_id", "task"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    assessment_id: Mapped[int | None] = mapped_column(
        ForeignKey("assessments.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(12), default=SubmissionKind.SUBMISSION.value)
    task: Mapped[str] = mapped_column(String(80))
    backend: Mapped[str] = mapped_column(String(10))
    # What the source is written in, where its task takes several (python or cpp); None: the
    # task's one language.
    language: Mapped[str | None] = mapped_column(String(12))
    source: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(10), default=SubmissionStatus.QUEUED.value, index=True)
    attempts: Mapped[int] = mapped_column(default=0)
    claim: Mapped[str | None] = mapped_column(String(32))     # the grading attempt that may finish it
    verdict: Mapped[str | None] = mapped_column(String(32))
    score: Mapped[float | None] = mapped_column(Float)
    message: Mapped[str | None] = mapped_column(Text)
    report: Mapped[dict | None] = mapped_column(JSON)
    device: Mapped[str | None] = mapped_column(String(120))  # GPU name of a timed run
    median_ms: Mapped[float | None] = mapped_column(Float)
    leaderboard_eligible: Mapped[bool] = mapped_column(default=False)
    public: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]

    user: Mapped[User] = relationship()
    assessment: Mapped[Assessment | None] = relationship()

    @property
    def status_enum(self) -> SubmissionStatus:
        return SubmissionStatus(self.status)


class SimilarityReview(db.Model):
    """A recruiter's decision on a similarity flag: this submission is nearly the same as an
    earlier one by another candidate, and the recruiter looked and cleared it. Until cleared,
    the skills the submission alone evidences are held back."""

    __tablename__ = "similarity_reviews"
    __table_args__ = (db.UniqueConstraint("submission_id", "other_id", name="uq_similarity_review"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), index=True)
    other_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    cleared_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    cleared_at: Mapped[datetime] = mapped_column(default=utcnow)
