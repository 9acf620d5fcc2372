"""Held-out, hand-annotated postings: the parser's quality bar (issue targets: 0.9)."""
from skillmap.evaluate import GOLD_DIR, load_gold, skill_scores


def test_skills_and_tracks_on_held_out_postings():
    scores = skill_scores(load_gold(sorted(GOLD_DIR.glob("*.jsonl"))))
    assert scores["postings"] >= 30
    assert scores["precision"] >= 0.9, scores["extra"]
    assert scores["recall"] >= 0.9, scores["missed"]
    assert scores["track_accuracy"] >= 0.9
