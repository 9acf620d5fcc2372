"""The `promql` kind's steps (kinds.Kind): `promtool check rules` on the file in the compile
sandbox (cached by content), then for each test a promtool unit-test file of the task's hidden
series, run by promtool in the run sandbox, and the alerts that fired compared in the parent with
the ones the task's logic expects.

The sandbox never sees the seed, the task's logic or the expected alerts: it gets a test file
whose every check expects no alert, and answers what promtool printed.
"""
from __future__ import annotations

import re
import shutil
import signal
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gpu_tasks.alerts.semantics import firing

from ... import build_cache, compile_sandbox
from ...compile_sandbox import JobFailed, JobFiles
from ...engine import Run
from ...outcome import Decided, Outcome
from ...report import TestReport
from ...runner import ChildDied
from ...sandbox import SandboxSpec
from ..child_backend import started_child
from ...verdicts import Verdict
from . import backend, compare, promtool_output, unit_test

CHECK_MODULE = "assessments.judge.kinds.promql.check_job"
JOB_FILES = JobFiles(("assessments/__init__.py", "assessments/judge/__init__.py",
                      "assessments/judge/protocol.py", "assessments/judge/kinds/__init__.py",
                      "assessments/judge/kinds/promql/__init__.py",
                      "assessments/judge/kinds/promql/check_job.py"), ())
MAX_SOURCE = 256 * 1024
OUT_OF_MEMORY = ("out of memory", "cannot allocate memory")


@dataclass
class RulesRun(Run):
    cache: Any = None
    child: Any = None
    promtool: str = ""
    rules: int | None = None        # how many rules promtool found in the file


def _logic(task):
    from gpu_tasks.alerts import logic
    return logic(task.slug)


# ---- steps ---------------------------------------------------------------------------------------
def screen(run: RulesRun) -> None:
    if len(run.source.encode()) > MAX_SOURCE:
        raise Decided(Outcome(Verdict.COMPILE_ERROR, f"the rule file is over {MAX_SOURCE // 1024} KiB"))
    if not run.source.strip():
        raise Decided(Outcome(Verdict.COMPILE_ERROR, "the rule file is empty"))


@contextmanager
def session(run: RulesRun, wrapper):
    """A sandboxed child with the rule file, read-only, in its scratch as rules.yml."""
    try:
        run.promtool, _ = backend.promtool()
    except backend.ToolMissing as exc:
        raise Decided(Outcome(Verdict.INTERNAL_ERROR, f"the judge cannot test rule files here: {exc}")) from None
    run.cache = build_cache.BuildCache()
    scratch = Path(tempfile.mkdtemp(prefix="kp-rules-"))
    try:
        (scratch / unit_test.RULES_FILE).write_text(run.source)
        spec = SandboxSpec(scratch=scratch, backend=run.backend, limits=run.limits, wrapper=wrapper,
                           isolation=run.isolation)
        with started_child(run, spec):
            yield
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def load(run: RulesRun) -> None:
    """`promtool check rules`: YAML, the rules' fields, PromQL and templates; from the cache or
    the compile sandbox."""
    _, version = backend.promtool()
    job_text = (Path(__file__).resolve().parent / "check_job.py").read_text()
    k = build_cache.key("promql-check", version, job_text, run.source)
    with run.stage("check"):
        entry = run.cache.get("builds", k)
        if entry is None:
            job = compile_sandbox.Job(CHECK_MODULE, {"promtool": run.promtool, "source": run.source},
                                      timeout_s=run.limits.compile_s, isolation=run.isolation, files=JOB_FILES)
            try:
                entry = job.answer()
            except JobFailed as exc:
                if exc.timed_out or exc.out_of_memory:
                    why = "time" if exc.timed_out else "memory"
                    raise Decided(Outcome(Verdict.COMPILE_ERROR, f"promtool could not read the rule file "
                                                                 f"within the check's {why} limit")) from None
                raise Decided(Outcome(Verdict.INTERNAL_ERROR, f"the judge could not check the rule file: {exc}")) from None
            run.cache.put("builds", k, {"ok": bool(entry.get("ok")), "log": str(entry.get("log", "")),
                                        "rules": entry.get("rules")})
    log = str(entry.get("log", ""))
    if not entry.get("ok"):
        raise Decided(Outcome(Verdict.COMPILE_ERROR, _refusal(log), compile_log=log))
    run.rules = entry.get("rules")


def _refusal(log: str) -> str:
    """promtool's first complaint, with the file's line where it names one."""
    if any(m in log for m in OUT_OF_MEMORY):
        return "promtool ran out of memory reading the rule file"
    lines = [x.strip() for x in log.splitlines()
             if x.strip() and not x.strip().startswith("Checking ") and x.strip() != "FAILED:"]
    for i, line in enumerate(lines):
        if line.endswith(":") and i + 1 < len(lines):   # "yaml: unmarshal errors:" and its first error
            line = f"{line} {lines[i + 1]}"
        line = re.sub(rf"^{re.escape(unit_test.RULES_FILE)}: ", "", line)
        line = re.sub(r"^(\d+):(\d+): ", r"line \1, column \2: ", line)
        return f"promtool refuses the rule file: {line[:400]}"
    return "promtool refuses the rule file"


