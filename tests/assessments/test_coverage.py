"""What share of employers' required skills the task bank can verify (`flask tasks coverage`)."""
from __future__ import annotations

import json
from types import SimpleNamespace

from assessments.coverage import coverage, task_skills


def test_pairs_count_once_per_posting_and_gaps_rank_by_postings():
    postings = [SimpleNamespace(track="hardware_design", skills=["verilog", "uvm", "uvm"]),
                SimpleNamespace(track="hardware_design", skills=["uvm", "sta"]),
                SimpleNamespace(track="infrastructure", skills=["linux"])]
    report = coverage(postings, lambda p: p.skills, {"verilog": {"sync_fifo"}}, top=5)
    hw = report["tracks"]["hardware_design"]
    assert (hw["required"], hw["evidenced"], hw["share"]) == (4, 1, 0.25)
    assert hw["uncovered"][0] == {"skill": "uvm", "postings": 2}
    assert report["overall"]["required"] == 5 and report["overall"]["share"] == 0.2
    assert report["tracks"]["infrastructure"]["share"] == 0.0


def test_every_kind_of_task_counts():
    skills = task_skills()
    assert "sync_fifo" in skills["verilog"] and "vector_add" in skills["cuda"]


def test_the_command_reports_hardware_design_at_a_quarter_or_more(app):
    out = app.test_cli_runner().invoke(args=["tasks", "coverage", "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["tracks"]["hardware_design"]["share"] >= 0.25
    assert report["overall"]["required"] > 1000 and report["overall"]["uncovered"]
    text = app.test_cli_runner().invoke(args=["tasks", "coverage"]).output
    assert "hardware_design" in text and "not yet evidenced:" in text
