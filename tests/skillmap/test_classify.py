"""The track classifier follows scikit-learn's conventions and is accurate on held-out postings."""
import numpy as np
from sklearn.model_selection import StratifiedKFold, cross_val_score

from skillmap.classify import TrackClassifier
from skillmap.corpus import load_corpus
from skillmap.taxonomy import TRACKS
from skillmap.shipped_model import corpus_digest, default_model, train_default
from skillmap.track_model import TrackModel


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


def _fitted(n_tracks: int) -> TrackClassifier:
    corpus = [p for p in load_corpus() if p.track in TRACKS[:n_tracks]]
    return TrackClassifier().fit([p.text for p in corpus], [p.track for p in corpus])


def test_the_estimator_predicts_with_the_library_pipeline():
    model = _fitted(4)
    texts = [p.text for p in load_corpus()[:25]]
    proba = model.predict_proba(texts)
    library = model.model_.predict_proba(model.tfidf_.transform(model._matrix(texts)))
    np.testing.assert_allclose(proba, library[:, model.class_index_], atol=1e-12)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert list(model.predict(texts)) == list(model.classes_[np.argmax(proba, axis=1)])


def test_the_parse_model_gives_the_estimators_probabilities():
    model = _fitted(4)
    texts = [p.text for p in load_corpus()[:25]]
    np.testing.assert_allclose(model.to_model().predict_proba(texts), model.predict_proba(texts),
                               atol=1e-12)


def test_a_model_fitted_on_two_tracks_predicts_like_the_library():
    model = _fitted(2)
    texts = [p.text for p in load_corpus()[:25]]
    proba = model.predict_proba(texts)
    library = model.model_.predict_proba(model.tfidf_.transform(model._matrix(texts)))
    np.testing.assert_allclose(proba[:, :2], library[:, model.class_index_[:2]], atol=1e-12)
    assert (proba[:, 2:] == 0).all()
    assert set(model.predict(texts)) <= set(TRACKS[:2])
    # The parse's numpy model of a two-class fit (one row of coefficients) agrees.
    np.testing.assert_allclose(model.to_model().predict_proba(texts), proba, atol=1e-12)


def test_the_saved_model_predicts_what_training_gives(tmp_path):
    trained = train_default()
    path = tmp_path / "model.npz"
    trained.save(path, "digest-a")
    assert TrackModel.load(path, "digest-b") is None  # trained from other data
    loaded = TrackModel.load(path, "digest-a")
    texts = [p.text for p in load_corpus()[:10]]
    np.testing.assert_allclose(loaded.predict_proba(texts), trained.predict_proba(texts))
    assert TrackModel.load(tmp_path / "missing.npz", "digest-a") is None
    (tmp_path / "broken.npz").write_bytes(b"not a model")
    assert TrackModel.load(tmp_path / "broken.npz", "digest-a") is None


def test_the_shipped_model_matches_the_corpus():
    from skillmap.shipped_model import MODEL_PATH

    default_model()
    assert TrackModel.load(MODEL_PATH, corpus_digest()) is not None


def test_parsing_does_not_import_scikit_learn():
    import subprocess
    import sys

    code = ("import sys; from skillmap.parse import parse_job; parse_job('Senior CUDA Engineer\\n5+ years of CUDA');"
            "print('sklearn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_cross_validated_accuracy_at_least_nine_in_ten():
    corpus = load_corpus()
    scores = cross_val_score(TrackClassifier(), [p.title + "\n" + p.text for p in corpus],
                             [p.track for p in corpus],
                             cv=StratifiedKFold(4, shuffle=True, random_state=1))
    assert scores.mean() >= 0.9
