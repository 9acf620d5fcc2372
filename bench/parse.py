"""Parsing throughput and latency on one core, against spaCy's tokenizer alone.

    python bench/parse.py [--postings 1000] [--seed 7]

Builds a batch of postings of 300 to 1,500 words from the labelled corpus (sentences drawn
at random, so every posting is different), then times, in the same run:
  - the floor: `spacy.blank("en")`'s tokenizer alone on each text;
  - the whole parse (`skillmap.parse.parse_job`): sections, skills, years, degree, salary,
    seniority and the track classifier.
Prints postings/s, tokens/s, median and p95 latency, and the ratio of the two.
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
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import spacy  # noqa: E402

from jobdata.corpus import load_corpus  # noqa: E402
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postings", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

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


if __name__ == "__main__":
    main()
