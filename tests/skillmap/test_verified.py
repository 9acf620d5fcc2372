"""Verified skills are what solutions show, at levels the evidence can carry: a reduction without
shuffles shows no warp shuffles, array code shows CuPy, and two easy tasks make nobody
proficient, in a skill or a track."""
from datetime import datetime
from pathlib import Path

import gpu_tasks
from assessments.shown import skills_shown
from skillmap.taxonomy import load_taxonomy
from skillmap.verified import Evidence, level_name, verified_skills, verified_tracks

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "submissions"
SOL = ROOT / "gpu_tasks" / "solutions"
TAX = load_taxonomy()
NOW = datetime(2026, 11, 26)


def _shown(task, path, timed_score=None):
    return set(skills_shown(gpu_tasks.get_task(task).skills, Path(path).read_text(),
                            timed_score=timed_score))


def test_a_solution_shows_only_the_techniques_its_code_uses():
    shared_tree = _shown("reduce_sum", FIX / "reduce_sum" / "shared_tree.py")
    assert {"cuda", "shared_memory", "parallel_reduction"} <= shared_tree
    assert "warp_shuffle" not in shared_tree      # a shared-memory tree, no shuffles
    assert "warp_shuffle" in _shown("reduce_sum", SOL / "reduce_sum.py")
    array = _shown("reduce_sum", FIX / "reduce_sum" / "array.py")
    assert array == set()            # cp.sum: no kernel, no CUDA, no reduction of its own
    assert _shown("vector_add", FIX / "vector_add" / "array.py") == {"cupy"}
    raw = _shown("vector_add", FIX / "vector_add" / "raw_kernel.py")
    assert {"cuda", "cupy", "cuda_thread_hierarchy"} <= raw and "memory_coalescing" not in raw
    timed = _shown("vector_add", FIX / "vector_add" / "raw_kernel.py", timed_score=92.0)
    slow = _shown("vector_add", FIX / "vector_add" / "raw_kernel.py", timed_score=70.0)
    assert "memory_coalescing" in timed and "memory_coalescing" not in slow
    atomics = _shown("histogram", FIX / "histogram" / "global_atomics.py")
    assert "atomic_operations" in atomics


def _ev(sid, task, difficulty, score=60.0, timed=False, skills=("cuda", "shared_memory")):
    return Evidence(sid, task, difficulty, score, tuple(skills), NOW, timed=timed)


def test_two_easy_tasks_make_nobody_proficient():
    easy = [_ev(1, "vector_add", "easy", 60, skills=("cuda", "cupy")),
            _ev(2, "relu", "easy", 60, skills=("cuda", "cupy")),
            _ev(3, "saxpy", "easy", 100, timed=True, skills=("cuda", "cupy"))]
    levels = {v["skill"]: v for v in verified_skills(easy)}
    assert all(v["level_name"] == "foundational" for v in levels.values()), levels
    tracks = verified_tracks(easy, lambda s: TAX.get(s).weight_tuple if s in TAX else None)
    assert max(tracks.values()) < 0.45, tracks


def test_proficient_needs_a_medium_task_and_advanced_a_hard_one_with_a_timing_or_another():
    medium = [_ev(1, "reduce_sum", "medium", 60), _ev(2, "histogram", "medium", 60),
              _ev(3, "softmax", "medium", 60)]
    assert level_name(verified_skills(medium)[0]["level"]) == "proficient"
    untimed_hard = medium + [_ev(4, "matmul", "hard", 60)]
    assert verified_skills(untimed_hard)[0]["level_name"] == "proficient"
    timed_hard = medium + [_ev(5, "matmul", "hard", 95, timed=True)]
    assert verified_skills(timed_hard)[0]["level_name"] == "advanced"
    two_hard = medium + [_ev(4, "matmul", "hard", 60), _ev(6, "prefix_sum", "hard", 60)]
    assert verified_skills(two_hard)[0]["level_name"] == "advanced"


def test_one_task_counts_once_however_many_skills_it_touches_or_times_it_is_solved():
    one = [_ev(1, "reduce_sum", "medium", 60, skills=("cuda", "shared_memory", "parallel_reduction",
                                                      "warp_shuffle", "atomic_operations"))]
    again = one + [_ev(2, "reduce_sum", "medium", 60, skills=one[0].skills)]
    weights = lambda s: TAX.get(s).weight_tuple if s in TAX else None  # noqa: E731
    assert verified_tracks(one, weights) == verified_tracks(again, weights)
    assert max(verified_tracks(one, weights).values()) <= 0.75 * 0.6 + 1e-9
