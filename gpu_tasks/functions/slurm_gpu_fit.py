"""`slurm_gpu_fit`: where Slurm could start each pending GPU job now, from `scontrol -d show node`
records and the jobs' `#SBATCH` headers (partitions, node states, features, GRES by type, CPUs
and memory left), with the first reason for every other node. Python."""
from __future__ import annotations

import random
import re

import numpy as np

from . import fit_answers
from .fit_answers import short, status
from .model import FunctionTask, cases

REASONS = ("partition", "state", "constraint", "exclusive", "gpus", "cpus", "memory")
BLOCKING = {"DRAIN", "FAIL", "MAINT", "RESERVED", "NOT_RESPONDING", "POWERED_DOWN"}

STATEMENT = """Decide where Slurm could start each pending single-node job right now, from the
nodes as `scontrol` prints them and the jobs' batch scripts.

```python
def fit(nodes, jobs) -> dict:
    # nodes: the text `scontrol -d show node` prints (records of indented lines, one per node,
    #        separated by blank lines) or `scontrol -d -o show node` (one line per node)
    # jobs: [{"id": "4210001", "script": "#!/bin/bash\\n#SBATCH --partition=gpu\\n..."}, ...]
    # returns {job_id: {"fits": [node names, sorted], "reasons": {node_name: reason}}}
```

**A node record** is `Key=value` words; only `OS=` and `Reason=` values hold spaces. The fields
that matter (a record holds many more):

```
NodeName=gpu017 Arch=x86_64 CoresPerSocket=32
   CPUAlloc=48 CPUEfctv=124 CPUTot=128 CPULoad=45.20
   AvailableFeatures=a100,a100_80gb,ib,nvlink
   ActiveFeatures=a100,a100_80gb,ib,nvlink
   Gres=gpu:a100:8(S:0-1)
   GresUsed=gpu:a100:3(IDX:0-1,4)
   RealMemory=1031000 AllocMem=393216 FreeMem=601234 Sockets=2 Boards=1
   CoreSpecCount=4 CPUSpecList=0-1,64-65 MemSpecLimit=8192
   State=MIXED ThreadsPerCore=1 TmpDisk=0 Weight=10 Owner=N/A MCS_label=N/A
   Partitions=gpu,a100,preempt
   Reason=Kill task failed [root@2024-05-14T03:12:55]
```

- CPUs a job can use: `CPUEfctv` where the record has it (`CPUTot` less the cores kept for the
  system), else `CPUTot`; free CPUs are that less `CPUAlloc`.
- Memory (megabytes) a job can use: `RealMemory` less `MemSpecLimit` (0 when absent); free memory
  is that less `AllocMem`. `FreeMem` is the operating system's view and plays no part.
- GPUs: `Gres` lists the node's GRES, comma-separated, each `name[:type]:count` with an optional
  `(S:...)`; only `gpu` entries count (`Gres=(null)`: none). `GresUsed` lists the GPUs taken the
  same way, each with `(IDX:...)` naming the indices (which may hold commas: `gpu:a100:3(IDX:0-1,4)`);
  a node without GPUs may have no `GresUsed`. Free GPUs of a type are its count less its used count.
- Features: `ActiveFeatures`, comma-separated (`(null)`: none). Partitions: `Partitions`.
- `State` is a base state, optionally `*` (not responding), then `+FLAG`s: `IDLE`, `MIXED`,
  `ALLOCATED`, `IDLE+DRAIN`, `MIXED+DRAIN`, `DOWN*`, `DOWN+DRAIN`, `IDLE*`, `MIXED+COMPLETING`,
  `IDLE+MAINT+RESERVED`... A node can take a job when its base state is `IDLE` or `MIXED`, no `*`
  follows it and it has none of the flags DRAIN, FAIL, MAINT, RESERVED, NOT_RESPONDING and
  POWERED_DOWN (other flags, such as COMPLETING, do not stop it).

**A job** is its script's `#SBATCH` lines: sbatch reads them from the top and stops at the first
line that is neither blank nor a comment (`#` lines); later `#SBATCH` lines are ignored, and so is
`##SBATCH` or `# SBATCH`. A line may hold several options; quotes around a value are removed. A
long option's value follows `=` or comes as the next word; a short option's value is the next word
or attached (`-c8`). When an option is given twice the last one counts. Other options (`-J`,
`--time`, `--output`, `--account`, ...) play no part. Every hidden job runs on one node (`-N 1`).

| Option | Meaning |
|---|---|
| `-p`, `--partition=gpu[,preempt]` | the partitions it may run in: one must be among the node's |
| `-n`, `--ntasks=N`, `--ntasks-per-node=N` | tasks (default 1) |
| `-c`, `--cpus-per-task=N` | CPUs per task (default 1); the job needs tasks x CPUs per task |
| `--mem=SIZE` | memory for the job |
| `--mem-per-cpu=SIZE` | memory per CPU it needs (each job gives `--mem` or `--mem-per-cpu`) |
| `--gres=gpu[:type][:N]` | N GPUs (default 1), of that type when given |
| `-G`, `--gpus=[type:]N`, `--gpus-per-node=[type:]N` | the same, written otherwise |
| `-C`, `--constraint=EXPR` | node features: names joined by `&` (and) and `\\|` (or), grouped by `( )` or `[ ]` (for one node `[a\\|b]` is `a\\|b`); a job never mixes `&` and `\\|` outside a group |
| `--exclusive` | the whole node: nothing may be allocated on it (CPUAlloc, AllocMem and used GPUs all 0) |

SIZE is a whole number of megabytes, or with a suffix `K`, `M`, `G`, `T` (powers of 1024: `64G`
is 65,536 MB).

**The checks**, in this order; a node's reason is the first that fails: `"partition"`,
`"state"`, `"constraint"`, `"exclusive"`, `"gpus"` (fewer free GPUs of the asked type, or of all
types together when none is asked, than it needs), `"cpus"`, `"memory"`. A job that needs exactly
what is free fits. Judge each job alone against the nodes as given.

`fits` holds every node that passes all checks, sorted as Python sorts strings; `reasons` every
other node with its reason. Jobs are keyed by `id`, nodes named by `NodeName`. A wrong answer names
the first job and node whose status differs, what was expected, what you answered, the facts
behind it and the likely mistake.

**Scoring.** 60 points when every hidden cluster is right: H100, A100, L40S and older untyped-GRES
GPU nodes, CPU and large-memory nodes, drained, down and reserved nodes; up to 2,000 nodes or
1,000 jobs. Up to 40 more for speed: 40 x min(1, 1.1 x reference time / your time) on the largest
cluster, both timed in the same judging (the reference parses every record and script once, then
checks every pair: about 0.1 s on the judge's machine)."""