def run_test(run: RulesRun, index: int, case, test: TestReport) -> None:
    task, logic = run.task, _logic(run.task)
    scenario = logic.generate(np.random.default_rng([run.seed, index]), dict(case.dims))
    conditions = logic.conditions(scenario)
    expected = {a.name: firing(conditions[a.name], a.for_minutes) for a in task.alerts}
    text = unit_test.document(scenario, [a.name for a in task.alerts])
    where = f"test {case.name}"
    try:
        ans = run.child.request({"op": "test", "promtool": run.promtool, "file": f"t{index}.json", "text": text,
                                 "cpu_s": run.backend.test_cpu_s})
    except ChildDied as died:
        if died.reason == "wall":
            raise Decided(Outcome(Verdict.TIME_LIMIT_EXCEEDED, f"promtool did not finish {where} within "
                                  f"{run.limits.op_wall_s:g} s (a rule too costly to evaluate?)")) from None
        if died.oom_killed:
            raise Decided(Outcome(Verdict.MEMORY_LIMIT_EXCEEDED, f"promtool went over the memory limit on {where}")) from None
        raise Decided(Outcome(Verdict.RUNTIME_ERROR, f"the test of {where} stopped ({died.reason})")) from None
    msg = ans.message
    test.elapsed_s = round(ans.elapsed_s, 4)
    if not msg.get("ok"):
        raise Decided(Outcome(Verdict.INTERNAL_ERROR, f"promtool did not start: {(msg.get('error') or {}).get('message', '')}"))
    output = str(msg.get("output", ""))
    _verdict_of_exit(run, msg, output, where)
    fired = promtool_output.parse(output)
    if fired.eval_errors:
        rule, minute, err = fired.eval_errors[0]
        raise Decided(Outcome(Verdict.RUNTIME_ERROR, f"on {where}, rule {rule} could not be evaluated at "
                              f"{minute}m: {err[:400]}", details=run.scrub(output[:8192])))
    if fired.unexpected or (msg.get("returncode") == 1 and not fired.alerts):
        raise Decided(Outcome(Verdict.RUNTIME_ERROR, f"on {where}, promtool's report is not a list of alerts",
                              details=run.scrub(output[:8192])))
    truncated = int(msg.get("output_bytes") or 0) > len(output.encode())
    last = scenario.minutes
    if truncated:   # promtool reports in order of minutes: the last one listed may be cut short
        last = max((m for _, m in fired.alerts), default=0) - 1
    found = compare.first_mismatch(task, logic, scenario, conditions, expected, fired, last)
    if found is not None:
        raise Decided(Outcome(Verdict.WRONG_ANSWER, f"{where}: {found.message}", details=found.details))
    if truncated:
        raise Decided(Outcome(Verdict.RUNTIME_ERROR, f"on {where}, promtool's report went over "
                              f"{len(output.encode()) // 2**20} MiB (alerts firing by the thousand?)"))


def _verdict_of_exit(run: RulesRun, msg: dict, output: str, where: str) -> None:
    """How promtool ended, when that decides: out of time or memory, a crash."""
    sig, rc = msg.get("signal"), msg.get("returncode")
    if sig in (signal.SIGXCPU, signal.SIGKILL) and not any(m in output for m in OUT_OF_MEMORY):
        raise Decided(Outcome(Verdict.TIME_LIMIT_EXCEEDED, f"promtool used more than {run.backend.test_cpu_s} s of "
                              f"CPU evaluating the rules on {where} (a rule too costly to evaluate?)"))
    if any(m in output for m in OUT_OF_MEMORY) and rc not in (0, 1):
        raise Decided(Outcome(Verdict.MEMORY_LIMIT_EXCEEDED, f"promtool ran out of memory evaluating the "
                              f"rules on {where}"))
    if rc not in (0, 1):
        lines = [x for x in output.splitlines() if x.strip()]
        raise Decided(Outcome(Verdict.RUNTIME_ERROR, f"promtool stopped on {where} "
                              f"({f'signal {sig}' if sig else f'exit status {rc}'})"
                              f"{': ' + lines[-1][:300] if lines else ''}", details=run.scrub(output[:8192]) or None))


def after_tests(run: RulesRun) -> None:
    """An accepted rule file earns the performance points whole: a rule file's quality is whether
    it pages right, and its evaluation cost here is too small to rank (set here, not in
    `measure`, so that a judging without timing scores the same)."""
    if run.report.suite == "tests":
        run.report.measure = {"fraction": 1.0, "note": "no performance measure for rule files: "
                                                       "every accepted one earns the points"}


def measure(run: RulesRun) -> None:
    """Nothing to time (after_tests gave the points)."""


def describe(run: RulesRun) -> None:
    """Nothing of the run to show beyond the verdict."""
