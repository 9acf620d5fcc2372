"""Users, organisations, roles, login and API tokens."""


def register(app, api) -> None:
    from extensions import db, login_manager

    from . import api as accounts_api
    from . import cli, views
    from .models import User

    api.register_blueprint(accounts_api.blp)
    api.register_blueprint(accounts_api.orgs)
    app.register_blueprint(views.bp)
    app.cli.add_command(cli.users)
    login_manager.login_view = "accounts.login"

    @login_manager.user_loader
    def _load_user(user_id: str):
        return db.session.get(User, int(user_id))
