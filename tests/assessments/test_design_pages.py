"""Design tasks on the site without a simulator run: the task list's filters, the area and depth
leaderboards, a wrong design's waveform and its VCD (for its readers only), and verified skills."""
import pytest

from tests.assessments.test_pages import Page, text

pytestmark = pytest.mark.db

WINDOW = {"first_cycle": 3, "mismatch": {"cycle": 5, "signal": "full", "expected": "0"},
          "signals": [{"name": "wr_en", "direction": "input", "width": 1, "values": [1, 1, 1]},
                      {"name": "count", "direction": "output", "width": 5, "values": [3, 4, 5]},
                      {"name": "full", "direction": "output", "width": 1, "values": [0, 0, 1]}]}


def _graded(db, user_id, *, task="sync_fifo", cells=None, depth=None, verdict="accepted",
            public=True, report=None, score=100.0):
    from assessments.models import Submission
    report = report if report is not None else (
        {"verdict": verdict, "backend": "sim",
         "synthesis": {"params": {"WIDTH": 8, "DEPTH": 16}, "cells": cells, "depth": depth,
                       "reference_cells": 349, "reference_depth": 11, "cells_by_type": {}}})
    sub = Submission(user_id=user_id, task=task, source=f"module sync_fifo; // {cells} {depth}\nendmodule\n",
                     kind="submission", backend="cpu", status="done", verdict=verdict, score=score,
                     public=public, report=report)
    db.session.add(sub)
    db.session.commit()
    return sub.id


def test_task_list_filters_by_track_and_kind(client):
    every = text(client.get("/tasks/"))
    assert "Synchronous FIFO" in every and "Vector addition" in every
    designs = text(client.get("/tasks/?kind=verilog"))
    assert "Synchronous FIFO" in designs and "Vector addition" not in designs
    assert "Verilog design" in designs
    hardware = text(client.get("/tasks/?track=hardware_design"))
    assert "Round-robin arbiter" in hardware and "Vector addition" not in hardware
    # An unknown filter value is ignored rather than refused: every task is listed.
    assert "Vector addition" in text(client.get("/tasks/?kind=fortran&track=nope"))


def test_design_boards_rank_by_area_or_depth(client, make_user, app):
    from extensions import db
    ada, bob, eve = (make_user(f"{n}@example.com").user["id"] for n in ("ada", "bob", "eve"))
    with app.app_context():
        _graded(db, ada, cells=400, depth=9)
        small = _graded(db, ada, cells=300, depth=14)
        _graded(db, bob, cells=350, depth=8)
        _graded(db, eve, cells=100, depth=3, public=False)             # kept private
        _graded(db, eve, cells=90, depth=2, verdict="wrong_answer")     # not accepted
    area = client.get("/api/v1/tasks/sync_fifo/leaderboard").get_json()
    assert area["by"] == "area" and area["boards"] == ["area", "depth"]
    assert [(e["user"], e["cells"], e["depth"]) for e in area["entries"]][0][1:] == (300, 14)
    assert [e["cells"] for e in area["entries"]] == [300, 350]
    assert area["entries"][0]["submission_id"] == small
    depth = client.get("/api/v1/tasks/sync_fifo/leaderboard?by=depth").get_json()
    assert [e["depth"] for e in depth["entries"]] == [8, 9]     # Ada's shallowest, not her smallest
    assert client.get("/api/v1/tasks/sync_fifo/leaderboard?by=speed").status_code == 422
    page = text(client.get("/tasks/sync_fifo/leaderboard?by=depth"))
    assert "Rank by" in page and "Depth (shortest longest path)" in page and ">8<" in page


def test_wrong_design_report_draws_the_waveform_and_serves_its_vcd_to_its_readers(app, make_user):
    from extensions import db
    ada = make_user("ada@example.com").user["id"]
    make_user("bob@example.com")
    with app.app_context():
        sub_id = _graded(db, ada, verdict="wrong_answer", score=0.0, public=False,
                         report={"verdict": "wrong_answer", "backend": "sim", "waveform": WINDOW,
                                 "message": "cycle 5 with WIDTH=8, DEPTH=16: `full` is 1, expected 0"})
    owner = Page(app, "ada@example.com")
    page = text(owner.get(f"/submissions/{sub_id}"))
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="waveform"' in page
    assert "full is wrong at cycle 5" in page and "Download the VCD" in page
    vcd = owner.get(f"/submissions/{sub_id}/waveform.vcd")
    assert vcd.status_code == 200 and "attachment" in vcd.headers["Content-Disposition"]
    body = vcd.get_data(as_text=True)
    assert body.startswith("$timescale") and "$var wire 5" in body and " full $end" in body
    # Another candidate gets nothing, not even whether it exists.
    other = Page(app, "bob@example.com")
    assert other.get(f"/submissions/{sub_id}/waveform.vcd").status_code == 404
    # An accepted design has no waveform to download.
    with app.app_context():
        ok_id = _graded(db, ada, cells=349, depth=11)
    assert owner.get(f"/submissions/{ok_id}/waveform.vcd").status_code == 404
    shown = text(owner.get(f"/submissions/{ok_id}"))
    assert "349 cells (reference design: 349)" in shown and "simulated (Verilator)" in shown


def test_an_accepted_design_verifies_its_task_skills(app, make_user, client):
    from assessments.results import evidence_of
    from extensions import db
    from gpu_tasks.rtl import TASKS
    ada = make_user("ada@example.com").user["id"]
    with app.app_context():
        _graded(db, ada, cells=349, depth=11)
        evidence, copied, held = evidence_of([ada])[ada]
    assert not copied and not held
    assert [e.task for e in evidence] == ["sync_fifo"]
    assert set(evidence[0].skills) == set(TASKS["sync_fifo"].skills)
