"""The labelled corpus of GPU-engineering postings (skillmap/data/corpus/*.jsonl): the track
classifier's training data, and the starter jobs (jobdata/starter.py)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

CORPUS_DIR = Path(__file__).parent / "data" / "corpus"


@dataclass(frozen=True)
class Posting:
    id: str
    track: str
    title: str
    company: str
    location: str
    text: str


def load_corpus(directory: Path = CORPUS_DIR) -> list[Posting]:
    """Every labelled posting, sorted by id so that splits are reproducible."""
    postings = []
    for path in sorted(Path(directory).glob("*.jsonl")):
        with open(path, encoding="utf-8") as fh:
            for line_no, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path.name}:{line_no}: {exc}") from exc
                postings.append(Posting(
                    id=row["id"], track=row["track"], title=row.get("title", ""),
                    company=row.get("company", ""), location=row.get("location", ""),
                    text=row["text"],
                ))
    return sorted(postings, key=lambda p: p.id)
