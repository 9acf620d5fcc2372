"""Stored job postings and the skills their parse found."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from accounts.models import Organisation, utcnow
from extensions import db


class Job(db.Model):
    __tablename__ = "jobs"

    id: Mapped[int] = mapped_column(primary_key=True)
    organisation_id: Mapped[int] = mapped_column(
        ForeignKey("organisations.id", ondelete="CASCADE"), index=True)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    # Where a shipped starter job came from, so loading the starter set twice adds nothing.
    source: Mapped[str | None] = mapped_column(String(100), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    location: Mapped[str | None] = mapped_column(String(200))
    text: Mapped[str] = mapped_column(Text)
    parse: Mapped[dict] = mapped_column(JSON)
    # None when the text names no GPU-engineering skill.
    primary_track: Mapped[str | None] = mapped_column(String(40), index=True)
    seniority: Mapped[str | None] = mapped_column(String(20))
    min_years: Mapped[int | None]
    degree: Mapped[str | None] = mapped_column(String(20))
    workplace: Mapped[str | None] = mapped_column(String(10), index=True)
    # Posted pay per year in the posting's currency, for filtering by salary in SQL.
    salary_low: Mapped[float | None]
    salary_high: Mapped[float | None]
    salary_currency: Mapped[str | None] = mapped_column(String(3))
    # What the organisation's recruiters corrected in the parse ({field: value}); applied over
    # every new parse of the text. See jobdata/edits.py.
    overrides: Mapped[dict | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    @property
    def facts(self) -> dict:
        """The parse with the organisation's corrections (jobdata/edits.py)."""
        from .edits import corrected

        return corrected(self.parse or {}, self.overrides)

    @property
    def salary(self) -> dict | None:
        return self.facts.get("salary")

    @property
    def is_example(self) -> bool:
        """A shipped starter job, not a real opening."""
        return bool(self.source)

    organisation: Mapped[Organisation] = relationship()
    skills: Mapped[list["JobSkill"]] = relationship(
        back_populates="job", cascade="all, delete-orphan", order_by="JobSkill.skill_id")


class JobSkill(db.Model):
    """One row per skill a job asks for, so jobs can be filtered by skill in SQL."""

    __tablename__ = "job_skills"

    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True)
    skill_id: Mapped[str] = mapped_column(String(80), primary_key=True, index=True)
    required: Mapped[bool] = mapped_column(default=True)
    # required | preferred | mentioned (the company, the work or the offer names it)
    need: Mapped[str] = mapped_column(String(12), default="required", server_default="required")

    job: Mapped[Job] = relationship(back_populates="skills")


class JobApplication(db.Model):
    """A candidate applied to a job: their profile and verified skills are shared with the job's
    organisation, whose recruiters may then rank them."""

    __tablename__ = "job_applications"
    __table_args__ = (UniqueConstraint("job_id", "candidate_id", name="uq_job_applications_job_candidate"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), index=True)
    candidate_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    job: Mapped[Job] = relationship()
