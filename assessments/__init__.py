"""Assessments: the task catalog, submissions and runs, the grading queue, timed assessments and
invitations, results and the evidence of verified skills, integrity, leaderboards (the judge
itself lives in assessments.judge)."""


def register(app, api) -> None:
    from . import api as tasks_api
    from . import api_assessments, cli, pages, queue

    for blp in (tasks_api.tasks_blp, tasks_api.runs_blp, tasks_api.subs_blp, api_assessments.blp,
                api_assessments.invitations_blp):
        api.register_blueprint(blp)
    app.register_blueprint(pages.bp)
    app.cli.add_command(cli.tasks)
    queue.init_app(app)
