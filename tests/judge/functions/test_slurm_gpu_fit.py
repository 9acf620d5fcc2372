"""`slurm_gpu_fit`: the statement's rules on a hand-written cluster, the generator's clusters, the
checker against fitting functions a candidate might write (tests/fixtures/functions/
slurm_gpu_fit/, first line `# bug: ...` or `# correct: ...`), and the judge end to end."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from assessments.judge.kinds import KNOWN
from gpu_tasks.functions import TASKS, logic
from tests.judge.functions.function_helpers import (assert_fixtures_say_what_they_are, first_failure,
                                                    fixture_function, fixtures_of)

TASK = TASKS["slurm_gpu_fit"]
LOGIC = logic("slurm_gpu_fit")
FIXTURES = fixtures_of("slurm_gpu_fit")
CASES = TASK.tests["cpu"]

# Each wrong function, and words the checker's sentence must hold on its first failing cluster.
WRONG = {
    "drain_as_idle.py": ("expected 'state'", "takes no job"),
    "freemem.py": ("expected 'memory', got it fits", "FreeMem plays no part"),
    "ignores_gres_used.py": ("expected 'gpus'", "the GPUs in GresUsed are taken"),
    "partition_substring.py": ("expected 'partition', got it fits", "partitions are compared whole"),
    "mem_per_cpu_once.py": ("expected 'memory', got it fits", "--mem-per-cpu is per CPU"),
    "reads_whole_script.py": ("sbatch stops reading #SBATCH lines at the first command",),
}

NODES = """\
NodeName=gpu-a100-001 Arch=x86_64 CoresPerSocket=64
   CPUAlloc=60 CPUEfctv=124 CPUTot=128 CPULoad=41.07
   AvailableFeatures=a100,a100_80gb,ib,nvlink
   ActiveFeatures=a100,a100_80gb,ib,nvlink
   Gres=gpu:a100:8(S:0-1)
   GresUsed=gpu:a100:5(IDX:0-2,5-6)
   OS=Linux 5.15.0-105-generic #115-Ubuntu SMP Mon Apr 15 09:52:04 UTC 2024
   RealMemory=1031000 AllocMem=500000 FreeMem=301234 Sockets=2 Boards=1
   CoreSpecCount=4 CPUSpecList=0-1,64-65 MemSpecLimit=8192
   State=MIXED ThreadsPerCore=1 TmpDisk=0 Weight=10 Owner=N/A MCS_label=N/A
   Partitions=gpu,preempt

NodeName=gpu-a100-002 Arch=x86_64 CoresPerSocket=64
   CPUAlloc=0 CPUEfctv=128 CPUTot=128 CPULoad=0.01
   AvailableFeatures=a100,a100_80gb,ib,nvlink
   ActiveFeatures=a100,a100_80gb,ib,nvlink
   Gres=gpu:a100:8(S:0-1)
   GresUsed=gpu:a100:0(IDX:N/A)
   RealMemory=1031000 AllocMem=0 FreeMem=1001234 Sockets=2 Boards=1
   State=IDLE+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=10 Owner=N/A MCS_label=N/A
   Partitions=gpu,preempt
   Reason=Kill task failed [root@2024-05-14T03:12:55]

NodeName=gpu-a40g-001 Arch=x86_64 CoresPerSocket=32
   CPUAlloc=0 CPUTot=64 CPULoad=0.00
   AvailableFeatures=a100_40gb,ib
   ActiveFeatures=a100_40gb,ib
   Gres=gpu:a100:4(S:0-1)
   GresUsed=gpu:a100:0(IDX:N/A)
   RealMemory=515000 AllocMem=0 FreeMem=500000 Sockets=2 Boards=1
   State=IDLE ThreadsPerCore=1 TmpDisk=0 Weight=10 Owner=N/A MCS_label=N/A
   Partitions=gpu,gpu-long

NodeName=viz-001 Arch=x86_64 CoresPerSocket=32
   CPUAlloc=8 CPUTot=32 CPULoad=3.50
   AvailableFeatures=l40s,a10,pcie
   ActiveFeatures=l40s,a10,pcie
   Gres=gpu:l40s:2(S:0),gpu:a10:2(S:0)
   GresUsed=gpu:l40s:1(IDX:0),gpu:a10:0(IDX:N/A)
   RealMemory=257000 AllocMem=64000 FreeMem=150000 Sockets=1 Boards=1
   State=MIXED+COMPLETING ThreadsPerCore=1 TmpDisk=0 Weight=10 Owner=N/A MCS_label=N/A
   Partitions=interactive,gpu-long

NodeName=cn0001 Arch=x86_64 CoresPerSocket=96
   CPUAlloc=0 CPUTot=192 CPULoad=0.00
   AvailableFeatures=cpu,genoa
   ActiveFeatures=cpu,genoa
   Gres=(null)
   RealMemory=770000 AllocMem=0 FreeMem=760000 Sockets=2 Boards=1
   State=DOWN* ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A
   Partitions=cpu,gpu
   Reason=Not responding [slurm@2024-05-14T03:12:55]
