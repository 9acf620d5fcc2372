"""Flask extensions, created unbound and attached in create_app."""
import os

import click
from flask import g
from flask.cli import with_appcontext
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_login import LoginManager
from flask_smorest import Api
from flask_wtf.csrf import CSRFProtect
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy.orm import DeclarativeBase


class Base(DeclarativeBase):
    """Declarative base for every model (SQLAlchemy 2.x typed mappings)."""


db = SQLAlchemy(model_class=Base)
api = Api()
login_manager = LoginManager()
# Per-user limits are set on the views that need them (submissions, runs); nothing by default.
limiter = Limiter(key_func=get_remote_address, default_limits=[])
# Page forms only: web/forms.py checks every state-changing page request. The API takes bearer
# tokens and ignores cookies, so a forged cross-site request carries no credentials there.
csrf = CSRFProtect()


def init_migrations(app) -> None:
    """Attach Flask-Migrate. On demand: importing it imports Alembic (a third of a second), which
    only `flask db ...` and the tests that build a schema need."""
    if "migrate" in app.extensions:
        return
    from flask_migrate import Migrate

    Migrate(app, db, directory=os.path.join(app.root_path, "migrations"))


def upgrade_database() -> None:
    """`flask db upgrade` for the app in context (tests and scripts that build a schema)."""
    from flask import current_app

    init_migrations(current_app)
    from flask_migrate import upgrade

    upgrade()


class MigrationCommands(click.Group):
    """`flask db ...`: Flask-Migrate's commands, loaded when one is asked for. Takes the same
    group options as Flask-Migrate's own `db` group and passes them on the same way."""

    def __init__(self, app):
        super().__init__(
            name="db", help="Database migrations (Flask-Migrate, Alembic).",
            callback=with_appcontext(self._remember_options),
            params=[click.Option(["-d", "--directory"], default=None,
                                 help='Migration script directory (default is "migrations")'),
                    click.Option(["-x", "--x-arg"], multiple=True,
                                 help="Additional arguments consumed by custom env.py scripts")])
        self._app = app

    @staticmethod
    def _remember_options(directory, x_arg):
        g.directory = directory  # read by Flask-Migrate's commands, as its own group does
        g.x_arg = x_arg

    def _commands(self) -> click.Group:
        init_migrations(self._app)
        from flask_migrate.cli import db as commands

        return commands

    def list_commands(self, ctx):
        return self._commands().list_commands(ctx)

    def get_command(self, ctx, name):
        return self._commands().get_command(ctx, name)
