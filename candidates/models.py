"""What a candidate keeps: the profile text with the skills it claims, and saved roadmaps."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from accounts.models import utcnow
from extensions import db


class CandidateProfile(db.Model):
    """The profile text a candidate typed (or pasted from a résumé) and the skills it claims."""

    __tablename__ = "candidate_profiles"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    text: Mapped[str] = mapped_column(Text)
    claimed: Mapped[dict] = mapped_column(JSON)   # the parse of the text: skills, years, degree
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class SavedRoadmap(db.Model):
    """A learner's saved roadmap: the plan as computed then, and the steps ticked off since."""

    __tablename__ = "saved_roadmaps"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    target: Mapped[str] = mapped_column(String(40))
    level: Mapped[str] = mapped_column(String(20))
    plan: Mapped[dict] = mapped_column(JSON)
    done: Mapped[list] = mapped_column(JSON)  # skill ids of the steps ticked off
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
