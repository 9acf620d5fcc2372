"""The pages of tasks, submissions, assessments and profiles, through the Flask test client:
each renders, forms show their errors, and anyone without access gets 404 (or the sign-in page).
"""
import json
import re
import time
from datetime import timedelta
from pathlib import Path

import pytest

pytestmark = pytest.mark.db

PASSWORD = "correct horse battery"
CORRECT = (Path(__file__).resolve().parents[1] / "fixtures" / "submissions" / "vector_add"
           / "raw_kernel.py").read_text()
GRADING_TIMEOUT_S = 600  # a sandboxed judge child per submission; only stops a hung test
ARRAY = "import cupy as cp\n\n\ndef solve(a, b, c, n):\n    c[...] = a + b\n"
JSON = {"Accept": "application/json"}


class _Session:
    """A test client that forgets the previous request's user first: the tests' requests share
    one app context (the db_session fixture's), and Flask-Login keeps the user on its `g`."""

    def __init__(self, app):
        self._client = app.test_client()

    def __getattr__(self, name):
        method = getattr(self._client, name)
        if name not in ("get", "post", "open"):
            return method

        def call(*args, **kw):
            from flask import g, has_app_context
            if has_app_context():  # the test's app context outlives requests: so would g
                g.pop("_login_user", None)
                g.pop("csrf_token", None)
            return method(*args, **kw)
        return call


class Page:
    """A browser-like session of one user: a test client signed in through /login."""

    def __init__(self, app, email=None):
        self.http = _Session(app)
        self.token = self._token("/login")
        if email:
            resp = self.http.post("/login", data={"email": email, "password": PASSWORD,
                                                  "csrf_token": self.token})
            assert resp.status_code == 302, resp.get_data(as_text=True)

    def _token(self, path):
        page = self.http.get(path).get_data(as_text=True)
        return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)

    def get(self, path, **kw):
        return self.http.get(path, **kw)

    def post(self, path, data=None, **kw):
        return self.http.post(path, data={"csrf_token": self.token, **(data or {})}, **kw)


def wait_final(client, path: str, timeout: float = GRADING_TIMEOUT_S) -> dict:
    """Poll a page's status endpoint until grading ends."""
    deadline = time.monotonic() + timeout
    while True:
        resp = client.get(path)
        assert resp.status_code == 200, resp.get_data(as_text=True)
        body = resp.get_json()
        if body["final"]:
            return body
        if time.monotonic() > deadline:
            pytest.fail(f"{path} still {body['status']} after {timeout} s")
        time.sleep(0.2)


def text(resp) -> str:
    return resp.get_data(as_text=True)


def _db():
    from extensions import db
    return db


def _assessment(client, rec, job_id, tasks=("vector_add", "reduce_sum"), minutes=60):
    resp = client.post("/api/v1/assessments", json={"job_id": job_id, "tasks": list(tasks),
                                                    "time_limit_minutes": minutes},
                       headers=rec.headers)
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()["id"]


def _invite(client, rec, aid, email):
    resp = client.post(f"/api/v1/assessments/{aid}/invitations", json={"email": email},
                       headers=rec.headers)
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()["token"]


def _graded(user_id, *, task="vector_add", verdict="accepted", score=60.0, report=None,
            kind="submission", assessment_id=None, source=ARRAY):
    """A submission the judge has finished with (stored directly: no grading needed)."""
    from accounts.models import utcnow
    from assessments.models import Submission

    db = _db()
    sub = Submission(user_id=user_id, task=task, source=source, kind=kind, backend="cpu",
                     status="done", verdict=verdict, score=score, assessment_id=assessment_id,
                     message=(report or {}).get("message"), report=report or {"verdict": verdict},
                     finished_at=utcnow())
    db.session.add(sub)
    db.session.commit()
    return sub.id


