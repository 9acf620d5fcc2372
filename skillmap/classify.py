"""Track classifier: TF-IDF + logistic regression on the labelled corpus. Follows
scikit-learn's estimator conventions and predicts with scikit-learn; used to train and to
cross-validate. Parsing predicts with the fitted arrays alone (`to_model()`, a
`skillmap.track_model.TrackModel`), so a parse never imports scikit-learn; the tests hold the two
to the same probabilities.

Features are lower-cased token counts from spaCy's tokenizer (`Doc.count_by(LOWER)`), so the
parse reuses the tokens it already has instead of tokenizing the posting a second time.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted

from .taxonomy import TRACKS
from .track_model import TrackModel, count_matrix, over_tracks, token_counts


class TrackClassifier(ClassifierMixin, BaseEstimator):
    """Predicts a posting's track from its texts (or spaCy Docs); classes_ follow TRACKS."""

    def __init__(self, C: float = 8.0, min_df: int = 1):
        self.C = C
        self.min_df = min_df

    def _matrix(self, X):
        return count_matrix(X, self.vocabulary_)

    def fit(self, X, y):
        counts = [token_counts(item) for item in X]   # each posting tokenized once
        document_frequency: dict[int, int] = {}
        for item in counts:
            for key in item:
                document_frequency[key] = document_frequency.get(key, 0) + 1
        self.vocabulary_ = np.array(
            sorted(k for k, df in document_frequency.items() if df >= self.min_df), dtype=np.uint64)
        matrix = self._matrix(counts)
        self.tfidf_ = TfidfTransformer(sublinear_tf=True).fit(matrix)
        self.model_ = LogisticRegression(C=self.C, max_iter=5000)
        self.model_.fit(self.tfidf_.transform(matrix), y)
        unknown = set(self.model_.classes_) - set(TRACKS)
        if unknown:
            raise ValueError(f"unknown track labels: {sorted(unknown)}")
        self.classes_ = np.array(TRACKS)
        self.class_index_ = [list(self.model_.classes_).index(t) if t in self.model_.classes_ else -1
                             for t in TRACKS]
        return self

    def predict_proba(self, X) -> np.ndarray:
        """Rows of probabilities over TRACKS (zero for a track the training data lacked)."""
        check_is_fitted(self, "model_")
        return over_tracks(self.model_.predict_proba(self.tfidf_.transform(self._matrix(X))),
                           self.class_index_)

    def to_model(self) -> TrackModel:
        """The fitted arrays, enough to predict without scikit-learn."""
        check_is_fitted(self, "model_")
        return TrackModel(vocabulary=self.vocabulary_, idf=self.tfidf_.idf_,
                          coef=self.model_.coef_, intercept=self.model_.intercept_,
                          class_index=np.array(self.class_index_))

    def predict(self, X) -> np.ndarray:
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
