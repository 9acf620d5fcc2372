"""The rules tasks' bank (gpu_tasks/alerts): what is served, the hidden series, and the reference
semantics of Prometheus's alerting that the expected alerts come from."""
from __future__ import annotations

import numpy as np
import pytest

from gpu_tasks import bank
from gpu_tasks.alerts import TASKS, logic
from gpu_tasks.alerts.semantics import firing, streak_start
from gpu_tasks.alerts.series import STALE, Series


def test_the_bank_finds_both_tasks_by_module_and_serves_them_as_rules_tasks():
    assert {"gpu_alerts", "gpu_node_health"} <= set(TASKS)
    for slug, task in TASKS.items():
        assert bank.find(slug) is task and bank.kind_of(task) == "promql"
        assert task.track == "infrastructure" and task.tests["cpu"] and task.sample_cases
        assert set(bank.starters_of(task)) == {"yaml"}
        assert task.reference_path.is_file() and "reference" not in vars(task)


def test_the_contract_of_gpu_alerts_is_the_one_of_the_tracks_page():
    task = TASKS["gpu_alerts"]
    got = {a.name: (a.severity, a.labels, a.for_minutes) for a in task.alerts}
    assert got == {"GpuXidError": ("critical", ("Hostname", "gpu"), 0),
                   "GpuTooHot": ("warning", ("Hostname", "gpu"), 5),
                   "GpuIdleButAllocated": ("warning", ("Hostname", "gpu"), 30),
                   "GpuExporterDown": ("critical", ("instance",), 5)}
    for word in ("DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_GPU_TEMP", "above 85", "below 5", "above 1024",
                 'up{job="dcgm"}', "`for: Nm`", "severity"):
        assert word in task.statement


def test_skills_are_taxonomy_ids():
    from skillmap.taxonomy import load_taxonomy
    known = set(load_taxonomy().skills)
    for task in TASKS.values():
        assert set(task.skills) <= known, task.slug


@pytest.mark.parametrize("slug", sorted(TASKS))
def test_series_come_from_the_seed_alone_and_hold_every_edge_case(slug):
    task, lg = TASKS[slug], logic(slug)
    for case in task.tests["cpu"]:
        a = lg.generate(np.random.default_rng([11, 0]), case.dims)
        b = lg.generate(np.random.default_rng([11, 0]), case.dims)
        assert [(s.selector(), s.notation()) for s in a.series] == [(s.selector(), s.notation()) for s in b.series]
        placed = {(what, length) for what, _, _, length in a.episodes}
        assert set(lg.MANDATORY) <= placed, (case.name, set(lg.MANDATORY) - placed)
        c = lg.generate(np.random.default_rng([12, 0]), case.dims)
        assert [s.notation() for s in a.series] != [s.notation() for s in c.series]


@pytest.mark.parametrize("slug", sorted(TASKS))
def test_every_alert_of_the_contract_fires_in_every_hidden_test(slug):
    task, lg = TASKS[slug], logic(slug)
    for case in task.tests["cpu"]:
        scenario = lg.generate(np.random.default_rng([3, 1]), case.dims)
        conds = lg.conditions(scenario)
        for alert in task.alerts:
            assert any(firing(conds[alert.name], alert.for_minutes)), (case.name, alert.name)


def test_for_fires_after_n_plus_one_evaluations_and_stops_at_the_first_miss():
    conds = [set(), {"a"}, {"a"}, {"a"}, {"a", "b"}, {"b"}, {"a"}]
    assert firing(conds, 2) == [set(), set(), set(), {"a"}, {"a"}, set(), set()]
    assert firing(conds, 0) == conds
    assert streak_start(conds, "a", 4) == 1 and streak_start(conds, "a", 5) is None


def test_an_instant_query_sees_the_last_sample_until_a_staleness_marker():
    s = Series("m", {}, [1, 2, STALE, None, None, None, None, None, 7])
    assert [s.at(t) for t in range(9)] == [1, 2, None, None, None, None, None, None, 7]
    assert Series("m", {}, [4, None, None]).at(2) == 4          # within the 5-minute lookback
    assert s.notation() == "1 2 stale _ _ _ _ _ 7"
    assert s.window(8, 6) == [7] and Series("m", {}, [1, 2, 3]).window(2, 1) == [2, 3]


def test_the_ecc_condition_is_what_increase_sees_across_a_driver_reload():
    grew = logic("gpu_node_health")._grew
    assert grew([3, 3, 4]) and not grew([3, 3, 3]) and not grew([3, 0, 0]) and grew([3, 0, 1])
