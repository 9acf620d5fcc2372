"""`gpu_placement`: place prioritized GPU jobs on a fragmented cluster, NVLink jobs inside one
NVLink domain (the contract in TASKS-TRACKS.md). Python; quality scored against best fit."""
from __future__ import annotations

from numbers import Integral

import numpy as np

from .model import FunctionTask, cases

STATEMENT = """Place GPU jobs on a cluster whose GPUs are already partly taken, the way a
topology-aware scheduler does.

```python
def place(nodes, jobs) -> dict:
    # nodes: [{"id": "n1", "free": [0, 1, 2, 5], "nvlink": [[0, 1, 2, 3], [4, 5, 6, 7]]}, ...]
    # jobs, highest priority first: [{"id": "j1", "gpus": 4, "nvlink": true}, ...]
    # returns {job_id: [node_id, [gpu indices]]} for the jobs placed
```

A node lists the indices of its `free` GPUs and its NVLink domains, the groups of GPUs joined by
NVLink (two of four on some 8-GPU boards, one of eight behind NVSwitch, pairs of PCIe cards
joined by bridges, none on plain PCIe). A GPU may lie in no domain.

Return one entry per job you place; a job you leave out waits for the next round. A placed job
must get:

- exactly `gpus` distinct GPUs, all of one node and all in that node's `free` list;
- GPUs no other placed job gets (a GPU serves one job);
- with `"nvlink": true`, GPUs that all lie in one NVLink domain of that node.

Keys are the jobs' ids and nodes are named by their ids; an unknown id, a wrong count, a GPU that
is taken or shared, or an NVLink job spread over domains is a wrong answer, named with the job,
the node and the GPUs. Jobs ask for 1, 2, 4 or 8 GPUs; the hidden clusters have up to 192 nodes
and 800 jobs, and always more demand than free GPUs, so some jobs must wait.

**Scoring.** 60 points when every hidden placement follows the rules. Up to 40 more for its
value: with `J` jobs ranked 0 (first) to `J - 1`, a placement is worth the sum over placed jobs
of `gpus x (J - rank)`, so an early job counts more than a late one of the same size. You get
40 x min(1, your value / the reference's value), averaged over the hidden clusters. The reference
is best fit in priority order: each job goes to the node (an NVLink job: the NVLink domain) with
the fewest free GPUs that still fit it, a job without NVLink taking GPUs outside domains and in
the fullest domains first, so that whole domains stay free for NVLink jobs."""

PYTHON_STARTER = '''def place(nodes, jobs):
    """nodes: [{"id", "free", "nvlink"}]; jobs, highest priority first: [{"id", "gpus", "nvlink"}].
    Returns {job_id: [node_id, [gpu indices]]} for the jobs placed."""
    placement = {}
    for job in jobs:
        for node in nodes:
            if len(node["free"]) >= job["gpus"]:
                # TODO: a GPU serves one job; an NVLink job stays inside one NVLink domain
                placement[job["id"]] = [node["id"], node["free"][:job["gpus"]]]
                break
    return placement
'''

PYTHON_SIGNATURE = "def place(nodes, jobs) -> dict"

NODE_KINDS = {     # the NVLink domains of each kind of 8-GPU (or 4-GPU) node
    "two_quads": [[0, 1, 2, 3], [4, 5, 6, 7]],
    "nvswitch": [list(range(8))],
    "pcie_bridged": [[0, 1], [2, 3], [4, 5], [6, 7]],
    "pcie": [],
}
MIXES = {"two_quads": {"two_quads": 1.0},
         "mixed": {"two_quads": 0.5, "nvswitch": 0.2, "pcie_bridged": 0.2, "pcie": 0.1}}
JOB_SIZES = (1, 2, 4, 8)


def _dims(nodes: int, jobs: int, mix: str = "two_quads") -> dict:
    return {"nodes": nodes, "jobs": jobs, "mix": mix}


# A wrong answer's report shows the judge's answer as one right answer, not the only one.
MANY_ANSWERS = True

