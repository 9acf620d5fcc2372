"""`warp_scheduler`: the reference against schedules worked by hand, the generator, the C++
reference against the Python one, the checker on each wrong scheduler in tests/fixtures/
functions/warp_scheduler/ (first line `# Wrong: ...` or `# Accepted: ...`), and the judge end to
end in both languages."""
from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import numpy as np
import pytest

from assessments.judge import Limits, judge
from gpu_tasks.functions import TASKS, warp_scheduler as LOGIC
from tests.judge.functions.function_helpers import (first_failure, fixture_function, fixtures_of,
                                                    hidden_calls, shorter)

TASK = TASKS["warp_scheduler"]
FIXTURES = fixtures_of("warp_scheduler")
ALU, LOAD = 0, 1

# Each wrong scheduler, and words its first failing call's message must hold.
WRONG = {
    "gto_never_switches.py": "stayed on its warp while that warp waited",
    "lrr_from_first.py": "started from the scheduler's first warp",
    "no_load_limit.py": "one load per cycle",
    "operand_one_late.cpp": "one cycle after its producer's completion",
    "finish_at_last.cpp": "the latest completion of any of its instructions",
}
ACCEPTED = ("accepted_warp_objects.py", "accepted_every_cycle.cpp")


def _call(warps, schedulers=1, policy="lrr") -> dict:
    """warps: per warp a list of (op, latency, dep)."""
    flat = [i for w in warps for i in w]
    op, latency, dep = zip(*flat)
    offsets = np.concatenate([[0], np.cumsum([len(w) for w in warps])]).astype(np.int64)
    return {"offsets": offsets, "op": np.array(op, dtype=np.uint8), "latency": np.array(latency, dtype=np.int32),
            "dep": np.array(dep, dtype=np.int32), "schedulers": schedulers, "policy": policy}


def _small(instructions: int, cases=None):
    return shorter(TASK, "instructions", instructions, cases)


@lru_cache(maxsize=None)
def _calls(seed: int) -> tuple:
    return hidden_calls(_small(3000), LOGIC, seed, 8)


def _python(name: str):
    return fixture_function(FIXTURES / name, "simulate_sm")


def _first_failure(function, calls) -> str | None:
    return first_failure(LOGIC, calls, lambda args: function(**args))


# ---- the model ------------------------------------------------------------------------------------
def test_lrr_rotates_and_gto_stays_with_its_warp():
    three = [[(ALU, 1, 0)] * 3] * 3            # three warps of three independent 1-cycle instructions
    lrr = LOGIC.reference(_call(three, policy="lrr"))
    gto = LOGIC.reference(_call(three, policy="gto"))
    assert lrr == {"cycles": 9, "finish": [7, 8, 9]}     # w0 w1 w2 w0 w1 w2 ...
    assert gto == {"cycles": 9, "finish": [3, 6, 9]}     # w0 w0 w0 w1 w1 w1 ...


def test_a_dependent_instruction_issues_at_its_producers_completion():
    warps = [[(ALU, 4, 0), (ALU, 4, 1)], [(LOAD, 30, 0), (ALU, 4, 1)]]
    # w0 issues at 0, w1's load at 1; w0's second at 4 (done 8); w1's second at 31 (done 35)
    for policy in ("lrr", "gto"):
        assert LOGIC.reference(_call(warps, policy=policy)) == {"cycles": 35, "finish": [8, 35]}


def test_gto_switches_to_the_oldest_ready_warp_and_stays_there():
    warps = [[(LOAD, 10, 0), (ALU, 1, 1)], [(ALU, 1, 0)] * 4, [(ALU, 1, 0)] * 2]
    # 0: w0 load; 1-4: w1 (w0 waits) ; 5-6: w2; 10: w0's ALU (done 11)
    assert LOGIC.reference(_call(warps, policy="gto"))["finish"] == [11, 5, 7]


def test_one_load_per_cycle_across_schedulers_and_the_latest_completion_finishes_a_warp():
    loads = [[(LOAD, 10, 0)], [(LOAD, 10, 0)]]
    assert LOGIC.reference(_call(loads, schedulers=2))["finish"] == [10, 11]   # scheduler 1 waits a cycle
    long_then_short = [[(LOAD, 100, 0), (ALU, 4, 0)]]
    assert LOGIC.reference(_call(long_then_short))["finish"] == [100]


