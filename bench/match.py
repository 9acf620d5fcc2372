"""Ranking latency: candidates against one job, vectorised (skillmap.match.rank) beside a plain
Python loop computing the same scores over the same data, in the same run.

    python bench/match.py [--repeats 7] [--seed 5]

Synthetic candidates (5-30 verified or claimed skills drawn from the taxonomy, years, degree)
for 1,000, 10,000 and 100,000 candidates; the job is a shipped starter posting, parsed. Prints
the median of the repeated runs (building the pool is timed apart: it happens once, not per job).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


from skillmap.corpus import load_corpus  # noqa: E402
from skillmap.match import (CandidatePool, Candidate, EXPERIENCE_POINTS, Job, TRACK_POINTS,  # noqa: E402
                            _skill_weights, experience_fit, rank)
from skillmap.parse import parse_job  # noqa: E402
from skillmap.taxonomy import TRACKS, load_taxonomy  # noqa: E402

SIZES = (1_000, 10_000, 100_000)
TOP = 20


def synthetic(count: int, seed: int, skill_ids: list[str]) -> list[Candidate]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        picked = rng.sample(skill_ids, rng.randint(5, 30))
        split = rng.randint(0, len(picked))
        out.append(Candidate(i, verified={s: round(rng.random(), 2) for s in picked[:split]},
                             claimed=frozenset(picked[split:]),
                             years=rng.choice([None, 0, 1, 2, 3, 5, 8, 12]),
                             degree=rng.choice([None, "bachelor", "bachelor", "master", "phd"])))
    return out


def loop_rank(candidates: list[Candidate], job: Job, taxonomy, top: int) -> list[tuple]:
    """The same scores, one candidate at a time, in plain Python."""
    weights = _skill_weights(job)
    job_tracks = [float(job.tracks.get(t, 0.0)) for t in TRACKS]
    job_norm = sum(v * v for v in job_tracks) ** 0.5 or 1.0
    track_weights = {sid: taxonomy.get(sid).weight_tuple for sid in taxonomy.skills}
    results = []
    for cand in candidates:
        total = 0.0
        for sid, points in weights.items():
            total += points * cand.credit(sid)[0]
        profile = [0.0] * len(TRACKS)
        for sid in set(cand.verified) | set(cand.claimed):
            credit = cand.credit(sid)[0]
            for t, w in enumerate(track_weights[sid]):
                profile[t] += credit * w
        norm = sum(v * v for v in profile) ** 0.5
        if norm:
            total += TRACK_POINTS * sum(p * j for p, j in zip(profile, job_tracks)) / (norm * job_norm)
        total += EXPERIENCE_POINTS * experience_fit(job.experience_paths, cand.years, cand.degree)[0]
        results.append((cand.id, total))
    results.sort(key=lambda r: -r[1])
    return [(cid, round(s, 1)) for cid, s in results[:top]]


def timed(fn, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    taxonomy = load_taxonomy()
    posting = next(p for p in load_corpus() if p.track == "software_optimization")
    job = Job.from_parse(parse_job(posting.title + "\n" + posting.text))
    skill_ids = list(taxonomy.skills)
    print(f"job: {posting.title!r} ({len(job.skills)} skills, {len(job.experience_paths)} experience paths); "
          f"top {TOP}; median of {args.repeats} runs (the loop: of 3 at 100,000); one core\n")
    print(f"{'candidates':>11}  {'build pool ms':>13}  {'rank ms':>9}  {'loop ms':>10}  {'loop / rank':>11}  same top")
    print("-" * 72)
    for size in SIZES:
        candidates = synthetic(size, args.seed, skill_ids)
        build, pool = timed(lambda: CandidatePool.build(candidates, taxonomy), 1)
        fast, fast_top = timed(lambda: rank(pool, job, TOP), args.repeats)
        slow, slow_top = timed(lambda: loop_rank(candidates, job, taxonomy, TOP),
                               3 if size >= 100_000 else args.repeats)
        same = [c for c, _ in fast_top] == [c for c, _ in slow_top]
        print(f"{size:>11,}  {build * 1e3:>13.0f}  {fast * 1e3:>9.2f}  {slow * 1e3:>10.1f}  "
              f"{slow / fast:>10.0f}x  {'yes' if same else 'no (ties)'}")
    print("\ntarget: ranking 100,000 candidates under 50 ms")


if __name__ == "__main__":
    main()
