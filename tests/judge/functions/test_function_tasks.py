"""The function tasks' model and trusted logic, without running a submission: the bank's shape,
the references against answers worked out by hand, and the checkers' explanations."""
from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import numpy as np
import pytest

from gpu_tasks.functions import TASKS, FunctionTask, logic
from gpu_tasks.functions import cache_sim, occupancy

TAXONOMY = Path(__file__).resolve().parents[3] / "skillmap" / "data" / "taxonomy.toml"


def _skill_ids() -> set[str]:
    with open(TAXONOMY, "rb") as fh:
        return {s["id"] for s in tomllib.load(fh)["skill"]}


def test_the_package_finds_each_task_by_its_module():
    assert {"cache_sim", "occupancy"} <= set(TASKS)
    for slug, task in TASKS.items():
        assert isinstance(task, FunctionTask) and task.slug == slug
        assert logic(slug).TASK is task


@pytest.mark.parametrize("slug", sorted(TASKS))
def test_a_task_is_complete_and_names_known_skills(slug):
    task, module = TASKS[slug], logic(slug)
    assert set(task.skills) <= _skill_ids(), set(task.skills) - _skill_ids()
    assert task.tests["cpu"] and task.sample_cases and task.bench_case is not None
    assert task.python_signature.split("(")[0].split()[-1] == task.function
    for lang in task.languages:
        assert task.signature(lang).replace(" ", "")[:40] in task.statement.replace(" ", "").replace("\n", "") \
            or task.function in task.statement
    ast.parse(task.starters["python"])   # a starter is valid Python
    assert callable(module.generate) and callable(module.reference) and callable(module.check)
    if "cpp" in task.languages:
        assert module.CPP.params and "extern \"C\"" in task.starters["cpp"]


@pytest.mark.parametrize("slug", sorted(TASKS))
def test_nothing_secret_is_served(slug):
    """The statement and starters never hold the reference's code."""
    task = TASKS[slug]
    served = task.statement + "".join(task.starters.values())
    assert not re.search(r"def (reference|check|generate)\(", served)
    assert "_simulate(" not in served and "_limits(" not in served


# ---- occupancy ---------------------------------------------------------------------------------
# (threads, registers, shared bytes) -> (blocks, warps, occupancy, limiter), worked out by hand
# from CC 9.0's rules (the first row is the occupancy calculator's well-known example).
OCCUPANCY = {
    (256, 32, 0): (8, 64, 1.0, "warps"),
    (128, 64, 0): (8, 32, 0.5, "registers"),
    (1024, 32, 0): (2, 64, 1.0, "warps"),
    (32, 16, 0): (32, 32, 0.5, "blocks"),
    (256, 40, 0): (6, 48, 0.75, "registers"),        # 1280 registers a warp: 12 warps a sub-partition
    (256, 33, 0): (6, 48, 0.75, "registers"),        # 33 x 32 = 1056, rounded up to 1280
    (192, 32, 49152): (4, 24, 0.375, "shared_memory"),   # 50176 bytes a block with the reserved KiB
    (128, 32, 232448): (1, 4, 0.0625, "shared_memory"),  # 227 KiB + 1 KiB: exactly the SM's 228
    (128, 32, 232449): (0, 0, 0.0, "shared_memory"),     # over 227 KiB: cannot run
    (1025, 32, 0): (0, 0, 0.0, "warps"),                 # over 1024 threads: cannot run
    (1024, 72, 0): (0, 0, 0.0, "registers"),             # 28 warps' registers for 32 warps
    (96, 255, 0): (2, 6, 0.09375, "registers"),          # 8192 a warp: 8 warps in all
    (256, 32, 28672): (7, 56, 0.875, "shared_memory"),   # 8 without the reserved KiB
    (32, 16, 7000): (28, 28, 0.4375, "shared_memory"),   # 8024 -> 8064 bytes: 29 without the unit
    (33, 8, 0): (32, 64, 1.0, "warps"),                  # warps and blocks tie at 32
}


@pytest.mark.parametrize("launch", sorted(OCCUPANCY))
def test_occupancy_reference_agrees_with_the_rules_worked_by_hand(launch):
    got = occupancy.reference(occupancy._call(*launch))
    assert (got["blocks_per_sm"], got["warps_per_sm"], got["occupancy"], got["limiter"]) == OCCUPANCY[launch]


@pytest.mark.parametrize("launch, wrong, said", [
    ((256, 32, 28672), {"blocks_per_sm": 8, "warps_per_sm": 64, "occupancy": 1.0, "limiter": "warps"},
     "reserved for every block"),
    ((256, 32, 0), {"blocks_per_sm": 8, "warps_per_sm": 64, "occupancy": 1.0, "limiter": "registers"},
     "a tie goes to the first"),
    ((128, 64, 0), {"blocks_per_sm": 8, "warps_per_sm": 32, "occupancy": 0.5, "limiter": "warps"},
     "not the fewest"),
    ((32, 16, 7000), {"blocks_per_sm": 29, "warps_per_sm": 29, "occupancy": 29 / 64, "limiter": "shared_memory"},
     "128-byte allocation unit"),
    ((256, 33, 0), {"blocks_per_sm": 7, "warps_per_sm": 56, "occupancy": 0.875, "limiter": "registers"},
     "256-register allocation unit"),
])
def test_occupancy_checker_names_the_likely_mistake(launch, wrong, said):
    args = occupancy._call(*launch)
    why = occupancy.check(args, occupancy.reference(args), wrong)
    assert said in why, why


