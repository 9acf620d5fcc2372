"""Assessments: the task catalog, submissions and runs, the grading queue, timed assessments,
verified skills and leaderboards (the judge itself lives in assessments.judge)."""


def register(app, api) -> None:
    from . import api as tasks_api
    from . import api_assessments, api_matching, api_roadmap, cli, pages, queue

    for blp in (tasks_api.tasks_blp, tasks_api.runs_blp, tasks_api.subs_blp, api_assessments.blp,
                api_assessments.invitations_blp, api_assessments.candidates_blp, api_matching.blp, api_roadmap.blp):
        api.register_blueprint(blp)
    app.register_blueprint(pages.bp)
    app.cli.add_command(cli.tasks)
    queue.init_app(app)
    _map_refusals(app)


def _map_refusals(app) -> None:
    """A service's refusal becomes the API's JSON error, or on a page its status page (a page
    that can say more, a form error, catches the refusal itself)."""
    from flask import jsonify, request
    from werkzeug.exceptions import default_exceptions

    from web.errors import error_body

    from .errors import AssessmentError

    @app.errorhandler(AssessmentError)
    def _refused(err: AssessmentError):
        if not request.path.startswith("/api/"):
            # Through the app's own HTTP error handling, as if the view had aborted.
            return app.handle_http_exception(default_exceptions[err.status]())
        return jsonify(error_body(err.status, err.message, err.field)), err.status