PYTHON_STARTER = '''def fit(nodes, jobs):
    """nodes: `scontrol -d show node` text; jobs: [{"id", "script"}]. Returns
    {job_id: {"fits": [sorted node names], "reasons": {node_name: reason}}}."""
    names = [line.split()[0].split("=", 1)[1] for line in nodes.splitlines() if line.startswith("NodeName=")]
    answer = {}
    for job in jobs:
        # TODO: read the job's #SBATCH options, then check partition, state, constraint,
        # exclusive, GPUs, CPUs and memory on every node
        answer[job["id"]] = {"fits": sorted(names), "reasons": {}}
    return answer
'''

PYTHON_SIGNATURE = "def fit(nodes, jobs) -> dict"


def _dims(nodes: int, jobs: int, mix: str = "mixed", layout: str = "any", trouble: float = 1) -> dict:
    return {"nodes": nodes, "jobs": jobs, "mix": mix, "layout": layout, "trouble": trouble}


TASK = FunctionTask(
    slug="slurm_gpu_fit", title="Slurm GPU job fitting", difficulty="medium",
    track="infrastructure", skills=("slurm", "hpc", "gpu_scheduling", "python"),
    summary="Where Slurm could start each GPU job now, from scontrol node records and #SBATCH options.",
    statement=STATEMENT, function="fit",
    python_signature=PYTHON_SIGNATURE, cpp_signature=None, languages=("python",),
    tests={"cpu": cases(
        ("small_partition", _dims(8, 12, "gpu", "records")),
        ("drained_nodes", _dims(40, 50, "gpu", "lines", trouble=5)),
        ("gres_types", _dims(60, 80, "mixed", "records")),
        ("hpc_center", _dims(300, 150)),
        ("busy_queue", _dims(60, 1000)),
        ("large_cluster", _dims(2000, 30)),
    )},
    samples=cases(("sample_gpu", _dims(5, 6, "gpu", "records")), ("sample_mixed", _dims(8, 8, "mixed", "lines"))),
    starters={"python": PYTHON_STARTER},
)


# ---- hidden clusters -------------------------------------------------------------------------------
# A kind of node: name prefix, sockets, cores per socket, RealMemory (MB), GPUs [(type, count,
# sockets)], features, partitions.
NODE_KINDS = {
    "h100": ("hgx-h100-", 2, 56, 2063000, [("h100", 8, "0-1")], "h100,hopper,ib,nvlink,sapphirerapids",
             "gpu,h100,preempt"),
    "a100": ("gpu-a100-", 2, 64, 1031000, [("a100", 8, "0-1")], "a100,a100_80gb,ampere,ib,nvlink,milan",
             "gpu,a100,preempt"),
    "a100_40": ("gpu-a40g-", 2, 32, 515000, [("a100", 4, "0-1")], "a100_40gb,ampere,ib,rome", "gpu,gpu-long,preempt"),
    "l40s": ("l40s-", 1, 64, 515000, [("l40s", 4, "0")], "l40s,ada,pcie,genoa", "gpu,interactive,preempt"),
    "viz": ("viz-", 1, 32, 257000, [("l40s", 2, "0"), ("a10", 2, "0")], "l40s,a10,pcie,viz", "interactive,gpu-long"),
    "v100": ("v100-", 2, 20, 385000, [("", 4, "0-1")], "v100,volta,skylake", "gpu-legacy,preempt"),
    "cpu": ("cn", 2, 96, 770000, [], "cpu,genoa,avx512", "cpu,preempt"),
    "bigmem": ("bigmem-", 2, 64, 4126000, [], "cpu,bigmem,icelake,avx512", "bigmem,cpu-long"),
}
MIXES = {"gpu": {"h100": 4, "a100": 4, "a100_40": 2, "l40s": 2, "cpu": 1},
         "mixed": {"h100": 2, "a100": 2, "a100_40": 1, "l40s": 2, "viz": 1, "v100": 2, "cpu": 5, "bigmem": 1}}
