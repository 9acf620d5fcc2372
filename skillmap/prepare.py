"""`python -m skillmap.prepare`: build the files that let a parse start fast.

- `skillmap/data/track_model.npz`: the track classifier trained on the labelled corpus;
- `skillmap/data/pattern_tokens.json`: the taxonomy's forms, tokenized.

Both are derived (gitignored), checked against what they were made from when loaded, and made
again at run time when missing or stale; `make` builds them once at install.
"""
from __future__ import annotations

from .extract import build_pipeline
from .skills import TOKENS_PATH
from .shipped_model import MODEL_PATH, corpus_digest, train_default
from .taxonomy import TRACKS


def main() -> None:
    model = train_default()
    model.save(MODEL_PATH, corpus_digest())
    print(f"saved {MODEL_PATH} ({len(model.vocabulary)} tokens, {len(TRACKS)} tracks)")
    build_pipeline()  # tokenizes the taxonomy's forms and saves them when the file is stale
    print(f"saved {TOKENS_PATH}")


if __name__ == "__main__":
    main()
