"""The scheduler-filter tasks' shared checking (gpu_tasks/functions/fit_answers.py): each task's
words in the messages, and which mistake a wrong reason is put down to."""
from __future__ import annotations

from gpu_tasks.functions import TASKS, fit_answers

WORDS = fit_answers.Words(item="job", key="job_id", keyed_by="its id", stray="is not the id of a pending job",
                          node_name="NodeName", node="the NodeName of a node")
ITEMS = [("7", {"id": "7"})]
NAMES = ["a", "b"]
EXPECTED = {"7": {"fits": ["a"], "reasons": {"b": "gpus"}}}


def _check(actual):
    return fit_answers.check(WORDS, ITEMS, NAMES, EXPECTED, actual,
                             lambda why: None if why in ("gpus", "cpus") else f"{why!r} is no reason",
                             lambda item, i, want, got: f"{item['id']} on {NAMES[i]}: {want} / {got}")


def test_the_shared_module_is_no_task():
    assert "fit_answers" not in TASKS and {"k8s_gpu_fit", "slurm_gpu_fit"} <= set(TASKS)


def test_an_answer_is_checked_in_the_tasks_words():
    assert _check(EXPECTED) is None
    assert _check([]).startswith("fit returned list, expected a dict {job_id:")
    assert _check({}) == "no entry for job '7': every job needs one, keyed by its id"
    assert _check({**EXPECTED, "8": EXPECTED["7"]}) == "'8' is not the id of a pending job"
    assert "nodes are named by their NodeName strings" in _check({"7": {"fits": [1], "reasons": {"b": "gpus"}}})
    assert _check({"7": {"fits": ["c"], "reasons": {}}}) == \
        "job '7': fits names 'c', which is not the NodeName of a node"
    assert _check({"7": {"fits": ["a"], "reasons": {"b": "disk"}}}) == "job '7', node 'b': 'disk' is no reason"
    assert _check({"7": {"fits": [], "reasons": {"a": "cpus", "b": "gpus"}}}) == "7 on a: None / cpus"
    assert "neither in fits nor in reasons" in _check({"7": {"fits": ["a"], "reasons": {}}})


def test_the_mistake_that_agrees_most_with_the_answer_is_named_and_a_tie_names_two():
    mistakes = {"early": "checked too early", "late": "checked too late", "never": "never checked"}
    assert fit_answers.likely_mistake([], mistakes, lambda m: 0) is None
    assert fit_answers.likely_mistake(["late"], mistakes, lambda m: 0) == "checked too late"
    score = {"early": 3, "late": 5, "never": 5}
    assert fit_answers.likely_mistake(["early", "late", "never"], mistakes, score.get) == \
        "checked too late (or: never checked)"
    assert fit_answers.likely_mistake(["early", "late"], mistakes, score.get) == "checked too late"


def test_the_sample_starts_with_the_mismatched_item_and_stays_within_its_pairs():
    items = [{"n": i} for i in range(50)]
    picked, nodes = fit_answers.sample(items[30], items, list(range(100)), pairs=800)
    assert picked[0] is items[30] and len(picked) == 8 and len(nodes) == 100
    picked, nodes = fit_answers.sample(items[30], items, list(range(2000)), pairs=800)
    assert picked == [items[30]] and len(nodes) == 800