STATES = {"IDLE": 28, "MIXED": 36, "ALLOCATED": 10, "IDLE+DRAIN": 4, "MIXED+DRAIN": 4, "ALLOCATED+DRAIN": 1,
          "DOWN*": 3, "DOWN+DRAIN": 2, "IDLE*": 1, "MIXED+COMPLETING": 4, "IDLE+RESERVED": 2,
          "IDLE+MAINT+RESERVED": 1}
DRAIN_REASONS = ("Kill task failed", "NHC: check_hw_ib: No IB port mlx5_0:1 is ACTIVE",
                 "gres/gpu count reported lower than configured (7 < 8)", "Not responding",
                 "xid 79 on gpu 3, rma ticket=INC0042193", "maintenance: BMC firmware update")
JOB_MIXES = {"gpu": {"train": 5, "small": 3, "cpu": 1}, "mixed": {"train": 3, "small": 2, "cpu": 3, "bigmem": 1}}


def generate(rng: np.random.Generator, dims: dict) -> list[dict]:
    """One cluster: nodes of the mix in one Slurm version's record layout, busy, drained, down or
    reserved; pending jobs whose scripts ask as people write them, some sized to a node's free room."""
    r = random.Random(int(rng.integers(1 << 62)))
    layout = dims["layout"] if dims["layout"] != "any" else r.choice(("records", "records", "lines"))
    modern = r.random() < 0.7          # Slurm 23: CPUEfctv and cores kept for the system
    kinds, weights = zip(*MIXES[dims["mix"]].items())
    trouble = float(dims.get("trouble", 1))
    states, state_weights = zip(*STATES.items())
    state_weights = [w * (trouble if s not in ("IDLE", "MIXED", "ALLOCATED") else 1) for s, w in zip(states, state_weights)]
    counters: dict = {}
    nodes = []
    for _ in range(int(dims["nodes"])):
        kind = r.choices(kinds, weights)[0]
        counters[kind] = counters.get(kind, 0) + 1
        nodes.append(_node_facts(r, kind, counters[kind], r.choices(states, state_weights)[0], modern))
    r.shuffle(nodes)
    text = ("\n" if layout == "lines" else "\n\n").join(_render(r, n, layout, modern) for n in nodes) + "\n"
    job_kinds, job_weights = zip(*JOB_MIXES[dims["mix"]].items())
    first = r.randrange(4_000_000, 9_000_000)
    jobs = [{"id": str(first + j), "script": _script(r, r.choices(job_kinds, job_weights)[0], nodes)}
            for j in range(int(dims["jobs"]))]
    return [{"nodes": text, "jobs": jobs}]


def _node_facts(r: random.Random, kind: str, index: int, state: str, modern: bool) -> dict:
    prefix, sockets, cores, real, gpus, features, partitions = NODE_KINDS[kind]
    total = sockets * cores
    spec = r.choice((0, 0, 2, 4)) if modern else 0
    memspec = r.choice((0, 0, 8192, 16384))
    usable_cpu, usable_mem = total - spec, real - memspec
    base = state.split("+")[0].rstrip("*")
    used = {t: 0 for t, _, _ in gpus}
    cpu_alloc = mem_alloc = 0
    if base in ("MIXED", "ALLOCATED"):
        cpu_alloc = usable_cpu if base == "ALLOCATED" else r.randint(1, usable_cpu - 1)
        if r.random() < 0.3:      # sized so some job fits to the megabyte
            mem_alloc = usable_mem - r.choice((1024, 65536, 131072, 262144))
        else:
            mem_alloc = min(usable_mem, r.randrange(0, usable_mem, 1024) if r.random() < 0.5 else r.randrange(0, usable_mem))
        for t, n, _ in gpus:
            used[t] = r.randint(0, n)
    return {"name": f"{prefix}{index:03d}" if kind != "cpu" else f"cn{index:04d}", "kind": kind, "state": state,
            "total": total, "spec": spec, "cpu_alloc": cpu_alloc, "real": real, "memspec": memspec,
            "mem_alloc": max(mem_alloc, 0), "gpus": gpus, "used": used, "features": features,
            "partitions": partitions, "sockets": sockets, "cores": cores}


def _ranges(indices: list[int]) -> str:
    out, i = [], 0
    while i < len(indices):
        j = i
        while j + 1 < len(indices) and indices[j + 1] == indices[j] + 1:
            j += 1
        out.append(str(indices[i]) if i == j else f"{indices[i]}-{indices[j]}")
        i = j + 1
    return ",".join(out)


