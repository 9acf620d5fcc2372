"""`k8s_gpu_fit`: the filter phase of the Kubernetes scheduler for GPU pods (cordons, taints and
tolerations, node selectors and required node affinity, requests against what is left, MIG
resources), per pod the nodes it fits and the first reason for each other node. Python."""
from __future__ import annotations

import random
import re
from fractions import Fraction
from functools import lru_cache

import numpy as np

from . import fit_answers
from .fit_answers import short, status
from .model import FunctionTask, cases

GPU = "nvidia.com/gpu"
CORDON = "node.kubernetes.io/unschedulable"
FILTERING = ("NoSchedule", "NoExecute")

STATEMENT = """Write the filter phase of the Kubernetes scheduler for a cluster with GPU node pools:
for each pending pod, the nodes it could be bound to now, and why every other node is ruled out.

```python
def fit(nodes, pods) -> dict:
    # nodes: [{"metadata": {"name": "gpu-h100-a-07", "labels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", ...}},
    #          "spec": {"unschedulable": True, "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
    #          "status": {"allocatable": {"cpu": "191450m", "memory": "2043207160Ki", "pods": "110", "nvidia.com/gpu": "8"}},
    #          "allocated": {"cpu": "48", "memory": "384Gi", "pods": "12", "nvidia.com/gpu": "6"}}, ...]
    # pods: [{"metadata": {"name": "train-llama-0"},
    #         "spec": {"containers": [{"name": "main", "resources": {"requests": {...}, "limits": {...}}}],
    #                  "initContainers": [...], "nodeSelector": {...}, "tolerations": [...], "affinity": {...}}}, ...]
    # returns {pod_name: {"fits": [node names, sorted], "reasons": {node_name: reason}}}
```

Nodes and pods are shaped as the Kubernetes API gives them; a field that is not set is absent
(`spec` may lack `unschedulable` and `taints`, a pod's `spec` its `initContainers`, `nodeSelector`,
`tolerations` and `affinity`). `allocated` is what the pods already running on the node request,
summed (`kubectl describe node`'s "Allocated resources"), with `pods` their number. Judge each pod
alone against the nodes as given: placing one pod does not change what the next one sees.

**Quantities** are strings or numbers: a decimal number (`"8"`, `"0.5"`, `2`) with an optional
suffix, `m` (thousandths: `"7500m"` is 7.5), `k`, `M`, `G`, `T`, `P` (powers of 1000) or `Ki`,
`Mi`, `Gi`, `Ti`, `Pi` (powers of 1024: `"64Gi"` is 68,719,476,736). Compare them exactly.

**What a pod requests.** A container requests, per resource, its `requests` value; a resource it
gives only under `limits` it requests as much as the limit (extended resources such as
`nvidia.com/gpu` and `nvidia.com/mig-1g.10gb` are usually given that way). The pod requests, per
resource, the larger of the sum over its containers and the largest single init container (init
containers run one at a time, before the others). It also takes one of the node's `pods`.

**The checks**, in this order; a node's reason is the first that fails:

1. `"unschedulable"`: the node is cordoned (`spec.unschedulable` true), unless the pod tolerates
   the taint `node.kubernetes.io/unschedulable` with effect `NoSchedule` (DaemonSet pods do).
2. `"untolerated taint <key>"`: the first of the node's taints, in its order, with effect
   `NoSchedule` or `NoExecute` that no toleration of the pod tolerates (`PreferNoSchedule` never
   rules a node out). A toleration tolerates a taint when its `effect` is absent or empty or equal
   to the taint's, and: its `operator` is `Exists` and its `key` is absent or empty (every taint) or
   equal to the taint's; or its `operator` is `Equal` or absent, its `key` equals the taint's and
   its `value` (absent: `""`) equals the taint's (absent: `""`).
3. `"node affinity"`: every `nodeSelector` entry must equal the node's label of that key, and when
   `affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution` is set, at least one of
   its `nodeSelectorTerms` must match: all of a term's `matchExpressions`, where `In` (the label is
   set and its value is one of `values`), `NotIn` (the label is not set or not one of them), `Exists`,
   `DoesNotExist`, `Gt` and `Lt` (the label is set and, as an integer, greater or less than the one
   integer in `values`). `preferredDuringSchedulingIgnoredDuringExecution` never rules a node out.
4. `"too many pods"`: allocated `pods` + 1 exceeds allocatable `pods`.
5. `"insufficient <resource>"`: for each resource the pod requests more than zero of, `cpu` first,
   then `memory`, then the others in name order: the node's allocated amount plus the pod's
   exceeds its allocatable amount (a resource missing from either counts as 0). A pod that needs
   exactly what is left fits.

`fits` holds every node that passes all checks, sorted as Python sorts strings; `reasons` holds
every other node with its reason string exactly as above (e.g. `"untolerated taint nvidia.com/gpu"`,
`"insufficient nvidia.com/mig-1g.10gb"`). Every pod and node is named by `metadata.name`.

A wrong answer names the first pod and node whose status differs, what was expected, what you
answered, the node's and pod's facts behind it and the likely mistake.

**Scoring.** 60 points when every hidden cluster is filtered right: H100, A100 and L4 pools tainted
for GPU pods, MIG nodes, cordoned and not-ready nodes, CPU and system nodes; training, inference,
batch and DaemonSet pods; up to 2,000 nodes or 1,000 pods. Up to 40 more for speed: 40 x min(1,
1.1 x reference time / your time) on the largest cluster, both timed in the same judging (the
reference reads each node and pod once, then checks every pair: about 0.05 s on the judge's
machine)."""

