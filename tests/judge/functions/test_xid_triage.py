"""`xid_triage`: the statement's rules on a hand-written node, the checker against triage
functions a candidate might write (tests/fixtures/functions/xid_triage/, first line `# bug: ...`
or `# correct: ...`), the generator's nodes, and the judge end to end."""
from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from assessments.judge.kinds import KNOWN
from gpu_tasks.functions import TASKS, logic
from tests.judge.functions.function_helpers import first_failure, fixtures_of

TASK = TASKS["xid_triage"]
LOGIC = logic("xid_triage")
FIXTURES = fixtures_of("xid_triage")
CASES = TASK.tests["cpu"]

# Each wrong triage, and words the checker's sentence must hold on its first failing node.
WRONG = {
    "every_xid_resets.py": ("expected none, got reset", "is an application fault"),
    "last_xid_wins.py": ("the most severe action any rule calls for, whatever the order",),
    "case_sensitive_bus.py": ("got none", "as hex numbers"),
    "log_only.py": ("got none", "remapped_rows.pending is true"),
    "nvlink_any_drains.py": ("expected reset, got drain", "fewer than 3"),
}

LOG = """\
[    5.120331] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024
[  812.440001] NVRM: Xid (PCI:0000:18:00): 13, pid=4121, name=python3, Graphics SM Warp Exception on (GPC 0, TPC 1, SM 0): Out Of Range Address
[  812.440107] NVRM: Xid (PCI:0000:18:00): 43, pid=4121, name=python3, Ch 00000008
[  900.000000] nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error (First)
[  950.102211] NVRM: Xid (PCI:0000:2a:00): 74, pid='<unknown>', name=<unknown>, NVLink: fatal error detected on link 4(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)
[  951.102211] NVRM: Xid (PCI:0000:2a:00): 74, pid='<unknown>', name=<unknown>, NVLink: fatal error detected on link 5(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)
[ 1010.000000] NVRM: Xid (PCI:0000:3a:00): 74, NVLink: fatal error detected on link 1(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)
[ 1011.000000] NVRM: Xid (PCI:0000:3a:00): 74, NVLink: fatal error detected on link 1(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)
[ 1012.000000] NVRM: Xid (PCI:0000:3a:00): 74, NVLink: fatal error detected on link 1(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)
[ 2000.500000] NVRM: Xid (PCI:0000:5d:00): 95, pid=7781, name=pt_main_thread, Uncontained: FBHUB. RST: Yes, D-RST: No
[ 2000.500100] NVRM: Xid (PCI:0000:5d:00): 64, pid=7781, name=pt_main_thread, Row Remapper: Failed to remap row (0x1a2b3c)
[ 3100.000000] NVRM: Xid (PCI:0000:9a:00): 79, pid=0, name=..., GPU has fallen off the bus.
[ 3100.000100] NVRM: GPU 0000:9a:00.0: GPU has fallen off the bus.
[ 3500.000000] NVRM: Xid (PCI:0000:ab:00): 62, pid=0, name=..., Internal micro-controller halt
[ 3600.000000] NVRM: GPU at PCI:0000:db:00: GPU-8a601036-558f-adce-ab87-74ea44af1066"""


def _gpu(index: int, bus: int, **facts) -> dict:
    rows = {"correctable": 0, "uncorrectable": 0, "pending": False, "failure": False}
    rows.update(facts.pop("rows", {}))
    gpu = {"index": index, "bus_id": f"00000000:{bus:02X}:00.0", "name": "NVIDIA H100 80GB HBM3",
           "serial": f"16549220123{index:02d}", "visible": True, "remapped_rows": rows, "dcgm_health": "pass"}
    gpu.update(facts)
    return gpu


NODE = {"log": LOG, "gpus": [
    _gpu(0, 0x18, dcgm_health="warn"), _gpu(1, 0x2a), _gpu(2, 0x3a), _gpu(3, 0x5d),
    _gpu(4, 0x9a, visible=False, remapped_rows=None, dcgm_health=None), _gpu(5, 0xab),
    _gpu(6, 0xba, rows={"pending": True, "uncorrectable": 1}), _gpu(7, 0xdb, dcgm_health="fail")]}
ANSWER = {"00000000:18:00.0": "none", "00000000:2A:00.0": "reset", "00000000:3A:00.0": "drain",
          "00000000:5D:00.0": "replace", "00000000:9A:00.0": "drain", "00000000:AB:00.0": "reset",
          "00000000:BA:00.0": "reset", "00000000:DB:00.0": "drain"}