def _render(r: random.Random, n: dict, layout: str, modern: bool) -> str:
    """The node as `scontrol -d show node` prints it (`lines`: as `-o` does)."""
    name, eff = n["name"], n["total"] - n["spec"]
    gres, used, tres, first = [], [], "", 0
    for t, count, sockets in n["gpus"]:
        typed = f"gpu:{t}:" if t else "gpu:"
        gres.append(f"{typed}{count}(S:{sockets})")
        taken = sorted(r.sample(range(first, first + count), n["used"][t]))
        used.append(f"{typed}{n['used'][t]}(IDX:{_ranges(taken) if taken else 'N/A'})")
        first += count
    n_gpus = sum(c for _, c, _ in n["gpus"])
    if n_gpus:
        tres = f",gres/gpu={n_gpus}" + "".join(f",gres/gpu:{t}={c}" for t, c, _ in n["gpus"] if t)
    used_gpus = sum(n["used"].values())
    alloc_tres = (f"cpu={n['cpu_alloc']},mem={n['mem_alloc']}M" + (f",gres/gpu={used_gpus}" if used_gpus else "")
                  if n["cpu_alloc"] else "")
    load = n["cpu_alloc"] * r.uniform(0.3, 1.0)
    lines = [f"NodeName={name} Arch=x86_64 CoresPerSocket={n['cores']}",
             f"CPUAlloc={n['cpu_alloc']}" + (f" CPUEfctv={eff}" if modern else "") + f" CPUTot={n['total']} CPULoad={load:.2f}",
             f"AvailableFeatures={n['features']}", f"ActiveFeatures={n['features']}",
             f"Gres={','.join(gres) or '(null)'}"]
    if gres:
        lines.append(f"GresUsed={','.join(used)}")
    lines += [f"NodeAddr={name} NodeHostName={name} Version={'23.02.7' if modern else '21.08.8'}",
              "OS=Linux 5.15.0-105-generic #115-Ubuntu SMP Mon Apr 15 09:52:04 UTC 2024 ",
              f"RealMemory={n['real']} AllocMem={n['mem_alloc']} FreeMem={r.randrange(n['real'] // 4, n['real'])} "
              f"Sockets={n['sockets']} Boards=1"]
    spec = []
    if n["spec"]:
        half = n["spec"] // 2
        cores = f"0,{n['cores']}" if half == 1 else f"0-{half - 1},{n['cores']}-{n['cores'] + half - 1}"
        spec.append(f"CoreSpecCount={n['spec']} CPUSpecList={cores}")
    if n["memspec"]:
        spec.append(f"MemSpecLimit={n['memspec']}")
    if spec:
        lines.append(" ".join(spec))
    lines += [f"State={n['state']} ThreadsPerCore=1 TmpDisk=0 Weight={10 if n_gpus else 1} Owner=N/A MCS_label=N/A",
              f"Partitions={n['partitions']} ",
              "BootTime=2024-05-02T11:20:13 SlurmdStartTime=2024-05-02T11:22:40"]
    if modern:
        lines.append("LastBusyTime=2024-05-14T08:01:55 ResumeAfterTime=None")
    lines += [f"CfgTRES=cpu={eff},mem={n['real']}M,billing={eff}{tres}", f"AllocTRES={alloc_tres}",
              "CapWatts=n/a", "CurrentWatts=0 AveWatts=0", "ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s"]
    if any(s in n["state"] for s in ("DRAIN", "DOWN", "*", "MAINT")):
        why = "Not responding" if "*" in n["state"] else r.choice(DRAIN_REASONS)
        lines.append(f"Reason={why} [{'slurm' if '*' in n['state'] else 'root'}@2024-05-14T03:12:55]")
    if layout == "lines":
        return " ".join(line.strip() for line in lines)
    return "\n".join([lines[0]] + ["   " + line for line in lines[1:]])


def _free(n: dict) -> tuple[int, int, dict]:
    gpus = {t: c - n["used"][t] for t, c, _ in n["gpus"]}
    return n["total"] - n["spec"] - n["cpu_alloc"], n["real"] - n["memspec"] - n["mem_alloc"], gpus


