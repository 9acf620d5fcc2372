"""Measure the parser: track accuracy (cross-validated) and skill precision/recall.

    python -m skillmap.evaluate [--folds 5] [--gold FILE ...]

Gold files are JSON lines: {"id", "track", "text", "skills": [taxonomy ids]} — postings the
classifier never trained on, annotated by hand.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold

from jobdata.corpus import load_corpus

from .classify import TrackClassifier
from .tracks import TEXT_WEIGHT, blend, taxonomy_scores
from .extract import build_pipeline, skill_mentions
from .taxonomy import TRACKS, load_taxonomy

GOLD_DIR = Path(__file__).resolve().parents[1] / "jobdata" / "data" / "gold"
WEIGHTS = (0.0, 0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0)


def cross_validate(folds: int = 5, seed: int = 0) -> dict:
    """Accuracy per text weight in the blend (0 = taxonomy alone, 1 = text classifier alone)."""
    corpus = load_corpus()
    texts = [p.title + "\n" + p.text for p in corpus]
    labels = np.array([p.track for p in corpus])
    nlp, tax = build_pipeline(), load_taxonomy()
    skill_proba = np.array([taxonomy_scores(skill_mentions(nlp(t)), tax) for t in texts])
    correct = {w: 0 for w in WEIGHTS}
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=seed).split(texts, labels):
        model = TrackClassifier().fit([texts[i] for i in train], labels[train])
        text_proba = model.predict_proba([texts[i] for i in test])
        for w in WEIGHTS:
            for row, i in enumerate(test):
                guess = TRACKS[int(np.argmax(blend(text_proba[row], skill_proba[i], w)))]
                correct[w] += guess == labels[i]
    return {"postings": len(texts), "folds": folds,
            "accuracy": {w: correct[w] / len(texts) for w in WEIGHTS}}


def load_gold(paths) -> list[dict]:
    rows = []
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            rows.extend(json.loads(line) for line in fh if line.strip())
    return rows


def skill_scores(gold: list[dict]) -> dict:
    """Micro precision/recall of skill ids, and track accuracy, on hand-annotated postings."""
    from .parse import parse_job

    tp = fp = fn = 0
    track_hits = 0
    misses: dict[str, int] = {}
    extras: dict[str, int] = {}
    for row in gold:
        result = parse_job(row["text"], title=row.get("title"))
        found = {s["id"] for s in result["skills"]}
        expected = set(row["skills"])
        tp += len(found & expected)
        fp += len(found - expected)
        fn += len(expected - found)
        for sid in expected - found:
            misses[sid] = misses.get(sid, 0) + 1
        for sid in found - expected:
            extras[sid] = extras.get(sid, 0) + 1
        track_hits += result["primary_track"] == row["track"]
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return {"postings": len(gold), "precision": precision, "recall": recall,
            "track_accuracy": track_hits / len(gold) if gold else None,
            "missed": sorted(misses.items(), key=lambda kv: -kv[1])[:15],
            "extra": sorted(extras.items(), key=lambda kv: -kv[1])[:15]}


def main() -> None:
    parser = argparse.ArgumentParser(description="Measure the job-description parser.")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--gold", nargs="*", help="gold JSONL files (default: jobdata/data/gold/*.jsonl)")
    args = parser.parse_args()

    cv = cross_validate(args.folds)
    print(f"Track classifier, {cv['folds']}-fold cross-validation on {cv['postings']} labelled postings")
    for w, acc in cv["accuracy"].items():
        marker = "  <- shipped" if abs(w - TEXT_WEIGHT) < 1e-9 else ""
        print(f"  text weight {w:.1f}: accuracy {acc:.3f}{marker}")

    paths = args.gold if args.gold is not None else sorted(GOLD_DIR.glob("*.jsonl"))
    if paths:
        scores = skill_scores(load_gold(paths))
        print(f"\nSkills on {scores['postings']} hand-annotated postings "
              f"({', '.join(Path(p).name for p in paths)})")
        print(f"  precision {scores['precision']:.3f}  recall {scores['recall']:.3f}  "
              f"track accuracy {scores['track_accuracy']:.3f}")
        print(f"  most missed: {scores['missed']}")
        print(f"  most extra:  {scores['extra']}")


if __name__ == "__main__":
    main()