FULL_REPORT = {
    "task": "vector_add", "backend": "cpu", "verdict": "wrong_answer", "suite": "tests",
    "message": "wrong answer on test 'small' (n=31): output 'c': 15 of 31 elements are NaN",
    "tests": [
        {"name": "tiny", "sizes": {"n": 1}, "passed": True, "max_error": 0.0, "mismatches": [],
         "message": "", "verdict": None, "elapsed_s": 1.2},
        {"name": "small", "sizes": {"n": 31}, "passed": False, "max_error": "inf",
         "mismatches": [{"index": [16], "got": "nan", "expected": -5.334165},
                        {"index": [17], "got": "nan", "expected": 5.564141}],
         "message": "output 'c': 15 of 31 elements are NaN", "verdict": "wrong_answer",
         "elapsed_s": 0.001},
        {"name": "large", "sizes": {"n": 524287}, "passed": None, "max_error": None,
         "mismatches": [], "message": "", "verdict": None, "elapsed_s": None},
    ],
    "kernels": [{"name": "vadd", "kind": "RawKernel", "arch": "sm_90", "compiled": True,
                 "registers": 12, "shared_bytes": 0, "dynamic_shared_bytes": 2048,
                 "stack_bytes": 0, "spill_stores": 8, "spill_loads": 8, "spill_bytes": 16,
                 "block": [256, 1, 1], "grid": [4, 1, 1], "launches": 2, "occupancy": 0.5,
                 "occupancy_limited_by": "registers", "blocks_per_sm": 4,
                 "ptx": ".visible .entry vadd(\n  .param .u64 a\n)", "sass": "EXIT ;"}],
    "timing": {"dims": {"n": 33554432}, "median_ms": 0.4321, "min_ms": 0.42, "max_ms": 0.45,
               "repeats": 200, "warmup": 10, "device": "NVIDIA H100", "ci_low_ms": 0.431,
               "ci_high_ms": 0.433, "confidence": 0.95, "achieved_gb_s": 931.7,
               "achieved_gflop_s": 77.6, "roofline_fraction": 0.28,
               "roofline": {"bound": "memory"}, "flags": ["below_physical_floor"],
               "leaderboard_eligible": False, "stop_reason": "converged"},
    "score": 0.0, "score_detail": {"total": 0.0, "correctness": 0.0, "performance": None,
                                   "max": 100.0, "withheld": False},
    "compile_log": "ptxas info    : Used 12 registers <script>alert(1)</script>",
    "details": None, "stdout": "hello from solve", "stderr": "", "sandbox": "bubblewrap",
}


# ---- tasks --------------------------------------------------------------------------------


def test_task_list_links_every_task(client):
    resp = client.get("/tasks/")
    assert resp.status_code == 200
    page = text(resp)
    for slug in ("vector_add", "reduce_sum", "matmul", "attention"):
        assert f'href="/tasks/{slug}"' in page
    assert "Vector addition" in page and "easy" in page and "CUDA thread hierarchy" in page


def test_task_page_has_statement_arguments_starters_and_editor(client):
    resp = client.get("/tasks/vector_add")
    assert resp.status_code == 200
    page = text(resp)
    assert "<h1>Vector addition</h1>" in page
    assert page.count("<h1>") == 1  # the statement's own title heading is dropped
    assert "<table>" in page or "<table " in page  # the statement's Markdown table
    assert "<code>solve(a, b, c, n)</code>" in page
    assert re.search(r"<td><code>c</code></td><td>output</td><td>float32</td>", page)
    assert "tiny (n=5)" in page or "(n=" in page
    assert 'data-code-editor' in page and 'name="source"' in page
    assert 'src="/static/vendor/editor.js"' in page
    starters = json.loads(re.search(
        r'<script type="application/json" id="starters">(.*?)</script>', page, re.S).group(1))
    assert set(starters) == {"raw", "elementwise", "reduction", "jit", "array"}
    assert "RawKernel" in starters["raw"]
    # Signed out: no buttons, a sign-in link that comes back.
    assert 'id="submit-btn"' not in page
    assert 'href="/login?next=/tasks/vector_add"' in page
    # ?style= loads that style's starter without JavaScript.
    styled = text(client.get("/tasks/vector_add?style=array"))
    assert 'data-style="array"\n               aria-current="true"' in styled or \
        re.search(r'data-style="array"\s+aria-current="true"', styled)
    assert client.get("/tasks/no_such_task").status_code == 404


def test_statement_markdown_keeps_raw_html_out():
    from assessments.pages.base import _markdown

    html = str(_markdown("# T\n\n<script>alert(1)</script>\n\n<b onclick=x>hi</b> "
                         "[x](javascript:alert(1))\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", "T"))
    assert "<script>" not in html and "<b onclick" not in html
    assert "&lt;script&gt;" in html
    assert 'href="javascript:' not in html
    assert "<table>" in html and "<td>1</td>" in html
    assert "<h1>" not in html  # the title heading (the page's own h1) is dropped


