"""The shipped track model: `skillmap/data/track_model.npz`, made by `make` from the labelled
corpus, loaded when its digest still matches what it was trained from, else trained again (with
scikit-learn, through classify.py) and saved. Apart from track_model.py, which only predicts, so
that predicting never depends on the training code."""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from .track_model import TrackModel

MODEL_PATH = Path(__file__).parent / "data" / "track_model.npz"
# Bump when the features or the training change in a way the corpus digest cannot see.
TRAINING_VERSION = "2"


def corpus_digest() -> str:
    """What the shipped model depends on: the corpus files, spaCy's version, the training version."""
    import spacy

    from .corpus import CORPUS_DIR

    h = hashlib.sha256(f"{TRAINING_VERSION}|{spacy.__version__}".encode())
    for path in sorted(CORPUS_DIR.glob("*.jsonl")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def train_default() -> TrackModel:
    """Train on the shipped corpus (needs scikit-learn)."""
    from .classify import TrackClassifier
    from .corpus import load_corpus

    corpus = load_corpus()
    return TrackClassifier().fit([p.title + "\n" + p.text for p in corpus],
                                 [p.track for p in corpus]).to_model()


@lru_cache(maxsize=1)
def default_model() -> TrackModel:
    """The shipped model: loaded from MODEL_PATH, or trained (and saved when the folder is
    writable) when the file is missing or stale."""
    digest = corpus_digest()
    model = TrackModel.load(MODEL_PATH, digest)
    if model is None:
        model = train_default()
        try:
            model.save(MODEL_PATH, digest)
        except OSError:
            pass  # a read-only install trains once per process instead
    return model
