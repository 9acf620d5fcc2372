"""Postings, salary and learning-resource data, and their services."""


def register(app, api) -> None:
    from . import api as jobs_api
    from . import cli, views

    api.register_blueprint(jobs_api.blp)
    app.register_blueprint(views.bp)
    app.cli.add_command(cli.jobs)
