"""The fitted track classifier as plain arrays: predicting with it needs numpy and scipy only,
and it is saved next to the taxonomy (`skillmap/data/track_model.npz`, made by `make`), so a
command-line parse neither imports scikit-learn nor trains.

A saved model carries a digest of what it was trained from (the corpus files, the tokenizer's
settings, the training code's version); shipped_model.py loads the shipped one, or trains and
saves it again when the digest no longer matches.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from spacy.attrs import LOWER
from spacy.tokens import Doc

from .taxonomy import TRACKS



@lru_cache(maxsize=1)
def _tokenizer():
    from .extract import blank_english

    return blank_english().tokenizer


def token_counts(item) -> dict[int, int]:
    """Lower-cased token hash -> count, for a text or an already tokenized Doc."""
    doc = item if isinstance(item, Doc) else _tokenizer()(item)
    return doc.count_by(LOWER)


def known_counts(item, vocabulary: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(columns, counts) of the item's tokens that are in a vocabulary of sorted token hashes;
    the item is a text, a Doc, or its token_counts already made."""
    counts = item if isinstance(item, dict) else token_counts(item)
    keys = np.fromiter(counts.keys(), dtype=np.uint64, count=len(counts))
    found = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
    pos = np.searchsorted(vocabulary, keys)
    pos[pos == len(vocabulary)] = 0
    known = vocabulary[pos] == keys
    return pos[known], found[known]


def count_matrix(X, vocabulary: np.ndarray):
    """Token counts as a sparse matrix over the vocabulary (for training)."""
    from scipy.sparse import csr_matrix

    indptr, cols, vals = [0], [], []
    for item in X:
        col, val = known_counts(item, vocabulary)
        cols.append(col)
        vals.append(val)
        indptr.append(indptr[-1] + len(col))
    return csr_matrix((np.concatenate(vals) if vals else [], np.concatenate(cols) if cols else [],
                       indptr), shape=(len(indptr) - 1, len(vocabulary)))


def over_tracks(proba: np.ndarray, class_index) -> np.ndarray:
    """Probabilities over the model's classes as columns over TRACKS (zero for a track the
    model never saw); class_index gives each track's column in `proba`, or -1."""
    out = np.zeros((proba.shape[0], len(TRACKS)))
    for j, src in enumerate(class_index):
        if src >= 0:
            out[:, j] = proba[:, src]
    return out


@dataclass
class TrackModel:
    """Sublinear TF-IDF, L2 normalisation and a logistic regression, from their fitted arrays."""

    vocabulary: np.ndarray   # sorted uint64 token hashes
    idf: np.ndarray
    coef: np.ndarray         # classes x vocabulary (one row for a model fitted on two classes)
    intercept: np.ndarray
    class_index: np.ndarray  # for each of TRACKS, its column in the model's classes, or -1

    def raw_proba(self, rows: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        """Class probabilities from (columns, counts) per text: a posting has a few hundred
        distinct tokens, so the sums run over those columns only (no sparse-matrix library)."""
        scores = np.empty((len(rows), self.coef.shape[0]))
        for i, (cols, counts) in enumerate(rows):
            weights = (np.log(counts) + 1.0) * self.idf[cols]  # sublinear tf x idf
            norm = np.sqrt(weights @ weights) or 1.0
            scores[i] = self.coef[:, cols] @ weights / norm
        scores += self.intercept
        if scores.shape[1] == 1:  # binary logistic regression: one score for the second class
            positive = 1.0 / (1.0 + np.exp(-scores[:, 0]))
            return np.column_stack([1.0 - positive, positive])
        scores -= scores.max(axis=1, keepdims=True)
        np.exp(scores, out=scores)
        return scores / scores.sum(axis=1, keepdims=True)

    def predict_proba(self, X) -> np.ndarray:
        """Rows of probabilities over TRACKS (zero for a track the model never saw)."""
        raw = self.raw_proba([known_counts(item, self.vocabulary) for item in X])
        return over_tracks(raw, self.class_index)

    def save(self, path: Path, digest: str) -> None:
        """Write atomically, so concurrent processes never read half a file."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".track_model.", suffix=".npz")
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, vocabulary=self.vocabulary, idf=self.idf, coef=self.coef,
                         intercept=self.intercept, class_index=self.class_index,
                         digest=np.array(digest))
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    @classmethod
    def load(cls, path: Path, digest: str) -> "TrackModel | None":
        """The saved model, or None when it is missing, unreadable or trained from other data."""
        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["digest"]) != digest:
                    return None
                return cls(vocabulary=data["vocabulary"], idf=data["idf"], coef=data["coef"],
                           intercept=data["intercept"], class_index=data["class_index"])
        except (OSError, KeyError, ValueError):
            return None
