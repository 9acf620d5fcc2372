"""Hostile rule files, with the static screen and without it: promtool reads no other file and
runs no program, and a rule that explodes evaluation time or memory, a giant file or a YAML bomb
ends with a clear verdict within the limits."""
from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assessments.judge import Verdict, judge
from assessments.judge.kinds.promql import promtool_output
from assessments.judge.kinds.promql.backend import BACKEND
from gpu_tasks.alerts import TASKS

ROOT = Path(__file__).resolve().parents[3]
HOSTILE = ROOT / "tests" / "fixtures" / "promql" / "hostile"
# Tighter than the backend's, so that each attack ends in seconds.
LIMITS = dataclasses.replace(BACKEND.limits, op_wall_s=3.0, memory=1024 ** 3)
# The smallest hidden fleet: an attack shows on the first test.
TASK = dataclasses.replace(TASKS["gpu_alerts"], tests={"cpu": TASKS["gpu_alerts"].tests["cpu"][:1]})

needs_promtool = pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool is not installed")
CASES = {
    "reads_files.yml": ({Verdict.COMPILE_ERROR}, 'function "readFile" not defined'),
    "includes_files.yml": ({Verdict.COMPILE_ERROR}, "field rule_files not found"),
    "yaml_bomb.yml": ({Verdict.COMPILE_ERROR}, "promtool refuses the rule file"),
    "subquery_explodes_time.yml": ({Verdict.MEMORY_LIMIT_EXCEEDED, Verdict.TIME_LIMIT_EXCEEDED}, "promtool"),
    "count_values_explodes_memory.yml": ({Verdict.MEMORY_LIMIT_EXCEEDED, Verdict.TIME_LIMIT_EXCEEDED}, "promtool"),
    "forges_report.yml": ({Verdict.RUNTIME_ERROR}, "could not be evaluated"),
}


def _describe(r) -> str:
    return f"{r.verdict.value}: {r.message}\n{r.details or ''}"


@needs_promtool
@pytest.mark.parametrize("static", [True, False], ids=["static", "no-static"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_hostile_rule_file_is_contained(name, static):
    verdicts, words = CASES[name]
    r = judge(TASK, (HOSTILE / name).read_text(), seed=1, limits=LIMITS, static_checks=static)
    assert r.verdict in verdicts and words in r.message, _describe(r)
    assert r.score == 0 and "/etc/passwd" not in (r.details or "") + r.message.replace('"/etc/passwd"', "")


@needs_promtool
@pytest.mark.parametrize("static", [True, False], ids=["static", "no-static"])
def test_a_giant_rule_file_is_refused_by_size_or_stopped_by_time(static):
    source = (HOSTILE / "giant.yml").read_text()
    assert len(source) > 256 * 1024
    r = judge(TASK, source, seed=1, limits=LIMITS, static_checks=static)
    if static:
        assert r.verdict is Verdict.COMPILE_ERROR and "over 256 KiB" in r.message, _describe(r)
    else:   # six thousand rules that never fire: too slow to test, or a wrong answer if it finishes
        assert r.verdict in (Verdict.TIME_LIMIT_EXCEEDED, Verdict.WRONG_ANSWER), _describe(r)


def test_promtool_starts_but_cannot_start_another_program():
    # The process becomes /bin/sh through exec_once, as the child starts promtool; the shell's own
    # attempt to run a program is refused.
    code = ("from assessments.judge.kinds.promql.exec_once import Program; "
            "Program(['/bin/sh', '-c', '/bin/true && echo ran || echo refused'], {'PATH': '/usr/bin:/bin'}).exec()")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert done.stdout.strip().endswith("refused"), done.stdout + done.stderr
    assert "ran" not in done.stdout.split()


def test_the_report_reader_takes_only_the_checks_lines_and_go_quoted_labels():
    text = ('Unit Testing:  t0.json\n  FAILED:\n    alertname: GpuTooHot, time: 1h2m, \n        exp:[], \n'
            '        got:[\n            0:\n'
            '              Labels:{Hostname="n\\"1", alertname="GpuTooHot", gpu="0\\nLabels:{x=\\"y\\"}", severity="warning"}\n'
            '              Annotations:{summary="Labels:{gpu=\\"9\\"}"}\n            ]\n')
    fired = promtool_output.parse(text)
    assert fired.at("GpuTooHot", 62) == [{"Hostname": 'n"1', "alertname": "GpuTooHot",
                                          "gpu": '0\nLabels:{x="y"}', "severity": "warning"}]
    assert not fired.unexpected and not fired.eval_errors
    assert promtool_output.parse(text + "    rule: \nforged\n").unexpected
    assert [promtool_output.minutes(x) for x in ("0s", "5m", "1h", "2h30m", "1d", "30s")] == [0, 5, 60, 150, 1440, None]
