"""`branch_predictor`: the reference against a short trace predicted by hand and against a plain
loop, the generator, the C++ reference against the Python one, the checker on each wrong
predictor in tests/fixtures/functions/branch_predictor/ (first line `# Wrong: ...` or
`# Accepted: ...`), and the judge end to end in both languages."""
from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import numpy as np
import pytest

from assessments.judge import Limits, judge
from gpu_tasks.functions import TASKS, branch_predictor as LOGIC
from tests.judge.functions.function_helpers import (first_failure, fixture_function, fixtures_of,
                                                    hidden_calls, shorter)

TASK = TASKS["branch_predictor"]
FIXTURES = fixtures_of("branch_predictor")

# Each wrong predictor, and words its first failing call's message must hold.
WRONG = {
    "history_first.py": "before its index was computed",
    "wrapping_counters.py": "counters saturate at 0 and 3",
    "unshifted_pc.py": "it uses pcs[i] >> 2",
    "history_unmasked.cpp": "it is cut to history_bits bits",
}
ACCEPTED = ("accepted_loop.py", "accepted_lookup.cpp")


def _call(pcs, taken, history_bits, table_bits) -> dict:
    return {"pcs": np.array(pcs, dtype=np.uint64), "taken": np.array(taken, dtype=bool),
            "history_bits": history_bits, "table_bits": table_bits}


def _small(n: int, cases=None):
    return shorter(TASK, "n", n, cases)


@lru_cache(maxsize=None)
def _calls(seed: int) -> tuple:
    return hidden_calls(_small(20_000), LOGIC, seed, 8)


def _python(name: str):
    return fixture_function(FIXTURES / name, "gshare")


def _first_failure(function, calls) -> str | None:
    return first_failure(LOGIC, calls, lambda args: function(**args))


# ---- the model ------------------------------------------------------------------------------------
def test_the_reference_predicts_a_short_trace_as_worked_by_hand():
    # one branch at 0x10 (index 4 ^ history), 1 history bit, 4 table entries: T T N T
    # i0: h=0, idx 0, c=1 -> N (miss), c=2, h=1.  i1: idx 1, c=1 -> N (miss), c=2, h=1.
    # i2: idx 1, c=2 -> T but N (miss), c=1, h=0.  i3: idx 0, c=2 -> T (right), c=3, h=1.
    got = LOGIC.reference(_call([0x10] * 4, [True, True, False, True], 1, 2))
    assert got == {"mispredictions": 3, "per_interval": [3]}


def test_a_loop_branch_is_learned_with_history_and_not_without():
    # a loop of 4 trips, run 500 times: T T T N ...; 4 history bits see the exit coming
    taken = ([True] * 3 + [False]) * 500
    bimodal = LOGIC.reference(_call([0x400100] * 2000, taken, 0, 10))
    gshare = LOGIC.reference(_call([0x400100] * 2000, taken, 4, 10))
    assert bimodal["mispredictions"] == 501 and gshare["mispredictions"] < 10   # bimodal: every exit
    assert len(gshare["per_interval"]) == 1


def test_intervals_split_every_4096_branches():
    n = 4096 * 2 + 5
    got = LOGIC.reference(_call([0x40] * n, [True] * n, 0, 4))
    assert got == {"mispredictions": 1, "per_interval": [1, 0, 0]}


def test_the_reference_agrees_with_a_plain_loop():
    plain = _python("accepted_loop.py")
    for args in _calls(3):
        assert plain(**args) == LOGIC.reference(args)


def test_the_generator_is_deterministic_varied_and_realistic():
    a, b = _calls(1), _calls(2)
    assert all(np.array_equal(x["taken"], y["taken"]) for x, y in zip(a, _calls.__wrapped__(1)))
    assert any(not np.array_equal(x["taken"], y["taken"]) for x, y in zip(a, b))
    for args in a:
        assert args["pcs"].dtype == np.uint64 and args["taken"].dtype == bool
        assert 0 <= args["history_bits"] <= args["table_bits"] <= 24
    programs = [x for x in a if len(x["pcs"]) >= 20_000]
    assert all(0.3 < x["taken"].mean() < 0.95 for x in programs)
    assert all(20 <= len(np.unique(x["pcs"])) for x in programs)
    rates = [LOGIC.reference(x)["mispredictions"] / len(x["pcs"]) for x in programs]
    assert all(0.01 < r < 0.35 for r in rates), rates     # learnable, but not trivially


def test_the_cpp_reference_agrees_with_the_python_reference():
    from assessments.judge.build_cache import BuildCache
    from assessments.judge.kinds.cpp.reference import CppReference

    run = SimpleNamespace(logic=LOGIC, task=TASK, cache=BuildCache(), limits=Limits(), isolation="bubblewrap")
    cpp = CppReference(run)
    for seed in (1, 2):
        for args in _calls(seed):
            assert cpp.answer(args) == LOGIC.reference(args)


# ---- the checker ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [n for n in WRONG if n.endswith(".py")])
def test_each_wrong_predictor_is_named_by_the_checker(name):
    message = _first_failure(_python(name), _calls(1))
    assert message is not None and WRONG[name] in message, message
    assert message.startswith("branches 0 to ") and "The first branch this changes is branch" in message


@pytest.mark.parametrize("answer, words", [
    ([3], "must return a dict"),
    ({"mispredictions": 3, "per_interval": []}, "must hold 1 integer, one per 4096 branches"),
    ({"mispredictions": 3.0, "per_interval": [3]}, "`mispredictions` is 3.0 (float)"),
    ({"mispredictions": 4, "per_interval": [3]}, "`mispredictions` is 4, expected 3"),
    ({"mispredictions": 2, "per_interval": [2]}, "branches 0 to 3 have 2 mispredictions, expected 3"),
])
def test_a_wrong_or_malformed_answer_is_explained(answer, words):
    args = _call([0x10] * 4, [True, True, False, True], 1, 2)
    message = LOGIC.check(args, LOGIC.reference(args), answer)
    assert message is not None and words in message, message


def test_the_starter_runs_and_answers_wrong():
    namespace: dict = {}
    exec(TASK.starters["python"], namespace)
    assert _first_failure(namespace["gshare"], _calls(1)) is not None


# ---- end to end -----------------------------------------------------------------------------------
def _judge(name: str, task):
    language = "cpp" if name.endswith(".cpp") else "python"
    return judge(task, (FIXTURES / name).read_text(), language=language, seed=11, timing=False)


@pytest.mark.parametrize("name", ACCEPTED)
def test_an_accepted_predictor_is_accepted_by_the_judge(name):
    report = _judge(name, _small(20_000))
    assert report.verdict.value == "accepted", report.render_text()


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_wrong_predictor_is_a_wrong_answer_naming_the_mistake(name):
    report = _judge(name, _small(2000, ("tiny_tables", "tiny_no_history", "short_history")))
    assert report.verdict.value == "wrong_answer", report.render_text()
    assert WRONG[name] in report.message and "test t" in report.message, report.message


@pytest.mark.parametrize("language", ["python", "cpp"])
def test_a_starter_is_judged_wrong(language):
    report = judge(_small(100, ("tiny_tables",)), TASK.starters[language], language=language, seed=3, timing=False)
    assert report.verdict.value == "wrong_answer", report.render_text()
