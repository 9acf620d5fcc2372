"""API: a candidate's profile (verified and claimed skills), the text or résumé behind it."""
from flask_smorest import Blueprint, abort
from flask_smorest.fields import Upload
from marshmallow import Schema

from accounts.tokens import api_user, token_required

from . import profiles
from .schemas import ProfileSchema, ProfileTextSchema
from .resume import uploaded_resume_text

blp = Blueprint("candidates", __name__, url_prefix="/api/v1/candidates",
                description="Candidates' verified and claimed skills")

# A profile's example in the OpenAPI document (a résumé's text, or a plain-text résumé file).
PROFILE_EXAMPLE = ("Ada Lovelace, GPU software engineer. 6 years of C++ and CUDA: kernel tuning "
                   "with Nsight Compute, NCCL for multi-GPU training, PyTorch. MS in Computer Science.")


@blp.route("/<int:candidate_id>/profile")
@blp.response(200, ProfileSchema)
@token_required()
def profile(candidate_id):
    """Verified skills with level and evidence, and claimed skills apart (the candidate, and
    recruiters of organisations whose invitation the candidate accepted)."""
    return profiles.candidate_profile(api_user(), candidate_id)


class ResumeUploadSchema(Schema):
    file = Upload(required=True, metadata={"description": "a PDF, a DOCX or a plain-text résumé (1 MB at most)"})


@blp.route("/<int:candidate_id>/resume", methods=["POST"])
@blp.arguments(ResumeUploadSchema, location="files", example={"file": PROFILE_EXAMPLE})
@blp.response(200, ProfileSchema)
@token_required()
def upload_resume(files, candidate_id):
    """Your résumé as a file: its text becomes your profile text and the skills it names your
    claimed skills (kept until you replace or delete it)."""
    if api_user().id != candidate_id:
        abort(404, message="no such candidate", field="candidate_id")
    text = uploaded_resume_text(files["file"])  # refused (422) when it cannot be read
    profiles.save_claims(api_user(), candidate_id, text)
    return profiles.candidate_profile(api_user(), candidate_id)


@blp.route("/<int:candidate_id>/profile", methods=["DELETE"])
@blp.response(204)
@token_required()
def delete_profile(candidate_id):
    """Delete your profile text and the claims read from it (verified skills stay)."""
    profiles.save_claims(api_user(), candidate_id, "")


@blp.route("/<int:candidate_id>/profile", methods=["PUT"])
@blp.arguments(ProfileTextSchema, example={"text": PROFILE_EXAMPLE})
@blp.response(200, ProfileSchema)
@token_required()
def save_profile(data, candidate_id):
    """Your profile or résumé text: the skills it names become claimed skills (empty deletes it)."""
    profiles.save_claims(api_user(), candidate_id, data["text"])
    return profiles.candidate_profile(api_user(), candidate_id)
