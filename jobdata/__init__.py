"""Postings, salary and learning-resource data, and their services."""


def register(app, api) -> None:
    from . import api as jobs_api
    from . import api_salary, cli, views

    api.register_blueprint(jobs_api.blp)
    api.register_blueprint(jobs_api.skills_blp)
    api.register_blueprint(api_salary.blp)
    app.register_blueprint(views.bp)
    app.cli.add_command(cli.jobs)
