"""`gpu_placement`: the checker against placements a candidate might write (tests/fixtures/
functions/gpu_placement/, first line `# bug: ...`, `# correct: ...` or `# legal but poor: ...`),
the generator's cluster states, the contract's value, and the judge end to end."""
from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from assessments.judge.kinds import KNOWN
from gpu_tasks.functions import TASKS, logic
from tests.judge.functions.function_helpers import (assert_fixtures_say_what_they_are, first_failure,
                                                    fixtures_of)

TASK = TASKS["gpu_placement"]
LOGIC = logic("gpu_placement")
FIXTURES = fixtures_of("gpu_placement")
CASES = TASK.tests["cpu"]

# Each wrong placement, and words the checker's sentence must hold on its first failing case.
WRONG = {
    "splits_nvlink.py": ("needs NVLink", "span the NVLink domains"),
    "reuses_gpu.py": ("goes to job", "a GPU serves one job"),
    "domain_positions.py": ("free",),    # taken by a running job or by an earlier one
}
TWO_QUADS = [[0, 1, 2, 3], [4, 5, 6, 7]]


def _place(name: str):
    spec = importlib.util.spec_from_file_location(f"placement_{Path(name).stem}", FIXTURES / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.place


@lru_cache(maxsize=None)
def _states(seed: int) -> list[dict]:
    return _generate(seed)


def _generate(seed: int) -> list[dict]:
    return [LOGIC.generate(np.random.default_rng([seed, i]), c.dims)[0] for i, c in enumerate(CASES)]


def _first_failure(place, states) -> str | None:
    return first_failure(LOGIC, states, lambda args: place(args["nodes"], args["jobs"]))


def test_every_fixture_says_what_it_is():
    assert_fixtures_say_what_they_are(FIXTURES, WRONG, ("# bug:", "# correct:", "# legal but poor:"))


@pytest.mark.parametrize("seed", [1, 2])
def test_the_reference_follows_its_own_rules_and_places_jobs(seed):
    for args in _states(seed):
        placed = LOGIC.reference(args)
        assert LOGIC.check(args, placed, placed) is None
        assert 0 < len(placed) < len(args["jobs"])      # more demand than supply: some must wait
        assert LOGIC.quality(args, placed) > 0


def test_best_fit_takes_the_tightest_domain_and_keeps_whole_domains_free():
    nodes = [{"id": "a", "free": [0, 1, 2, 4], "nvlink": TWO_QUADS}, {"id": "b", "free": [4, 5, 6, 7], "nvlink": TWO_QUADS}]
    jobs = [{"id": "j1", "gpus": 4, "nvlink": True}, {"id": "j2", "gpus": 2, "nvlink": False},
            {"id": "j3", "gpus": 2, "nvlink": True}, {"id": "j4", "gpus": 1, "nvlink": False}]
    placed = LOGIC.reference({"nodes": nodes, "jobs": jobs})
    # j2 takes the lone GPU 4 of a's second domain first, which leaves j3 two linked GPUs of a
    assert placed == {"j1": ["b", [4, 5, 6, 7]], "j2": ["a", [4, 0]], "j3": ["a", [1, 2]]}
    assert LOGIC.quality({"nodes": nodes, "jobs": jobs}, placed) == 4 * 4 + 2 * 3 + 2 * 2


def test_generate_is_deterministic_per_seed_and_realistic():
    assert _generate(1) == _states(1)
    assert _states(1) != _states(2)
    for args in _states(1):
        nodes, jobs = args["nodes"], args["jobs"]
        assert len({n["id"] for n in nodes}) == len(nodes) and len({j["id"] for j in jobs}) == len(jobs)
        assert sum(j["gpus"] for j in jobs) > sum(len(n["free"]) for n in nodes)
        assert {j["gpus"] for j in jobs} <= {1, 2, 4, 8}
        for n in nodes:
            size = 4 if not n["nvlink"] else 8
            assert n["free"] == sorted(set(n["free"])) and all(0 <= g < size for g in n["free"])
    mixed = _states(2)[-1]["nodes"]
    assert {len(n["nvlink"]) for n in mixed} == {0, 1, 2, 4}     # plain PCIe, NVSwitch, two quads, bridged pairs
    fragmented = [n for n in mixed if 0 < len(n["free"]) < (8 if n["nvlink"] else 4)]
    assert len(fragmented) > len(mixed) // 3


@pytest.mark.parametrize("name", sorted(WRONG))
def test_each_wrong_placement_is_caught_with_its_mistake(name):
    message = _first_failure(_place(name), _states(1))
    assert message is not None, f"{name} passed every hidden cluster"
    for words in WRONG[name]:
        assert words in message, message
    assert "job 'job-" in message and "node 'gpu-r" in message


def test_a_correct_placement_written_differently_passes_with_a_value_near_best_fit():
    place = _place("accepted_first_fit.py")
    states = _states(2)
    assert _first_failure(place, states) is None
    ours = sum(LOGIC.quality(a, place(a["nodes"], a["jobs"])) for a in states)
    best = sum(LOGIC.quality(a, LOGIC.reference(a)) for a in states)
    assert 0.9 * best < ours


def test_ignoring_the_priority_order_is_legal_but_worth_less():
    place = _place("accepted_smallest_first.py")
    states = _states(1)
    assert _first_failure(place, states) is None
    ours = sum(LOGIC.quality(a, place(a["nodes"], a["jobs"])) for a in states)
    best = sum(LOGIC.quality(a, LOGIC.reference(a)) for a in states)
    assert ours < 0.8 * best


def test_the_starter_runs_and_answers_wrong():
    namespace: dict = {}
    exec(TASK.starters["python"], namespace)
    assert _first_failure(namespace["place"], _states(2)) is not None


@pytest.mark.parametrize("answer, words", [
    ([], "expected a dict"),
    ({"0": ["a", [0]]}, "not positions"),
    ({"j9": ["a", [0]]}, "'j9' is not the id of a job"),
    ({"j1": ["z", [4, 5, 6, 7]]}, "node 'z', which is not in the cluster"),
    ({"j1": "b"}, "expected [node_id, [gpu indices]]"),
    ({"j1": ["b", [4, 5, 6]]}, "gets 3 GPUs [4, 5, 6] but asks for 4"),
    ({"j1": ["b", [4, 5, 6, 6]]}, "gets GPU 6 twice"),
    ({"j2": ["a", [0, 3]]}, "gets GPU 3, which is not free"),
    ({"j2": ["a", [0, 1.0]]}, "integer indices"),
    ({"j3": ["c", [0, 1]]}, "the node has no NVLink"),
])
def test_a_broken_rule_is_named(answer, words):
    nodes = [{"id": "a", "free": [0, 1, 2, 4], "nvlink": TWO_QUADS}, {"id": "b", "free": [4, 5, 6, 7], "nvlink": TWO_QUADS},
             {"id": "c", "free": [0, 1, 2, 3], "nvlink": []}]
    jobs = [{"id": "j1", "gpus": 4, "nvlink": True}, {"id": "j2", "gpus": 2, "nvlink": False},
            {"id": "j3", "gpus": 2, "nvlink": True}]
    args = {"nodes": nodes, "jobs": jobs}
    message = LOGIC.check(args, LOGIC.reference(args), answer)
    assert message is not None and words in message, message


# ---- end to end, in the judge's sandbox ------------------------------------------------------------
needs_kind = pytest.mark.skipif("python" not in KNOWN, reason="the judge has no kind `python` yet")


@needs_kind
def test_judged_end_to_end():
    from assessments.judge import Verdict, judge
    good = judge("gpu_placement", (FIXTURES / "accepted_first_fit.py").read_text(), seed=3)
    assert good.verdict is Verdict.ACCEPTED, good.message
    poor = judge("gpu_placement", (FIXTURES / "accepted_smallest_first.py").read_text(), seed=3)
    assert poor.verdict is Verdict.ACCEPTED, poor.message
    assert poor.score < good.score
    for name, words in WRONG.items():
        r = judge("gpu_placement", (FIXTURES / name).read_text(), seed=3)
        assert r.verdict is Verdict.WRONG_ANSWER, (name, r.verdict, r.message)
        assert words[0] in f"{r.message} {r.details or ''}", (name, r.message)