TASK = FunctionTask(
    slug="gpu_placement", title="Topology-aware GPU placement", difficulty="medium",
    track="infrastructure", skills=("gpu_scheduling", "nvlink", "python"),
    summary="Place prioritized GPU jobs on a fragmented cluster, NVLink jobs inside one NVLink domain.",
    statement=STATEMENT, function="place",
    python_signature=PYTHON_SIGNATURE, cpp_signature=None, languages=("python",),
    tests={"cpu": cases(
        ("one_node", _dims(1, 6)),
        ("rack", _dims(4, 16)),
        ("pod", _dims(32, 120)),
        ("mixed_fleet", _dims(48, 200, "mixed")),
        ("cluster", _dims(128, 500)),
        ("mixed_cluster", _dims(192, 800, "mixed")),
    )},
    samples=cases(("sample_two_nodes", _dims(2, 6)), ("sample_mixed", _dims(4, 10, "mixed"))),
    starters={"python": PYTHON_STARTER},
    performance=("quality",), quality_goal="max",
)


# ---- inputs -------------------------------------------------------------------------------------
def generate(rng: np.random.Generator, dims: dict) -> list[dict]:
    """One cluster state: nodes fragmented by running jobs, and a queue asking for more GPUs
    than are free, where at least one job fits (so every state has a value to compare)."""
    while True:
        state = _cluster_state(rng, dims)
        if reference(state):
            return [state]


