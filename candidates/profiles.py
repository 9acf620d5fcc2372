"""A candidate's profile as the candidate and recruiters see it: verified skills (from accepted,
unflagged graded work) with level and evidence, and the skills the candidate's own text claims,
kept apart."""
from __future__ import annotations

from sqlalchemy import select

from accounts.models import Role, User
from assessments.models import Assessment, AssessmentInvitation
from assessments.results import evidence_of
from extensions import db
from jobdata.models import Job, JobApplication
from refusals import NotFound
from skillmap.profile import parse_profile
from skillmap.taxonomy import load_taxonomy
from skillmap.verified import verified_skills, verified_tracks

from .models import CandidateProfile


def _may_read_profile(reader: User, candidate_id: int) -> bool:
    if reader.id == candidate_id:
        return True
    if not (reader.has_role(Role.RECRUITER) and reader.organisation_id):
        return False
    invited = db.session.scalar(select(AssessmentInvitation.id).join(Assessment).where(
        AssessmentInvitation.candidate_id == candidate_id,
        Assessment.organisation_id == reader.organisation_id).limit(1)) is not None
    # Applying to a job shares the profile with the job's organisation.
    return invited or db.session.scalar(select(JobApplication.id).join(Job).where(
        JobApplication.candidate_id == candidate_id,
        Job.organisation_id == reader.organisation_id).limit(1)) is not None


def candidate_profile(reader: User, candidate_id: int) -> dict:
    """Verified skills (from accepted, unflagged work) and claimed skills, kept apart."""
    candidate = db.session.get(User, candidate_id)
    if candidate is None or not _may_read_profile(reader, candidate_id):
        raise NotFound("no such candidate", field="candidate_id")
    evidence, copied, held = evidence_of([candidate_id]).get(candidate_id, ([], set(), []))
    tax = load_taxonomy()
    verified = verified_skills(evidence)
    tracks = verified_tracks(evidence, lambda s: tax.get(s).weight_tuple if s in tax else None)
    for item in verified:
        skill = tax.skills.get(item["skill"])
        item["name"] = skill.name if skill else item["skill"]
    profile = db.session.get(CandidateProfile, candidate_id)
    verified_ids = {v["skill"] for v in verified}
    claimed = (profile.claimed if profile else {}) or {}
    # Who it is: for the candidate and for recruiters the candidate applied to or was invited
    # by (the only other readers _may_read_profile lets through).
    return {
        "candidate_id": candidate_id,
        **candidate.identity(),
        "verified": verified,
        "verified_tracks": tracks,
        "claimed": {
            "skills": [dict(s, also_verified=s["id"] in verified_ids)
                       for s in claimed.get("skills", [])],
            "years": claimed.get("years"), "degree": claimed.get("degree"),
            "updated_at": profile.updated_at if profile else None,
        },
        "not_counted": sorted(copied),
        "held_back": held,
    }


def save_claims(user: User, candidate_id: int, text: str) -> CandidateProfile:
    """The candidate's own profile text, parsed for claimed skills; an empty text deletes it."""
    if user.id != candidate_id:
        raise NotFound("no such candidate", field="candidate_id")
    profile = db.session.get(CandidateProfile, candidate_id)
    if not text.strip():
        if profile is not None:
            db.session.delete(profile)
            db.session.commit()
        return None
    if profile is None:
        profile = CandidateProfile(user_id=candidate_id, text=text, claimed={})
        db.session.add(profile)
    profile.text, profile.claimed = text, parse_profile(text)
    db.session.commit()
    return profile
