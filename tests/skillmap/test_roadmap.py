"""Roadmap rules: prerequisites first, nothing already verified, phases, time, resources, and the
resource catalog's consistency with the taxonomy."""
from pathlib import Path

import pytest

from skillmap.roadmap import (KNOWN_LEVEL, PHASES, RoadmapError, build_roadmap, load_resources)
from skillmap.taxonomy import load_taxonomy

TAX = load_taxonomy()
CATALOG = Path(__file__).resolve().parents[2] / "jobdata" / "data" / "resources.toml"
RESOURCES, MILESTONES = load_resources(CATALOG)
TARGET = [("cutlass", "required"), ("nccl", "required"), ("triton", "preferred"), ("kubernetes", "mentioned")]


def plan(**kwargs):
    return build_roadmap(TARGET, TAX, resources=RESOURCES, milestones=MILESTONES, **kwargs)


def test_no_skill_comes_before_its_prerequisites():
    steps = plan()["steps"]
    position = {s["skill"]: i for i, s in enumerate(steps)}
    for step in steps:
        for req in TAX.get(step["skill"]).requires:
            if req in position:
                assert position[req] < position[step["skill"]], (req, step["skill"])
        assert PHASES.index(step["phase"]) >= max(
            (PHASES.index(steps[position[r]]["phase"]) for r in step["requires"]), default=0)


def test_prerequisites_of_the_gap_are_included_and_every_target_skill_is_planned():
    result = plan()
    planned = {s["skill"] for s in result["steps"]}
    assert {"cutlass", "nccl", "triton", "kubernetes"} <= planned
    assert set(TAX.prerequisites("cutlass")) <= planned
    assert result["gap"]["missing_required"] and "cutlass" in result["gap"]["missing_required"]


def test_what_is_verified_is_never_recommended_but_claims_are_to_be_verified():
    verified = {"cuda": 0.9, "cpp": 0.8, "c": 0.7, "parallel_programming": 0.6, "nccl": KNOWN_LEVEL}
    result = plan(verified=verified, claimed=frozenset({"triton"}))
    planned = {s["skill"] for s in result["steps"]}
    assert not planned & set(verified)
    assert "nccl" in result["gap"]["already_verified"]
    triton = next(s for s in result["steps"] if s["skill"] == "triton")
    assert triton["claimed"] and "verify" not in triton["why"]     # no task verifies Triton
    practised = plan(claimed=frozenset({"triton"}), practice={"triton": ["softmax"]})
    triton = next(s for s in practised["steps"] if s["skill"] == "triton")
    assert "verify it with a task" in triton["why"]


def test_no_gap_says_so():
    everything = {sid: 1.0 for sid, _ in TARGET}
    result = plan(verified=everything)
    assert result["no_gap"] and result["steps"] == [] and "nothing to learn" in result["message"]


def test_time_follows_the_hours_per_week():
    slow, fast = plan(hours_per_week=5), plan(hours_per_week=20)
    assert slow["total_hours"] == fast["total_hours"]
    assert slow["total_weeks"] > fast["total_weeks"] >= 1
    weeks = [p["start_week"] for p in slow["phases"]]
    assert weeks == sorted(weeks)


def test_steps_carry_resources_practice_and_phases_carry_milestones():
    result = build_roadmap(TARGET, TAX, resources=RESOURCES, milestones=MILESTONES,
                           practice={"cuda": ["vector_add", "reduce_sum"]}, track="software_optimization")
    cuda = next(s for s in result["steps"] if s["skill"] == "cuda")
    assert cuda["resources"] and all(r["url"].startswith("https://") for r in cuda["resources"])
    assert cuda["practice"] == [{"task": "vector_add", "url": "/tasks/vector_add"},
                                {"task": "reduce_sum", "url": "/tasks/reduce_sum"}]
    titles = [m["title"] for p in result["phases"] for m in p["milestones"]]
    assert any("convolution kernel" in t for t in titles)          # the track's project
    assert not any("Kubernetes GPU cluster" in t for t in titles)  # another track's


@pytest.mark.parametrize("hours", [0, -3, 81, "ten"])
def test_bad_hours_per_week_names_the_field(hours):
    with pytest.raises(RoadmapError) as err:
        plan(hours_per_week=hours)
    assert err.value.field == "hours_per_week"


def test_the_catalog_names_real_skills_and_valid_links():
    assert len(RESOURCES) >= 40
    ids = [r.id for r in RESOURCES]
    assert len(ids) == len(set(ids))
    for res in RESOURCES:
        assert res.url.startswith("https://") and res.cost in ("free", "paid")
        assert res.kind in ("book", "course", "docs", "tutorial", "video", "tool", "paper")
        unknown = [s for s in res.skills if s not in TAX]
        assert not unknown, (res.id, unknown)
    assert {m["phase"] for m in MILESTONES} == set(PHASES)


def test_what_a_claim_or_a_verified_skill_builds_on_is_assumed_known():
    base = {s["skill"] for s in plan()["steps"]}
    below_cuda = set(TAX.prerequisites("cuda"))
    assert below_cuda <= base  # CUTLASS builds on CUDA, which builds on these
    with_claim = {s["skill"] for s in plan(claimed=frozenset({"cuda"}))["steps"]}
    assert not below_cuda & with_claim and "cuda" in with_claim  # the claim itself is still to verify


def test_a_steps_resources_teach_that_skill():
    from candidates.roadmaps import catalog
    resources, _ = catalog()
    by_skill = {}
    for r in resources:
        for sid in r.skills:
            by_skill.setdefault(sid, []).append(r.title)
    assert by_skill["c"] and not any("C++" in t or "Cpp" in t for t in by_skill["c"]), by_skill["c"]
    assert by_skill["data_structures_algorithms"]
    assert not any("Python" in t for t in by_skill["data_structures_algorithms"])