"""
JOBS = [
    {"id": "101", "script": "#!/bin/bash\n#SBATCH -p gpu --gres=gpu:a100:3\n#SBATCH -n 1 -c64\n#SBATCH --mem=500G\n"
                            "\nsrun python train.py\n"},
    {"id": "102", "script": "#!/bin/bash\n#SBATCH --partition gpu-long,interactive\n#SBATCH --gpus=2 -c 8\n"
                            "## SBATCH --exclusive\n#SBATCH --mem-per-cpu=8G\n#SBATCH --constraint=\"[l40s|a100_40gb]\"\n"
                            "srun ./render.sh\n"},
    {"id": "103", "script": "#!/bin/bash\n#SBATCH --exclusive\n#SBATCH -p gpu -C a100 --gres=gpu --mem=100G\n"
                            "module load cuda\n#SBATCH -p cpu\nsrun ./bench\n"},
    {"id": "104", "script": "#!/bin/bash\n#SBATCH -p cpu\n# the GPU queue after all\n#SBATCH -p gpu\n"
                            "#SBATCH --gres=gpu:h100:1 -c4 --mem=16G\nsrun ./a.out\n"},
]
ANSWER = {
    "101": {"fits": ["gpu-a100-001", "gpu-a40g-001"],
            "reasons": {"gpu-a100-002": "state", "viz-001": "partition", "cn0001": "state"}},
    "102": {"fits": ["gpu-a40g-001", "viz-001"],
            "reasons": {"gpu-a100-001": "partition", "gpu-a100-002": "partition", "cn0001": "partition"}},
    "103": {"fits": [], "reasons": {"gpu-a100-001": "exclusive", "gpu-a100-002": "state",
                                    "gpu-a40g-001": "constraint", "viz-001": "partition", "cn0001": "state"}},
    "104": {"fits": [], "reasons": {"gpu-a100-001": "gpus", "gpu-a100-002": "state", "gpu-a40g-001": "gpus",
                                    "viz-001": "partition", "cn0001": "state"}},
}
CLUSTER = {"nodes": NODES, "jobs": JOBS}


def _fit(name: str):
    return fixture_function(FIXTURES / name, "fit")


def _generate(seed: int) -> list[dict]:
    return [a for i, c in enumerate(CASES) for a in LOGIC.generate(np.random.default_rng([seed, i]), c.dims)]


@lru_cache(maxsize=None)
def _clusters(seed: int) -> list[dict]:
    return _generate(seed)


def _first_failure(fit, clusters) -> str | None:
    return first_failure(LOGIC, clusters, lambda args: fit(args["nodes"], args["jobs"]))


def test_every_fixture_says_what_it_is():
    assert_fixtures_say_what_they_are(FIXTURES, WRONG)


def test_the_statements_rules_on_a_hand_written_cluster():
    assert LOGIC.reference(CLUSTER) == ANSWER
    assert _fit("accepted_options_table.py")(NODES, JOBS) == ANSWER


def test_one_line_records_read_the_same():
    one_line = "\n".join(" ".join(line.strip() for line in record.splitlines()) for record in NODES.split("\n\n"))
    assert LOGIC.reference({"nodes": one_line, "jobs": JOBS}) == ANSWER


def test_the_header_is_read_as_sbatch_reads_it():
    assert LOGIC.options(JOBS[2]["script"]) == {"exclusive": "", "p": "gpu", "C": "a100", "gres": "gpu", "mem": "100G"}
    assert LOGIC.options(JOBS[3]["script"])["p"] == "gpu"
    assert LOGIC.options(JOBS[1]["script"])["C"] == "[l40s|a100_40gb]"
    assert LOGIC._size("64G") == 65536 and LOGIC._size("2T") == 2 * 1024 ** 2 and LOGIC._size("500000") == 500000
    assert LOGIC._gres("gpu:a100:3(IDX:0-1,4),gpu:a10:1(IDX:5)") == {"a100": 3, "a10": 1}
    assert LOGIC._gres("gpu:4(S:0-1)") == {"": 4} and LOGIC._gres("(null)") == {}


def test_generate_is_deterministic_per_seed_and_realistic():
    assert _generate(1) == _clusters(1)
    assert _clusters(1) != _clusters(2)
    clusters = _clusters(1)
    text = "\n".join(c["nodes"] for c in clusters)
    for words in ("State=IDLE+DRAIN", "State=MIXED+DRAIN", "State=DOWN*", "MIXED+COMPLETING", "RESERVED",
                  "CPUEfctv=", "MemSpecLimit=", "Gres=(null)", "GresUsed=gpu:", "(IDX:N/A)", "Reason="):
        assert words in text, words
    assert any(c["nodes"].count("\n\n") == 0 for c in clusters) and any("\n\n" in c["nodes"] for c in clusters)
    scripts = "\n".join(j["script"] for c in clusters for j in c["jobs"])
    for words in ("--gres=gpu:", "--gpus-per-node=", "--mem-per-cpu=", "--exclusive", "-C ", "##SBATCH"):
        assert words in scripts, words
    assert max(len(LOGIC.records(c["nodes"])) for c in clusters) >= 2000
    assert max(len(c["jobs"]) for c in clusters) >= 1000
    seen = {why for c in clusters for v in LOGIC.reference(c).values() for why in v["reasons"].values()}
    assert seen == set(LOGIC.REASONS)
    assert sum(len(v["fits"]) for c in clusters for v in LOGIC.reference(c).values()) > 1000


def test_the_reference_agrees_with_the_rules_replayed_pair_by_pair_and_with_its_check():
    for args in _clusters(2)[:4]:
        answer = LOGIC.reference(args)
        assert LOGIC.check(args, answer, answer) is None
        for job in args["jobs"][:20]:
            got = answer[job["id"]]
            for fields in LOGIC.records(args["nodes"]):
                name = fields["NodeName"]
                assert LOGIC.replay(fields, job) == (None if name in got["fits"] else got["reasons"][name])


@pytest.mark.parametrize("name", sorted(WRONG))
def test_each_wrong_function_is_caught_with_its_mistake(name):
    message = _first_failure(_fit(name), _clusters(1))
    assert message is not None, f"{name} passed every hidden cluster"
    for words in WRONG[name]:
        assert words in message, message
    assert message.startswith("job '") and "on node '" in message


def test_a_correct_function_written_differently_passes():
    assert _first_failure(_fit("accepted_options_table.py"), _clusters(2)) is None


def test_the_starter_runs_and_answers_wrong():
    namespace: dict = {}
    exec(TASK.starters["python"], namespace)
    assert namespace["fit"](NODES, JOBS)["101"]["fits"] == ["cn0001", "gpu-a100-001", "gpu-a100-002",
                                                             "gpu-a40g-001", "viz-001"]
    message = _first_failure(namespace["fit"], _clusters(1))
    assert message is not None and "expected" in message


def _with(job: str, **value) -> dict:
    return {**ANSWER, job: {**ANSWER[job], **value}}


@pytest.mark.parametrize("answer, words", [
    ([], "expected a dict"),
    ({int(k) if k == "104" else k: v for k, v in ANSWER.items()}, "no entry for job '104'"),
    ({**ANSWER, "999": ANSWER["104"]}, "'999' is not the id of a pending job"),
    (_with("101", fits=["gpu-a100-001"]), "node 'gpu-a40g-001' is neither in fits nor in reasons"),
    (_with("102", fits=["viz-001", "gpu-a40g-001"]), "not sorted"),
    (_with("103", reasons={**ANSWER["103"]["reasons"], "cn0001": "down"}), "'down' is not one of partition, state"),
    (_with("101", fits=["gpu-a100-001", "gpu-a100-002", "gpu-a40g-001"],
           reasons={"viz-001": "partition", "cn0001": "state"}),
     "expected 'state', got it fits (State=IDLE+DRAIN): IDLE+DRAIN and MIXED+DRAIN are drained"),
    (_with("101", fits=["gpu-a40g-001"], reasons={**ANSWER["101"]["reasons"], "gpu-a100-001": "cpus"}),
     "the node has CPUEfctv=124 CPUAlloc=60: 64 free"),
    (_with("103", fits=["gpu-a40g-001"], reasons={k: v for k, v in ANSWER["103"]["reasons"].items()
                                                  if k != "gpu-a40g-001"}),
     "the node has ActiveFeatures=a100_40gb,ib): features are compared whole"),
    (_with("101", reasons={**ANSWER["101"]["reasons"], "cn0001": "gpus"}),
     "that check fails too, but an earlier one fails first"),
])
def test_a_wrong_answer_is_explained(answer, words):
    message = LOGIC.check(CLUSTER, ANSWER, answer)
    assert message is not None and words in message, message


# ---- end to end, in the judge's sandbox ------------------------------------------------------------
needs_kind = pytest.mark.skipif("python" not in KNOWN, reason="the judge has no kind `python` yet")


@needs_kind
def test_judged_end_to_end():
    from assessments.judge import Verdict, judge
    good = judge("slurm_gpu_fit", (FIXTURES / "accepted_options_table.py").read_text(), seed=9)
    assert good.verdict is Verdict.ACCEPTED, good.message
    assert good.score >= 60 and good.measure["test"] == "large_cluster"
    for name, words in WRONG.items():
        r = judge("slurm_gpu_fit", (FIXTURES / name).read_text(), seed=9, timing=False)
        assert r.verdict is Verdict.WRONG_ANSWER, (name, r.verdict, r.message)
        assert words[-1] in r.message, (name, r.message)
