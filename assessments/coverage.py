"""How much of what employers require the task bank can verify: over the labelled corpus's
postings, the share of (posting, required skill) pairs whose skill at least one task evidences,
per track and overall, and the most required skills no task evidences yet."""
from __future__ import annotations

from collections import Counter, defaultdict


def task_skills() -> dict[str, set[str]]:
    """Skill id -> the tasks (of every kind) that evidence it."""
    from gpu_tasks import bank

    out: dict[str, set[str]] = defaultdict(set)
    for task in bank.all_tasks():
        for skill in task.skills:
            out[skill].add(task.slug)
    return dict(out)


def coverage(postings, required_of, evidenced: dict[str, set[str]], top: int = 10) -> dict:
    """`postings`: objects with `track`; `required_of(posting)`: its required skill ids."""
    pairs, covered = Counter(), Counter()
    missing: dict[str, Counter] = defaultdict(Counter)
    for posting in postings:
        for skill in set(required_of(posting)):
            pairs[posting.track] += 1
            if skill in evidenced:
                covered[posting.track] += 1
            else:
                missing[posting.track][skill] += 1
                missing["overall"][skill] += 1

    def row(n: int, k: int, gaps: Counter) -> dict:
        return {"required": n, "evidenced": k, "share": round(k / n, 4) if n else None,
                "uncovered": [{"skill": s, "postings": c} for s, c in gaps.most_common(top)]}

    tracks = {t: row(pairs[t], covered[t], missing[t]) for t in sorted(pairs)}
    return {"tracks": tracks,
            "overall": row(sum(pairs.values()), sum(covered.values()), missing["overall"]),
            "tasks_per_skill": {s: sorted(t) for s, t in sorted(evidenced.items())}}


def corpus_coverage(top: int = 10) -> dict:
    """`coverage` over skillmap's labelled corpus with the parser's required skills."""
    from skillmap.corpus import load_corpus
    from skillmap.parse import parse_job

    def required(posting) -> list[str]:
        return [s["id"] for s in parse_job(posting.text)["skills"] if s.get("required")]

    return coverage(load_corpus(), required, task_skills(), top)
