"""Migrations build the schema the models describe, on SQLite and PostgreSQL alike."""
import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect

pytestmark = pytest.mark.db


def test_migrations_match_the_models(app):
    from extensions import db

    with app.app_context():
        with db.engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), db.metadata)
    assert diff == []


def test_downgrade_and_upgrade_again(app, db_session):
    from extensions import db, init_migrations

    init_migrations(app)
    with app.app_context():
        downgrade(revision="base")
        assert "jobs" not in inspect(db.engine).get_table_names()
        upgrade()
        tables = set(inspect(db.engine).get_table_names())
    assert {"users", "organisations", "api_tokens", "invitations", "jobs", "job_skills"} <= tables


def test_settings_come_from_defaults_environment_then_mapping(monkeypatch, tmp_path):
    from app import create_app

    monkeypatch.setenv("KERNELPATH_JOB_TEXT_MAX_BYTES", "1234")
    monkeypatch.setenv("DATABASE_URL", "postgres://someone@db.example:5432/kp")
    app = create_app()
    assert app.config["JOB_TEXT_MAX_BYTES"] == 1234
    assert app.config["SQLALCHEMY_DATABASE_URI"] == "postgresql+psycopg://someone@db.example:5432/kp"
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/x.sqlite"})
    assert app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite:///")