PYTHON_STARTER = '''def fit(nodes, pods):
    """nodes, pods: Kubernetes objects as dicts. Returns {pod_name: {"fits": [sorted node names],
    "reasons": {node_name: reason}}}."""
    answer = {}
    for pod in pods:
        fits = []
        for node in nodes:
            # TODO: cordons, taints and tolerations, node selectors and affinity, and what the
            # pod requests against what is left of the node's allocatable resources
            fits.append(node["metadata"]["name"])
        answer[pod["metadata"]["name"]] = {"fits": sorted(fits), "reasons": {}}
    return answer
'''

PYTHON_SIGNATURE = "def fit(nodes, pods) -> dict"


def _dims(nodes: int, pods: int, mix: str = "mixed") -> dict:
    return {"nodes": nodes, "pods": pods, "mix": mix}


TASK = FunctionTask(
    slug="k8s_gpu_fit", title="Kubernetes GPU pod filtering", difficulty="medium",
    track="infrastructure", skills=("kubernetes", "gpu_scheduling", "mig", "python"),
    summary="The Kubernetes scheduler's filter for GPU pods: taints, tolerations, affinity, GPU and MIG requests.",
    statement=STATEMENT, function="fit",
    python_signature=PYTHON_SIGNATURE, cpp_signature=None, languages=("python",),
    tests={"cpu": cases(
        ("one_pool", _dims(5, 12, "train")),
        ("tainted_pools", _dims(40, 60, "train")),
        ("mig_inference", _dims(60, 80, "mig")),
        ("mixed_cluster", _dims(200, 150)),
        ("many_pods", _dims(60, 1000)),
        ("large_fleet", _dims(2000, 30)),
    )},
    samples=cases(("sample_train", _dims(4, 6, "train")), ("sample_mig", _dims(6, 8, "mig"))),
    starters={"python": PYTHON_STARTER},
)


