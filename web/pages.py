"""Pages: home (paste a posting, see its parse) and the API docs."""
from flask import Blueprint, current_app, render_template, request

from extensions import api
from skillmap.parse import parse_job

bp = Blueprint("pages", __name__)


@bp.route("/", methods=["GET", "POST"])
def index():
    text = request.form.get("text", "") if request.method == "POST" else ""
    result, error = None, None
    if request.method == "POST":
        limit = current_app.config["JOB_TEXT_MAX_BYTES"]
        if not text.strip():
            error = "Paste a job description first."
        elif len(text.encode("utf-8")) > limit or "\x00" in text:
            error = f"The text must be plain text under {limit // 1024} KB."
        else:
            result = parse_job(text)
    return render_template("index.html", text=text, result=result, error=error), (422 if error else 200)


@bp.route("/api/v1/docs")
def api_docs():
    """The API reference: Swagger UI (vendored, local files only) on the OpenAPI document, with
    a plain list of the operations for browsers without JavaScript."""
    return render_template("docs.html", spec=api.spec.to_dict())


def register(app) -> None:
    app.register_blueprint(bp)
