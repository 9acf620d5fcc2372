"""Leaderboards: best eligible time per user, one board per GPU, flagged timings never shown."""
import pytest

pytestmark = pytest.mark.db


def _graded(db, user_id, *, median_ms=None, device=None, eligible=False, backend="cuda",
            verdict="accepted", public=True, assessment_id=None, report=None):
    from assessments.models import Submission
    sub = Submission(user_id=user_id, task="vector_add", source=f"# {median_ms}\n", kind="submission",
                     backend=backend, status="done", verdict=verdict, score=90.0,
                     median_ms=median_ms, device=device, leaderboard_eligible=eligible, public=public,
                     assessment_id=assessment_id, report=report)
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
        kept = _graded(db, bob, median_ms=0.9, device="NVIDIA H100", eligible=True, public=False)
        _graded(db, eve, median_ms=0.01, device="NVIDIA H100", eligible=False)  # below the floor
        _graded(db, bob, median_ms=0.5, device="NVIDIA A100", eligible=True)
        _graded(db, eve, backend="cuda", verdict="wrong_answer", median_ms=None)
    board = client.get("/api/v1/tasks/vector_add/leaderboard?backend=cuda").get_json()
    assert board["device"] == "NVIDIA H100"
    assert board["devices"] == ["NVIDIA A100", "NVIDIA H100"]
    assert [(e["rank"], e["median_ms"]) for e in board["entries"]] == [(1, 1.0), (2, 1.5)]
    assert board["entries"][0]["submission_id"] == fast and board["entries"][0]["source"] == "# 1.0\n"
    assert slow not in [e["submission_id"] for e in board["entries"]]
    assert kept not in [e["submission_id"] for e in board["entries"]]  # its author kept it private
    a100 = client.get("/api/v1/tasks/vector_add/leaderboard?backend=cuda&gpu=NVIDIA%20A100").get_json()
    assert [e["median_ms"] for e in a100["entries"]] == [0.5]


def _estimate(us, eligible=True):
    return {"verdict": "accepted", "profile": {"estimated": True, "estimated_us": us, "eligible": eligible}}


def test_the_cpu_board_ranks_estimates_and_never_shows_measured_times(client, make_user, app):
    from extensions import db
    ada, bob, eve, old = (make_user(f"{n}@example.com").user["id"] for n in ("ada", "bob", "eve", "old"))
    with app.app_context():
        _graded(db, ada, backend="cpu", report=_estimate(400.0))
        best = _graded(db, ada, backend="cpu", report=_estimate(160.0))
        _graded(db, bob, backend="cpu", report=_estimate(250.0))
        _graded(db, eve, backend="cpu", report=_estimate(None, eligible=False))   # work it could not see
        _graded(db, old, backend="cpu", report={"verdict": "accepted"})           # judged before estimates
        _graded(db, bob, median_ms=0.1, device="NVIDIA H100", eligible=True)     # measured: another board
    board = client.get("/api/v1/tasks/vector_add/leaderboard?backend=cpu").get_json()
    assert board["device"] == "H100, estimated" and board["devices"] == ["H100, estimated"]
    rows = [(e["rank"], e["estimated_ms"], e["median_ms"]) for e in board["entries"]]
    assert rows[:2] == [(1, 0.16, None), (2, 0.25, None)]
    assert board["entries"][0]["submission_id"] == best
    assert [e["estimated_ms"] for e in board["entries"][2:]] == [None, None]    # after, by acceptance
    page = client.get("/tasks/vector_add/leaderboard?backend=cpu")
    assert page.status_code == 200 and b"H100, estimated" in page.data and b"0.1600 ms" in page.data


def test_unknown_task_or_backend_is_refused(client):
    assert client.get("/api/v1/tasks/nope/leaderboard").status_code == 404
    resp = client.get("/api/v1/tasks/vector_add/leaderboard?backend=tpu")
    assert resp.status_code == 422 and resp.get_json()["field"] == "backend"


def test_assessment_work_never_reaches_the_leaderboard(client, make_user, app, recruiter_with_job):
    from extensions import db
    from assessments.models import Assessment
    rec, job_id = recruiter_with_job
    cand = make_user("assessed@example.com")
    with app.app_context():
        org = db.session.get(__import__("jobdata.models", fromlist=["Job"]).Job, job_id).organisation_id
        a = Assessment(organisation_id=org, job_id=job_id, title="Screen", tasks=["vector_add"],
                       time_limit_minutes=60, backend="cpu", created_by_id=rec.user["id"])
        db.session.add(a)
        db.session.commit()
        sub_id = _graded(db, cand.user["id"], median_ms=0.2, device="NVIDIA H100", eligible=True,
                         public=False, assessment_id=a.id)
    board = client.get("/api/v1/tasks/vector_add/leaderboard?backend=cuda").get_json()
    assert sub_id not in [e["submission_id"] for e in board["entries"]]
    # Nor can its author put it there.
    resp = client.put(f"/api/v1/submissions/{sub_id}/visibility", headers=cand.headers,
                      json={"public": True})
    assert resp.status_code == 409, resp.get_json()
    assert "assessment" in resp.get_json()["message"]
