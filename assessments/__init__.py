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
