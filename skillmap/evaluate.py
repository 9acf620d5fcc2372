"""Measure the parser: track accuracy (cross-validated) and skill precision/recall.

    python -m skillmap.evaluate [--folds 5] [--gold FILE ...]
    python -m skillmap.evaluate --labelled FILE ... [--split all|odd|even]

Gold files are JSON lines: {"id", "track", "text", "skills": [taxonomy ids]} — postings the
classifier never trained on, annotated by hand.

Labelled files hold real postings labelled field by field before the parser saw them (kept
outside the repository: their texts belong to their publishers): {"id", "title", "text",
"track", "min_years", "degree", "experience_paths", "seniority", "salary",
"skills": {id: "required" | "preferred" | "mentioned"}}. The report gives per-field accuracy,
skill precision and recall, and how often a found skill's need is right.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold

from .classify import TrackClassifier
from .corpus import load_corpus
from .tracks import TEXT_WEIGHT, blend, taxonomy_scores
from .extract import build_pipeline, skill_mentions
from .taxonomy import TRACKS, load_taxonomy

GOLD_DIR = Path(__file__).parent / "data" / "gold"
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


FIELDS = ("track", "min_years", "degree", "seniority", "salary", "experience_paths")
_RANK = {None: -1, "bachelor": 0, "master": 1, "phd": 2}


def _paths(paths) -> set:
    """Paths as a set, without those another path makes redundant (no higher degree, no more years)."""
    items = {(p.get("degree"), p.get("min_years")) for p in paths or []}

    def dominated(a):
        return any(b != a and _RANK[b[0]] <= _RANK[a[0]] and (b[1] or 0) <= (a[1] or 0) for b in items)

    return {a for a in items if not dominated(a)}


def _salary_equal(found, expected) -> bool:
    if not found or not expected:
        return not found and not expected
    return (found["currency"] == expected["currency"] and found["period"] == expected["period"]
            and all(abs(found[k] - expected[k]) <= 0.01 * max(1.0, abs(expected[k])) for k in ("min", "max")))


def _need(skill: dict) -> str:
    return skill.get("need") or ("required" if skill.get("required") else "preferred")


def field_scores(rows: list[dict], parse=None) -> dict:
    """Per-field accuracy, skill precision/recall and need accuracy on labelled real postings."""
    if parse is None:
        from .parse import parse_job as parse
    hits = {f: 0 for f in FIELDS}
    tp = fp = fn = need_hits = need_binary_hits = 0
    wrong: dict[str, list] = {f: [] for f in FIELDS}
    misses: dict[str, int] = {}
    extras: dict[str, int] = {}
    for row in rows:
        result = parse(row["text"])
        checks = {
            "track": result["primary_track"] == row["track"],
            "min_years": result["min_years"] == row["min_years"],
            "degree": result["degree"] == row["degree"],
            "seniority": result["seniority"] == row["seniority"],
            "salary": _salary_equal(result["salary"], row["salary"]),
            "experience_paths": _paths(result.get("experience_paths")) == _paths(row.get("experience_paths")),
        }
        for name, ok in checks.items():
            hits[name] += ok
            if not ok:
                wrong[name].append(row["id"])
        # A skill added to the taxonomy after labelling, found where the labeller listed the term
        # as untracked, is neither right nor wrong.
        untracked = {t.lower() for t in row.get("untracked", [])}
        found = {s["id"]: _need(s) for s in result["skills"]
                 if s["id"] in row["skills"]
                 or not all(e["match"].lower() in untracked for e in s["evidence"])}
        expected = row["skills"]
        tp += len(found.keys() & expected.keys())
        fp += len(found.keys() - expected.keys())
        fn += len(expected.keys() - found.keys())
        for sid in expected.keys() - found.keys():
            misses[sid] = misses.get(sid, 0) + 1
        for sid in found.keys() - expected.keys():
            extras[sid] = extras.get(sid, 0) + 1
        for sid in found.keys() & expected.keys():
            need_hits += found[sid] == expected[sid]
            need_binary_hits += (found[sid] == "required") == (expected[sid] == "required")
    n = len(rows) or 1
    return {
        "postings": len(rows),
        "accuracy": {f: hits[f] / n for f in FIELDS},
        "skill_precision": tp / (tp + fp) if tp + fp else 1.0,
        "skill_recall": tp / (tp + fn) if tp + fn else 1.0,
        "need_accuracy": need_hits / tp if tp else None,
        "required_accuracy": need_binary_hits / tp if tp else None,
        "wrong": wrong,
        "missed": sorted(misses.items(), key=lambda kv: -kv[1])[:20],
        "extra": sorted(extras.items(), key=lambda kv: -kv[1])[:20],
    }


def select_split(rows: list[dict], split: str) -> list[dict]:
    """all, or every other posting of each file (odd / even numbered ids), for a held-out half."""
    if split == "all":
        return rows
    keep = 1 if split == "odd" else 0
    return [r for r in rows if int(r["id"].rsplit("-", 1)[-1]) % 2 == keep]


def print_field_scores(scores: dict, label: str) -> None:
    acc = scores["accuracy"]
    print(f"{label}: {scores['postings']} labelled real postings")
    print("  " + "  ".join(f"{f} {acc[f]:.3f}" for f in FIELDS))
    print(f"  skills: precision {scores['skill_precision']:.3f}  recall {scores['skill_recall']:.3f}  "
          f"need (3-way) {scores['need_accuracy']:.3f}  required vs not {scores['required_accuracy']:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description="Measure the job-description parser.")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--gold", nargs="*", help="gold JSONL files (default: skillmap/data/gold/*.jsonl)")
    parser.add_argument("--labelled", nargs="+", help="labelled real postings (JSON lines) to score field by field")
    parser.add_argument("--split", choices=("all", "odd", "even"), default="all")
    parser.add_argument("--verbose", action="store_true", help="list the postings each field gets wrong")
    args = parser.parse_args()

    if args.labelled:
        rows = select_split(load_gold(args.labelled), args.split)
        scores = field_scores(rows)
        print_field_scores(scores, f"{', '.join(Path(p).name for p in args.labelled)} ({args.split})")
        if args.verbose:
            for f, ids in scores["wrong"].items():
                print(f"  wrong {f}: {ids}")
            print(f"  most missed: {scores['missed']}")
            print(f"  most extra:  {scores['extra']}")
        return

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
