"""Similarity flags: copies are caught through renaming and reformatting; different work is not."""
import re

import gpu_tasks
from assessment_helpers import fixture_source
from assessments.integrity import THRESHOLD, normalise, similar_pairs


def _disguise(source: str) -> str:
    """Rename every identifier the copier controls, change indentation, add comments."""
    names = {m for m in re.findall(r"\b_?[a-z][a-z_]*\b", source)} & {
        "warp_sum", "warp_sums", "lane", "warp", "offset", "_reduce", "v", "i", "blocks"}
    for i, name in enumerate(sorted(names)):
        source = re.sub(rf"\b{name}\b", f"q{i}", source)
    return "# my own work\n" + source.replace("    ", "\t")


def test_normalising_ignores_names_spacing_and_comments():
    a = "x = foo(bar,  2)  # call\n"
    b = "renamed=other( thing , 7 )\n"
    assert normalise(a) == normalise(b) == ["V = V ( V , N )"]


def test_a_disguised_copy_of_the_reference_is_flagged():
    copy = _disguise(gpu_tasks.reference_source("reduce_sum"))
    matches = similar_pairs("reduce_sum", {1: copy}, {})
    assert [(m.other_id, m.describe()) for m in matches] == [(None, "similar to the reference solution (100%)")]


def test_a_copy_of_another_submission_is_flagged_with_its_id():
    original = fixture_source("reduce_sum", "shared_tree")
    matches = similar_pairs("reduce_sum", {2: _disguise(original)}, {7: original})
    assert any(m.other_id == 7 and m.similarity >= THRESHOLD for m in matches)
    assert matches[0].describe().startswith("similar to submission 7 (")


def test_different_solutions_are_not_flagged():
    subjects = {i: fixture_source(task, name) for i, (task, name) in enumerate([
        ("reduce_sum", "shared_tree"), ("reduce_sum", "jit_shared"), ("reduce_sum", "reduction")])}
    assert similar_pairs("reduce_sum", subjects, {}) == []
    softmax = {1: fixture_source("softmax", "thread_per_row"), 2: fixture_source("softmax", "unstable")}
    assert similar_pairs("softmax", softmax, {}) == []


def test_no_starter_looks_copied_and_trivial_code_is_never_flagged():
    for slug in gpu_tasks.TASKS:
        starters = {i: gpu_tasks.starter(slug, s) for i, s in enumerate(gpu_tasks.STYLES)}
        assert similar_pairs(slug, starters, {}) == [], slug
    one_liner = {1: fixture_source("vector_add", "raw_kernel"), 2: fixture_source("vector_add", "raw_kernel")}
    assert similar_pairs("vector_add", one_liner, {}) == []