def test_leaderboard_page_and_public_code(app, client, make_user):
    alice = make_user("alice@example.com")
    sid = _graded(alice.user["id"])
    _graded(make_user("bob@example.com").user["id"], source="def solve(a, b, c, n):\n    secret()\n")
    page = Page(app, "alice@example.com")
    resp = page.post(f"/submissions/{sid}/visibility", {"public": "1"})
    assert resp.status_code == 303
    board = text(client.get("/tasks/vector_add/leaderboard?backend=cpu"))
    assert 'id="leaderboard"' in board
    assert "c[...] = a + b" in board      # public code can be read
    assert "secret()" not in board         # private code cannot
    assert "No accepted solution on this backend yet" in text(
        client.get("/tasks/vector_add/leaderboard?backend=cuda"))  # CPU-graded work is not timed
    assert client.get("/tasks/vector_add/leaderboard?backend=tpu").status_code == 200
    assert client.get("/tasks/nope/leaderboard").status_code == 404


# ---- runs and submissions -----------------------------------------------------------------


def test_run_and_submit_with_javascript_answer_json_and_report_live(app, client, make_user):
    make_user("learner@example.com")
    page = Page(app, "learner@example.com")
    run = page.post("/tasks/vector_add/runs", {"source": CORRECT}, headers=JSON)
    assert run.status_code == 202, text(run)
    body = run.get_json()
    assert body["status"] == "queued" and body["url"] == f"/runs/{body['id']}"
    assert body["status_url"] == f"/runs/{body['id']}/status"
    final = wait_final(page.http, body["status_url"])
    assert final["verdict"] == "accepted" and final["final"] is True
    assert "Accepted" in final["html"] and "on the samples" in final["html"]
    assert "not scored" in final["html"]
    assert page.get(body["url"]).status_code == 200
    assert page.get(f"/submissions/{body['id']}").status_code == 404  # a run is not a submission

    sub = page.post("/tasks/vector_add/submissions", {"source": CORRECT}, headers=JSON)
    assert sub.status_code == 202
    final = wait_final(page.http, sub.get_json()["status_url"])
    assert final["verdict"] == "accepted" and "estimated on H100" in final["html"]
    assert re.search(r"Score \d+(\.\d+)? / 100", final["html"]) and "Estimated on H100" in final["html"]
    shown = text(page.get(sub.get_json()["url"]))
    assert "Submission #" in shown and "RawKernel" in shown and "Put it on the leaderboard" in shown


def test_submit_without_javascript_redirects_to_the_submission_page(app, make_user):
    make_user("learner@example.com")
    page = Page(app, "learner@example.com")
    resp = page.post("/tasks/vector_add/submissions", {"source": ARRAY})
    assert resp.status_code == 303
    assert re.fullmatch(r"/submissions/\d+", resp.headers["Location"])
    shown = page.get(resp.headers["Location"])
    assert shown.status_code == 200
    assert "c[...] = a + b" in text(shown)
    assert 'data-status-url="' in text(shown)
    run = page.post("/tasks/vector_add/runs", {"source": ARRAY})
    assert run.status_code == 303 and re.fullmatch(r"/runs/\d+", run.headers["Location"])


def test_refused_code_is_explained_in_the_form(app, make_user):
    make_user("learner@example.com")
    page = Page(app, "learner@example.com")
    empty = page.post("/tasks/vector_add/submissions", {"source": "  "}, headers=JSON)
    assert empty.status_code == 422
    assert empty.get_json() == {"message": "source is empty", "field": "source"}
    big = page.post("/tasks/vector_add/runs", {"source": "é" * (40 * 1024)}, headers=JSON)
    assert big.status_code == 413 and big.get_json()["field"] == "source"
    nul = page.post("/tasks/vector_add/runs", {"source": "x\x00"}, headers=JSON)
    assert nul.status_code == 422 and nul.get_json()["field"] == "source"
    stranger = page.post("/tasks/vector_add/submissions",
                         {"source": ARRAY, "assessment_id": "12345"}, headers=JSON)
    assert stranger.status_code == 404 and stranger.get_json()["field"] == "assessment_id"
    # Without JavaScript: the task page again, with the message and the code kept.
    plain = page.post("/tasks/vector_add/submissions", {"source": "  \n "})
    assert plain.status_code == 422
    assert "Source is empty." in text(plain) and 'id="form-error"' in text(plain)
    assert page.post("/tasks/vector_add/submissions",
                     {"source": ARRAY, "assessment_id": "12345"}).status_code == 404
    assert page.post("/tasks/nope/submissions", {"source": ARRAY}).status_code == 404
    # A post without the form's token is refused.
    forged = page.http.post("/tasks/vector_add/submissions", data={"source": ARRAY})
    assert forged.status_code == 400


