"""Users, organisations, invitations and API tokens."""
from __future__ import annotations

import enum
from datetime import datetime, timezone

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship
from werkzeug.security import check_password_hash, generate_password_hash

from extensions import db


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


class Role(str, enum.Enum):
    CANDIDATE = "candidate"
    RECRUITER = "recruiter"
    ADMIN = "admin"


class Organisation(db.Model):
    __tablename__ = "organisations"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    # Unique on the folded name so "Acme" and "acme " cannot both exist.
    name_key: Mapped[str] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    members: Mapped[list["User"]] = relationship(back_populates="organisation")

    @staticmethod
    def key_for(name: str) -> str:
        return " ".join(name.split()).casefold()


class User(db.Model):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(254), unique=True, index=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(20), default=Role.CANDIDATE.value)
    organisation_id: Mapped[int | None] = mapped_column(
        ForeignKey("organisations.id", ondelete="SET NULL"), index=True
    )
    is_org_admin: Mapped[bool] = mapped_column(default=False)
    # The name shown on leaderboards and public solutions (never the e-mail address).
    display_name: Mapped[str | None] = mapped_column(String(80))
    # The person's name: seen by recruiters of organisations they applied to or were invited by.
    full_name: Mapped[str | None] = mapped_column(String(120))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    organisation: Mapped[Organisation | None] = relationship(back_populates="members")
    tokens: Mapped[list["ApiToken"]] = relationship(
        back_populates="user", cascade="all, delete-orphan"
    )

    # Flask-Login protocol
    is_active = True
    is_anonymous = False

    @property
    def is_authenticated(self) -> bool:
        return True

    def get_id(self) -> str:
        return str(self.id)

    def set_password(self, password: str) -> None:
        self.password_hash = generate_password_hash(password)

    def check_password(self, password: str) -> bool:
        return check_password_hash(self.password_hash, password)

    @property
    def public_name(self) -> str:
        """What anyone may see: the display name the person chose, else a neutral label."""
        return self.display_name or f"Candidate {self.id}"

    def identity(self) -> dict:
        """Who the person is, for the recruiters of an organisation they applied to or were
        invited by: their name (else their display name) and e-mail address."""
        return {"name": self.full_name or self.public_name, "email": self.email,
                "display_name": self.public_name}

    def has_role(self, *roles: Role) -> bool:
        return self.role in {r.value for r in roles}


class Invitation(db.Model):
    """An organisation administrator's invitation for one e-mail address to join as recruiter."""

    __tablename__ = "invitations"
    __table_args__ = (UniqueConstraint("organisation_id", "email"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    organisation_id: Mapped[int] = mapped_column(
        ForeignKey("organisations.id", ondelete="CASCADE"), index=True
    )
    email: Mapped[str] = mapped_column(String(254))
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    invited_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    accepted_at: Mapped[datetime | None]

    organisation: Mapped[Organisation] = relationship()


class ApiToken(db.Model):
    """A bearer token; only its SHA-256 is stored, so a database leak reveals no usable token."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(16))
    name: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    last_used_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]

    user: Mapped[User] = relationship(back_populates="tokens")