def test_the_generator_is_deterministic_varied_and_realistic():
    a, b = _calls(1), _calls(2)
    assert all(np.array_equal(x["latency"], y["latency"]) for x, y in zip(a, _calls.__wrapped__(1)))
    assert any(not np.array_equal(x["latency"], y["latency"]) for x, y in zip(a, b))
    for args in a:
        offsets = args["offsets"]
        warps = len(offsets) - 1
        assert 1 <= warps <= 64 and np.all(np.diff(offsets) >= 1) and offsets[-1] == len(args["op"])
        position = np.arange(len(args["op"])) - np.repeat(offsets[:-1], np.diff(offsets))
        assert np.all(args["dep"] <= position) and np.all(args["latency"] >= 1)
    big = [x for x in a if len(x["op"]) >= 1000]
    assert {x["policy"] for x in big} == {"lrr", "gto"}
    assert any(x["latency"].max() >= 200 for x in big)      # misses to memory, not just hits
    differ = [LOGIC.reference(x) != LOGIC.reference({**x, "policy": "gto" if x["policy"] == "lrr" else "lrr"})
              for x in big]
    assert all(differ)


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
def test_each_wrong_scheduler_is_named_by_the_checker(name):
    message = _first_failure(_python(name), _calls(1))
    assert message is not None and WRONG[name] in message, message
    assert message.startswith("warp ") and "expected" in message


def test_the_accepted_python_scheduler_passes_every_call():
    assert _first_failure(_python("accepted_warp_objects.py"), _calls(2)) is None


@pytest.mark.parametrize("answer, words", [
    (None, "must return a dict"),
    ({"cycles": 9, "finish": [7, 8]}, "must hold 3 integers"),
    ({"cycles": 9, "finish": [7.0, 8.0, 9.0]}, "must hold 3 integers"),
    ({"cycles": "9", "finish": [7, 8, 9]}, "`cycles` is '9'"),
    ({"cycles": 8, "finish": [7, 8, 9]}, "`cycles` is 8, expected 9, the latest of them"),
    ({"cycles": 9, "finish": [3, 6, 9]}, "warp 0 (scheduler 0, 3 instructions, 0 loads) finishes at cycle 3, "
                                         "expected 7 (2 of 3 warps differ): with lrr every cycle started from "
                                         "the scheduler's first warp"),
])
def test_a_wrong_or_malformed_answer_is_explained(answer, words):
    args = _call([[(ALU, 1, 0)] * 3] * 3, policy="lrr")
    message = LOGIC.check(args, LOGIC.reference(args), answer)
    assert message is not None and words in message, message


def test_the_starter_runs_and_answers_wrong():
    namespace: dict = {}
    exec(TASK.starters["python"], namespace)
    assert _first_failure(namespace["simulate_sm"], _calls(1)) is not None


# ---- end to end -----------------------------------------------------------------------------------
def _judge(name: str, task):
    language = "cpp" if name.endswith(".cpp") else "python"
    return judge(task, (FIXTURES / name).read_text(), language=language, seed=11, timing=False)


@pytest.mark.parametrize("name", ACCEPTED)
def test_an_accepted_scheduler_is_accepted_by_the_judge(name):
    report = _judge(name, _small(2000, ("tiny_lrr", "tiny_gto", "two_schedulers_lrr", "two_schedulers_gto",
                                        "memory_bound_gto", "compute_bound_lrr")))
    assert report.verdict.value == "accepted", report.render_text()


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_wrong_scheduler_is_a_wrong_answer_naming_the_mistake(name):
    report = _judge(name, _small(500, ("tiny_lrr", "tiny_gto", "two_schedulers_lrr", "two_schedulers_gto")))
    assert report.verdict.value == "wrong_answer", report.render_text()
    assert WRONG[name] in report.message and "test t" in report.message, report.message


@pytest.mark.parametrize("language", ["python", "cpp"])
def test_a_starter_is_judged_wrong(language):
    report = judge(_small(100, ("tiny_lrr",)), TASK.starters[language], language=language, seed=3, timing=False)
    assert report.verdict.value == "wrong_answer", report.render_text()