def test_signed_out_runs_go_to_the_sign_in_page(app):
    page = Page(app)
    resp = page.post("/tasks/vector_add/runs", {"source": ARRAY})
    assert resp.status_code == 302
    assert resp.headers["Location"] == "/login?next=/tasks/vector_add"
    as_json = page.post("/tasks/vector_add/submissions", {"source": ARRAY}, headers=JSON)
    assert as_json.status_code == 401 and "sign in" in as_json.get_json()["message"]
    assert page.get("/submissions/1").status_code == 302


def test_only_the_owner_and_the_assessments_recruiters_read_a_submission(
        app, client, make_user, recruiter_with_job):
    rec, job_id = recruiter_with_job
    cand = make_user("cand@example.com")
    make_user("other@example.com")
    make_user("rec@globex.test", "recruiter", "Globex")
    aid = _assessment(client, rec, job_id)
    token = _invite(client, rec, aid, "cand@example.com")
    client.post(f"/api/v1/invitations/{token}/accept", headers=cand.headers)
    sid = _graded(cand.user["id"], verdict="wrong_answer", score=0, report=FULL_REPORT,
                  assessment_id=aid)
    run_id = _graded(cand.user["id"], kind="run", assessment_id=aid)
    owner = Page(app, "cand@example.com")
    assert owner.get(f"/submissions/{sid}").status_code == 200
    assert owner.get(f"/runs/{run_id}").status_code == 200
    recruiter = Page(app, "rec@acme.test")
    seen = text(recruiter.get(f"/submissions/{sid}"))
    assert "cand@example.com" in seen  # the recruiter sees who wrote it
    assert "Put it on the leaderboard" not in seen
    for email in ("other@example.com", "rec@globex.test"):
        outsider = Page(app, email)
        for path in (f"/submissions/{sid}", f"/submissions/{sid}/status", f"/runs/{run_id}",
                     f"/runs/{run_id}/status", "/submissions/999999"):
            assert outsider.get(path).status_code == 404, (email, path)
        assert outsider.post(f"/submissions/{sid}/visibility", {"public": "1"}).status_code == 404
    assert recruiter.get(f"/runs/{run_id}").status_code == 404  # runs are the candidate's own


def test_the_report_shows_tests_kernels_listings_and_timing(app, make_user):
    user = make_user("learner@example.com")
    sid = _graded(user.user["id"], verdict="wrong_answer", score=0, report=FULL_REPORT)
    page = Page(app, "learner@example.com")
    status = page.get(f"/submissions/{sid}/status").get_json()
    assert status["status"] == "done" and status["verdict"] == "wrong_answer"
    assert status["title"] == "Wrong answer"
    html = status["html"]
    assert 'class="verdict verdict-bad"' in html and "Wrong answer" in html
    assert "An output differs from the reference." in html
    assert "15 of 31 elements are NaN" in html
    assert "<code>[16]</code>: got <code>nan</code>, expected <code>-5.334165</code>" in html
    assert "✗ fail" in html and "✓ pass" in html and "not run" in html
    assert "12 per thread" in html and "2.0 KiB dynamic" in html
    assert "50% on sm_90, limited by registers (4 blocks per SM)" in html
    assert "8 B stored, 8 B loaded" in html
    assert '<textarea id="ptx-' in html and 'data-code-editor="plain" readonly' in html
    assert ".visible .entry vadd(" in html and "EXIT ;" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert" not in html
    assert "0.4321 ms" in html and "95% CI 0.4310 – 0.4330 ms" in html
    assert "931.7 GB/s" in html and "77.6 GFLOP/s" in html
    assert "28% of the memory-bound roofline" in html
    assert "Flagged for review (below physical floor)" in html
    assert "Score 0 / 100" in html and "hello from solve" in html
    page_html = text(page.get(f"/submissions/{sid}"))
    assert 'data-final="true"' in page_html and "Put it on the leaderboard" not in page_html


