"""Rule files judged end to end (kind `promql`): promtool checks the file in the compile sandbox,
runs its unit tests on the hidden series in the run sandbox, and the parent compares the alerts
that fired with the expected ones. References and correct files written otherwise are accepted;
the slips people make fail at the first minute where an alert differs, saying which and why."""
from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assessments.judge import Verdict, judge
from gpu_tasks.alerts import TASKS

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "promql"
REFERENCE = ROOT / "gpu_tasks" / "alerts" / "reference"

pytestmark = pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool is not installed")

# Each wrong file, the alert that tells it and words of the explanation.
WRONG = {
    "gpu_alerts/too_hot_without_for.yml": ("GpuTooHot", "`for: 5m`"),
    "gpu_alerts/too_hot_at_85.yml": ("GpuTooHot", "85 is not above 85"),
    "gpu_alerts/idle_util_at_5.yml": ("GpuIdleButAllocated", "5 is not below 5"),
    "gpu_alerts/xid_without_severity.yml": ("GpuXidError", "no severity label"),
    "gpu_alerts/too_hot_per_host.yml": ("GpuTooHot", "without the label gpu"),
    "gpu_alerts/exporter_down_any_job.yml": ("GpuExporterDown", "is not a DCGM exporter"),
    "gpu_alerts/idle_matched_on_gpu_only.yml": ("GpuIdleButAllocated", "does not hold then"),
    "gpu_alerts/idle_free_memory.yml": ("GpuIdleButAllocated", ""),
    "gpu_alerts/xid_pending_a_minute.yml": ("GpuXidError", "it fires only from"),
    "gpu_alerts/exporter_down_critical_as_warning.yml": ("GpuExporterDown", "with severity warning"),
    "gpu_node_health/memory_at_95.yml": ("GpuMemoryAlmostFull", "exactly 95 % is not more than 95 %"),
    "gpu_node_health/memory_without_for.yml": ("GpuMemoryAlmostFull", "`for: 10m`"),
    "gpu_node_health/memory_used_over_free.yml": ("GpuMemoryAlmostFull", ""),
    "gpu_node_health/ecc_changes.yml": ("GpuEccDoubleBitErrors", "a driver reload, not an error"),
    "gpu_node_health/ecc_offset.yml": ("GpuEccDoubleBitErrors", ""),
    "gpu_node_health/ecc_last_minute.yml": ("GpuEccDoubleBitErrors", "should fire"),
    "gpu_node_health/bus_by_instance.yml": ("GpuFellOffTheBus", "without the label Hostname"),
    "gpu_node_health/bus_at_once.yml": ("GpuFellOffTheBus", "`for: 3m`"),
}


def _size(case) -> int:
    return case.dims["hosts"] * case.dims.get("gpus", 8) * case.dims["minutes"]


def _describe(r) -> str:
    return f"{r.verdict.value}: {r.message}\n{r.details or ''}\n{r.compile_log or ''}"


@pytest.mark.parametrize("slug", sorted(TASKS))
def test_the_reference_is_accepted_on_every_hidden_test_with_every_point(slug):
    r = judge(TASKS[slug], (REFERENCE / f"{slug}.yml").read_text(), seed=7)
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    assert len(r.tests) >= 3 and all(t.passed for t in r.tests)
    assert r.sandbox == "bubblewrap" and r.score == 100 and r.score_detail["measured"]


@pytest.mark.parametrize("path", sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.glob("*/accepted_*.yml")))
def test_correct_rule_files_written_otherwise_are_accepted(path):
    slug = path.split("/")[0]
    task = TASKS[slug]   # the two smallest hidden fleets: every edge case is in each test
    fewer = dataclasses.replace(task, tests={"cpu": tuple(sorted(task.tests["cpu"], key=_size)[:2])})
    r = judge(fewer, (FIXTURES / path).read_text(), seed=8)
    assert r.verdict is Verdict.ACCEPTED, _describe(r)


@pytest.mark.parametrize("path", sorted(WRONG))
def test_a_wrong_rule_file_names_the_minute_the_alert_and_why(path):
    slug = path.split("/")[0]
    alert, words = WRONG[path]
    r = judge(TASKS[slug], (FIXTURES / path).read_text(), seed=9)
    assert r.verdict is Verdict.WRONG_ANSWER, _describe(r)
    assert r.message.startswith("test ") and alert in r.message and words in r.message, r.message
    assert "m" in r.message.split(alert, 1)[1]       # a minute: "fired at 12m", "should fire at 31m"
    assert "expected" in r.details and "fired" in r.details and alert in r.details   # the series around it
    assert len(r.details.splitlines()) <= 22
    failed = [t for t in r.tests if t.passed is False]
    assert len(failed) == 1 and failed[0].verdict == "wrong_answer"


def test_every_wrong_fixture_is_listed():
    on_disk = {p.relative_to(FIXTURES).as_posix() for p in FIXTURES.glob("gpu_*/*.yml")
               if not p.name.startswith("accepted_")}
    assert on_disk == set(WRONG)


def test_a_promql_error_is_a_compile_error_with_promtools_line():
    source = (REFERENCE / "gpu_alerts.yml").read_text().replace("DCGM_FI_DEV_GPU_TEMP > 85", "DCGM_FI_DEV_GPU_TEMP > > 85")
    r = judge(TASKS["gpu_alerts"], source, seed=1)
    assert r.verdict is Verdict.COMPILE_ERROR, _describe(r)
    line = next(i for i, x in enumerate(source.splitlines(), 1) if "> > 85" in x)
    assert f"line {line}, column 15" in r.message and "parse error" in r.message and "GpuTooHot" in r.message
    assert not any(t.passed is not None for t in r.tests)


def test_a_yaml_error_and_an_unknown_field_are_compile_errors():
    r = judge(TASKS["gpu_alerts"], "groups:\n  - name: x\n    rules: [\n", seed=1)
    assert r.verdict is Verdict.COMPILE_ERROR and "yaml" in r.message, _describe(r)
    r = judge(TASKS["gpu_alerts"], "groups:\n  - name: x\n    rules:\n      - alert: A\n        exprr: up\n", seed=1)
    assert r.verdict is Verdict.COMPILE_ERROR and "line 5" in r.message and "exprr" in r.message, _describe(r)


def test_the_starter_is_valid_and_not_a_solution():
    for task in TASKS.values():
        r = judge(task, task.starters["yaml"], suite="samples")
        assert r.verdict is Verdict.WRONG_ANSWER, _describe(r)
        assert "should fire" in r.message


def test_samples_run_the_public_seed_and_score_nothing():
    task = TASKS["gpu_alerts"]
    a = judge(task, (REFERENCE / "gpu_alerts.yml").read_text(), suite="samples")
    assert a.verdict is Verdict.ACCEPTED and a.seed == 0 and a.score == 0
    assert [t.name for t in a.tests] == [c.name for c in task.sample_cases]


def test_the_cli_judges_a_yaml_file_into_a_json_report(tmp_path):
    rules = tmp_path / "rules.yml"
    rules.write_text((FIXTURES / "gpu_alerts" / "too_hot_at_85.yml").read_text())
    out = tmp_path / "out.json"
    done = subprocess.run([sys.executable, "-m", "assessments.judge", "--task", "gpu_alerts", "--seed", "3",
                           "--json", str(out), str(rules)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["verdict"] == "wrong_answer" and "GpuTooHot" in report["message"]
