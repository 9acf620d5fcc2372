"""Every fixture submission judged on the cpu backend, its JSON report written with the clocks
taken out: the check that a restructuring of the judge changed no verdict, message or figure.

    python bench/fixture_reports.py OUT_DIR [--compare BEFORE_DIR] [--jobs N] [--only SUBSTR]

Each report is judged with seed 11 and no timing, as `python -m assessments.judge` would print it
(`Report.to_json`). Fields that are clocks (elapsed_s, stages, seconds) are dropped; everything
else must match byte for byte. With --compare, prints the files that differ and exits 1 if any.
"""
from __future__ import annotations

import argparse
import difflib
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "submissions"
CLOCKS = {"elapsed_s", "stages", "seconds", "import_s", "idle_waited_s"}


def _without_clocks(value):
    if isinstance(value, dict):
        return {k: _without_clocks(v) for k, v in value.items() if k not in CLOCKS}
    if isinstance(value, list):
        return [_without_clocks(v) for v in value]
    return value


def _judged(job: tuple[str, str]) -> tuple[str, str]:
    slug, path = job
    sys.path.insert(0, str(ROOT))
    from assessments.judge import judge
    report = judge(slug, Path(path).read_text(), backend="cpu", seed=11, timing=False)
    data = _without_clocks(json.loads(report.to_json()))
    return f"{slug}__{Path(path).stem}.json", json.dumps(data, indent=1, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--compare", help="a directory written by an earlier run")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", default="", help="only fixture paths containing this")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(p.parent.name, str(p)) for p in sorted(FIXTURES.glob("*/*.py")) if args.only in str(p)]
    with ProcessPoolExecutor(args.jobs) as pool:
        for name, text in pool.map(_judged, jobs):
            (out / name).write_text(text)
    print(f"{len(jobs)} reports in {out}")
    if not args.compare:
        return 0
    before = Path(args.compare)
    differ = []
    for path in sorted(out.glob("*.json")):
        old = before / path.name
        if not old.exists() or old.read_text() != path.read_text():
            differ.append(path.name)
            if old.exists():
                sys.stdout.writelines(difflib.unified_diff(
                    old.read_text().splitlines(True), path.read_text().splitlines(True),
                    f"before/{path.name}", f"after/{path.name}", n=1))
    print(f"{len(differ)} of {len(jobs)} reports differ" + (f": {', '.join(differ)}" if differ else ""))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
