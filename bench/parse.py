"""Parsing throughput and latency on one core, against spaCy's tokenizer alone.

    python bench/parse.py [--postings 1000] [--seed 7] [--instructions]

Builds a batch of postings of 300 to 1,500 words from the labelled corpus (sentences drawn
at random, so every posting is different), then times, in the same run:
  - the floor: `spacy.blank("en")`'s tokenizer alone on each text;
  - the whole parse (`skillmap.parse.parse_job`): sections, skills, years, degree, salary,
    seniority and the track classifier.
Prints postings/s, tokens/s, median and p95 latency, and the ratio of the two.

Then a repeatable figure: the same ratio counted in instructions by
`valgrind --tool=callgrind` over a fixed subset, the first INSTR_POSTINGS postings of the batch
(= `make_batch(INSTR_POSTINGS, seed)`, whatever --postings is). Each side runs in a child
process of this script under callgrind (PYTHONHASHSEED=0) that first warms up (imports,
pipeline and track model built, one 800-word posting parsed or tokenized), then runs the
measured loop inside a ctypes callback: collection is on only within libffi's `ffi_call`
(`--collect-atstart=no --toggle-collect=ffi_call`), so start-up is not counted. The two children
run side by side; the whole count takes 70-110 s on a 2-core machine (about twice that on one), so
it is part of the default run when valgrind is on PATH: --instructions requires it,
--no-instructions skips it. Instructions are not time: the tokenizer's regex matching runs at
more instructions per cycle than the rest of the parse, so the ratio in instructions is lower
than the ratio in time; compare it with itself from commit to commit.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import spacy  # noqa: E402

from skillmap.corpus import load_corpus  # noqa: E402
from skillmap.parse import parse_job  # noqa: E402


def make_batch(count: int, seed: int) -> list[str]:
    """Postings of 300-1500 words stitched from corpus lines, keeping headings and bullets."""
    rng = random.Random(seed)
    corpus = load_corpus()
    lines = [line for p in corpus for line in p.text.splitlines() if line.strip()]
    batch = []
    for _ in range(count):
        target = rng.randint(300, 1500)
        base = rng.choice(corpus)
        out, words = [base.title], len(base.title.split())
        for line in base.text.splitlines():
            out.append(line)
            words += len(line.split())
        while words < target:
            line = rng.choice(lines)
            out.append(line)
            words += len(line.split())
        text = "\n".join(out)
        batch.append(" ".join(text.split(" ")[:target]) if words > target * 1.2 else text)
    return batch


def exactly(words: int, seed: int) -> str:
    text = make_batch(1, seed)[0]
    while len(text.split()) < words:
        text += "\n" + make_batch(1, seed + 1)[0]
    return " ".join(text.split(" ")[:words])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def time_each(fn, texts) -> list[float]:
    out = []
    for text in texts:
        start = time.perf_counter()
        fn(text)
        out.append(time.perf_counter() - start)
    return out


INSTR_POSTINGS = 50
# Collection is on only inside this function: the measured loop runs in a ctypes callback,
# which libffi's ffi_call enters; nothing in spaCy, numpy or scikit-learn calls it per parse.
TOGGLE = "ffi_call"


def callgrind_child(mode: str, input_path: str) -> None:
    """Under callgrind: warm up, then run `mode` over the texts inside ffi_call (counted)."""
    data = json.loads(Path(input_path).read_text(encoding="utf-8"))
    fn = spacy.blank("en").tokenizer if mode == "tokenizer" else parse_job
    fn(data["warm_up"])
    texts = data["texts"]
    failed = []

    def measured() -> None:
        try:
            for text in texts:
                fn(text)
        except BaseException as exc:  # a ctypes callback cannot raise; report it after
            failed.append(exc)

    ctypes.CFUNCTYPE(None)(measured)()
    if failed:
        raise failed[0]


def callgrind_total(out_file: Path) -> int:
    for line in out_file.read_text().splitlines():
        if line.startswith(("totals:", "summary:")):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {out_file}")


def count_instructions(texts: list[str], warm_up: str) -> tuple[dict[str, int], float]:
    """Instructions of the tokenizer alone and of parse_job over `texts`, and the seconds taken."""
    if not shutil.which("valgrind"):
        raise SystemExit("--instructions needs valgrind on PATH")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-callgrind-") as tmp:
        input_path = Path(tmp) / "texts.json"
        input_path.write_text(json.dumps({"warm_up": warm_up, "texts": texts}), encoding="utf-8")
        env = dict(os.environ, PYTHONHASHSEED="0")
        children = {}
        for mode in ("tokenizer", "parse"):
            out_file = Path(tmp) / f"callgrind.{mode}.out"
            cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
                   "--collect-atstart=no", f"--toggle-collect={TOGGLE}",
                   sys.executable, str(Path(__file__).resolve()),
                   "--callgrind-child", mode, "--callgrind-input", str(input_path)]
            children[mode] = (out_file, subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                                         stderr=subprocess.STDOUT, text=True))
        totals = {}
        try:
            for mode, (out_file, proc) in children.items():
                log = proc.communicate()[0]
                if proc.returncode != 0:
                    raise SystemExit(f"callgrind run of {mode} failed ({proc.returncode}):\n{log}")
                totals[mode] = callgrind_total(out_file)
        finally:
            for _, proc in children.values():
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
    return totals, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postings", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--instructions", action=argparse.BooleanOptionalAction,
                        help=f"count instructions with callgrind over the first {INSTR_POSTINGS} "
                             f"postings (70-110 s; default: when valgrind is on PATH)")
    parser.add_argument("--callgrind-child", choices=("tokenizer", "parse"), help=argparse.SUPPRESS)
    parser.add_argument("--callgrind-input", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.callgrind_child:
        callgrind_child(args.callgrind_child, args.callgrind_input)
        return
    all_cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    if all_cores:
        os.sched_setaffinity(0, {min(all_cores)})

    texts = make_batch(args.postings, args.seed)
    tokenizer = spacy.blank("en").tokenizer
    parse_job(texts[0])  # load the pipeline and train the classifier outside the timings
    tokens = sum(len(tokenizer(t)) for t in texts)
    words = [len(t.split()) for t in texts]

    tok_times = time_each(tokenizer, texts)
    parse_times = time_each(parse_job, texts)
    tok_total, parse_total = sum(tok_times), sum(parse_times)

    post800 = exactly(800, args.seed + 100)
    tok800 = [time_each(tokenizer, [post800])[0] for _ in range(200)]
    parse800 = [time_each(parse_job, [post800])[0] for _ in range(200)]

    print(f"batch: {len(texts)} postings, {min(words)}-{max(words)} words "
          f"(median {statistics.median(words):.0f}), {tokens:,} tokens, one core\n")
    header = f"{'':30}{'postings/s':>12}{'tokens/s':>12}{'median ms':>11}{'p95 ms':>9}"
    print(header)
    print("-" * len(header))
    for name, times, total in (("spaCy tokenizer alone (floor)", tok_times, tok_total),
                               ("whole parse (parse_job)", parse_times, parse_total)):
        print(f"{name:30}{len(texts) / total:12.1f}{tokens / total:12,.0f}"
              f"{statistics.median(times) * 1e3:11.2f}{percentile(times, 0.95) * 1e3:9.2f}")
    print()
    print(f"whole parse / tokenizer alone: {parse_total / tok_total:.2f}x  (target <= 2x)")
    print(f"800-word posting: parse median {statistics.median(parse800) * 1e3:.2f} ms, "
          f"tokenizer median {statistics.median(tok800) * 1e3:.2f} ms  (target < 10 ms)")

    if args.instructions is None and not shutil.which("valgrind"):
        print("\ninstructions: skipped, valgrind is not on PATH")
    elif args.instructions is not False:
        if all_cores:
            os.sched_setaffinity(0, all_cores)  # the two callgrind children run side by side
        subset = texts[:INSTR_POSTINGS] if len(texts) >= INSTR_POSTINGS \
            else make_batch(INSTR_POSTINGS, args.seed)
        sub_tokens = sum(len(tokenizer(t)) for t in subset)
        totals, seconds = count_instructions(subset, post800)
        print(f"\ninstructions (callgrind): first {len(subset)} postings of the batch, "
              f"{sub_tokens:,} tokens, counted in {seconds:.0f} s\n")
        header = f"{'':30}{'instr/posting':>15}{'instr/token':>13}"
        print(header)
        print("-" * len(header))
        for name, mode in (("spaCy tokenizer alone (floor)", "tokenizer"),
                           ("whole parse (parse_job)", "parse")):
            print(f"{name:30}{totals[mode] / len(subset):15,.0f}{totals[mode] / sub_tokens:13,.0f}")
        print()
        print(f"whole parse / tokenizer alone, in instructions: "
              f"{totals['parse'] / totals['tokenizer']:.3f}x")


if __name__ == "__main__":
    main()
