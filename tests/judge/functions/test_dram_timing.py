"""`dram_timing`: the reference against a trace timed by hand, the generator, the C++ reference
against the Python one, the checker on each wrong model in tests/fixtures/functions/dram_timing/
(first line `# Wrong: ...` or `# Accepted: ...`), and the judge end to end in both languages."""
from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import numpy as np
import pytest

from assessments.judge import Limits, judge
from gpu_tasks.functions import TASKS, dram_timing as LOGIC
from tests.judge.functions.function_helpers import (first_failure, fixture_function, fixtures_of,
                                                    hidden_calls, shorter)

TASK = TASKS["dram_timing"]
FIXTURES = fixtures_of("dram_timing")
DDR4 = {"tRCD": 22, "tRP": 22, "tRAS": 52, "tCL": 22, "tCWL": 16, "tBURST": 4}

# Each wrong model, and words its first failing call's message must hold.
WRONG = {
    "hit_pays_trcd.py": "a row hit was charged tRCD",
    "conflict_no_precharge.py": "must first be precharged",
    "always_fcfs.py": "these are the figures under fcfs",
    "precharge_before_tras.py": "earlier than tRAS",
    "done_without_burst.cpp": "the burst's cycles were left out",
    "waits_for_data.cpp": "waited for each request's data",
}
ACCEPTED = ("accepted_row_queues.py", "accepted_scan.cpp")


def _call(requests, banks=2, policy="fcfs", timing=DDR4) -> dict:
    """requests: (arrival, bank, row, is_write) tuples."""
    arrival, bank, row, write = zip(*requests)
    return {"arrival": np.array(arrival, dtype=np.int64), "bank": np.array(bank, dtype=np.int32),
            "row": np.array(row, dtype=np.int32), "is_write": np.array(write, dtype=bool),
            "banks": banks, "policy": policy, "timing": dict(timing)}


def _small(n: int, cases=None):
    return shorter(TASK, "n", n, cases)


@lru_cache(maxsize=None)
def _calls(seed: int) -> tuple:
    return hidden_calls(_small(4000), LOGIC, seed, 6)


def _python(name: str):
    return fixture_function(FIXTURES / name, "simulate_dram")


def _first_failure(function, calls) -> str | None:
    return first_failure(LOGIC, calls, lambda args: function(**args))


# ---- the model ------------------------------------------------------------------------------------
def test_the_reference_times_a_trace_as_the_statement_table_says():
    # bank 0 row 5 (miss), bank 0 row 5 (hit), bank 0 row 9 (conflict), bank 1 row 5 write (miss)
    args = _call([(0, 0, 5, False), (0, 0, 5, False), (0, 0, 9, False), (0, 1, 5, True)])
    # r0: ACT 0, COL 22, done 48. r1: T=22, COL max(22, 26) = 26, done 52.
    # r2: T=26, PRE max(26, 0 + 52, 52) = 52, ACT 74, COL 96, done 122.
    # r3: T=96, ACT 96, COL max(118, 100) = 118, done 118 + 16 + 4 = 138.
    got = LOGIC.reference(args)
    assert got == {"cycles": 138, "total_latency": 48 + 52 + 122 + 138, "max_latency": 138,
                   "hits": 1, "misses": 2, "conflicts": 1}


def test_frfcfs_serves_an_arrived_row_hit_before_an_older_conflict():
    # r1 conflicts with the row r0 opens; r2, younger, hits it and goes first under FR-FCFS
    requests = [(0, 0, 1, False), (5, 0, 2, False), (6, 0, 1, False)]
    fcfs, frfcfs = LOGIC.reference(_call(requests)), LOGIC.reference(_call(requests, policy="frfcfs"))
    assert (fcfs["hits"], fcfs["conflicts"]) == (0, 2)
    assert (frfcfs["hits"], frfcfs["conflicts"]) == (1, 1)
    assert frfcfs["total_latency"] < fcfs["total_latency"]


