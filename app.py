"""KernelPath: the application factory."""
import os

from flask import Flask

import settings
from extensions import api, db, login_manager, migrate


def create_app(config=None) -> Flask:
    """Build the app: defaults, then KERNELPATH_* / DATABASE_URL, then `config`."""
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(settings.DEFAULTS)
    app.config.from_mapping(settings.from_environment())
    if config:
        app.config.from_mapping(config)
    if not app.config.get("SQLALCHEMY_DATABASE_URI"):
        os.makedirs(app.instance_path, exist_ok=True)
        app.config["SQLALCHEMY_DATABASE_URI"] = (
            "sqlite:///" + os.path.join(app.instance_path, "kernelpath.sqlite")
        )
    else:
        app.config["SQLALCHEMY_DATABASE_URI"] = settings.normalise_database_url(
            app.config["SQLALCHEMY_DATABASE_URI"]
        )

    db.init_app(app)
    migrate.init_app(app, db, directory=os.path.join(app.root_path, "migrations"))
    login_manager.init_app(app)
    api.init_app(app)

    from accounts import register as register_accounts
    from jobdata import register as register_jobs
    from web import csrf, errors, pages

    errors.register(app)
    csrf.register(app)
    register_accounts(app, api)
    register_jobs(app, api)
    pages.register(app)
    return app
