"""Grading one submission: claims, one final status, and the worker's table mirror."""
import pytest

from assessments import grading

pytestmark = pytest.mark.db


def test_the_workers_mirror_matches_the_model():
    from assessments.models import Submission
    model = Submission.__table__.columns
    for column in grading.SUBMISSIONS.columns:
        assert column.name in model, column.name
        assert type(column.type).__name__ == type(model[column.name].type).__name__ or \
            column.type.python_type == model[column.name].type.python_type, column.name


@pytest.fixture
def queued(app, db_session, make_user):
    from assessments.models import Submission
    from extensions import db
    user = make_user("cand@example.com")
    sub = Submission(user_id=user.user["id"], task="vector_add", kind="submission", backend="cpu",
                     source="def solve(a, b, c, n):\n    c[...] = a + b\n", status="queued")
    db.session.add(sub)
    db.session.commit()
    return db.engine, sub.id


def _row(engine, sub_id):
    from sqlalchemy import select
    with engine.connect() as conn:
        return conn.execute(select(grading.SUBMISSIONS).where(grading.SUBMISSIONS.c.id == sub_id)).one()


def test_only_the_latest_claim_may_finish(queued):
    engine, sub_id = queued
    first = grading.claim(engine, sub_id)
    second = grading.claim(engine, sub_id)   # the first worker was presumed dead
    assert first["claim"] != second["claim"] and second["attempts"] == 2
    assert grading.finish(engine, sub_id, first["claim"], status="done", verdict="accepted") is False
    assert grading.finish(engine, sub_id, second["claim"], status="done", verdict="wrong_answer")
    assert grading.claim(engine, sub_id) is None          # final: nothing more to do
    row = _row(engine, sub_id)
    assert (row.status, row.verdict, row.claim) == ("done", "wrong_answer", None)


def test_grade_judges_and_stores_the_report(queued):
    engine, sub_id = queued
    assert grading.grade(engine, sub_id) == "done"
    row = _row(engine, sub_id)
    assert row.verdict == "accepted" and row.score > 60 and row.report["verdict"] == "accepted"
    assert row.report["profile"]["estimated_us"] > 0
    assert "seed" not in row.report and row.finished_at >= row.started_at
    assert grading.grade(engine, sub_id) is None          # a duplicate delivery changes nothing


def test_a_submission_whose_attempts_keep_dying_ends_failed(queued):
    engine, sub_id = queued
    for _ in range(grading.MAX_ATTEMPTS):
        grading.claim(engine, sub_id)                      # each attempt died mid-grade
    assert grading.grade(engine, sub_id) == "failed"
    row = _row(engine, sub_id)
    assert row.status == "failed" and "interrupted 3 times" in row.message


def test_a_judge_fault_ends_failed_not_running(queued, monkeypatch):
    engine, sub_id = queued
    import assessments.judge as judge_pkg

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")
    monkeypatch.setattr(judge_pkg, "judge", broken, raising=False)
    assert grading.grade(engine, sub_id) == "failed"
    assert "disk on fire" in _row(engine, sub_id).message


def test_a_grading_worker_imports_nothing_of_the_web_service():
    import subprocess
    import sys

    from assessment_helpers import ROOT
    code = ("import sys, assessments.worker, assessments.judge.engine; "
            "bad = [m for m in ('flask', 'flask_sqlalchemy', 'spacy', 'sklearn', 'skillmap', "
            "'accounts', 'jobdata', 'web') if m in sys.modules]; print(bad); sys.exit(bool(bad))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
