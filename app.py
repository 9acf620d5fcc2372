"""KernelPath: the application factory."""
import os
import threading

from flask import Flask

import settings
from assessments.engines import sqlite_for_concurrent_use
from extensions import MigrationCommands, api, csrf, db, limiter, login_manager


def _configure(app: Flask, config) -> None:
    app.config.from_mapping(settings.DEFAULTS)
    app.config.from_mapping(settings.from_environment(app.config))
    if config:
        app.config.from_mapping(config)
    if not app.config.get("SQLALCHEMY_DATABASE_URI"):
        os.makedirs(app.instance_path, exist_ok=True)
        app.config["SQLALCHEMY_DATABASE_URI"] = (
            "sqlite:///" + os.path.join(app.instance_path, "kernelpath.sqlite")
        )
    app.config["SQLALCHEMY_DATABASE_URI"] = settings.normalise_database_url(
        app.config["SQLALCHEMY_DATABASE_URI"])
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = settings.instance_secret_key(app.instance_path)
    if app.config["HTTPS"]:
        app.config.update(SESSION_COOKIE_SECURE=True, REMEMBER_COOKIE_SECURE=True,
                          PREFERRED_URL_SCHEME="https")
    if app.config["PROXY_COUNT"]:
        from werkzeug.middleware.proxy_fix import ProxyFix

        hops = app.config["PROXY_COUNT"]
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)


def create_app(config=None) -> Flask:
    """Build the app: defaults, then KERNELPATH_* / DATABASE_URL, then `config`."""
    app = Flask(__name__, instance_relative_config=True)
    _configure(app, config)

    db.init_app(app)
    if app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        with app.app_context():
            sqlite_for_concurrent_use(db.engine)
    app.cli.add_command(MigrationCommands(app))
    login_manager.init_app(app)
    api.init_app(app)
    limiter.init_app(app)
    csrf.init_app(app)

    from accounts import register as register_accounts
    from assessments import register as register_assessments
    from candidates import register as register_candidates
    from jobdata import register as register_jobs
    from web import errors, forms, highlight, names, pages

    errors.register(app)
    from web import inputs  # before any blueprint: it replaces the `int` URL converter
    inputs.register(app)
    forms.register(app)
    register_accounts(app, api)
    register_jobs(app, api)
    register_assessments(app, api)
    register_candidates(app, api)
    pages.register(app)
    from assessments.queue_depth import scrape_registry
    from web import ops  # /healthz, /metrics, request timing
    ops.register(app, scrape_registry)
    highlight.init_app(app)
    names.init_app(app)
    from web import charts
    charts.init_app(app)
    if app.config["PARSER_WARM_UP"] and not app.testing:
        from skillmap.parse import warm_up

        threading.Thread(target=warm_up, name="parser-warm-up", daemon=True).start()
    return app
