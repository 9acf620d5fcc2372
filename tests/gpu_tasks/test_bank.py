"""The bank of every kind: tasks by slug, their kind, languages and track."""
from gpu_tasks import bank
from skillmap.taxonomy import TRACKS


def test_the_banks_tracks_are_the_taxonomys():
    assert set(bank.TRACKS) == set(TRACKS)


def test_every_task_has_one_kind_a_language_and_a_track():
    for slug, task in bank.tasks().items():
        assert bank.find(slug) is task
        assert bank.kind_of(task) in bank.KIND_LABELS, slug
        assert bank.languages_of(task), slug
        assert bank.track_of(task) in TRACKS, slug
    assert {bank.track_of(t) for t in bank.all_tasks()} == set(TRACKS)   # every track has tasks
    assert bank.find("no_such_task") is None