def _script(r: random.Random, kind: str, nodes: list) -> str:
    """A batch script whose #SBATCH header asks for one node the way people write it."""
    opts: list[tuple[str, str | None, str]] = []      # (long name, short name, value)
    exact = r.choice(nodes) if r.random() < 0.3 else None
    free_cpu, free_mem, free_gpus = _free(exact) if exact else (0, 0, {})
    if kind in ("train", "small"):
        part = r.choice(("gpu", "gpu", "h100", "a100", "gpu,preempt", "gpu-long")) if kind == "train" else \
            r.choice(("interactive", "gpu", "gpu,interactive"))
        kind_of = r.choice((None, None, "h100", "a100", "l40s")) if kind == "train" else r.choice((None, "l40s"))
        count = r.choice((1, 2, 4, 8, 8)) if kind == "train" else r.choice((1, 1, 2))
        if exact and free_gpus and r.random() < 0.7:
            kind_of = r.choice(list(free_gpus)) or None
            count = max(1, free_gpus[kind_of or ""] if kind_of else sum(free_gpus.values()))
        typed = f"{kind_of}:" if kind_of else ""
        opts.append(r.choice((("gres", None, f"gpu:{typed}{count}"), ("gres", None, f"gpu:{typed}{count}"),
                              ("gpus-per-node", None, f"{typed}{count}"), ("gpus", "G", f"{typed}{count}"))))
        if count == 1 and not kind_of and r.random() < 0.3:
            opts[-1] = ("gres", None, "gpu")
        tasks, per_task = (count, r.choice((4, 8, 12, 16))) if r.random() < 0.5 else (1, r.choice((8, 16, 32, 64)))
        if r.random() < 0.5:
            opts.append(r.choice((("ntasks", "n", str(tasks)), ("ntasks-per-node", None, str(tasks)))))
        else:
            tasks = 1
        if r.random() < 0.4:
            opts.append(("constraint", "C", r.choice(("a100", "h100|a100", "[h100|a100]", "ib&nvlink",
                                                      "(a100|h100)&ib", "a100_80gb", "hopper", "l40s|a10"))))
        if r.random() < 0.12:
            opts.append(("exclusive", None, ""))
    else:
        part = r.choice(("cpu", "cpu,preempt", "cpu")) if kind == "cpu" else r.choice(("bigmem", "bigmem,cpu-long"))
        tasks, per_task = r.choice(((32, 1), (64, 1), (1, 32), (8, 8), (192, 1), (96, 2)))
        if kind == "bigmem":
            tasks, per_task = 1, r.choice((32, 64))
        opts.append(("ntasks", "n", str(tasks)))
        if r.random() < 0.4:
            opts.append(("constraint", "C", r.choice(("genoa", "icelake|genoa", "avx512", "bigmem"))))
    if exact and r.random() < 0.5:
        tasks, per_task = 1, max(1, free_cpu)
        opts = [o for o in opts if o[0] not in ("ntasks", "ntasks-per-node")]
    opts.append(("cpus-per-task", "c", str(per_task)))
    cpus = tasks * per_task
    if exact and free_mem > 0 and r.random() < 0.6:
        opts.append(("mem", None, f"{free_mem // 1024}G" if free_mem % 1024 == 0 else str(free_mem)))
    elif kind == "bigmem":
        opts.append(("mem", None, r.choice(("2T", "3500G", "1500000"))))
    elif r.random() < 0.5:
        opts.append(("mem", None, r.choice(("32G", "128G", "480G", "250000", "1T", "900G"))))
    else:
        opts.append(("mem-per-cpu", None, r.choice(("2000", "4G", "8G", "16G"))))
    opts.append(("partition", "p", part))
    if cpus and kind == "cpu" and r.random() < 0.2:
        opts.append(("nodes", "N", "1"))
    return _write(r, opts)


def _write(r: random.Random, opts: list) -> str:
    r.shuffle(opts)
    words = [_word(r, *o) for o in opts]
    lines = ["#!/bin/bash", f"#SBATCH --job-name={r.choice(('llama-ft', 'sdxl-train', 'md-sim', 'cryo-em', 'eval'))}"]
    if r.random() < 0.3:       # a template's partition, overridden further down
        lines.append(f"#SBATCH -p {r.choice(('debug', 'cpu', 'gpu-long'))}")
    i = 0
    while i < len(words):
        take = 2 if r.random() < 0.2 else 1
        lines.append("#SBATCH " + " ".join(words[i:i + take]))
        if r.random() < 0.15:
            lines.append(r.choice(("# ask for the GPUs below", "##SBATCH --exclusive", "# SBATCH --gres=gpu:8", "")))
        i += take
    lines += [f"#SBATCH --time={r.choice(('04:00:00', '2-00:00:00', '30:00'))}", "#SBATCH --output=%x-%j.out", "",
              "set -euo pipefail", "module load cuda/12.4 nccl"]
    if r.random() < 0.2:
        lines.append(r.choice(("#SBATCH --gres=gpu:8", "#SBATCH --exclusive", "#SBATCH -p bigmem")))
    lines.append("srun python train.py --config configs/run.yaml")
    return "\n".join(lines) + "\n"


def _word(r: random.Random, long: str, short: str | None, value: str) -> str:
    if long == "exclusive":
        return "--exclusive"
    if long == "constraint" and r.random() < 0.5:
        value = f'"{value}"' if r.random() < 0.7 else f"'{value}'"
    form = r.random()
    if short and form < 0.25:
        return f"-{short} {value}"
    if short and form < 0.35 and "'" not in value and '"' not in value:
        return f"-{short}{value}"
    return f"--{long}={value}" if form < 0.85 else f"--{long} {value}"


# ---- reading the text ----------------------------------------------------------------------------
FIELD = re.compile(r"(\w+)=(\S*)")
RECORD = re.compile(r"(?m)^(?=NodeName=)")
NODE_NAME = re.compile(r"(?m)^NodeName=(\S*)")   # each record opens with its node's name
UNITS = {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 ** 2}
# Mistakes the checker can replay on one job and node to name what went wrong (none: the rules);
# where several give the same answer, the narrower ones come first.
MISTAKES = {
    "drain_as_idle": "IDLE+DRAIN and MIXED+DRAIN are drained: no new job starts there",
    "star_ignored": "a * after the state (IDLE*, DOWN*) means the node is not responding: it takes no job",
    "completing_blocks": "COMPLETING does not stop a node from taking a job",
    "reserved_ok": "a RESERVED or MAINT node takes no job from outside its reservation",
    "allocated_ok": "an ALLOCATED node takes no new job",
    "partition_substring": "partitions are compared whole: gpu is not gpu-long",
    "feature_substring": "features are compared whole: a100 is not a100_40gb",
    "cputot": "CPUEfctv (CPUTot less the cores kept for the system) is what jobs can use",
    "memspec_ignored": "MemSpecLimit is kept for the system: jobs get RealMemory - MemSpecLimit",
    "freemem": "FreeMem plays no part: free memory is RealMemory - MemSpecLimit - AllocMem",
    "gres_used_ignored": "the GPUs in GresUsed are taken",
    "type_ignored": "a typed request (gpu:h100:4) needs free GPUs of that type",
    "mem_per_cpu_once": "--mem-per-cpu is per CPU: the job needs it times tasks x CPUs per task",
    "mem_decimal": "size suffixes are powers of 1024: 64G is 65,536 MB",
    "ntasks_ignored": "a job needs tasks x CPUs per task CPUs",
    "late_sbatch": "sbatch stops reading #SBATCH lines at the first command",
    "first_wins": "an option given twice: the last one counts",
    "exclusive_ignored": "--exclusive needs a node with nothing allocated",
    "strict_fit": "a job that needs exactly what is free fits",
}


