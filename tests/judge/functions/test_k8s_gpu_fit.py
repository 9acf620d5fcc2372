"""`k8s_gpu_fit`: the statement's rules on a hand-written cluster, quantities, the generator's
clusters, the checker against filters a candidate might write (tests/fixtures/functions/
k8s_gpu_fit/, first line `# bug: ...` or `# correct: ...`), and the judge end to end."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from assessments.judge.kinds import KNOWN
from gpu_tasks.functions import TASKS, logic
from tests.judge.functions.function_helpers import (assert_fixtures_say_what_they_are, first_failure,
                                                    fixture_function, fixtures_of)

TASK = TASKS["k8s_gpu_fit"]
LOGIC = logic("k8s_gpu_fit")
FIXTURES = fixtures_of("k8s_gpu_fit")
CASES = TASK.tests["cpu"]

# Each wrong filter, and words the checker's sentence must hold on its first failing cluster.
WRONG = {
    "prefer_no_schedule.py": ("got 'untolerated taint spot'", "PreferNoSchedule treated as a filter"),
    "requests_only.py": ("got it fits", "only under limits is requested as much as the limit"),
    "ignores_allocated.py": ("got it fits", "allocated) was not subtracted"),
    "selector_before_taints.py": ("got 'node affinity'", "the checks go in order"),
    "notin_needs_label.py": ("expected it fits, got 'node affinity'", "NotIn matches a node without the label"),
}
GPU = "nvidia.com/gpu"


def _node(name, labels=None, taints=None, cordoned=False, allocatable=None, allocated=None):
    spec = {}
    if cordoned:
        spec["unschedulable"] = True
    if taints:
        spec["taints"] = taints
    alloc = {"cpu": "95690m", "memory": "1157028740Ki", "pods": "110", **(allocatable or {})}
    return {"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
            "spec": spec, "status": {"allocatable": alloc},
            "allocated": {"cpu": "8", "memory": "64Gi", "pods": "9", **(allocated or {})}}


def _pod(name, requests=None, limits=None, **spec):
    resources = {k: v for k, v in (("requests", requests), ("limits", limits)) if v}
    return {"metadata": {"name": name}, "spec": {"containers": [{"name": "main", "resources": resources}], **spec}}


GPU_TAINT = {"key": GPU, "value": "present", "effect": "NoSchedule"}
A100 = {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.memory": "81920"}
NODES = [
    _node("a100-1", A100, [GPU_TAINT], allocatable={GPU: "8"}, allocated={GPU: "6"}),
    _node("a100-2", A100, [GPU_TAINT, {"key": "spot", "value": "true", "effect": "PreferNoSchedule"}],
          allocatable={GPU: "8"}, allocated={GPU: "0", "pods": "110"}),
    _node("a100-cordoned", A100, [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}, GPU_TAINT],
          cordoned=True, allocatable={GPU: "8"}),
    _node("mig-1", {**A100, "nvidia.com/mig.config": "all-1g.10gb"}, [GPU_TAINT],
          allocatable={GPU: "0", "nvidia.com/mig-1g.10gb": "56"}, allocated={"nvidia.com/mig-1g.10gb": "55"}),
    _node("cpu-1", {}, [{"key": "spot", "value": "true", "effect": "PreferNoSchedule"}]),
]
TOLERATE_GPU = [{"key": GPU, "operator": "Exists", "effect": "NoSchedule"}]
NOT_MIG = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "nvidia.com/mig.config", "operator": "NotIn", "values": ["all-1g.10gb"]},
                          {"key": "nvidia.com/gpu.memory", "operator": "Gt", "values": ["40000"]}]}]}}}
PODS = [
    # two GPUs given only under limits, an init container larger than the main one
    _pod("train-2", {"cpu": "16", "memory": "100Gi"}, {GPU: 2}, tolerations=TOLERATE_GPU, affinity=NOT_MIG,
         initContainers=[{"name": "fetch", "resources": {"requests": {"memory": "1030Gi"}}}]),
    _pod("infer-mig", {"cpu": "4", "memory": "16Gi", "nvidia.com/mig-1g.10gb": "1"}, {"nvidia.com/mig-1g.10gb": "1"},
         tolerations=[{"key": GPU, "value": "present"}]),
    _pod("careless", {"cpu": "500m", "memory": "512Mi"}, {GPU: "1"}),
    _pod("daemon", {"cpu": "100m", "memory": "128Mi"}, tolerations=[{"operator": "Exists"}]),
]
ANSWER = {
    "train-2": {"fits": ["a100-1"], "reasons": {"a100-2": "too many pods", "a100-cordoned": "unschedulable",
                                                "mig-1": "node affinity", "cpu-1": "node affinity"}},
    "infer-mig": {"fits": ["mig-1"], "reasons": {"a100-1": "insufficient nvidia.com/mig-1g.10gb",
                                                 "a100-2": "too many pods", "a100-cordoned": "unschedulable",
                                                 "cpu-1": "insufficient nvidia.com/mig-1g.10gb"}},
    "careless": {"fits": [], "reasons": {"a100-1": "untolerated taint nvidia.com/gpu",
                                         "a100-2": "untolerated taint nvidia.com/gpu",
                                         "a100-cordoned": "unschedulable",
                                         "mig-1": "untolerated taint nvidia.com/gpu",
                                         "cpu-1": "insufficient nvidia.com/gpu"}},
    "daemon": {"fits": ["a100-1", "a100-cordoned", "cpu-1", "mig-1"], "reasons": {"a100-2": "too many pods"}},
}
CLUSTER = {"nodes": NODES, "pods": PODS}


def _fit(name: str):
    return fixture_function(FIXTURES / name, "fit")


def _generate(seed: int) -> list[dict]:
    return [a for i, c in enumerate(CASES) for a in LOGIC.generate(np.random.default_rng([seed, i]), c.dims)]


@lru_cache(maxsize=None)
def _clusters(seed: int) -> list[dict]:
    return _generate(seed)


def _first_failure(fit, clusters) -> str | None:
    return first_failure(LOGIC, clusters, lambda args: fit(args["nodes"], args["pods"]))


def test_every_fixture_says_what_it_is():
    assert_fixtures_say_what_they_are(FIXTURES, WRONG)


@pytest.mark.parametrize("quantity, thousandths", [
    ("7500m", 7500), ("8", 8000), (2, 2000), ("0.5", 500), ("64Gi", 64 * 2**30 * 1000),
    ("512Mi", 512 * 2**20 * 1000), ("1G", 10**12), ("1500M", 15 * 10**11), ("1157028740Ki", 1157028740 * 1024000),
])
def test_quantities_are_read_exactly(quantity, thousandths):
    assert LOGIC.milli(quantity) == thousandths


def test_the_statements_rules_on_a_hand_written_cluster():
    assert LOGIC.reference(CLUSTER) == ANSWER
    assert _fit("accepted_decimal.py")(NODES, PODS) == ANSWER


def test_generate_is_deterministic_per_seed_and_realistic():
    assert _generate(1) == _clusters(1)
    assert _clusters(1) != _clusters(2)
    clusters = _clusters(1)
    nodes = [n for c in clusters for n in c["nodes"]]
    pods = [p for c in clusters for p in c["pods"]]
    assert max(len(c["nodes"]) for c in clusters) >= 2000 and max(len(c["pods"]) for c in clusters) >= 1000
    assert any(r.startswith("nvidia.com/mig-") for n in nodes for r in n["status"]["allocatable"])
    assert any(n["spec"].get("unschedulable") for n in nodes)
    effects = {t["effect"] for n in nodes for t in n["spec"].get("taints", ())}
    assert effects == {"NoSchedule", "NoExecute", "PreferNoSchedule"}
    assert any(c.get("resources", {}).get("limits", {}).get(GPU) and GPU not in c["resources"].get("requests", {})
               for p in pods for c in p["spec"]["containers"])
    assert any("initContainers" in p["spec"] for p in pods)
    assert any({"operator": "Exists"} in p["spec"].get("tolerations", ()) for p in pods)
    for c in clusters:
        assert len({n["metadata"]["name"] for n in c["nodes"]}) == len(c["nodes"])
        assert len({p["metadata"]["name"] for p in c["pods"]}) == len(c["pods"])
    reasons = {why.split(" ")[0] + (" " + why.split(" ")[1] if why.startswith("insufficient") else "")
               for c in clusters for v in LOGIC.reference(c).values() for why in v["reasons"].values()}
    assert {"unschedulable", "untolerated", "node", "too", "insufficient cpu", "insufficient memory",
            "insufficient nvidia.com/gpu", "insufficient nvidia.com/mig-1g.10gb"} <= reasons
    assert sum(len(v["fits"]) for c in clusters for v in LOGIC.reference(c).values()) > 1000


def test_the_reference_agrees_with_the_rules_replayed_pair_by_pair_and_with_its_check():
    for args in _clusters(2)[:4]:
        answer = LOGIC.reference(args)
        assert LOGIC.check(args, answer, answer) is None
        for pod in args["pods"][:20]:
            got = answer[pod["metadata"]["name"]]
            for node in args["nodes"]:
                name = node["metadata"]["name"]
                assert LOGIC.replay(node, pod) == (None if name in got["fits"] else got["reasons"][name])


@pytest.mark.parametrize("name", sorted(WRONG))
def test_each_wrong_filter_is_caught_with_its_mistake(name):
    message = _first_failure(_fit(name), _clusters(1))
    assert message is not None, f"{name} passed every hidden cluster"
    for words in WRONG[name]:
        assert words in message, message
    assert message.startswith("pod '") and "on node '" in message


def test_a_correct_filter_written_differently_passes():
    assert _first_failure(_fit("accepted_decimal.py"), _clusters(2)) is None


def test_the_starter_runs_and_answers_wrong():
    namespace: dict = {}
    exec(TASK.starters["python"], namespace)
    message = _first_failure(namespace["fit"], _clusters(1))
    assert message is not None and "expected" in message


def _with(pod: str, **value) -> dict:
    return {**ANSWER, pod: {**ANSWER[pod], **value}}


@pytest.mark.parametrize("answer, words", [
    ([], "expected a dict"),
    ({k: v for k, v in ANSWER.items() if k != "daemon"}, "no entry for pod 'daemon'"),
    ({**ANSWER, "ghost": ANSWER["daemon"]}, "'ghost' is not the name of a pending pod"),
    (_with("daemon", fits=["a100-1", "cpu-1", "mig-1"]), "node 'a100-cordoned' is neither in fits nor in reasons"),
    (_with("daemon", fits=["cpu-1", "a100-1", "a100-cordoned", "mig-1"]), "not sorted"),
    (_with("daemon", fits=[0]), "metadata.name strings"),
    (_with("careless", fits=["nowhere"]), "'nowhere', which is not a node of the cluster"),
    (_with("infer-mig", fits=["cpu-1", "mig-1"], reasons={k: v for k, v in ANSWER["infer-mig"]["reasons"].items()
                                                          if k != "cpu-1"}),
     "expected 'insufficient nvidia.com/mig-1g.10gb', got it fits"),
    (_with("daemon", fits=["a100-1", "cpu-1", "mig-1"], reasons={"a100-2": "too many pods",
                                                                 "a100-cordoned": "unschedulable"}),
     "a pod that tolerates node.kubernetes.io/unschedulable:NoSchedule may go to a cordoned node"),
    (_with("infer-mig", reasons={**ANSWER["infer-mig"]["reasons"], "cpu-1": "insufficient cpu"}),
     "the pod requests 4000m cpu; the node has 95690m allocatable, 8 allocated, 87690m left"),
    # A reason the statement does not give is still explained, not a judge's error.
    (_with("careless", reasons={**ANSWER["careless"]["reasons"], "cpu-1": "bogus"}),
     "expected 'insufficient nvidia.com/gpu', got 'bogus'"),
    (_with("careless", fits=["n" * 200]), "which is not a node of the cluster"),
])
def test_a_wrong_answer_is_explained(answer, words):
    message = LOGIC.check(CLUSTER, ANSWER, answer)
    assert message is not None and words in message, message


# ---- end to end, in the judge's sandbox ------------------------------------------------------------
needs_kind = pytest.mark.skipif("python" not in KNOWN, reason="the judge has no kind `python` yet")


@needs_kind
def test_judged_end_to_end():
    from assessments.judge import Verdict, judge
    good = judge("k8s_gpu_fit", (FIXTURES / "accepted_decimal.py").read_text(), seed=9)
    assert good.verdict is Verdict.ACCEPTED, good.message
    assert good.score >= 60 and good.measure["test"] == "large_fleet"
    for name, words in WRONG.items():
        r = judge("k8s_gpu_fit", (FIXTURES / name).read_text(), seed=9, timing=False)
        assert r.verdict is Verdict.WRONG_ANSWER, (name, r.verdict, r.message)
        assert words[-1] in r.message, (name, r.message)
