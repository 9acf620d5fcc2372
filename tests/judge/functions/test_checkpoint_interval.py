"""`checkpoint_interval`: the statement's formulas on worked jobs, the checker against plans a
candidate might write (tests/fixtures/functions/checkpoint_interval/, first line `# bug: ...` or
`# correct...`), the generator's jobs, and the judge end to end."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from assessments.judge.kinds import KNOWN
from gpu_tasks.functions import TASKS, logic
from tests.judge.functions.function_helpers import first_failure, fixtures_of

TASK = TASKS["checkpoint_interval"]
LOGIC = logic("checkpoint_interval")
FIXTURES = fixtures_of("checkpoint_interval")
CASES = TASK.tests["cpu"]

# Each wrong plan, and words the checker's sentence must hold on its first failing job.
WRONG = {
    "young.py": ("interval_s is", "Young's sqrt(2 d M)"),
    "forgets_node_count.py": ("interval_s is", "divided by the number of nodes"),
    "no_restart_factor.py": ("efficiency is", "exp(R / M)"),
    "daly_everywhere.py": ("interval_s is", "d >= 2M, where the interval is M"),
}


def _jobs(**columns) -> dict:
    return {"node_mtbf_h": np.array(columns["mtbf"], dtype=np.float64),
            "nodes": np.array(columns["nodes"], dtype=np.int64),
            "checkpoint_s": np.array(columns["d"], dtype=np.float64),
            "restart_s": np.array(columns["r"], dtype=np.float64)}


# 50,000 h nodes x 1,000: M = 180,000 s, a 5-minute checkpoint; 2,000 h x 16,384: M = 439.45 s < d / 2
WORKED = _jobs(mtbf=[50_000, 2_000], nodes=[1_000, 16_384], d=[300, 1_200], r=[600, 900])


def _plan(name: str):
    spec = importlib.util.spec_from_file_location(f"checkpoint_{Path(name).stem}", FIXTURES / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.checkpoint_plan


def _tests(seed: int) -> list[dict]:
    return [args for i, c in enumerate(CASES) for args in LOGIC.generate(np.random.default_rng([seed, i]), c.dims)]


def _answer(plan, args: dict) -> dict:
    """As the judge hands it to the checker: arrays become lists."""
    out = plan(**{k: v.copy() for k, v in args.items()})
    return {k: np.asarray(v).tolist() for k, v in out.items()}


def _first_failure(plan, tests) -> str | None:
    return first_failure(LOGIC, tests, lambda args: _answer(plan, args))


def test_the_statements_formulas_on_worked_jobs():
    plan = LOGIC.reference(WORKED)
    assert np.allclose(plan["interval_s"], [10_193.267095861913, 439.453125], rtol=1e-12)
    assert np.allclose(plan["efficiency"], [0.9402313631974804, 0.0031688146222131164], rtol=1e-12)


def test_answers_within_the_tolerance_pass_and_beyond_it_fail():
    plan = {k: np.asarray(v).tolist() for k, v in LOGIC.reference(WORKED).items()}
    near = {"interval_s": [plan["interval_s"][0] * (1 + 5e-7), plan["interval_s"][1]], "efficiency": plan["efficiency"]}
    far = {"interval_s": [plan["interval_s"][0] * (1 + 5e-6), plan["interval_s"][1]], "efficiency": plan["efficiency"]}
    assert LOGIC.check(WORKED, plan, near) is None
    assert "job 0 (node MTBF 50000 h, 1000 nodes, so M = 180000 s" in LOGIC.check(WORKED, plan, far)


def test_generate_is_deterministic_per_seed_and_spans_the_statements_ranges():
    first, again, other = _tests(1), _tests(1), _tests(2)
    assert all(np.array_equal(a[k], b[k]) for a, b in zip(first, again) for k in a)
    assert not all(np.array_equal(a[k], b[k]) for a, b in zip(first, other) for k in a)
    for args in first:
        assert len({len(v) for v in args.values()}) == 1
        assert args["nodes"].dtype == np.int64 and args["node_mtbf_h"].dtype == np.float64
        assert 1 <= args["nodes"].min() and args["nodes"].max() <= 32_768
        assert 2_000 <= args["node_mtbf_h"].min() and args["node_mtbf_h"].max() <= 200_000
        assert 5 <= args["checkpoint_s"].min() and args["checkpoint_s"].max() <= 3_600
        assert 30 <= args["restart_s"].min() and args["restart_s"].max() <= 3_600
    slow = first[[c.name for c in CASES].index("slow_storage")]
    m = slow["node_mtbf_h"] * 3600 / slow["nodes"]
    assert (slow["checkpoint_s"] >= 2 * m).sum() >= 5 and (slow["checkpoint_s"] < 2 * m).sum() >= 5
    assert len(first[-1]["nodes"]) == 100_000


@pytest.mark.parametrize("name", sorted(WRONG))
def test_each_wrong_plan_is_caught_with_its_mistake(name):
    message = _first_failure(_plan(name), _tests(3))
    assert message is not None, f"{name} passed every hidden test"
    assert message.startswith("job ") and ", so M = " in message
    for words in WRONG[name]:
        assert words in message, message


@pytest.mark.parametrize("name", ["accepted_masked_arrays.py", "accepted_per_job_loop.py"])
def test_correct_plans_written_differently_pass(name):
    assert _first_failure(_plan(name), _tests(4)) is None


def test_the_starter_runs_and_answers_wrong():
    namespace: dict = {}
    exec(TASK.starters["python"], namespace)
    assert _first_failure(namespace["checkpoint_plan"], _tests(5)) is not None


@pytest.mark.parametrize("answer, words", [
    ([1.0, 2.0], "expected a dict with interval_s and efficiency"),
    ({"interval_s": [1.0, 2.0]}, "the result has no 'efficiency'"),
    ({"interval_s": [1.0], "efficiency": [1.0, 1.0]}, "one float per job (2), got 1"),
    ({"interval_s": 1.0, "efficiency": [1.0, 1.0]}, "one float per job (2), got float"),
    ({"interval_s": ["1", "2"], "efficiency": [1.0, 1.0]}, "must hold numbers, got '1'"),
    ({"interval_s": [float("nan"), 439.453125], "efficiency": [1.0, 1.0]}, "it must be a finite number"),
])
def test_a_malformed_answer_is_named(answer, words):
    message = LOGIC.check(WORKED, LOGIC.reference(WORKED), answer)
    assert message is not None and words in message, message


# ---- end to end, in the judge's sandbox ------------------------------------------------------------
needs_kind = pytest.mark.skipif("python" not in KNOWN, reason="the judge has no kind `python` yet")


@needs_kind
def test_judged_end_to_end():
    from assessments.judge import Verdict, judge
    fast = judge("checkpoint_interval", (FIXTURES / "accepted_masked_arrays.py").read_text(), seed=3)
    assert fast.verdict is Verdict.ACCEPTED, fast.message
    assert fast.measure["test"] == "fleet" and fast.score > 60
    for name in ("young.py", "daly_everywhere.py"):
        r = judge("checkpoint_interval", (FIXTURES / name).read_text(), seed=3)
        assert r.verdict is Verdict.WRONG_ANSWER, (name, r.verdict, r.message)
        assert WRONG[name][1] in r.message, (name, r.message)