def records(text: str) -> list[dict]:
    """Each node's fields, in order (a word of OS= or Reason= holding `=` may add a stray key)."""
    out = []
    for chunk in RECORD.split(text):
        if chunk.strip():
            fields: dict = {}
            for key, value in FIELD.findall(chunk):
                fields.setdefault(key, value)
            out.append(fields)
    return out


def _gres(text: str | None) -> dict:
    """{type or "": count} of a Gres or GresUsed value's gpu entries."""
    out: dict = {}
    if not text or text == "(null)":
        return out
    for entry in re.split(r",(?![^(]*\))", text):      # commas inside (IDX:0-1,4) do not split
        parts = entry.split("(", 1)[0].split(":")
        if parts[0] != "gpu":
            continue
        kind, count = (parts[1], parts[2]) if len(parts) == 3 else ("", parts[1] if len(parts) == 2 else "1")
        out[kind] = out.get(kind, 0) + int(count)
    return out


def _node(fields: dict, m=frozenset()) -> tuple:
    state = fields["State"]
    base, *flags = state.split("+")
    star = base.endswith("*")
    base = base.rstrip("*")
    blocking = set(BLOCKING)
    if "drain_as_idle" in m:
        blocking.discard("DRAIN")
    if "reserved_ok" in m:
        blocking -= {"RESERVED", "MAINT"}
    if "completing_blocks" in m:
        blocking.add("COMPLETING")
    bases = ("IDLE", "MIXED", "ALLOCATED") if "allocated_ok" in m else ("IDLE", "MIXED")
    available = base in bases and (not star or "star_ignored" in m) and not blocking.intersection(flags)
    cpus = int(fields["CPUTot"] if "cputot" in m else fields.get("CPUEfctv", fields["CPUTot"]))
    cpu_alloc = int(fields["CPUAlloc"])
    spec = 0 if "memspec_ignored" in m else int(fields.get("MemSpecLimit", 0) or 0)
    mem_free = (int(fields["FreeMem"]) if "freemem" in m
                else int(fields["RealMemory"]) - spec - int(fields["AllocMem"]))
    total, used = _gres(fields.get("Gres")), _gres(fields.get("GresUsed"))
    if "gres_used_ignored" in m:
        used = {}
    free_gpus = {k: n - used.get(k, 0) for k, n in total.items()}
    empty = cpu_alloc == 0 and int(fields["AllocMem"]) == 0 and not any(used.values())
    features = frozenset(_list(fields.get("ActiveFeatures")))
    partitions = frozenset(_list(fields.get("Partitions")))
    return (fields["NodeName"], partitions, available, features, empty, free_gpus, sum(free_gpus.values()),
            cpus - cpu_alloc, mem_free)


def _list(value: str | None) -> list[str]:
    return [] if not value or value == "(null)" else value.split(",")


def _size(text: str, m=frozenset()) -> float:
    """A --mem size in megabytes."""
    match = re.fullmatch(r"(\d+)([KMGTkmgt]?)", text)
    number, unit = int(match[1]), (match[2] or "M").upper()
    if "mem_decimal" in m:
        return number * {"K": 1 / 1000, "M": 1, "G": 1000, "T": 1000 ** 2}[unit]
    return number * UNITS[unit]


LONG = {"partition": "p", "ntasks": "n", "ntasks-per-node": "n", "cpus-per-task": "c", "mem": "mem",
        "mem-per-cpu": "mem-per-cpu", "gres": "gres", "gpus": "gpus", "gpus-per-node": "gpus",
        "constraint": "C", "exclusive": "exclusive", "nodes": "N"}
SHORT_VALUED = set("pncCGNJtoeAqw")
LONG_FLAGS = {"exclusive", "requeue", "no-requeue", "overcommit", "hold", "wait", "parsable"}


def options(script: str, m=frozenset()) -> dict:
    """The #SBATCH options that matter, by their short names, the last of each kept."""
    words: list[str] = []
    for line in script.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#!"):
            continue
        if not stripped.startswith("#"):
            if "late_sbatch" in m:
                continue
            break
        if line.startswith("#SBATCH"):
            words += [w.replace('"', "").replace("'", "") for w in line[len("#SBATCH"):].split()]
    found: dict = {}
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            if not eq and name not in LONG_FLAGS:
                value, i = (words[i] if i < len(words) else ""), i + 1
            key = LONG.get(name)
        elif word.startswith("-") and len(word) > 1:
            name, value = word[1], word[2:]
            if name in SHORT_VALUED and not value:
                value, i = (words[i] if i < len(words) else ""), i + 1
            key = {"G": "gpus"}.get(name, name if name in "pncCN" else None)
        else:
            continue
        if key is not None and (key not in found or "first_wins" not in m):
            found[key] = value
    return found


