"""API: assessments, their invitations and results."""
from flask import Response, url_for
from flask_smorest import Blueprint

from accounts.models import Role, utcnow
from accounts.tokens import api_user, token_required

from . import results, service
from .schemas import (AcceptResultSchema, AssessmentCreateSchema, AssessmentDetailSchema,
                      AssessmentSchema, InvitationPreviewSchema, InviteRequestSchema,
                      InviteResultSchema, ResultsQuerySchema,
                      ResultsSchema, SuggestionSchema, SuggestQuerySchema)

blp = Blueprint("assessments", __name__, url_prefix="/api/v1/assessments",
                description="Timed assessments for a job: tasks, invitations, results")
invitations_blp = Blueprint("assessment_invitations", __name__, url_prefix="/api/v1/invitations",
                            description="Opening and accepting an assessment invitation")


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
