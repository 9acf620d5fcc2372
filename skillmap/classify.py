"""Track classifier: TF-IDF + logistic regression on the labelled corpus, blended with the
taxonomy's track weights of the skills found. Follows scikit-learn's estimator conventions."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted

from .taxonomy import TRACKS

_TOKEN = r"(?u)\b\w[\w+#]*"  # keeps C++, C#, K8s


class TrackClassifier(ClassifierMixin, BaseEstimator):
    """Predicts the track of a posting's text; classes_ are always in TRACKS order."""

    def __init__(self, C: float = 8.0, ngram_range: tuple = (1, 2), min_df: int = 1):
        self.C = C
        self.ngram_range = ngram_range
        self.min_df = min_df

    def fit(self, X, y):
        self.vectorizer_ = TfidfVectorizer(
            sublinear_tf=True, ngram_range=self.ngram_range, min_df=self.min_df,
            token_pattern=_TOKEN, lowercase=True, max_features=50_000, dtype=np.float32,
        )
        features = self.vectorizer_.fit_transform(X)
        self.model_ = LogisticRegression(C=self.C, max_iter=5000)
        self.model_.fit(features, y)
        unknown = set(self.model_.classes_) - set(TRACKS)
        if unknown:
            raise ValueError(f"unknown track labels: {sorted(unknown)}")
        self.classes_ = np.array(TRACKS)
        self._order = [list(self.model_.classes_).index(t) if t in self.model_.classes_ else -1
                       for t in TRACKS]
        return self

    def predict_proba(self, X) -> np.ndarray:
        check_is_fitted(self, "model_")
        raw = self.model_.predict_proba(self.vectorizer_.transform(X))
        out = np.zeros((raw.shape[0], len(TRACKS)))
        for j, src in enumerate(self._order):
            if src >= 0:
                out[:, j] = raw[:, src]
        return out

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
    """The classifier trained on the shipped corpus (trained once per process, about a second)."""
    from jobdata.corpus import load_corpus

    corpus = load_corpus()
    return TrackClassifier().fit([p.title + "\n" + p.text for p in corpus], [p.track for p in corpus])