def _triage(name: str):
    spec = importlib.util.spec_from_file_location(f"xid_{Path(name).stem}", FIXTURES / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.triage


@lru_cache(maxsize=None)
def _nodes(seed: int) -> list[dict]:
    return _generate(seed)


def _generate(seed: int) -> list[dict]:
    return [node for i, c in enumerate(CASES) for node in LOGIC.generate(np.random.default_rng([seed, i]), c.dims)]


def _first_failure(triage, nodes) -> str | None:
    return first_failure(LOGIC, nodes, lambda args: triage(args["log"], args["gpus"]))


def test_the_statements_rules_on_a_hand_written_node():
    assert LOGIC.reference(NODE) == ANSWER
    assert _triage("accepted_table_driven.py")(NODE["log"], NODE["gpus"]) == ANSWER


@pytest.mark.parametrize("style", ["[Tue May 14 03:12:55 2024] ", "2024-05-14T03:12:55,123456+00:00 gpu-r01-n07 kernel: "])
def test_every_timestamp_style_reads_the_same(style):
    log = "\n".join(style + line.split("] ", 1)[1] for line in LOG.splitlines())
    assert LOGIC.reference({**NODE, "log": log}) == ANSWER


def test_generate_is_deterministic_per_seed_and_covers_every_action_and_style():
    assert _generate(1) == _nodes(1)
    assert _nodes(1) != _nodes(2)
    nodes = _nodes(1)
    actions = {a for node in nodes for a in LOGIC.reference(node).values()}
    assert actions == {"none", "reset", "drain", "replace"}
    heads = {node["log"][:1] for node in nodes} | {" kernel: " in node["log"] for node in nodes}
    assert {"[", "2", True} <= heads
    assert {len(node["gpus"]) for node in nodes} == {4, 8}
    assert any(not g["visible"] and g["remapped_rows"] is None for node in nodes for g in node["gpus"])
    assert max(node["log"].count("\n") for node in nodes) >= 50_000
    assert any("SXid" in node["log"] for node in nodes)


def test_the_reference_passes_its_own_check():
    for node in _nodes(2):
        answer = LOGIC.reference(node)
        assert LOGIC.check(node, answer, answer) is None


@pytest.mark.parametrize("name", sorted(WRONG))
def test_each_wrong_triage_is_caught_with_its_mistake(name):
    message = _first_failure(_triage(name), _nodes(1))
    assert message is not None, f"{name} passed every hidden node"
    for words in WRONG[name]:
        assert words in message, message
    assert message.startswith("GPU 00000000:")


def test_a_correct_triage_written_differently_passes():
    assert _first_failure(_triage("accepted_table_driven.py"), _nodes(2)) is None


def test_the_starter_runs_and_answers_wrong():
    namespace: dict = {}
    exec(TASK.starters["python"], namespace)
    assert _first_failure(namespace["triage"], _nodes(1)) is not None


@pytest.mark.parametrize("answer, words", [
    ([], "expected a dict {bus_id: action}"),
    ({**ANSWER, "00000000:18:00.0": "ignore"}, "'ignore' is not one of none, reset, drain, replace"),
    ({k.lower(): v for k, v in ANSWER.items()}, "return bus_id exactly as given"),
    ({**ANSWER, "00000000:FF:00.0": "none"}, "not the bus_id of a GPU of this node"),
    ({**ANSWER, "00000000:9A:00.0": "reset"}, "nvidia-smi cannot reach it"),
    ({**ANSWER, "00000000:18:00.0": "reset"}, "application fault, so nothing needs doing"),
    ({**ANSWER, "00000000:DB:00.0": "none"}, "its DCGM health check fails"),
])
def test_a_wrong_answer_is_explained(answer, words):
    message = LOGIC.check(NODE, ANSWER, answer)
    assert message is not None and words in message, message


# ---- end to end, in the judge's sandbox ------------------------------------------------------------
needs_kind = pytest.mark.skipif("python" not in KNOWN, reason="the judge has no kind `python` yet")


@needs_kind
def test_judged_end_to_end():
    from assessments.judge import Verdict, judge
    good = judge("xid_triage", (FIXTURES / "accepted_table_driven.py").read_text(), seed=9)
    assert good.verdict is Verdict.ACCEPTED, good.message
    assert good.score > 60 and good.measure["test"] == "long_log"
    for name in ("every_xid_resets.py", "case_sensitive_bus.py"):
        r = judge("xid_triage", (FIXTURES / name).read_text(), seed=9)
        assert r.verdict is Verdict.WRONG_ANSWER, (name, r.verdict, r.message)
        assert WRONG[name][0] in r.message, (name, r.message)