# ---- quantities ----------------------------------------------------------------------------------
SUFFIX = {"": 1, "m": Fraction(1, 1000), "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15,
          "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50}
QUANTITY = re.compile(r"([0-9]*\.?[0-9]+)([a-zA-Z]*)")


@lru_cache(maxsize=1 << 14)
def milli(q, binary_as_decimal: bool = False) -> int:
    """A quantity in thousandths, exactly (`binary_as_decimal`: the mistake of Gi read as G)."""
    if isinstance(q, (int, float)):
        return int(Fraction(q) * 1000)
    m = QUANTITY.fullmatch(str(q).strip())
    if m is None or m[2] not in SUFFIX:
        raise ValueError(f"not a quantity: {q!r}")
    suffix = {"Ki": "k"}.get(m[2], m[2][:1]) if binary_as_decimal and m[2].endswith("i") else m[2]
    return int(Fraction(m[1]) * SUFFIX[suffix] * 1000)


# ---- hidden clusters -------------------------------------------------------------------------------
# A node pool: GPU product label, GPUs, GPU memory (MiB), instance type, allocatable cpu, memory, pods.
POOLS = {
    "h100": ("NVIDIA-H100-80GB-HBM3", 8, 81559, "p5.48xlarge", "191450m", "2043207160Ki", "110"),
    "a100": ("NVIDIA-A100-SXM4-80GB", 8, 81920, "p4de.24xlarge", "95690m", "1157028740Ki", "110"),
    "mig": ("NVIDIA-A100-SXM4-80GB", 8, 81920, "p4de.24xlarge", "95690m", "1157028740Ki", "110"),
    "l4": ("NVIDIA-L4", 4, 23034, "g6.12xlarge", "47810m", "189203144Ki", "234"),
    "cpu": (None, 0, 0, "m7i.8xlarge", "31850m", "127511660Ki", "110"),
    "system": (None, 0, 0, "m7i.xlarge", "3920m", "15320568Ki", "58"),
}
MIG_CONFIGS = {"all-1g.10gb": {"nvidia.com/mig-1g.10gb": 7},
               "all-balanced": {"nvidia.com/mig-3g.40gb": 1, "nvidia.com/mig-2g.20gb": 1, "nvidia.com/mig-1g.10gb": 1}}
MIXES = {"train": {"h100": 4, "a100": 3, "cpu": 2, "system": 1},
         "mig": {"mig": 5, "a100": 2, "l4": 1, "cpu": 2, "system": 1},
         "mixed": {"h100": 3, "a100": 3, "mig": 2, "l4": 2, "cpu": 4, "system": 1}}
POD_MIXES = {"train": {"train": 6, "cpu": 2, "daemon": 1, "careless": 1},
             "mig": {"mig": 6, "train": 1, "cpu": 1, "daemon": 1, "careless": 1},
             "mixed": {"train": 3, "mig": 2, "infer": 2, "cpu": 3, "daemon": 1, "careless": 1}}
POOL_LABEL = {"eks": "eks.amazonaws.com/nodegroup", "gke": "cloud.google.com/gke-nodepool", "onprem": "node-pool"}
NOT_READY = "node.kubernetes.io/not-ready"
DEFAULT_TOLERATIONS = [{"key": NOT_READY, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                       {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
                        "tolerationSeconds": 300}]


def generate(rng: np.random.Generator, dims: dict) -> list[dict]:
    """One cluster: node pools in one cloud's naming, partly used, some cordoned, not ready or
    waiting for the GPU operator; pending pods of the test's mix, some sized to what a node has left."""
    r = random.Random(int(rng.integers(1 << 62)))
    style = r.choice(tuple(POOL_LABEL))
    gpu_taint_value = r.choice(("present", ""))
    pools, weights = zip(*MIXES[dims["mix"]].items())
    nodes, names = [], set()
    for _ in range(int(dims["nodes"])):
        pool = r.choices(pools, weights)[0]
        node = _node(r, style, pool, gpu_taint_value)
        while node["metadata"]["name"] in names:
            node = _node(r, style, pool, gpu_taint_value)
        names.add(node["metadata"]["name"])
        nodes.append(node)
    kinds, weights = zip(*POD_MIXES[dims["mix"]].items())
    pods, pod_names = [], set()
    for _ in range(int(dims["pods"])):
        pod = _pod(r, r.choices(kinds, weights)[0], nodes, style, gpu_taint_value)
        while pod["metadata"]["name"] in pod_names:
            pod["metadata"]["name"] += f"-{r.randrange(10)}"
        pod_names.add(pod["metadata"]["name"])
        pods.append(pod)
    return [{"nodes": nodes, "pods": pods}]


def _name(r: random.Random, style: str, pool: str) -> str:
    if style == "eks":
        return f"ip-10-{r.randrange(256)}-{r.randrange(256)}-{r.randrange(256)}.ec2.internal"
    if style == "gke":
        return f"gke-ml-{pool}-pool-{r.getrandbits(32):08x}-{r.getrandbits(16):04x}"
    return f"{pool}-r{r.randint(1, 40):02d}-n{r.randint(1, 32):02d}"


def _node(r: random.Random, style: str, pool: str, gpu_taint_value: str) -> dict:
    product, gpus, gpu_mem, itype, cpu, memory, max_pods = POOLS[pool]
    if pool == "l4" and r.random() < 0.5:
        gpus, itype, cpu, memory, max_pods = 1, "g6.xlarge", "3920m", "14918616Ki", "58"
    name = _name(r, style, pool)
    labels = {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux", "kubernetes.io/hostname": name,
              "node.kubernetes.io/instance-type": itype,
              "topology.kubernetes.io/zone": f"us-east-1{r.choice('abc')}", POOL_LABEL[style]: pool}
    alloc = {"cpu": cpu, "memory": memory, "pods": max_pods, "ephemeral-storage": "95491281146",
             "hugepages-1Gi": "0", "hugepages-2Mi": "0"}
    taints = []
    operator_ready = r.random() > 0.04          # the GPU operator's device plugin and labels are up
    gpu_res: dict[str, int] = {}
    if gpus and operator_ready:
        labels.update({"nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": product,
                       "nvidia.com/gpu.count": str(gpus), "nvidia.com/gpu.memory": str(gpu_mem)})
        if pool == "mig":
            config = r.choice(tuple(MIG_CONFIGS))
            labels.update({"nvidia.com/mig.strategy": "mixed", "nvidia.com/mig.config": config,
                           "nvidia.com/mig.config.state": "success"})
            gpu_res = {res: per * gpus for res, per in MIG_CONFIGS[config].items()}
            alloc[GPU] = "0"
        else:
            gpu_res = {GPU: gpus}
        alloc.update({res: str(n) for res, n in gpu_res.items()})
    if gpus:
        taints.append({"key": GPU, **({"value": gpu_taint_value} if gpu_taint_value else {}), "effect": "NoSchedule"})
    if pool == "l4" or (pool == "cpu" and r.random() < 0.3):
        taints.append({"key": "spot", "value": "true", "effect": "PreferNoSchedule"})
    if pool == "system":
        taints.append({"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"})
    spec: dict = {}
    condition = r.random()
    if condition < 0.05:
        spec["unschedulable"] = True
        taints.insert(r.randint(0, len(taints)), {"key": CORDON, "effect": "NoSchedule"})
    elif condition < 0.08:
        taints += [{"key": NOT_READY, "effect": "NoSchedule"}, {"key": NOT_READY, "effect": "NoExecute"}]
    elif condition < 0.11 and gpus:
        taints.append({"key": "nvidia.com/gpu.health", "value": "xid-79", "effect": "NoExecute"})
    if taints:
        spec["taints"] = taints
    node = {"metadata": {"name": name, "labels": labels}, "spec": spec, "status": {"allocatable": alloc}}
    node["allocated"] = _allocated(r, alloc, gpu_res)
    return node


def _allocated(r: random.Random, alloc: dict, gpu_res: dict) -> dict:
    """What running pods hold: from nothing to all of a node, in the units kubectl shows."""
    busy = r.choice((0.0, 0.0, 0.25, 0.5, 0.75, 0.9, 1.0))
    cpu = int(milli(alloc["cpu"]) * busy * r.uniform(0.6, 1.0)) // 50 * 50
    mem_mi = int(milli(alloc["memory"]) // 1000 // 2**20 * busy * r.uniform(0.5, 1.0))
    max_pods = int(alloc["pods"])
    pods = max_pods if r.random() < 0.04 else min(max_pods, r.randint(3, 12) + int(busy * r.randint(0, 30)))
    used = {"cpu": f"{cpu // 1000}" if cpu % 1000 == 0 else f"{cpu}m",
            "memory": f"{mem_mi // 1024}Gi" if mem_mi % 1024 == 0 else f"{mem_mi}Mi", "pods": str(pods)}
    for res, n in gpu_res.items():
        used[res] = str(min(n, round(n * busy * r.uniform(0.5, 1.0))))
    if r.random() < 0.5:
        used["ephemeral-storage"] = "0"
    return used


def _left(node: dict, res: str) -> int:
    return milli(node["status"]["allocatable"].get(res, 0)) - milli(node["allocated"].get(res, 0))


def _pod(r: random.Random, kind: str, nodes: list, style: str, gpu_taint_value: str) -> dict:
    spec: dict = {"tolerations": list(DEFAULT_TOLERATIONS)}
    main: dict = {"name": "main", "image": "nvcr.io/nvidia/pytorch:24.05-py3"}
    extras: list = []
    if kind in ("train", "careless", "mig", "infer"):
        res, count, name = _gpu_ask(r, kind, nodes)
        main["resources"] = _resources(r, res, count, cpu=f"{count * r.choice((4, 8, 12))}",
                                       memory=f"{count * r.choice((32, 64, 120))}Gi")
        spec["tolerations"] = _gpu_tolerations(r, kind, gpu_taint_value) + spec["tolerations"]
        _gpu_placement(r, kind, spec, style)
        if r.random() < 0.3:
            extras.append({"name": "metrics-agent", "resources": {"requests": {"cpu": "100m", "memory": "128Mi"},
                                                                  "limits": {"cpu": "200m", "memory": "256Mi"}}})
        if r.random() < 0.3:
            spec["initContainers"] = [{"name": "fetch-weights", "resources": {"requests": {
                "cpu": r.choice(("2", "500m", "16")), "memory": f"{r.choice((8, 64, 200, 400))}Gi"}}}]
    elif kind == "cpu":
        name = r.choice(("etl-spark-exec", "api-gateway", "feature-store", "label-studio", "ray-head"))
        name += f"-{r.getrandbits(24):06x}"
        cpu = r.choice(("500m", "0.5", "2", "4", "8", "2500m", "16"))
        memory = r.choice(("512Mi", "4Gi", "1G", "1500M", "16Gi", "28Gi", "64Gi", "120Gi"))
        if r.random() < 0.15:        # sized to what one node has left, to the byte
            node = r.choice(nodes)
            cpu, memory = f"{max(_left(node, 'cpu'), 100)}m", f"{max(_left(node, 'memory') // 1000, 2**20)}"
        main["resources"] = _resources(r, None, 0, cpu=cpu, memory=memory)
        if r.random() < 0.5:
            spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [r.choice((
                    {"key": "nvidia.com/gpu.present", "operator": "DoesNotExist"},
                    {"key": POOL_LABEL[style], "operator": "NotIn", "values": ["h100", "a100", "mig", "l4"]},
                    {"key": POOL_LABEL[style], "operator": "In", "values": ["cpu"]}))]}]}}}
        if r.random() < 0.3:
            spec["affinity"] = spec.get("affinity") or {"nodeAffinity": {}}
            spec["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": 50, "preference": {"matchExpressions": [
                    {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1a"]}]}}]
    else:   # a DaemonSet's pod
        name = r.choice(("nvidia-dcgm-exporter", "node-exporter", "fluent-bit", "nvidia-device-plugin"))
        name += f"-{r.getrandbits(20):05x}"
        main["resources"] = _resources(r, None, 0, cpu=r.choice(("100m", "250m")), memory=r.choice(("128Mi", "512Mi")))
        if r.random() < 0.5:
            spec["tolerations"] = [{"operator": "Exists"}]
        else:
            spec["tolerations"] = [{"key": k, "operator": "Exists", "effect": e} for k, e in (
                (NOT_READY, "NoExecute"), ("node.kubernetes.io/unreachable", "NoExecute"),
                ("node.kubernetes.io/disk-pressure", "NoSchedule"), (CORDON, "NoSchedule"), (GPU, "NoSchedule"))]
        if name.startswith("nvidia"):
            spec["nodeSelector"] = {"nvidia.com/gpu.present": "true"}
    spec["containers"] = [main] + extras
    order = ["nodeSelector", "tolerations", "affinity", "initContainers", "containers"]
    return {"metadata": {"name": name, "namespace": r.choice(("ml-train", "inference", "default", "kube-system"))},
            "spec": {k: spec[k] for k in order if k in spec}}


def _gpu_ask(r: random.Random, kind: str, nodes: list) -> tuple[str, int, str]:
    if kind == "mig":
        res = r.choice(("nvidia.com/mig-1g.10gb", "nvidia.com/mig-1g.10gb", "nvidia.com/mig-2g.20gb",
                        "nvidia.com/mig-3g.40gb"))
        count = r.choice((1, 1, 2))
        name = f"triton-{r.choice(('bert', 'whisper', 'resnet'))}-{r.getrandbits(32):08x}-{r.getrandbits(16):04x}"
    elif kind == "infer":
        res, count = GPU, 1
        name = f"vllm-{r.choice(('mistral-7b', 'llama3-8b', 'qwen2-7b'))}-{r.getrandbits(36):09x}"
    else:
        res, count = GPU, r.choice((1, 2, 4, 8, 8))
        name = f"train-{r.choice(('llama3-70b', 'sdxl', 'gpt-neox', 'vit-h'))}-{r.getrandbits(20):05x}-worker-{r.randrange(16)}"
    holders = [n for n in nodes if milli(n["status"]["allocatable"].get(res, 0)) > 0]
    if holders and r.random() < 0.4:     # just what one node has left
        count = max(1, _left(r.choice(holders), res) // 1000)
    return res, count, name


def _resources(r: random.Random, res, count: int, cpu: str, memory: str) -> dict:
    """Requests and limits as people write them: GPUs often under limits only, cpu and memory
    sometimes too."""
    requests, limits = {"cpu": cpu, "memory": memory}, {}
    shape = r.random()
    if shape < 0.2:
        requests, limits = {}, {"cpu": cpu, "memory": memory}
    elif shape < 0.5:
        limits = {"memory": memory}
    if res is not None:
        amount = str(count) if r.random() < 0.7 else count
        limits[res] = amount
        if r.random() < 0.35:
            requests[res] = amount
    out = {}
    if requests:
        out["requests"] = requests
    if limits:
        out["limits"] = limits
    return out


def _gpu_tolerations(r: random.Random, kind: str, gpu_taint_value: str) -> list:
    good = (
        [{"key": GPU, "operator": "Exists", "effect": "NoSchedule"}],
        [{"key": GPU, "operator": "Exists"}],
        [{"key": GPU, "operator": "Equal", "value": gpu_taint_value or "present", "effect": "NoSchedule"}],
        [{"key": GPU, "value": gpu_taint_value or "present"}],
    )
    if kind != "careless":
        return list(r.choice(good))
    return list(r.choice((
        [],
        [{"key": GPU, "operator": "Exists", "effect": "NoExecute"}],
        [{"key": GPU, "operator": "Equal", "value": "true", "effect": "NoSchedule"}],
        [{"key": "nvidia.com/gpu.present", "operator": "Exists"}],
    )))


def _gpu_placement(r: random.Random, kind: str, spec: dict, style: str) -> None:
    """Where a GPU pod asks to go: by product, pool, GPU memory, MIG config, or anywhere."""
    product = "nvidia.com/gpu.product"
    h100, a100, l4 = POOLS["h100"][0], POOLS["a100"][0], POOLS["l4"][0]
    choice = r.random()
    terms = None
    if kind == "mig":
        if choice < 0.4:
            spec["nodeSelector"] = {"nvidia.com/mig.strategy": "mixed"}
        elif choice < 0.6:
            terms = [[{"key": "nvidia.com/mig.config", "operator": "Exists"}]]
    elif kind == "infer":
        terms = r.choice((
            [[{"key": product, "operator": "In", "values": [l4]}]],
            [[{"key": "nvidia.com/gpu.memory", "operator": "Gt", "values": ["8192"]},
              {"key": "nvidia.com/gpu.memory", "operator": "Lt", "values": ["100000"]}]],
            [[{"key": "nvidia.com/gpu.memory", "operator": "Lt", "values": ["30000"]}]],
        ))
    elif choice < 0.25:
        spec["nodeSelector"] = {product: r.choice((h100, a100))}
    elif choice < 0.4:
        spec["nodeSelector"] = {POOL_LABEL[style]: r.choice(("h100", "a100"))}
    elif choice < 0.55:
        terms = [[{"key": product, "operator": "In", "values": [h100]}],
                 [{"key": product, "operator": "In", "values": [a100]},
                  {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1a", "us-east-1b"]}]]
    elif choice < 0.7:
        terms = [[{"key": "nvidia.com/mig.config", "operator": "NotIn", "values": list(MIG_CONFIGS)},
                  {"key": "nvidia.com/gpu.memory", "operator": "Gt", "values": ["40000"]}]]
    if terms is not None:
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": t} for t in terms]}}}


# ---- the reference --------------------------------------------------------------------------------
# Mistakes the checker can replay on one pod and node to name what went wrong (none: the rules);
# where several give the same answer, the narrower ones come first.
MISTAKES = {
    "affinity_first": "the checks go in order: unschedulable, untolerated taint, node affinity, then resources",
    "pods_ignored": "a node holding as many pods as its allocatable pods takes no more",
    "limits_ignored": "a resource given only under limits is requested as much as the limit",
    "init_summed": ("init containers run one at a time before the others: the pod needs the larger of the "
                    "containers' sum and the largest init container, not their total"),
    "init_ignored": "init containers count: the pod needs at least as much as its largest init container",
    "strict_fit": "a pod that needs exactly what is left fits (allocated + requested <= allocatable)",
    "binary_as_decimal": "Ki, Mi, Gi are powers of 1024 (k, M, G powers of 1000)",
    "prefer_filters": "PreferNoSchedule treated as a filter: only NoSchedule and NoExecute taints rule a node out",
    "wildcard_missed": "an Exists toleration with no key tolerates every taint",
    "effect_required": "a toleration with no effect tolerates taints of every effect",
    "operator_exists": "a toleration with no operator is Equal, so its value must equal the taint's",
    "value_ignored": "an Equal toleration tolerates only a taint with the same value",
    "cordon_strict": ("a pod that tolerates node.kubernetes.io/unschedulable:NoSchedule may go to a cordoned "
                      "node (DaemonSet pods do)"),
    "cordon_ignored": "a cordoned node (spec.unschedulable) takes no new pod",
    "terms_all": "nodeSelectorTerms are ORed: one matching term is enough (a term's expressions are ANDed)",
    "notin_needs_label": "NotIn matches a node without the label",
    "gt_as_text": "Gt and Lt compare the label and the value as integers, not as text",
    "preferred_required": "preferredDuringSchedulingIgnoredDuringExecution never rules a node out",
    "noexecute_ignored": "NoExecute taints ignored: they rule a node out as NoSchedule ones do",
    "allocated_ignored": "what the pods already running there request (allocated) was not subtracted",
}


def _tolerates(toleration: dict, key: str, value: str, effect: str, m=frozenset()) -> bool:
    t_effect = toleration.get("effect") or ""
    if t_effect != effect and (t_effect or "effect_required" in m):
        return False
    t_key = toleration.get("key") or ""
    op = toleration.get("operator") or ("Exists" if "operator_exists" in m else "Equal")
    if op == "Exists":
        return t_key == key or (not t_key and "wildcard_missed" not in m)
    return t_key == key and ((toleration.get("value") or "") == value or "value_ignored" in m)


def _prep_node(node: dict, m=frozenset()) -> tuple:
    spec, alloc = node.get("spec") or {}, node["status"]["allocatable"]
    used = {} if "allocated_ignored" in m else node.get("allocated") or {}
    effects = ("NoSchedule", "NoExecute", "PreferNoSchedule") if "prefer_filters" in m else (
        ("NoSchedule",) if "noexecute_ignored" in m else FILTERING)
    taints = tuple((t["key"], t.get("value") or "", t["effect"]) for t in spec.get("taints") or ()
                   if t["effect"] in effects)
    binary = "binary_as_decimal" in m
    left = {r: milli(q, binary) - milli(used.get(r, 0), binary) for r, q in alloc.items()}
    left.update({r: -milli(q, binary) for r, q in used.items() if r not in alloc})
    pods_left = milli(alloc.get("pods", 0)) - milli(used.get("pods", 0)) - (1 if "strict_fit" in m else 0)
    left.pop("pods", None)
    if "pods_ignored" in m:
        pods_left = 1 << 40
    cordoned = bool(spec.get("unschedulable")) and "cordon_ignored" not in m
    return node["metadata"]["name"], cordoned, taints, node["metadata"].get("labels") or {}, left, pods_left


def _requests(spec: dict, m=frozenset()) -> dict:
    """The pod's requests in thousandths, in the order they are checked."""
    binary = "binary_as_decimal" in m

    def of(container):
        res = container.get("resources") or {}
        merged = {} if "limits_ignored" in m else dict(res.get("limits") or {})
        merged.update(res.get("requests") or {})
        return {r: milli(q, binary) for r, q in merged.items()}

    total: dict[str, int] = {}
    for c in spec["containers"]:
        for r, v in of(c).items():
            total[r] = total.get(r, 0) + v
    for c in () if "init_ignored" in m else spec.get("initContainers") or ():
        for r, v in of(c).items():
            total[r] = total.get(r, 0) + v if "init_summed" in m else max(total.get(r, 0), v)
    order = [r for r in ("cpu", "memory") if r in total] + sorted(r for r in total if r not in ("cpu", "memory"))
    return {r: total[r] for r in order if total[r] > 0}


def _expression_matches(e: dict, labels: dict, m=frozenset()) -> bool:
    op, key, values = e["operator"], e["key"], e.get("values") or []
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    if key not in labels:
        return op == "NotIn" and "notin_needs_label" not in m
    value = labels[key]
    if op == "In":
        return value in values
    if op == "NotIn":
        return value not in values
    if "gt_as_text" in m:
        return value > values[0] if op == "Gt" else value < values[0]
    try:
        number, bound = int(value), int(values[0])
    except ValueError:
        return False
    return number > bound if op == "Gt" else number < bound


def _affinity(spec: dict, m=frozenset()):
    """The pod's node selector and required terms as one predicate on labels (None: any node)."""
    selector = tuple((spec.get("nodeSelector") or {}).items())
    node_affinity = (spec.get("affinity") or {}).get("nodeAffinity") or {}
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = None if required is None else [t.get("matchExpressions") or [] for t in required["nodeSelectorTerms"]]
    if "preferred_required" in m:
        extra = [e for p in node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
                 for e in p["preference"].get("matchExpressions") or ()]
        if extra:
            terms = [exprs + extra for exprs in terms] if terms is not None else [extra]
    if not selector and terms is None:
        return None
    combine = all if "terms_all" in m else any
    keys = tuple(dict.fromkeys([k for k, _ in selector] + [e["key"] for exprs in terms or () for e in exprs]))
    seen: dict = {}     # the answer per combination of the labels it reads: nodes of a pool share one

    def decide(labels: dict) -> bool:
        for key, value in selector:
            if labels.get(key) != value:
                return False
        return terms is None or combine(
            bool(exprs) and all(_expression_matches(e, labels, m) for e in exprs) for exprs in terms)

    def matches(labels: dict) -> bool:
        look = tuple(labels.get(k) for k in keys)
        if look not in seen:
            seen[look] = decide(labels)
        return seen[look]
    return matches


def _prep_pod(pod: dict, m=frozenset()) -> tuple:
    spec = pod["spec"]
    tolerations = spec.get("tolerations") or []
    cache: dict = {}

    def untolerated(taints: tuple):
        if taints not in cache:
            cache[taints] = next((k for k, v, e in taints
                                  if not any(_tolerates(t, k, v, e, m) for t in tolerations)), None)
        return cache[taints]
    passes_cordon = "cordon_strict" not in m and any(
        _tolerates(t, CORDON, "", "NoSchedule", m) for t in tolerations)
    return passes_cordon, untolerated, _affinity(spec, m), _requests(spec, m)


def _reason(pod: tuple, node: tuple, m=frozenset()):
    passes_cordon, untolerated, matches, requests = pod
    _, cordoned, taints, labels, left, pods_left = node
    if cordoned and not passes_cordon:
        return "unschedulable"
    if "affinity_first" in m and matches is not None and not matches(labels):
        return "node affinity"
    if taints:
        key = untolerated(taints)
        if key is not None:
            return f"untolerated taint {key}"
    if matches is not None and not matches(labels):
        return "node affinity"
    if pods_left < 1:
        return "too many pods"
    strict = 1 if "strict_fit" in m else 0
    for r, need in requests.items():
        if need + strict > left.get(r, 0):
            return f"insufficient {r}"
    return None


def reference(args: dict) -> dict:
    nodes = [_prep_node(n) for n in args["nodes"]]
    answer = {}
    for raw in args["pods"]:
        pod = _prep_pod(raw)
        passes_cordon, untolerated, matches, requests = pod
        needs = tuple(requests.items())
        fits, reasons = [], {}
        for name, cordoned, taints, labels, left, pods_left in nodes:     # _reason, inlined
            if cordoned and not passes_cordon:
                reasons[name] = "unschedulable"
            elif taints and untolerated(taints) is not None:
                reasons[name] = f"untolerated taint {untolerated(taints)}"
            elif matches is not None and not matches(labels):
                reasons[name] = "node affinity"
            elif pods_left < 1:
                reasons[name] = "too many pods"
            else:
                for r, need in needs:
                    if need > left.get(r, 0):
                        reasons[name] = f"insufficient {r}"
                        break
                else:
                    fits.append(name)
        fits.sort()
        answer[raw["metadata"]["name"]] = {"fits": fits, "reasons": reasons}
    return answer


def replay(node: dict, pod: dict, mistake: str | None = None):
    """One pod on one node, with the rules or with one mistake: the reason, None when it fits."""
    m = frozenset((mistake,)) if mistake else frozenset()
    return _reason(_prep_pod(pod, m), _prep_node(node, m), m)


def all_reasons(node: dict, pod: dict) -> list[str]:
    """Every check that fails, in order (the first is the answer)."""
    p, n = _prep_pod(pod), _prep_node(node)
    out = []
    if n[1] and not p[0]:
        out.append("unschedulable")
    out += [f"untolerated taint {k}" for k, v, e in n[2] if p[1](((k, v, e),)) is not None]
    if p[2] is not None and not p[2](n[3]):
        out.append("node affinity")
    if n[5] < 1:
        out.append("too many pods")
    return out + [f"insufficient {r}" for r, need in p[3].items() if need > n[4].get(r, 0)]


# ---- checking -------------------------------------------------------------------------------------
WORDS = fit_answers.Words(item="pod", key="pod_name", keyed_by="its metadata.name",
                          stray="is not the name of a pending pod", node_name="metadata.name",
                          node="a node of the cluster")


def check(args: dict, expected: dict, actual) -> str | None:
    nodes = args["nodes"]
    return fit_answers.check(
        WORDS, [(p["metadata"]["name"], p) for p in args["pods"]], [n["metadata"]["name"] for n in nodes],
        expected, actual,
        lambda why: None if isinstance(why, str) else f"the reason must be a string, got {short(why)}",
        lambda pod, i, want, got: _explain(args, nodes[i], pod, want, got, actual))


def _explain(args: dict, node: dict, pod: dict, want, got, actual: dict) -> str:
    said = (f"pod {pod['metadata']['name']!r} on node {node['metadata']['name']!r}: expected {status(want)}, "
            f"got {status(got)}")
    facts = "; ".join(dict.fromkeys(f for f in (_facts(node, pod, want), _facts(node, pod, got)) if f))
    hint = _likely_mistake(args, node, pod, got, actual)
    if hint is None and got in all_reasons(node, pod):
        hint = ("that check fails too, but an earlier one fails first: unschedulable, untolerated taint, "
                "node affinity, too many pods, then cpu, memory and the other resources in name order")
    return said + (f" ({facts})" if facts else "") + (f": {hint}" if hint else "")


def _likely_mistake(args: dict, node: dict, pod: dict, got, actual: dict) -> str | None:
    """The mistake that gives the answer on this pod and node and, of those, agrees best with the
    rest of the answer (this pod first, up to 800 pairs of pods and nodes)."""
    found = [m for m in MISTAKES if replay(node, pod, m) == got]
    if len(found) < 2:
        return MISTAKES[found[0]] if found else None
    pods, nodes = fit_answers.sample(pod, args["pods"], args["nodes"])

    def answered(p: dict, n: dict):
        mine = actual[p["metadata"]["name"]]
        name = n["metadata"]["name"]
        return None if name in mine["fits"] else mine["reasons"].get(name)
    said = [[answered(p, n) for n in nodes] for p in pods]

    def agreement(mistake: str) -> int:
        m = frozenset((mistake,))
        prepped = [_prep_node(n, m) for n in nodes]
        return sum(_reason(pp, pn, m) == a for p, row in zip(pods, said)
                   for pp in (_prep_pod(p, m),) for pn, a in zip(prepped, row))
    return fit_answers.likely_mistake(found, MISTAKES, agreement)


def _facts(node: dict, pod: dict, reason) -> str:
    """The node's and the pod's facts a reason rests on, as a person checks them."""
    spec = pod["spec"]
    if reason is None:
        return ""
    if reason == "unschedulable":
        return "the node is cordoned"
    if reason.startswith("untolerated taint"):
        taints = [f"{t['key']}{'=' + t['value'] if t.get('value') else ''}:{t['effect']}"
                  for t in (node.get("spec") or {}).get("taints") or ()]
        return f"node taints {taints}, pod tolerations {short(spec.get('tolerations') or [])}"
    if reason == "node affinity":
        asked = dict(spec.get("nodeSelector") or {})
        na = (spec.get("affinity") or {}).get("nodeAffinity") or {}
        req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
        keys = set(asked) | {e["key"] for t in (req or {}).get("nodeSelectorTerms", ()) for e in
                             t.get("matchExpressions") or ()}
        labels = {k: v for k, v in (node["metadata"].get("labels") or {}).items() if k in keys}
        terms = "" if req is None else f", required terms {short(req['nodeSelectorTerms'])}"
        return f"node labels {labels}, pod nodeSelector {asked}{terms}"
    if reason == "too many pods":
        return (f"the node holds {node.get('allocated', {}).get('pods', 0)} pods of "
                f"{node['status']['allocatable'].get('pods', 0)}")
    if not reason.startswith("insufficient "):
        return ""       # a reason the statement does not give: nothing to show for it
    resource = reason.split(" ", 1)[1]
    need = _requests(spec).get(resource, 0)
    alloc = node["status"]["allocatable"].get(resource, 0)
    used = (node.get("allocated") or {}).get(resource, 0)
    return (f"the pod requests {_amount(resource, need)} {resource}; the node has {alloc} allocatable, "
            f"{used} allocated, {_amount(resource, milli(alloc) - milli(used))} left")


def _amount(resource: str, thousandths: int) -> str:
    if resource == "cpu":
        return f"{thousandths}m"
    if resource == "memory":
        b = thousandths // 1000
        return f"{b // 2**20}Mi" if b % 2**20 == 0 else f"{b} bytes ({b / 2**30:.2f}Gi)"
    return f"{Fraction(thousandths, 1000)}"


def show(args: dict) -> str:
    nodes, pods = args["nodes"], args["pods"]
    gpus = sum(milli(n["status"]["allocatable"].get(GPU, 0)) // 1000 for n in nodes)
    mig = sum(1 for n in nodes if any(r.startswith("nvidia.com/mig-") for r in n["status"]["allocatable"]))
    cordoned = sum(1 for n in nodes if (n.get("spec") or {}).get("unschedulable"))
    return (f"{len(nodes)} nodes ({gpus} GPUs, {mig} MIG nodes, {cordoned} cordoned); {len(pods)} pods: "
            + ", ".join(p["metadata"]["name"] for p in pods[:4]) + (", ..." if len(pods) > 4 else ""))