def test_occupancy_checker_refuses_wrong_types():
    args = occupancy._call(256, 32, 0)
    right = occupancy.reference(args)
    assert occupancy.check(args, right, right) is None
    assert occupancy.check(args, right, {**right, "occupancy": 1}) is None     # an int 1 is 1.0
    assert "expected an int" in occupancy.check(args, right, {**right, "blocks_per_sm": 8.0})
    assert "has no 'limiter'" in occupancy.check(args, right, {k: v for k, v in right.items() if k != "limiter"})
    assert "returned list" in occupancy.check(args, right, [8, 64, 1.0, "warps"])


# ---- cache_sim ---------------------------------------------------------------------------------
def _trace(pairs, size=64, line=16, ways=2, policy="lru"):
    addrs = np.array([a for a, _ in pairs], dtype=np.uint64)
    writes = np.array([w for _, w in pairs], dtype=bool)
    return {"addresses": addrs, "writes": writes, "size_bytes": size, "line_bytes": line, "ways": ways,
            "policy": policy}


# Two sets of two ways, 16-byte lines: lines 0, 2, 4 share set 0.
TRACE = [(0x00, True), (0x20, False), (0x00, False), (0x40, False), (0x20, True), (0x08, False)]


def test_cache_sim_reference_on_a_trace_worked_by_hand():
    # LRU: miss 0 (dirty), miss 2, hit 0, miss 4 evicts 2 (clean), miss 2 evicts 0 (dirty: a
    # writeback), miss 0 evicts 4.
    assert cache_sim.reference(_trace(TRACE)) == {"hits": 1, "misses": 5, "evictions": 3, "writebacks": 1}
    # FIFO: miss 0, miss 2, hit 0, miss 4 evicts 0 (dirty), hit 2 (now dirty), miss 0 evicts 2 (dirty).
    assert cache_sim.reference(_trace(TRACE, policy="fifo")) == {"hits": 2, "misses": 4, "evictions": 2,
                                                                  "writebacks": 2}


def test_cache_sim_handles_the_top_of_the_address_space():
    top = (1 << 64) - 16     # line 2^60 - 1, set 3 of 4; top - 64 is the same set
    got = cache_sim.reference(_trace([(top, True), (top + 8, False), (top - 64, False), (top, False)], ways=1))
    assert got == {"hits": 1, "misses": 3, "evictions": 2, "writebacks": 1}


def test_cache_sim_traces_are_long_and_span_the_address_space():
    calls = cache_sim.generate(np.random.default_rng([5, 0]), {"n": 50_000, "size_bytes": 32768,
                                                               "line_bytes": 64, "ways": 4, "policy": "lru"})
    addrs = calls[0]["addresses"]
    assert len(addrs) == 50_000 and addrs.dtype == np.uint64 and calls[0]["writes"].any()
    assert (addrs >= np.uint64(1 << 63)).any() and (addrs < np.uint64(1 << 63)).any()


@pytest.mark.parametrize("mistake, said", [
    ("flush", "no final flush"), ("clean", "only a line written since its fill"),
    ("fifo", "FIFO replacement"), ("evict_every_miss", "evicts nothing"),
])
def test_cache_sim_checker_names_the_likely_mistake(mistake, said):
    args = cache_sim.generate(np.random.default_rng([9, 1]), {"n": 4000, "size_bytes": 1024,
                                                              "line_bytes": 32, "ways": 4, "policy": "lru"})[0]
    full = cache_sim._simulate(**args)
    right = {k: full[k] for k in cache_sim.FIELDS}
    wrong = dict(right)
    if mistake == "flush":
        wrong["writebacks"] += full["dirty_at_end"]
    elif mistake == "clean":
        wrong["writebacks"] = wrong["evictions"]
    elif mistake == "fifo":
        other = cache_sim._simulate(**{**args, "policy": "fifo"})
        wrong = {k: other[k] for k in cache_sim.FIELDS}
    else:
        wrong["evictions"] = wrong["misses"]
    assert cache_sim.check(args, right, right) is None
    why = cache_sim.check(args, right, wrong)
    assert said in why, why


def test_cache_sim_shows_a_trace_as_a_person_reads_it():
    shown = cache_sim.show(_trace(TRACE))
    assert shown.startswith("size_bytes=64, line_bytes=16, ways=2 (2 sets), policy='lru'; 6 accesses")
    assert "W 0x0, R 0x20" in shown


def test_an_integer_answer_is_an_int_of_any_kind_but_never_a_bool():
    from gpu_tasks.functions.model import not_an_int
    assert not_an_int("hits", 3) is None and not_an_int("hits", np.int64(3)) is None
    assert not_an_int("hits", True) == "`hits` is True (bool), expected an int"
    assert not_an_int("hits", 3.0, 3) == "`hits` is 3.0 (float), expected an int (3)"
    assert not_an_int("hits", np.bool_(True)) is not None and not_an_int("hits", "3") is not None