def _cluster_state(rng: np.random.Generator, dims: dict) -> dict:
    kinds, weights = zip(*MIXES[dims["mix"]].items())
    nodes = []
    for k in range(int(dims["nodes"])):
        kind = str(rng.choice(kinds, p=weights))
        count = 4 if kind == "pcie" else 8
        nodes.append({"id": f"gpu-r{k // 16 + 1:02d}-n{k % 16 + 1:02d}",
                      "free": _fragmented(rng, count),
                      "nvlink": [list(d) for d in NODE_KINDS[kind]]})
    rng.shuffle(nodes)
    free = sum(len(n["free"]) for n in nodes)
    jobs, asked = [], 0
    first = int(rng.integers(1, 9000))
    for j in range(int(dims["jobs"])):
        gpus = int(rng.choice(JOB_SIZES, p=(0.35, 0.25, 0.25, 0.15)))
        jobs.append({"id": f"job-{first + j:04d}", "gpus": gpus,
                     "nvlink": bool(gpus > 1 and rng.random() < 0.6)})
        asked += gpus
    if asked <= free:    # more demand than supply: a last burst of large jobs
        jobs += [{"id": f"job-{first + len(jobs) + i:04d}", "gpus": 8, "nvlink": False}
                 for i in range((free - asked) // 8 + 2)]
    return {"nodes": nodes, "jobs": jobs}


def _fragmented(rng: np.random.Generator, count: int) -> list[int]:
    """The free GPUs of a node after running jobs of 1, 2 and 4 GPUs took some of them: a node
    may be idle, full or anything between."""
    target = float(rng.choice([0.0, 0.25, 0.5, 0.7, 1.0], p=(0.15, 0.25, 0.3, 0.2, 0.1)))
    busy: set[int] = set()
    while len(busy) < target * count:
        size = int(rng.choice([1, 2, 4]))
        start = int(rng.integers(0, count - size + 1))
        busy.update(range(start, start + size))
    return [g for g in range(count) if g not in busy]


# ---- the reference ------------------------------------------------------------------------------
def reference(args: dict) -> dict:
    """Best fit in priority order (the statement's reference)."""
    free = {n["id"]: set(n["free"]) for n in args["nodes"]}
    placement = {}
    for job in args["jobs"]:
        g = job["gpus"]
        options = []    # (tightness..., node order, node, the GPUs it offers)
        for order, node in enumerate(args["nodes"]):
            avail = free[node["id"]]
            if len(avail) < g:
                continue
            if job["nvlink"]:
                for domain in node["nvlink"]:
                    inside = sorted(avail.intersection(domain))
                    if len(inside) >= g:
                        options.append((len(inside), len(avail), order, node["id"], inside[:g]))
            else:
                options.append((len(avail), 0, order, node["id"], _fullest_first(node, avail)[:g]))
        if options:
            *_, node_id, gpus = min(options)
            free[node_id].difference_update(gpus)
            placement[job["id"]] = [node_id, gpus]
    return placement


def _fullest_first(node: dict, avail: set[int]) -> list[int]:
    """A node's free GPUs, those in no domain first, then by how few free GPUs their domain has."""
    domain_free = {}
    for domain in node["nvlink"]:
        left = len(avail.intersection(domain))
        domain_free.update({gpu: left for gpu in domain})
    return sorted(avail, key=lambda gpu: (domain_free.get(gpu, -1), gpu))


# ---- checking -----------------------------------------------------------------------------------
def check(args: dict, expected: dict, actual) -> str | None:
    if not isinstance(actual, dict):
        return (f"place returned {type(actual).__name__}, expected a dict "
                "{job_id: [node_id, [gpu indices]]} of the jobs placed")
    jobs = {job["id"]: job for job in args["jobs"]}
    nodes = {node["id"]: node for node in args["nodes"]}
    for key in actual:
        if key not in jobs:
            hint = (" (keys are job ids such as " f"{args['jobs'][0]['id']!r}, not positions)"
                    if isinstance(key, Integral) or str(key).isdigit() else "")
            return f"{key!r} is not the id of a job{hint}"
    holder: dict[tuple[str, int], str] = {}
    for job in args["jobs"]:     # in priority order, so a clash names the earlier job first
        if job["id"] in actual:
            wrong = _check_job(job, actual[job["id"]], nodes, holder)
            if wrong:
                return wrong
    return None


def _check_job(job: dict, value, nodes: dict, holder: dict) -> str | None:
    jid, g = job["id"], job["gpus"]
    if not (isinstance(value, (list, tuple)) and len(value) == 2 and isinstance(value[1], (list, tuple))):
        return f"job {jid!r} is placed as {value!r}; expected [node_id, [gpu indices]]"
    node_id, gpus = value
    if node_id not in nodes:
        return f"job {jid!r} is placed on node {node_id!r}, which is not in the cluster"
    node = nodes[node_id]
    where = f"job {jid!r} on node {node_id!r}"
    if not all(isinstance(x, Integral) and not isinstance(x, bool) for x in gpus):
        return f"{where} gets {list(gpus)!r}; GPUs are named by their integer indices"
    gpus = [int(x) for x in gpus]
    if len(gpus) != g:
        return f"{where} gets {len(gpus)} GPUs {gpus} but asks for {g}"
    if len(set(gpus)) != g:
        twice = next(x for x in gpus if gpus.count(x) > 1)
        return f"{where} gets GPU {twice} twice ({gpus}); it needs {g} distinct GPUs"
    for x in gpus:
        if x not in node["free"]:
            return (f"{where} gets GPU {x}, which is not free (free: {node['free']}): a running "
                    "job holds it")
        if (node_id, x) in holder:
            return (f"GPU {x} of node {node_id!r} goes to job {holder[node_id, x]!r} and to job "
                    f"{jid!r}; a GPU serves one job: once given to a job it is no longer free")
    if job["nvlink"]:
        if not any(set(gpus) <= set(d) for d in node["nvlink"]):
            return f"{where} needs NVLink but gets GPUs {sorted(gpus)}: {_spread(node, gpus)}"
    holder.update({(node_id, x): jid for x in gpus})
    return None


def _spread(node: dict, gpus: list[int]) -> str:
    if not node["nvlink"]:
        return "the node has no NVLink, so an NVLink job cannot run there"
    outside = [x for x in gpus if not any(x in d for d in node["nvlink"])]
    if outside:
        return f"GPU {outside[0]} is in no NVLink domain (domains: {node['nvlink']})"
    touched = [d for d in node["nvlink"] if set(d) & set(gpus)]
    return (f"they span the NVLink domains {' and '.join(map(str, touched))}; all must lie in "
            "one domain, so a job larger than every domain with room has to wait or go elsewhere")


def quality(args: dict, actual: dict) -> float:
    """The contract's value: the sum over placed jobs of gpus x (J - rank)."""
    n = len(args["jobs"])
    return float(sum(job["gpus"] * (n - rank) for rank, job in enumerate(args["jobs"])
                     if job["id"] in actual))


def show(args: dict) -> str:
    """The cluster state as a person reads it: its size and the first jobs in the queue."""
    nodes, jobs = args["nodes"], args["jobs"]
    free = sum(len(n["free"]) for n in nodes)
    asked = sum(j["gpus"] for j in jobs)
    first = ", ".join(f"{j['id']} {j['gpus']} GPU{'s' if j['gpus'] > 1 else ''}"
                      f"{' NVLink' if j['nvlink'] else ''}" for j in jobs[:4])
    more = f", ... ({len(jobs) - 4} more)" if len(jobs) > 4 else ""
    return (f"{len(nodes)} nodes with {free} free GPUs; {len(jobs)} jobs asking for {asked} GPUs "
            f"({sum(j['nvlink'] for j in jobs)} need NVLink): {first}{more}")
