"""Account operations; each public function owns its transaction."""
from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from sqlalchemy import select
from sqlalchemy.orm import joinedload

from extensions import db
from refusals import Conflict, Forbidden, Gone, Invalid, NotFound, Unauthenticated

from . import mail
from .models import ApiToken, Invitation, Organisation, Role, User, utcnow

TOKEN_PREFIX = "kp_"
INVITATION_TTL = timedelta(days=14)
PASSWORD_MIN, PASSWORD_MAX = 8, 200
# A token's last use is recorded to the minute: a write on every call would double its cost.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def normalise_email(email: str) -> str:
    return email.strip().lower()


def find_user(email: str) -> User | None:
    return db.session.scalar(select(User).where(User.email == normalise_email(email)))


def signup(email: str, password: str, role: str, organisation: str | None = None,
           invitation: str | None = None, name: str | None = None,
           display_name: str | None = None) -> User:
    """Create a user; a recruiter founds a new organisation or joins one by invitation."""
    email = normalise_email(email)
    check_password_rules(password)
    if role not in (Role.CANDIDATE.value, Role.RECRUITER.value):
        raise Invalid("role must be candidate or recruiter", field="role")
    if find_user(email):
        raise Conflict("an account with this email already exists", field="email")
    user = User(email=email, role=role)
    set_names(user, name or "", display_name or "", commit=False)
    user.set_password(password)

    if role == Role.RECRUITER.value:
        if invitation:
            invite = _usable_invitation(invitation, email)
            user.organisation = invite.organisation
            invite.accepted_at = utcnow()
        elif organisation:
            key = Organisation.key_for(organisation)
            if db.session.scalar(select(Organisation).where(Organisation.name_key == key)):
                raise Conflict(
                    "this organisation already exists; ask its administrator for an invitation",
                    field="organisation",
                )
            user.organisation = Organisation(name=" ".join(organisation.split()), name_key=key)
            user.is_org_admin = True
        else:
            raise Invalid("a recruiter names a new organisation or brings an invitation",
                          field="organisation")
    elif organisation or invitation:
        raise Invalid("only recruiters belong to an organisation", field="organisation")

    db.session.add(user)
    db.session.commit()
    return user


def _usable_invitation(code: str, email: str) -> Invitation:
    invite = db.session.scalar(select(Invitation).where(Invitation.code_hash == _digest(code)))
    if invite is None or invite.accepted_at is not None or invite.expires_at < utcnow():
        raise Forbidden("invitation is unknown, used or expired", field="invitation")
    if invite.email != email:
        raise Forbidden("invitation was issued for another email", field="invitation")
    return invite


def invite(admin: User, email: str, link_for=None) -> tuple[Invitation, str]:
    """An organisation administrator invites a recruiter; returns the invitation and its code.
    With `link_for(code)` the sign-up link is e-mailed when SMTP is configured
    (`invitation.emailed` says whether it went)."""
    if not (admin.is_org_admin and admin.organisation_id):
        raise Forbidden("only an organisation administrator can invite")
    email = normalise_email(email)
    existing = db.session.scalar(select(Invitation).where(
        Invitation.organisation_id == admin.organisation_id, Invitation.email == email))
    if existing is not None:
        db.session.delete(existing)
        db.session.flush()
    code = secrets.token_urlsafe(24)
    invitation = Invitation(organisation_id=admin.organisation_id, email=email,
                            code_hash=_digest(code), invited_by_id=admin.id,
                            expires_at=utcnow() + INVITATION_TTL)
    db.session.add(invitation)
    db.session.commit()
    invitation.emailed = False
    if link_for is not None:
        invitation.emailed = mail.send(
            email, f"Join {admin.organisation.name} on KernelPath",
            f"{admin.email} invites you to recruit with {admin.organisation.name} on "
            f"KernelPath.\n\nCreate your account here: {link_for(code)}\n\n"
            f"The invitation is for {email} and expires on {invitation.expires_at:%Y-%m-%d}.")
    return invitation, code


def check_password_rules(password: str) -> None:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise Invalid(f"password must be {PASSWORD_MIN} to {PASSWORD_MAX} characters long",
                      field="password")


def organisation_of(user: User) -> tuple[list[User], list[Invitation]]:
    """A recruiter's colleagues and the invitations not yet accepted."""
    if not user.organisation_id:
        return [], []
    members = list(db.session.scalars(select(User).where(
        User.organisation_id == user.organisation_id).order_by(User.email)))
    pending = list(db.session.scalars(select(Invitation).where(
        Invitation.organisation_id == user.organisation_id,
        Invitation.accepted_at.is_(None)).order_by(Invitation.created_at.desc())))
    return members, pending


