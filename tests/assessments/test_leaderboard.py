"""Leaderboards: best eligible time per user, one board per GPU, flagged timings never shown."""
import pytest

pytestmark = pytest.mark.db


def _graded(db, user_id, *, median_ms=None, device=None, eligible=False, backend="cuda",
            verdict="accepted", public=False):
    from assessments.models import Submission
    sub = Submission(user_id=user_id, task="vector_add", source=f"# {median_ms}\n", kind="submission",
                     backend=backend, status="done", verdict=verdict, score=90.0,
                     median_ms=median_ms, device=device, leaderboard_eligible=eligible, public=public)
    db.session.add(sub)
    db.session.commit()
    return sub.id


def test_best_eligible_time_per_user_on_one_gpu(client, make_user, app):
    from extensions import db
    ada, bob, eve = (make_user(f"{n}@example.com").user["id"] for n in ("ada", "bob", "eve"))
    with app.app_context():
        slow = _graded(db, ada, median_ms=2.0, device="NVIDIA H100", eligible=True)
        fast = _graded(db, ada, median_ms=1.0, device="NVIDIA H100", eligible=True, public=True)
        _graded(db, bob, median_ms=1.5, device="NVIDIA H100", eligible=True)
        _graded(db, eve, median_ms=0.01, device="NVIDIA H100", eligible=False)  # below the floor
        _graded(db, bob, median_ms=0.5, device="NVIDIA A100", eligible=True)
        _graded(db, eve, backend="cuda", verdict="wrong_answer", median_ms=None)
    board = client.get("/api/v1/tasks/vector_add/leaderboard?backend=cuda").get_json()
    assert board["device"] == "NVIDIA H100"
    assert board["devices"] == ["NVIDIA A100", "NVIDIA H100"]
    assert [(e["rank"], e["median_ms"]) for e in board["entries"]] == [(1, 1.0), (2, 1.5)]
    assert board["entries"][0]["submission_id"] == fast and board["entries"][0]["source"] == "# 1.0\n"
    assert board["entries"][1]["source"] is None  # not made public
    assert slow not in [e["submission_id"] for e in board["entries"]]
    a100 = client.get("/api/v1/tasks/vector_add/leaderboard?backend=cuda&gpu=NVIDIA%20A100").get_json()
    assert [e["median_ms"] for e in a100["entries"]] == [0.5]


def test_unknown_task_or_backend_is_refused(client):
    assert client.get("/api/v1/tasks/nope/leaderboard").status_code == 404
    resp = client.get("/api/v1/tasks/vector_add/leaderboard?backend=tpu")
    assert resp.status_code == 422 and resp.get_json()["field"] == "backend"