def _job(job: dict, m=frozenset()) -> tuple:
    o = options(job["script"], m)
    tasks = 1 if "ntasks_ignored" in m else int(o.get("n", 1))
    cpus = tasks * int(o.get("c", 1))
    if "mem" in o:
        mem = _size(o["mem"], m)
    else:
        mem = _size(o["mem-per-cpu"], m) * (1 if "mem_per_cpu_once" in m else cpus)
    kind, gpus = "", 0
    if "gres" in o:
        for entry in o["gres"].split(","):
            parts = entry.split(":")
            if parts[0] == "gpu":
                if len(parts) == 1:
                    kind, gpus = "", 1
                elif len(parts) == 2:
                    kind, gpus = (parts[1], 1) if not parts[1].isdigit() else ("", int(parts[1]))
                else:
                    kind, gpus = parts[1], int(parts[2])
    elif "gpus" in o:
        parts = o["gpus"].split(":")
        kind, gpus = (parts[0], int(parts[1])) if len(parts) == 2 else ("", int(parts[0]))
    if "type_ignored" in m:
        kind = ""
    partitions = tuple(_list(o.get("p")))
    exclusive = "exclusive" in o and "exclusive_ignored" not in m
    return job["id"], partitions, _constraint(o.get("C"), m), exclusive, kind, gpus, cpus, mem


def _constraint(expr: str | None, m=frozenset()):
    """A predicate on a node's features (None: any node), answers cached per feature set."""
    if not expr:
        return None
    tokens = re.findall(r"[\w.\-]+|[&|()\[\]]", expr)
    pos = 0

    def alternatives():
        nonlocal pos
        out = [conjunction()]
        while pos < len(tokens) and tokens[pos] == "|":
            pos += 1
            out.append(conjunction())
        return ("or", out)

    def conjunction():
        nonlocal pos
        out = [atom()]
        while pos < len(tokens) and tokens[pos] == "&":
            pos += 1
            out.append(atom())
        return ("and", out)

    def atom():
        nonlocal pos
        token = tokens[pos]
        pos += 1
        if token in "([":
            inner = alternatives()
            pos += 1
            return inner
        return ("is", token)

    tree = alternatives()
    substring = "feature_substring" in m

    def holds(node, features: frozenset) -> bool:
        op, arg = node
        if op == "is":
            return any(arg in f for f in features) if substring else arg in features
        return (all if op == "and" else any)(holds(n, features) for n in arg)
    seen: dict = {}

    def matches(features: frozenset) -> bool:
        if features not in seen:
            seen[features] = holds(tree, features)
        return seen[features]
    return matches


def _reason(job: tuple, node: tuple, m=frozenset()):
    _, partitions, constraint, exclusive, kind, gpus, cpus, mem = job
    _, node_parts, available, features, empty, free_gpus, all_free, cpus_free, mem_free = node
    failing = []
    if partitions and not (any(p in ",".join(node_parts) for p in partitions) if "partition_substring" in m
                           else node_parts.intersection(partitions)):
        failing.append("partition")
    if not available:
        failing.append("state")
    if constraint is not None and not constraint(features):
        failing.append("constraint")
    if exclusive and not empty:
        failing.append("exclusive")
    strict = 1 if "strict_fit" in m else 0
    if gpus and gpus + strict > (free_gpus.get(kind, 0) if kind else all_free):
        failing.append("gpus")
    if cpus + strict > cpus_free:
        failing.append("cpus")
    if mem + strict > mem_free:
        failing.append("memory")
    if "all" in m:
        return failing
    return failing[0] if failing else None


# ---- the reference --------------------------------------------------------------------------------
def reference(args: dict) -> dict:
    nodes = [_node(f) for f in records(args["nodes"])]
    answer = {}
    for raw in args["jobs"]:
        _, partitions, constraint, exclusive, kind, gpus, cpus, mem = _job(raw)
        wanted = set(partitions)
        fits, reasons = [], {}
        for name, node_parts, available, features, empty, free_gpus, all_free, cpus_free, mem_free in nodes:
            if wanted and node_parts.isdisjoint(wanted):
                reasons[name] = "partition"
            elif not available:
                reasons[name] = "state"
            elif constraint is not None and not constraint(features):
                reasons[name] = "constraint"
            elif exclusive and not empty:
                reasons[name] = "exclusive"
            elif gpus and gpus > (free_gpus.get(kind, 0) if kind else all_free):
                reasons[name] = "gpus"
            elif cpus > cpus_free:
                reasons[name] = "cpus"
            elif mem > mem_free:
                reasons[name] = "memory"
            else:
                fits.append(name)
        fits.sort()
        answer[raw["id"]] = {"fits": fits, "reasons": reasons}
    return answer


def replay(fields: dict, job: dict, mistake: str | None = None):
    """One job on one node (its record's fields), by the rules or with one mistake."""
    m = frozenset((mistake,)) if mistake else frozenset()
    return _reason(_job(job, m), _node(fields, m), m)


def all_reasons(fields: dict, job: dict) -> list[str]:
    return _reason(_job(job), _node(fields), frozenset(("all",)))