# ---- password reset ------------------------------------------------------------------------
# The link carries a signed, timed token naming the user and a fragment of their current
# password hash: it stops working once used (the hash changes) or after its lifetime.

@dataclass(frozen=True)
class ResetLinks:
    """How reset links are signed and how long they last: the app's settings, passed in."""

    secret_key: str
    ttl_minutes: int

    @classmethod
    def from_config(cls, config: Mapping) -> "ResetLinks":
        return cls(config["SECRET_KEY"], int(config.get("PASSWORD_RESET_TTL_MINUTES", 60)))

    def serializer(self) -> URLSafeTimedSerializer:
        return URLSafeTimedSerializer(self.secret_key, salt="password-reset")


def password_reset_token(user: User, links: ResetLinks) -> str:
    return links.serializer().dumps({"user": user.id, "hash": user.password_hash[-16:]})


def user_for_reset_token(token: str, links: ResetLinks) -> User:
    try:
        data = links.serializer().loads(token, max_age=links.ttl_minutes * 60)
    except SignatureExpired:
        raise Gone("this reset link has expired; ask for a new one", field="token") from None
    except BadSignature:
        raise NotFound("this reset link is not valid", field="token") from None
    user = db.session.get(User, data.get("user")) if isinstance(data, dict) else None
    if user is None or user.password_hash[-16:] != data.get("hash"):
        raise Gone("this reset link was already used; ask for a new one", field="token")
    return user


def reset_password(token: str, password: str, links: ResetLinks) -> User:
    user = user_for_reset_token(token, links)
    check_password_rules(password)
    user.set_password(password)
    now = utcnow()
    for token in user.tokens:  # a reset often follows a leak: the old tokens go with it
        if token.revoked_at is None:
            token.revoked_at = now
    db.session.commit()
    return user


def authenticate(email: str, password: str) -> User:
    user = find_user(email)
    # Hash even when the user is unknown so timing does not reveal which emails exist.
    if user is None:
        User(email="", role="candidate").set_password(password)
        raise Unauthenticated("wrong email or password", field="password")
    if not user.check_password(password):
        raise Unauthenticated("wrong email or password", field="password")
    return user


def issue_token(user: User, name: str | None, *, days: int) -> tuple[ApiToken, str]:
    """A new bearer token valid for `days`; the plain value is returned once and never stored."""
    plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(user_id=user.id, token_hash=_digest(plain), prefix=plain[:10], name=name,
                     expires_at=utcnow() + timedelta(days=days))
    db.session.add(token)
    db.session.commit()
    return token, plain


def user_for_token(plain: str) -> tuple[User, ApiToken] | None:
    # One query for the token and its user: this runs on every authenticated request.
    token = db.session.scalar(select(ApiToken).options(joinedload(ApiToken.user))
                              .where(ApiToken.token_hash == _digest(plain)))
    if token is None or token.revoked_at is not None or token.expires_at < utcnow():
        return None
    return token.user, token


def note_token_use(token: ApiToken) -> None:
    """Record when the token was last used, to the minute."""
    now = utcnow()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        token.last_used_at = now
        db.session.commit()


def revoke_token(user: User, token_id: int) -> None:
    token = db.session.get(ApiToken, token_id)
    if token is None or token.user_id != user.id:
        raise NotFound("no such token", field="token_id")
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        db.session.commit()


def create_admin(email: str, password: str) -> User:
    """Site administrators are made from the command line, never by public signup."""
    user = find_user(email)
    if user is None:
        user = User(email=normalise_email(email), role=Role.ADMIN.value)
        db.session.add(user)
    user.role = Role.ADMIN.value
    user.set_password(password)
    db.session.commit()
    return user


def _one_line(text: str) -> str:
    return " ".join(text.split())


def set_names(user: User, name: str, display_name: str, commit: bool = True) -> User:
    """The person's name and public display name; blank clears one. A display name is never
    an e-mail address (it is public)."""
    name, display_name = _one_line(name), _one_line(display_name)
    for field, value in (("name", name), ("display_name", display_name)):
        if any(ord(c) < 32 or ord(c) == 127 for c in value):
            raise Invalid(f"{field.replace('_', ' ')} must be plain text", field=field)
    if len(name) > 120:
        raise Invalid("name must be at most 120 characters", field="name")
    if len(display_name) > 80:
        raise Invalid("display name must be at most 80 characters", field="display_name")
    if display_name and len(display_name) < 2:
        raise Invalid("display name must be at least 2 characters", field="display_name")
    if "@" in display_name:
        raise Invalid("display name is public: use a name, not an e-mail address",
                      field="display_name")
    user.full_name = name or None
    user.display_name = display_name or None
    if commit:
        db.session.commit()
    return user