def test_queued_work_shows_its_status_and_polls(app, make_user):
    from assessments.models import Submission

    user = make_user("learner@example.com")
    db = _db()
    sub = Submission(user_id=user.user["id"], task="vector_add", source=ARRAY, kind="submission",
                     backend="cpu", status="running")
    db.session.add(sub)
    db.session.commit()
    page = Page(app, "learner@example.com")
    shown = text(page.get(f"/submissions/{sub.id}"))
    assert 'data-final="false"' in shown and "Running the hidden tests on the cpu backend" in shown
    assert 'src="/static/js/live-report.js"' in shown
    status = page.get(f"/submissions/{sub.id}/status").get_json()
    assert status["status"] == "running" and status["final"] is False


def test_only_an_accepted_solution_can_be_made_public(app, make_user):
    user = make_user("learner@example.com")
    wrong = _graded(user.user["id"], verdict="wrong_answer", score=0)
    good = _graded(user.user["id"])
    page = Page(app, "learner@example.com")
    refused = page.post(f"/submissions/{wrong}/visibility", {"public": "1"})
    assert refused.status_code == 409
    assert "Only an accepted solution can be made public." in text(refused)
    assert page.post(f"/submissions/{good}/visibility", {"public": "1"}).status_code == 303
    shown = text(page.get(f"/submissions/{good}"))
    assert "public on the leaderboard" in shown and "Take it off the leaderboard" in shown
    assert page.post(f"/submissions/{good}/visibility", {"public": "0"}).status_code == 303
    assert "Put it on the leaderboard" in text(page.get(f"/submissions/{good}"))


# ---- invitations and assessments ----------------------------------------------------------


def test_invitation_page_in_each_state(app, client, make_user, recruiter_with_job):
    from assessments.models import AssessmentInvitation

    rec, job_id = recruiter_with_job
    make_user("cand@example.com")
    make_user("late@example.com")
    aid = _assessment(client, rec, job_id)
    token = _invite(client, rec, aid, "cand@example.com")
    url = f"/invitations/{token}"

    anonymous = Page(app)
    shown = text(anonymous.get(url))
    assert "Acme GPU" in shown and "2 GPU coding tasks" in shown and "60 minutes" in shown
    assert f'href="/login?next={url}"' in shown and "/signup?role=candidate" in shown  # or sign up, and come back
    assert anonymous.post(url).status_code == 302
    assert anonymous.get("/invitations/kpa_nothing").status_code == 404

    recruiter = Page(app, "rec@acme.test")
    assert "Sign out and sign in with a candidate account" in text(recruiter.get(url))
    refused = recruiter.post(url)
    assert refused.status_code == 403 and "Sign in as a candidate" in text(refused)

    cand = Page(app, "cand@example.com")
    assert "Start now (the clock starts)" in text(cand.get(url))
    started = cand.post(url)
    assert started.status_code == 303 and started.headers["Location"] == f"/assessments/{aid}"
    assert "You have started this assessment" in text(cand.get(url))

    late = Page(app, "late@example.com")
    assert "already been used" in text(late.get(url))
    assert late.post(url).status_code == 409

    expiring = _invite(client, rec, aid, "late@example.com")
    db = _db()
    inv = db.session.query(AssessmentInvitation).filter_by(email="late@example.com").one()
    inv.expires_at = inv.expires_at - timedelta(days=30)
    db.session.commit()
    assert "expired on" in text(late.get(f"/invitations/{expiring}"))
    gone = late.post(f"/invitations/{expiring}")
    assert gone.status_code == 410 and "expired on" in text(gone)


