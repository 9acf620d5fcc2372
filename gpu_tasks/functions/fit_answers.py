"""What the two scheduler-filter tasks (`k8s_gpu_fit`, `slurm_gpu_fit`) share in checking an
answer: `{item: {"fits": [node names], "reasons": {node: reason}}}` for every pending item (a pod,
a job), its shape, the first item and node it gets wrong, and the mistake most likely behind a
wrong reason. Each task says how it names things (`Words`) and explains a mismatch itself."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Words:
    item: str               # "pod", "job"
    key: str                # what keys the answer: "pod_name", "job_id"
    keyed_by: str           # how an item is keyed: "its metadata.name"
    stray: str              # a key that is no pending item: "is not the name of a pending pod"
    node_name: str          # how a node is named: "metadata.name", "NodeName"
    node: str               # a name that is no node: "a node of the cluster"


def short(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def status(reason) -> str:
    return "it fits" if reason is None else repr(reason)


def check(words: Words, items: list[tuple[str, object]], names: list[str], expected: dict, actual,
          reason_problem: Callable[[object], str | None],
          explain: Callable[[object, int, object, object], str]) -> str | None:
    """The first thing wrong with `actual`, or None. `items` are (key, item) in order, `names`
    the nodes in order; `reason_problem(reason)` says what is wrong with a reason's value, and
    `explain(item, node index, expected reason, answered reason)` the first mismatch."""
    if not isinstance(actual, dict):
        return (f"fit returned {type(actual).__name__}, expected a dict {{{words.key}: {{\"fits\": [...], "
                "\"reasons\": {...}}}}")
    known = set(names)
    for key, _ in items:
        if key not in actual:
            return f"no entry for {words.item} {key!r}: every {words.item} needs one, keyed by {words.keyed_by}"
        wrong = _shape(words, key, actual[key], known, reason_problem)
        if wrong:
            return wrong
    stray = [k for k in actual if k not in expected]
    if stray:
        return f"{stray[0]!r} {words.stray}"
    for key, item in items:
        got, want = actual[key], expected[key]
        fits = set(got["fits"])
        for i, name in enumerate(names):
            a = None if name in fits else got["reasons"][name]
            e = want["reasons"].get(name)
            if a != e:
                return explain(item, i, e, a)
        if got["fits"] != sorted(got["fits"]):
            return f"{words.item} {key!r}: fits holds the right nodes but not sorted: {got['fits'][:6]}..."
    return None


def _shape(words: Words, key: str, value, known: set, reason_problem) -> str | None:
    item = f"{words.item} {key!r}"
    if not (isinstance(value, dict) and isinstance(value.get("fits"), list)
            and isinstance(value.get("reasons"), dict)):
        return f"{item}: expected {{\"fits\": [node names], \"reasons\": {{node: reason}}}}, got {short(value)}"
    fits, reasons = value["fits"], value["reasons"]
    for name in fits:
        if not isinstance(name, str):
            return f"{item}: fits holds {short(name)}; nodes are named by their {words.node_name} strings"
        if name not in known:
            return f"{item}: fits names {short(name)}, which is not {words.node}"
        if name in reasons:
            return f"{item}: node {name!r} is both in fits and in reasons"
    if len(set(fits)) != len(fits):
        return f"{item}: fits names a node twice"
    for name, why in reasons.items():
        if name not in known:
            return f"{item}: reasons names {short(name)}, which is not {words.node}"
        problem = reason_problem(why)
        if problem:
            return f"{item}, node {name!r}: {problem}"
    missing = known.difference(fits).difference(reasons)
    if missing:
        return f"{item}: node {sorted(missing)[0]!r} is neither in fits nor in reasons; every node is in one"
    return None


def likely_mistake(found: list[str], mistakes: dict[str, str], agreement: Callable[[str], int]) -> str | None:
    """Of the mistakes that give the wrong reason (`found`, in the task's order), the one whose
    answers agree most with the rest of the answer (`agreement(mistake)`: how many pairs of items
    and nodes it answers as the candidate did); both, when nothing tells the first two apart."""
    if len(found) > 1:
        scores = {m: agreement(m) for m in found}
        found = sorted(found, key=scores.get, reverse=True)     # stable: ties keep the task's order
        if scores[found[0]] == scores[found[1]]:
            return f"{mistakes[found[0]]} (or: {mistakes[found[1]]})"
    return mistakes[found[0]] if found else None


def sample(item, items: list, nodes: list, pairs: int = 800) -> tuple[list, list]:
    """The items and nodes `agreement` looks at: up to `pairs` pairs, the mismatched item first."""
    nodes = nodes[:pairs]
    return ([item] + [i for i in items if i is not item])[:max(1, pairs // max(1, len(nodes)))], nodes
