"""`ring_allreduce`: the simulating checker against schedules a candidate might write
(tests/fixtures/functions/ring_allreduce/, first line `# bug: ...` or `# correct...`), the
generator's ring sizes, the contract's 2(p - 1) / steps, and the judge end to end."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from assessments.judge.kinds import KNOWN
from gpu_tasks.functions import TASKS, logic
from tests.judge.functions.function_helpers import (assert_fixtures_say_what_they_are, first_failure,
                                                    fixtures_of)

TASK = TASKS["ring_allreduce"]
LOGIC = logic("ring_allreduce")
FIXTURES = fixtures_of("ring_allreduce")
CASES = TASK.tests["cpu"]

# Each wrong schedule, and words the checker's sentence must hold on the first failing hidden p.
WRONG = {
    "allgather_reduces.py": ("more than once", "travels by copy"),
    "reduce_scatter_only.py": ("lacks", "the all-gather half"),
    "both_halves_at_once.py": ("sends two chunks", "at most one chunk per step"),
    "bidirectional.py": ("sends only to rank", "one-way ring"),
}


def _schedule(name: str):
    spec = importlib.util.spec_from_file_location(f"ring_{Path(name).stem}", FIXTURES / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.schedule


def _hidden_ps(seed: int) -> list[int]:
    return [call["p"] for i, c in enumerate(CASES)
            for call in LOGIC.generate(np.random.default_rng([seed, i]), c.dims)]


def _first_failure(schedule, ps) -> str | None:
    return first_failure(LOGIC, [{"p": p} for p in ps], lambda args: schedule(args["p"]))


def test_every_fixture_says_what_it_is():
    assert_fixtures_say_what_they_are(FIXTURES, WRONG, ("# bug:", "# correct"))


def test_the_reference_is_right_and_shortest_for_every_p():
    for p in range(2, 65):
        steps = LOGIC.reference({"p": p})
        assert LOGIC.check({"p": p}, steps, steps) is None, p
        assert len(steps) == 2 * (p - 1) and LOGIC.quality({"p": p}, steps) == 1.0


def test_generate_is_deterministic_per_seed_and_spans_2_to_64():
    assert _hidden_ps(1) == _hidden_ps(1)
    assert _hidden_ps(1) != _hidden_ps(2)
    ps = _hidden_ps(3)
    assert min(ps) == 2 and max(ps) == 64 and all(2 <= p <= 64 for p in ps)
    assert any(p % 2 for p in ps if p > 3) and len(ps) >= 8


@pytest.mark.parametrize("name", sorted(WRONG))
def test_each_wrong_schedule_is_caught_with_its_mistake(name):
    message = _first_failure(_schedule(name), _hidden_ps(4))
    assert message is not None, f"{name} passed every hidden p"
    for words in WRONG[name]:
        assert words in message, message
    assert "rank " in message


def test_correct_schedules_written_differently_pass_and_score_by_their_length():
    ps = _hidden_ps(5)
    offset, one_at_a_time = _schedule("accepted_offset_chunks.py"), _schedule("accepted_chunk_at_a_time.py")
    assert _first_failure(offset, ps) is None and _first_failure(one_at_a_time, ps) is None
    assert all(LOGIC.quality({"p": p}, offset(p)) == 1.0 for p in ps)
    assert [LOGIC.quality({"p": p}, one_at_a_time(p)) for p in (2, 8, 64)] == [1 / 2, 1 / 8, 1 / 64]


def test_the_starter_runs_and_answers_wrong():
    namespace: dict = {}
    exec(TASK.starters["python"], namespace)
    assert "lacks" in _first_failure(namespace["schedule"], [4])


def test_every_send_of_a_step_carries_the_chunk_as_it_was_before_the_step():
    steps = _schedule("accepted_chunk_at_a_time.py")(3)
    assert LOGIC.check({"p": 3}, None, steps) is None
    # rank 1 forwards chunk 0 in the step it receives it: rank 0's part never reaches rank 2
    relay = [steps[0] + steps[1]] + steps[2:]
    assert "rank 0's chunk 0 lacks rank 0's contribution" in LOGIC.check({"p": 3}, None, relay)


@pytest.mark.parametrize("p, steps, words", [
    (4, {"steps": []}, "expected a list of steps"),
    (4, [(0, 1, 0, "reduce")], "step 0 is [0, 1, 0, 'reduce']; a step is a list of"),
    (4, [[(0, 1, 0, "reduce"), 5]], "step 0 holds 5; a send is (src, dst, chunk, op)"),
    (4, [[(0, 1, 0)]], "a send is (src, dst, chunk, op)"),
    (4, [[(0, 1, 4, "reduce")]], "ints from 0 to 3"),
    (4, [[(0, 1, 1.0, "reduce")]], "ints from 0 to 3"),
    (4, [[(0, 1, 0, "add")]], "op is \"reduce\" or \"copy\""),
    (4, [[(3, 0, 0, "copy"), (0, 2, 1, "copy")]], "rank 0 sends chunk 1 to rank 2"),
    (4, [[(2, 2, 0, "reduce")]], "rank 2 sends only to rank 3"),
    (3, [[]] * 37, "more than 4p^2 = 36 is refused"),
])
def test_a_broken_rule_is_named(p, steps, words):
    message = LOGIC.check({"p": p}, None, steps)
    assert message is not None and words in message, message


def test_on_two_ranks_the_next_rank_is_the_previous_one():
    assert LOGIC.check({"p": 2}, None, [[(0, 1, 0, "reduce"), (1, 0, 1, "reduce")],
                                        [[0, 1, 1, "copy"], [1, 0, 0, "copy"]]]) is None


# ---- end to end, in the judge's sandbox ------------------------------------------------------------
needs_kind = pytest.mark.skipif("python" not in KNOWN, reason="the judge has no kind `python` yet")


@needs_kind
def test_judged_end_to_end():
    from assessments.judge import Verdict, judge
    best = judge("ring_allreduce", (FIXTURES / "accepted_offset_chunks.py").read_text(), seed=5)
    assert best.verdict is Verdict.ACCEPTED and best.score == 100, best.message
    slow = judge("ring_allreduce", (FIXTURES / "accepted_chunk_at_a_time.py").read_text(), seed=5)
    assert slow.verdict is Verdict.ACCEPTED and 60 <= slow.score < 80, (slow.score, slow.message)
    for name, words in WRONG.items():
        r = judge("ring_allreduce", (FIXTURES / name).read_text(), seed=5)
        assert r.verdict is Verdict.WRONG_ANSWER, (name, r.verdict, r.message)
        assert words[0] in f"{r.message} {r.details or ''}", (name, r.message)