def test_candidate_sees_tasks_progress_and_the_countdown(app, client, make_user,
                                                         recruiter_with_job):
    from assessments.models import AssessmentInvitation

    rec, job_id = recruiter_with_job
    cand = make_user("cand@example.com")
    make_user("other@example.com")
    aid = _assessment(client, rec, job_id)
    page = Page(app, "cand@example.com")
    assert page.get(f"/assessments/{aid}").status_code == 404  # not started yet
    page.post(f"/invitations/{_invite(client, rec, aid, 'cand@example.com')}")
    _graded(cand.user["id"], assessment_id=aid)

    shown = text(page.get(f"/assessments/{aid}"))
    assert f'href="/tasks/vector_add?assessment={aid}"' in shown
    assert f'href="/tasks/reduce_sum?assessment={aid}"' in shown
    assert "Accepted" in shown and "Not submitted yet" in shown
    assert re.search(r'data-deadline="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"', shown)
    assert 'src="/static/js/countdown.js"' in shown

    task = text(page.get(f"/tasks/vector_add?assessment={aid}"))
    assert 'class="countdown' in task and 'data-deadline="' in task
    assert f'name="assessment_id" value="{aid}"' in task
    assert page.get(f"/tasks/matmul?assessment={aid}").status_code == 404  # not in it
    assert Page(app, "other@example.com").get(f"/tasks/vector_add?assessment={aid}").status_code == 404
    listed = text(page.get("/assessments/"))
    assert f'href="/assessments/{aid}"' in listed and "Acme GPU" in listed

    db = _db()
    inv = db.session.query(AssessmentInvitation).filter_by(candidate_id=cand.user["id"]).one()
    inv.deadline = inv.started_at - timedelta(seconds=1)
    db.session.commit()
    assert "Time is up" in text(page.get(f"/assessments/{aid}"))
    closed = text(page.get(f"/tasks/vector_add?assessment={aid}"))
    assert "Time is up" in closed and re.search(r'id="submit-btn"[^>]*disabled', closed)
    late = page.post("/tasks/vector_add/submissions", {"source": ARRAY, "assessment_id": str(aid)})
    assert late.status_code == 403 and "submissions are closed" in text(late)
    late_json = page.post("/tasks/vector_add/submissions",
                          {"source": ARRAY, "assessment_id": str(aid)}, headers=JSON)
    assert late_json.status_code == 403 and late_json.get_json()["field"] == "assessment_id"


def test_recruiter_creates_an_assessment_from_the_page(app, client, recruiter_with_job):
    rec, job_id = recruiter_with_job
    page = Page(app, "rec@acme.test")
    shown = text(page.get("/assessments/"))
    assert f'<option value="{job_id}" selected>' in shown
    ticked = re.findall(r'name="tasks" value="([a-z_0-9]+)" checked', shown)
    suggested = client.get(f"/api/v1/assessments/suggestions?job_id={job_id}",
                           headers=rec.headers).get_json()["tasks"]
    assert ticked and sorted(ticked) == sorted(suggested)
    assert "reduce_sum" in ticked
    assert sorted(re.findall(r'name="tasks" value="([a-z_0-9]+)" checked',
                             text(page.get(f"/assessments/?job_id={job_id}")))) == sorted(suggested)

    form = {"job_id": str(job_id), "tasks": ["vector_add"], "time_limit_minutes": "3",
            "backend": "cpu", "title": "Take-home", "action": "create"}
    short = page.post("/assessments/", form)
    assert short.status_code == 422 and "between 5 minutes and 7 days" in text(short)
    assert 'value="Take-home"' in text(short)  # what was typed is kept
    bad_backend = page.post("/assessments/", dict(form, time_limit_minutes="30", backend="tpu"))
    assert bad_backend.status_code == 422 and "has no workers here" in text(bad_backend)
    not_ours = page.post("/assessments/", dict(form, time_limit_minutes="30", job_id="999999"))
    assert not_ours.status_code == 404 and "no such job in your organisation" in text(not_ours).lower()
    suggest = page.post("/assessments/", dict(form, action="suggest"))
    assert suggest.status_code == 200
    assert sorted(re.findall(r'name="tasks" value="([a-z_0-9]+)" checked', text(suggest))) == sorted(suggested)

    made = page.post("/assessments/", dict(form, time_limit_minutes="45"))
    assert made.status_code == 303
    aid = int(re.fullmatch(r"/assessments/(\d+)", made.headers["Location"]).group(1))
    shown = text(page.get(f"/assessments/{aid}"))
    assert "Take-home" in shown and "45 minutes" in shown and "Vector addition" in shown
    assert "Nobody invited yet" in shown and "No candidate has started yet" in shown


