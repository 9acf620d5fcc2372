"""Track classifier: TF-IDF + logistic regression on the labelled corpus, blended with the
taxonomy's track weights of the skills found. Follows scikit-learn's estimator conventions.

Features are lower-cased token counts from spaCy's tokenizer (`Doc.count_by(LOWER)`), so the
parse reuses the tokens it already has instead of tokenizing the posting a second time.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.sparse import csr_matrix
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted
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


class TrackClassifier(ClassifierMixin, BaseEstimator):
    """Predicts a posting's track from its texts (or spaCy Docs); classes_ follow TRACKS."""

    def __init__(self, C: float = 8.0, min_df: int = 1):
        self.C = C
        self.min_df = min_df

    def _matrix(self, X) -> csr_matrix:
        """Token counts as a sparse matrix over the fitted vocabulary (sorted token hashes)."""
        indptr, cols, vals = [0], [], []
        for item in X:
            counts = token_counts(item)
            keys = np.fromiter(counts.keys(), dtype=np.uint64, count=len(counts))
            found = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
            pos = np.searchsorted(self.vocabulary_, keys)
            pos[pos == len(self.vocabulary_)] = 0
            known = self.vocabulary_[pos] == keys
            cols.append(pos[known])
            vals.append(found[known])
            indptr.append(indptr[-1] + int(known.sum()))
        return csr_matrix((np.concatenate(vals) if vals else [], np.concatenate(cols) if cols else [],
                           indptr), shape=(len(indptr) - 1, len(self.vocabulary_)))

    def fit(self, X, y):
        X = list(X)
        document_frequency: dict[int, int] = {}
        for item in X:
            for key in token_counts(item):
                document_frequency[key] = document_frequency.get(key, 0) + 1
        self.vocabulary_ = np.array(
            sorted(k for k, df in document_frequency.items() if df >= self.min_df), dtype=np.uint64)
        self.tfidf_ = TfidfTransformer(sublinear_tf=True).fit(self._matrix(X))
        self.model_ = LogisticRegression(C=self.C, max_iter=5000)
        self.model_.fit(self.tfidf_.transform(self._matrix(X)), y)
        unknown = set(self.model_.classes_) - set(TRACKS)
        if unknown:
            raise ValueError(f"unknown track labels: {sorted(unknown)}")
        self.classes_ = np.array(TRACKS)
        self.class_index_ = [list(self.model_.classes_).index(t) if t in self.model_.classes_ else -1
                             for t in TRACKS]
        return self

    def predict_proba(self, X) -> np.ndarray:
        check_is_fitted(self, "model_")
        X = list(X)
        raw = self._fast_proba(self._matrix(X))
        out = np.zeros((len(X), len(TRACKS)))
        for j, src in enumerate(self.class_index_):
            if src >= 0:
                out[:, j] = raw[:, src]
        return out

    def _fast_proba(self, counts: csr_matrix) -> np.ndarray:
        """TfidfTransformer + multinomial LogisticRegression.predict_proba, computed from their
        fitted attributes: the library's per-call input validation costs more than the maths
        on a single posting, and this runs on every parse."""
        tf = counts.copy()
        np.log(tf.data, out=tf.data)
        tf.data += 1.0  # sublinear_tf
        tf = tf.multiply(self.tfidf_.idf_).tocsr()
        norms = np.sqrt(np.asarray(tf.multiply(tf).sum(axis=1))).ravel()
        norms[norms == 0] = 1.0
        scores = np.asarray(tf @ self.model_.coef_.T) / norms[:, None] + self.model_.intercept_
        scores -= scores.max(axis=1, keepdims=True)
        np.exp(scores, out=scores)
        return scores / scores.sum(axis=1, keepdims=True)

    def predict(self, X) -> np.ndarray:
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def taxonomy_scores(skills: list[dict], taxonomy) -> np.ndarray:
    """Track distribution implied by the skills found (required ones count double)."""
    total = np.zeros(len(TRACKS))
    for entry in skills:
        weight = (1.0 if entry["required"] else 0.5) * (1 + np.log(entry.get("mentions", 1)))
        total += weight * taxonomy.get(entry["id"]).weight_vector()
    s = total.sum()
    return total / s if s > 0 else np.full(len(TRACKS), 1 / len(TRACKS))


def blend(text_proba: np.ndarray, skill_proba: np.ndarray, text_weight: float) -> np.ndarray:
    mixed = text_weight * text_proba + (1 - text_weight) * skill_proba
    return mixed / mixed.sum()


# Share of the text classifier in the blend; the rest comes from the taxonomy. Chosen by
# cross-validation on the corpus (python -m skillmap.evaluate).
TEXT_WEIGHT = 0.6


@lru_cache(maxsize=1)
def default_classifier() -> TrackClassifier:
    """The classifier trained on the shipped corpus (trained once per process, under a second)."""
    from jobdata.corpus import load_corpus

    corpus = load_corpus()
    return TrackClassifier().fit([p.title + "\n" + p.text for p in corpus], [p.track for p in corpus])