def test_an_idle_controller_waits_for_the_next_arrival():
    args = _call([(0, 0, 1, False), (1000, 0, 1, False)])
    assert LOGIC.reference(args)["cycles"] == 1000 + 22 + 4      # a hit at its arrival: COL = T


def test_the_generator_is_deterministic_varied_and_realistic():
    a, b = _calls(1), _calls(2)
    assert all(np.array_equal(x["row"], y["row"]) for x, y in zip(a, _calls.__wrapped__(1)))
    assert any(not np.array_equal(x["row"], y["row"]) for x, y in zip(a, b))
    for args in a:
        assert np.all(np.diff(args["arrival"]) >= 0) and args["arrival"][0] >= 0
        assert args["bank"].max() < args["banks"] and args["row"].max() < 65536
        assert args["timing"]["tRAS"] >= args["timing"]["tRCD"] >= 1
    big = [x for x in a if len(x["arrival"]) >= 4000]
    figures = [LOGIC.reference(x) for x in big]
    assert all(f["hits"] > 0 and f["conflicts"] > 0 for f in figures)
    frfcfs = [x for x in big if x["policy"] == "frfcfs"]
    gains = [LOGIC.reference(x)["hits"] - LOGIC.reference({**x, "policy": "fcfs"})["hits"] for x in frfcfs]
    assert max(gains) > 0     # queues build up enough for the policy to matter


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
def test_each_wrong_model_is_named_by_the_checker(name):
    message = _first_failure(_python(name), _calls(1))
    assert message is not None and WRONG[name] in message, message
    assert "The first request this changes is request" in message


def test_the_accepted_python_model_passes_every_call():
    assert _first_failure(_python("accepted_row_queues.py"), _calls(2)) is None


@pytest.mark.parametrize("answer, words", [
    ([], "expected a dict"),
    ({"cycles": 1}, "the result has no 'total_latency'"),
    ({"cycles": 1.0, "total_latency": 0, "max_latency": 0, "hits": 0, "misses": 0, "conflicts": 0},
     "`cycles` is 1.0 (float)"),
    ({"cycles": 138, "total_latency": 360, "max_latency": 138, "hits": 1, "misses": 2, "conflicts": 2},
     "hits + misses + conflicts is 5 but the trace has 4 requests"),
])
def test_a_malformed_answer_is_explained(answer, words):
    args = _call([(0, 0, 5, False), (0, 0, 5, False), (0, 0, 9, False), (0, 1, 5, True)])
    message = LOGIC.check(args, LOGIC.reference(args), answer)
    assert message is not None and words in message, message


def test_the_starters_run_and_answer_wrong():
    namespace: dict = {}
    exec(TASK.starters["python"], namespace)
    assert _first_failure(namespace["simulate_dram"], _calls(1)) is not None


# ---- end to end -----------------------------------------------------------------------------------
def _judge(name: str, task):
    language = "cpp" if name.endswith(".cpp") else "python"
    return judge(task, (FIXTURES / name).read_text(), language=language, seed=11, timing=False)


@pytest.mark.parametrize("name", ACCEPTED)
def test_an_accepted_model_is_accepted_by_the_judge(name):
    report = _judge(name, _small(1500, ("tiny_fcfs", "tiny_frfcfs", "one_bank_frfcfs", "eight_banks_frfcfs",
                                        "sixteen_banks_fcfs")))
    assert report.verdict.value == "accepted", report.render_text()


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_wrong_model_is_a_wrong_answer_naming_the_mistake(name):
    report = _judge(name, _small(500, ("tiny_fcfs", "tiny_frfcfs", "one_bank_frfcfs")))
    assert report.verdict.value == "wrong_answer", report.render_text()
    assert WRONG[name] in report.message and "test tiny_" in report.message, report.message


@pytest.mark.parametrize("language", ["python", "cpp"])
def test_a_starter_is_judged_wrong(language):
    report = judge(_small(100, ("tiny_fcfs",)), TASK.starters[language], language=language, seed=3, timing=False)
    assert report.verdict.value == "wrong_answer", report.render_text()