# ---- checking -------------------------------------------------------------------------------------
WORDS = fit_answers.Words(item="job", key="job_id", keyed_by="its id", stray="is not the id of a pending job",
                          node_name="NodeName", node="the NodeName of a node")


def check(args: dict, expected: dict, actual) -> str | None:
    # The names alone, in order: parsing every record (most of a check's time on 2,000 nodes) is
    # left to the one mismatch that needs them. Ids arrive as strings (the judge's child makes
    # every key one).
    def explain(job: dict, i: int, want, got) -> str:
        fields = records(args["nodes"])
        return _explain(fields, args["jobs"], fields[i], job, want, got, actual)
    return fit_answers.check(
        WORDS, [(j["id"], j) for j in args["jobs"]], NODE_NAME.findall(args["nodes"]), expected, actual,
        lambda why: None if why in REASONS else f"{short(why)} is not one of {', '.join(REASONS)}", explain)


def _explain(fields_all: list, jobs_all: list, fields: dict, job: dict, want, got, actual: dict) -> str:
    said = f"job {job['id']!r} on node {fields['NodeName']!r}: expected {status(want)}, got {status(got)}"
    facts = "; ".join(dict.fromkeys(f for f in (_facts(fields, job, want), _facts(fields, job, got)) if f))
    hint = _likely_mistake(fields_all, jobs_all, fields, job, got, actual)
    if hint is None and got in all_reasons(fields, job):
        hint = ("that check fails too, but an earlier one fails first: partition, state, constraint, exclusive, "
                "gpus, cpus, memory")
    return said + (f" ({facts})" if facts else "") + (f": {hint}" if hint else "")


def _likely_mistake(fields_all: list, jobs_all: list, fields: dict, job: dict, got, actual: dict) -> str | None:
    """The mistake that gives the answer on this job and node and, of those, agrees best with the
    rest of the answer (this job first, up to 800 pairs of jobs and nodes)."""
    found = [m for m in MISTAKES if replay(fields, job, m) == got]
    if len(found) < 2:
        return MISTAKES[found[0]] if found else None
    jobs, nodes = fit_answers.sample(job, jobs_all, fields_all)

    def agreement(mistake: str) -> int:
        m = frozenset((mistake,))
        prepped = [_node(f, m) for f in nodes]
        score = 0
        for j in jobs:
            mine, pj = actual[j["id"]], _job(j, m)
            fits = set(mine["fits"])
            score += sum(_reason(pj, pn, m) == (None if pn[0] in fits else mine["reasons"].get(pn[0]))
                         for pn in prepped)
        return score
    return fit_answers.likely_mistake(found, MISTAKES, agreement)


def _facts(fields: dict, job: dict, reason) -> str:
    """The record's fields and the job's options a reason rests on, as a person checks them."""
    o = options(job["script"])
    if reason is None:
        return ""
    if reason == "partition":
        return f"the job asks -p {o.get('p')}, the node is in Partitions={fields.get('Partitions')}"
    if reason == "state":
        return f"State={fields['State']}"
    if reason == "constraint":
        return f"the job asks -C {o.get('C')}, the node has ActiveFeatures={fields.get('ActiveFeatures')}"
    if reason == "exclusive":
        return (f"--exclusive on a node with CPUAlloc={fields['CPUAlloc']} AllocMem={fields['AllocMem']} "
                f"GresUsed={fields.get('GresUsed', '(none)')}")
    _, _, _, _, kind, gpus, cpus, mem = _job(job)
    if reason == "gpus":
        asked = f"{gpus} GPU{'s' if gpus > 1 else ''}" + (f" of type {kind}" if kind else " of any type")
        return f"the job needs {asked}; the node has Gres={fields.get('Gres')} GresUsed={fields.get('GresUsed', '(none)')}"
    if reason == "cpus":
        usable = f"CPUEfctv={fields['CPUEfctv']}" if "CPUEfctv" in fields else f"CPUTot={fields['CPUTot']}"
        return (f"the job needs {cpus} CPUs (-n {o.get('n', 1)} x -c {o.get('c', 1)}); the node has {usable} "
                f"CPUAlloc={fields['CPUAlloc']}: {_node(fields)[7]} free")
    spec = f" MemSpecLimit={fields['MemSpecLimit']}" if "MemSpecLimit" in fields else ""
    asked = f"--mem={o['mem']}" if "mem" in o else f"--mem-per-cpu={o.get('mem-per-cpu')} x {cpus} CPUs"
    return (f"the job needs {int(mem) if mem == int(mem) else round(mem, 3)} MB ({asked}); the node has RealMemory={fields['RealMemory']}{spec} "
            f"AllocMem={fields['AllocMem']}: {_node(fields)[8]} MB free")


def show(args: dict) -> str:
    fields = records(args["nodes"])
    drained = sum(1 for f in fields if "DRAIN" in f["State"] or "DOWN" in f["State"])
    gpus = sum(sum(_gres(f.get("Gres")).values()) for f in fields)
    jobs = args["jobs"]
    return (f"{len(fields)} nodes ({gpus} GPUs, {drained} drained or down); {len(jobs)} jobs: "
            + ", ".join(j["id"] for j in jobs[:4]) + (", ..." if len(jobs) > 4 else ""))
