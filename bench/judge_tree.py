"""Times the judge of any source tree: python bench/judge_tree.py TREE < jobs.json > times.jsonl

Used by bench/judge.py to measure an earlier commit's judge in the same run as the current one.
It imports nothing from the tree it sits in, only the public `judge(task, source, backend, seed,
listings=...)` of TREE, so it runs against any version of the judge that has that call.

stdin: a JSON list of {"key", "task", "source", "repeats", "warmup", "listings"}. For each job it judges the
source `warmup` times untimed (builds a machine-wide cache, where the tree has one), then
`repeats` times timed, printing one JSON line per timed run: {"key", "seconds", "verdict",
"tests_s", "stages"}. `tests_s` is the sum of the tests' own clocks; `stages` is the report's
stage breakdown, or {} where that tree records none.
"""
from __future__ import annotations

import json
import sys
import time


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: judge_tree.py TREE < jobs.json", file=sys.stderr)
        return 2
    sys.path.insert(0, argv[0])
    from assessments.judge import judge

    for job in json.load(sys.stdin):
        listings = job.get("listings", True)
        for i in range(job.get("warmup", 1)):
            judge(job["task"], job["source"], backend="cpu", seed=1000 + i, listings=listings)
        for i in range(job["repeats"]):
            t0 = time.perf_counter()
            report = judge(job["task"], job["source"], backend="cpu", seed=i, listings=listings)
            took = time.perf_counter() - t0
            tests_s = sum(t.elapsed_s or 0.0 for t in report.tests)
            print(json.dumps({"key": job["key"], "seconds": took, "verdict": report.verdict.value,
                              "tests_s": tests_s, "stages": dict(getattr(report, "stages", {}) or {})}),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