def test_recruiter_invites_and_reads_results(app, client, make_user, recruiter_with_job):
    rec, job_id = recruiter_with_job
    cand = make_user("cand@example.com")
    aid = _assessment(client, rec, job_id)
    page = Page(app, "rec@acme.test")

    bad = page.post(f"/assessments/{aid}/invitations", {"email": "not-an-address"})
    assert bad.status_code == 422 and 'aria-invalid="true"' in text(bad)
    assert "Enter the candidate’s e-mail address" in text(bad) or "e-mail address" in text(bad)
    made = page.post(f"/assessments/{aid}/invitations", {"email": "Cand@Example.com"})
    assert made.status_code == 303      # redirect after POST: a reload invites nobody again
    shown = text(page.get(made.headers["Location"]))
    link = re.search(r'id="invite-link" class="copy-link" readonly value="([^"]+)"', shown).group(1)
    assert re.fullmatch(r"http://localhost/invitations/kpa_[\w-]+", link)
    assert "not e-mailed" in shown and "cand@example.com" in shown
    assert link not in text(page.get(f"/assessments/{aid}"))  # shown once

    cand_page = Page(app, "cand@example.com")
    assert cand_page.post(link.replace("http://localhost", "")).status_code == 303
    sid = _graded(cand.user["id"], assessment_id=aid)
    shown = text(page.get(f"/assessments/{aid}"))
    assert 'id="results"' in shown and f'href="/submissions/{sid}"' in shown
    assert f'href="/candidates/{cand.user["id"]}/profile"' in shown
    assert "in progress until" in shown
    viewing = text(page.get(f"/tasks/vector_add?assessment={aid}"))  # the recruiter looks
    assert "candidates see a countdown here" in viewing and 'name="assessment_id"' not in viewing
    csv = page.get(f"/assessments/{aid}/results.csv")
    assert csv.status_code == 200 and csv.mimetype == "text/csv"
    header, first = text(csv).splitlines()[:2]
    assert header.startswith("candidate_id,name,email,started_at,total_score,task,verdict,score")
    assert ",cand@example.com," in first and "vector_add,accepted,60.0" in first
    # The total: the mean score over the assessment's tasks (one of two done here).
    assert float(first.split(",")[4]) == pytest.approx(60.0 / len(text(csv).splitlines()[1:]))

    # The candidate's view of the same URL has no recruiter's parts.
    mine = text(cand_page.get(f"/assessments/{aid}"))
    assert "Invite a candidate" not in mine and 'class="countdown' in mine
    assert cand_page.get(f"/assessments/{aid}/results.csv").status_code == 404
    assert cand_page.post(f"/assessments/{aid}/invitations", {"email": "x@y.test"}).status_code == 404


def test_outsiders_get_404_on_assessments(app, client, make_user, recruiter_with_job):
    rec, job_id = recruiter_with_job
    aid = _assessment(client, rec, job_id)
    make_user("rec@globex.test", "recruiter", "Globex")
    make_user("cand@example.com")
    for email in ("rec@globex.test", "cand@example.com"):
        outsider = Page(app, email)
        for path in (f"/assessments/{aid}", f"/assessments/{aid}/results.csv", "/assessments/999999"):
            assert outsider.get(path).status_code == 404, (email, path)
        assert outsider.post(f"/assessments/{aid}/invitations",
                             {"email": "x@y.test"}).status_code == 404
    assert Page(app).get(f"/assessments/{aid}").status_code == 302  # signed out: sign in first
    assert f'href="/assessments/{aid}"' not in text(Page(app, "rec@globex.test").get("/assessments/"))
    candidate = Page(app, "cand@example.com")
    refused = candidate.post("/assessments/", {"job_id": str(job_id), "time_limit_minutes": "30",
                                               "action": "create"})
    assert refused.status_code in (403, 404)


# ---- profiles -----------------------------------------------------------------------------


