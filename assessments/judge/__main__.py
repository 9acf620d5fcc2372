"""CLI: python -m assessments.judge --task SLUG --backend cpu|cuda [--json] [--seed N] [--samples]
[--no-timing] [--no-listings] [--unsafe-no-sandbox] FILE.

Exits 0 whenever a verdict was reached (whatever it is); 2 for usage errors such as an unknown
task or a missing file, with a one-line message on stderr.
"""
from __future__ import annotations

import argparse
import sys

from . import kinds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m assessments.judge",
                                     description="Judge a CuPy kernel submission.")
    parser.add_argument("file", help="the submission (.py defining solve)")
    parser.add_argument("--task", required=True, help="task slug, e.g. vector_add")
    parser.add_argument("--backend", choices=kinds.backend_names(), default="cpu")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--seed", type=int, default=None, help="input seed (default: secret, random)")
    parser.add_argument("--no-timing", action="store_true", help="skip the timing run on cuda")
    parser.add_argument("--samples", action="store_true",
                        help="judge only the task's visible sample tests (quick, not scored)")
    parser.add_argument("--no-listings", action="store_true",
                        help="leave out each kernel's PTX and SASS")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="run the code without bubblewrap: only for your own code on your own "
                             "machine (the report records it)")
    args = parser.parse_args(argv)

    from .engine import UnknownTask, judge, resolve_task
    try:
        task = resolve_task(args.task)
    except UnknownTask as exc:
        print(f"error: {exc.args[0] if exc.args else args.task}", file=sys.stderr)
        return 2
    expected = getattr(kinds.kind_of(task), "extensions", ())
    if expected and not args.file.lower().endswith(expected):
        print(f"error: {task.slug} takes a {' or '.join(expected)} file, not {args.file}", file=sys.stderr)
        return 2
    try:
        with open(args.file, encoding="utf-8", errors="replace") as fh:
            source = fh.read()
    except OSError as exc:
        print(f"error: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    if args.unsafe_no_sandbox:
        print("warning: --unsafe-no-sandbox: the submission runs with your user's rights",
              file=sys.stderr)
    report = judge(task, source, backend=args.backend, seed=args.seed, timing=not args.no_timing,
                   unsafe_no_sandbox=args.unsafe_no_sandbox,
                   suite="samples" if args.samples else "tests", listings=not args.no_listings)
    try:
        print(report.to_json() if args.json else report.render_text())
    except BrokenPipeError:
        pass  # a reader such as `head` went away: the verdict was still reached
    return 0


if __name__ == "__main__":
    sys.exit(main())
