"""API: assessments, their invitations and results, and candidates' profiles."""
from flask import Response, url_for
from flask_smorest import Blueprint, abort
from flask_smorest.fields import Upload
from marshmallow import Schema

from accounts.models import Role, utcnow
from accounts.tokens import api_user, token_required

from . import results, service
from .schemas import (AcceptResultSchema, AssessmentCreateSchema, AssessmentDetailSchema,
                      AssessmentSchema, InvitationPreviewSchema, InviteRequestSchema,
                      InviteResultSchema, ProfileSchema, ProfileTextSchema, ResultsQuerySchema,
                      ResultsSchema, SuggestionSchema, SuggestQuerySchema)

blp = Blueprint("assessments", __name__, url_prefix="/api/v1/assessments",
                description="Timed assessments for a job: tasks, invitations, results")
invitations_blp = Blueprint("assessment_invitations", __name__, url_prefix="/api/v1/invitations",
                            description="Opening and accepting an assessment invitation")
candidates_blp = Blueprint("candidates", __name__, url_prefix="/api/v1/candidates",
                           description="Candidates' verified and claimed skills")

# A profile's example in the OpenAPI document (a résumé's text, or a plain-text résumé file).
PROFILE_EXAMPLE = ("Ada Lovelace, GPU software engineer. 6 years of C++ and CUDA: kernel tuning "
                   "with Nsight Compute, NCCL for multi-GPU training, PyTorch. MS in Computer Science.")


@blp.route("", methods=["POST"])
@blp.arguments(AssessmentCreateSchema, example={
    "job_id": 1, "tasks": ["vector_add", "reduce_sum"], "time_limit_minutes": 90,
    "backend": "cpu", "title": "GPU kernels take-home"})
@blp.response(201, AssessmentSchema)
@token_required(Role.RECRUITER)
def create(data):
    """Create an assessment for one of your organisation's jobs (tasks suggested when omitted)."""
    return service.create(api_user(), data["job_id"], data.get("tasks"),
                          data["time_limit_minutes"], data["backend"], data.get("title"))


@blp.route("", methods=["GET"])
@blp.response(200, AssessmentSchema(many=True))
@token_required()
def list_assessments():
    """Your organisation's assessments (recruiters) or the ones you started (candidates)."""
    return service.list_for(api_user())


@blp.route("/suggestions")
@blp.arguments(SuggestQuerySchema, location="query")
@blp.response(200, SuggestionSchema)
@token_required(Role.RECRUITER)
def suggestions(query):
    """The tasks that best cover a job's required skills."""
    return {"job_id": query["job_id"], "tasks": service.suggestions_for(api_user(), query["job_id"])}


@blp.route("/<int:assessment_id>")
@blp.response(200, AssessmentDetailSchema)
@token_required()
def get_assessment(assessment_id):
    """One assessment; recruiters see its invitations, a candidate their own start and deadline."""
    user = api_user()
    assessment = service.visible_assessment(user, assessment_id)
    body = {name: getattr(assessment, name) for name in AssessmentSchema().fields}
    body["organisation_name"] = assessment.organisation_name
    if assessment.organisation_id == user.organisation_id:
        body["invitations"] = assessment.invitations
    else:
        entry = service.entry_for(user, assessment)
        body.update(started_at=entry.started_at, deadline=entry.deadline)
    return body


@blp.route("/<int:assessment_id>", methods=["DELETE"])
@blp.response(204)
@token_required(Role.RECRUITER)
def delete_assessment(assessment_id):
    """Delete an assessment with its invitations and submissions."""
    service.delete(api_user(), assessment_id)


@blp.route("/<int:assessment_id>/invitations", methods=["POST"])
@blp.arguments(InviteRequestSchema, example={"email": "ada@example.com"})
@blp.response(201, InviteResultSchema)
@token_required(Role.RECRUITER)
def invite(data, assessment_id):
    """Invite a candidate by e-mail: a single-use link, e-mailed when SMTP is set up, shown once."""
    invitation, token, url = service.invite(
        api_user(), assessment_id, data["email"],
        lambda t: url_for("assessment_pages.invitation", token=t, _external=True))
    return {"id": invitation.id, "email": invitation.email, "token": token, "url": url,
            "emailed": invitation.emailed, "expires_at": invitation.expires_at}