def test_profile_verified_and_claimed_skills_and_who_reads_them(app, client, make_user,
                                                                recruiter_with_job):
    rec, job_id = recruiter_with_job
    cand = make_user("cand@example.com")
    make_user("other@example.com")
    make_user("rec@globex.test", "recruiter", "Globex")
    cid = cand.user["id"]
    sid = _graded(cid)
    page = Page(app, "cand@example.com")
    shown = text(page.get(f"/candidates/{cid}/profile"))
    assert "Verified skills" in shown and "Claimed skills" in shown
    assert re.search(r'<meter min="0" max="1"[^>]*value="0\.\d+"', shown)
    assert "foundational" in shown and f'href="/submissions/{sid}"' in shown
    assert 'name="text"' in shown  # the candidate edits their own text

    too_long = page.post(f"/candidates/{cid}/profile", {"text": "x" * 50_001})
    assert too_long.status_code == 422 and "at most 50000 characters" in text(too_long)
    saved = page.post(f"/candidates/{cid}/profile",
                      {"text": "Five years writing CUDA kernels and Triton; I know NCCL well."})
    assert saved.status_code == 303
    shown = text(page.get(f"/candidates/{cid}/profile"))
    assert "Triton" in shown and "Five years writing CUDA kernels" in shown  # text kept in the form
    assert page.post(f"/candidates/{cid + 1000}/profile", {"text": "x"}).status_code == 404

    # Recruiters read it once the candidate took one of their assessments; nobody else does.
    recruiter = Page(app, "rec@acme.test")
    assert recruiter.get(f"/candidates/{cid}/profile").status_code == 404
    aid = _assessment(client, rec, job_id)
    page.post(f"/invitations/{_invite(client, rec, aid, 'cand@example.com')}")
    seen = recruiter.get(f"/candidates/{cid}/profile")
    assert seen.status_code == 200 and 'name="text"' not in text(seen)
    assert "Triton" in text(seen)
    assert f'href="/submissions/{sid}"' not in text(seen)  # practice work stays the candidate's
    for email in ("other@example.com", "rec@globex.test"):
        assert Page(app, email).get(f"/candidates/{cid}/profile").status_code == 404
    assert Page(app).get(f"/candidates/{cid}/profile").status_code == 302


def test_navigation_by_role(app, make_user):
    make_user("cand@example.com")
    make_user("rec@acme.test", "recruiter", "Acme GPU")
    anonymous = text(Page(app).get("/tasks/"))
    assert 'href="/tasks/">Tasks' in anonymous and "Assessments</a>" not in anonymous
    cand = text(Page(app, "cand@example.com").get("/tasks/"))
    assert "Assessments</a>" in cand and "My profile</a>" in cand
    rec = text(Page(app, "rec@acme.test").get("/tasks/"))
    assert "Assessments</a>" in rec and "My profile</a>" not in rec


def test_a_python_syntax_error_is_not_called_a_kernel_that_did_not_compile():
    from assessments.pages.base import verdict_info
    python = verdict_info("compile_error", "syntax error at solution.py:4: unexpected indent")
    kernel = verdict_info("compile_error", "the kernel 'k' did not compile: solution.py:7: error")
    assert "Python" in python["text"] and "kernel" not in python["text"].lower()
    assert kernel["text"] == "A kernel did not compile."


def test_a_candidate_finishes_an_assessment_early(app, client, make_user, recruiter_with_job):
    rec, job_id = recruiter_with_job
    make_user("early@example.com")
    aid = _assessment(client, rec, job_id)
    token = _invite(client, rec, aid, "early@example.com")
    cand = Page(app, "early@example.com")
    assert cand.post(f"/invitations/{token}").status_code == 303
    page = text(cand.get(f"/assessments/{aid}"))
    assert "Finish the assessment" in page and "Time left" in page
    unconfirmed = cand.post(f"/assessments/{aid}/finish", {})
    assert unconfirmed.status_code == 303
    assert "Time left" in text(cand.get(f"/assessments/{aid}"))     # still open
    done = cand.post(f"/assessments/{aid}/finish", {"confirm": "yes"})
    assert done.status_code == 303
    page = text(cand.get(f"/assessments/{aid}"))
    assert "Time is up" in page and "Finish the assessment" not in page
    late = cand.post("/tasks/vector_add/submissions", {"source": ARRAY, "assessment_id": str(aid)})
    assert late.status_code in (403, 409, 410, 422), late.status_code
    # Another candidate cannot end it for them; an unknown assessment is not found.
    assert Page(app).post(f"/assessments/{aid}/finish", {"confirm": "yes"}).status_code in (302, 404)
    assert cand.post("/assessments/999999/finish", {"confirm": "yes"}).status_code == 404
