"""CLI: python -m assessments.judge --task SLUG [--backend NAME] [--json [OUT.json]] [--seed N]
[--samples] [--no-timing] [--no-listings] [--unsafe-no-sandbox] FILE.

The task says how the file is judged (its kind: a CuPy kernel, a design, a testbench), whatever
the file's extension; `--json` prints the report as JSON, or writes it to OUT.json when given one.

Exits 0 whenever a verdict was reached (whatever it is); 2 for usage errors such as an unknown
task or a missing file, with a one-line message on stderr.
"""
from __future__ import annotations

import argparse
import sys

from . import kinds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m assessments.judge",
                                     description="Judge a submission to a task.")
    parser.add_argument("file", nargs="?", help="the submission (the task's kind says which files)")
    parser.add_argument("--task", required=True, help="task slug, e.g. vector_add")
    parser.add_argument("--backend", choices=kinds.backend_names(), default="cpu")
    parser.add_argument("--json", nargs="?", const="-", default=None, metavar="OUT.json",
                        help="the report as JSON: printed, or written to OUT.json")
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
    if args.json not in (None, "-") and not args.json.lower().endswith(".json"):
        if args.file is not None:   # `--json FILE` is the flag then the submission
            parser.error(f"--json takes a .json file to write, not {args.json}")
        args.file, args.json = args.json, "-"
    if args.file is None:
        parser.error("the submission's file is required")

    from .engine import UnknownTask, judge, resolve_task
    try:
        task = resolve_task(args.task)
    except UnknownTask as exc:
        print(f"error: {exc.args[0] if exc.args else args.task}", file=sys.stderr)
        return 2
    # The file's extension names its language; a task judged in several (Python or C++) picks
    # its kind by it, and a language the task does not take is refused here.
    language = kinds.language_of(args.file)
    try:
        kind = kinds.kind_of(task, language)
    except ValueError:
        kind = None
    if kind is None or not args.file.lower().endswith(tuple(getattr(kind, "extensions", ("",)))):
        takes = [ext for lang in kinds.languages_of(task) for ext in kinds.LANGUAGES[lang]]
        print(f"error: {task.slug} takes a {' or '.join(takes)} file, not {args.file}", file=sys.stderr)
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
                   suite="samples" if args.samples else "tests", listings=not args.no_listings,
                   language=language)
    if args.json not in (None, "-"):
        try:
            with open(args.json, "w", encoding="utf-8") as fh:
                fh.write(report.to_json() + "\n")
        except OSError as exc:
            print(f"error: cannot write {args.json}: {exc.strerror}", file=sys.stderr)
            return 2
        return 0
    try:
        print(report.to_json() if args.json else report.render_text())
    except BrokenPipeError:
        pass  # a reader such as `head` went away: the verdict was still reached
    return 0


if __name__ == "__main__":
    sys.exit(main())