@blp.route("/<int:assessment_id>/results")
@blp.arguments(ResultsQuerySchema, location="query")
@blp.response(200, ResultsSchema)
@blp.alt_response(200, description="CSV with ?format=csv", content_type="text/csv")
@token_required(Role.RECRUITER)
def results_of(query, assessment_id):
    """Per candidate and task: the best submission's verdict, score and time, with review flags."""
    data = results.assessment_results(api_user(), assessment_id)
    if query["format"] == "csv":
        return Response(results.results_csv(data), mimetype="text/csv", headers={
            "Content-Disposition": f'attachment; filename="assessment-{assessment_id}-results.csv"'})
    return data


@invitations_blp.route("/<token>")
@invitations_blp.response(200, InvitationPreviewSchema)
def preview(token):
    """What an invitation is for, before accepting it (no sign-in needed)."""
    invitation = service.invitation_for_token(token)
    a = invitation.assessment
    return {"assessment_id": a.id, "title": a.title, "organisation": a.organisation.name,
            "tasks": len(a.tasks), "time_limit_minutes": a.time_limit_minutes,
            "used": invitation.candidate_id is not None, "expired": invitation.expires_at < utcnow()}


@invitations_blp.route("/<token>/accept", methods=["POST"])
@invitations_blp.response(200, AcceptResultSchema)
@token_required()
def accept(token):
    """Start the assessment as the signed-in candidate: the clock starts now."""
    invitation = service.accept(api_user(), token)
    return {"assessment_id": invitation.assessment_id, "started_at": invitation.started_at,
            "deadline": invitation.deadline}


@candidates_blp.route("/<int:candidate_id>/profile")
@candidates_blp.response(200, ProfileSchema)
@token_required()
def profile(candidate_id):
    """Verified skills with level and evidence, and claimed skills apart (the candidate, and
    recruiters of organisations whose invitation the candidate accepted)."""
    return results.candidate_profile(api_user(), candidate_id)


class ResumeUploadSchema(Schema):
    file = Upload(required=True, metadata={"description": "a PDF, a DOCX or a plain-text résumé (1 MB at most)"})


@candidates_blp.route("/<int:candidate_id>/resume", methods=["POST"])
@candidates_blp.arguments(ResumeUploadSchema, location="files", example={"file": PROFILE_EXAMPLE})
@candidates_blp.response(200, ProfileSchema)
@token_required()
def upload_resume(files, candidate_id):
    """Your résumé as a file: its text becomes your profile text and the skills it names your
    claimed skills (kept until you replace or delete it)."""
    from .resume import uploaded_resume_text

    if api_user().id != candidate_id:
        abort(404, message="no such candidate", field="candidate_id")
    text = uploaded_resume_text(files["file"])  # refused (422) when it cannot be read
    results.save_claims(api_user(), candidate_id, text)
    return results.candidate_profile(api_user(), candidate_id)


@candidates_blp.route("/<int:candidate_id>/profile", methods=["DELETE"])
@candidates_blp.response(204)
@token_required()
def delete_profile(candidate_id):
    """Delete your profile text and the claims read from it (verified skills stay)."""
    results.save_claims(api_user(), candidate_id, "")


@candidates_blp.route("/<int:candidate_id>/profile", methods=["PUT"])
@candidates_blp.arguments(ProfileTextSchema, example={"text": PROFILE_EXAMPLE})
@candidates_blp.response(200, ProfileSchema)
@token_required()
def save_profile(data, candidate_id):
    """Your profile or résumé text: the skills it names become claimed skills (empty deletes it)."""
    results.save_claims(api_user(), candidate_id, data["text"])
    return results.candidate_profile(api_user(), candidate_id)
