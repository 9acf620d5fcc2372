"""The track classifier follows scikit-learn's conventions and is accurate on held-out postings."""
import numpy as np
from sklearn.model_selection import StratifiedKFold, cross_val_score

from jobdata.corpus import load_corpus
from skillmap.classify import TrackClassifier, default_classifier
from skillmap.taxonomy import TRACKS


def test_corpus_has_at_least_30_postings_per_track():
    corpus = load_corpus()
    for track in TRACKS:
        assert sum(p.track == track for p in corpus) >= 30
    assert len({p.id for p in corpus}) == len(corpus)


def test_fit_returns_self_and_sets_learned_attributes():
    corpus = load_corpus()[:60]
    model = TrackClassifier()
    assert model.fit([p.text for p in corpus], [p.track for p in corpus]) is model
    assert list(model.classes_) == list(TRACKS)
    assert hasattr(model, "vocabulary_") and hasattr(model, "model_")


def test_fast_probabilities_equal_the_library_pipeline():
    model = default_classifier()
    texts = [p.text for p in load_corpus()[:25]]
    fast = model.predict_proba(texts)
    slow = model.model_.predict_proba(model.tfidf_.transform(model._matrix(texts)))
    reordered = slow[:, model.class_index_]
    np.testing.assert_allclose(fast, reordered, atol=1e-12)
    np.testing.assert_allclose(fast.sum(axis=1), 1.0)


def test_cross_validated_accuracy_at_least_nine_in_ten():
    corpus = load_corpus()
    scores = cross_val_score(TrackClassifier(), [p.title + "\n" + p.text for p in corpus],
                             [p.track for p in corpus],
                             cv=StratifiedKFold(4, shuffle=True, random_state=1))
    assert scores.mean() >= 0.9
