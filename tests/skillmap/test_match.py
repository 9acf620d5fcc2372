"""Matching rules: verified beats claimed, required beats preferred, reasons add up, and the
vectorised ranking gives the same numbers as the explained score."""
import random

import numpy as np
import pytest

from skillmap.match import (CLAIMED_CREDIT, Candidate, CandidatePool, Job, experience_fit, match,
                            rank, scores)
from skillmap.parse import parse_job
from skillmap.taxonomy import load_taxonomy

TAX = load_taxonomy()
POSTING = """Senior CUDA Kernel Engineer
About us
We serve models on Kubernetes.
Minimum qualifications
- CUDA and C++
- Experience with NCCL
- BS and 6+ years, or MS and 4+, or PhD and 2+
Nice to have
- Triton
"""
JOB = Job.from_parse(parse_job(POSTING))


def test_a_job_reads_needs_and_paths_from_its_parse():
    needs = dict(JOB.skills)
    assert needs["cuda"] == "required" and needs["triton"] == "preferred"
    assert needs["kubernetes"] == "mentioned"
    assert {"degree": "master", "min_years": 4} in JOB.experience_paths


def test_a_skill_the_posting_only_mentions_is_not_a_missing_preferred_skill():
    nobody = match(Candidate("n"), JOB, TAX)
    assert "kubernetes" not in {m["skill"] for m in nobody["missing_preferred"]}
    assert "kubernetes" not in {m["skill"] for m in nobody["missing_required"]}
    assert {m["skill"] for m in nobody["missing_preferred"]} == {"triton"}


def test_verified_skills_outrank_the_same_skills_only_claimed():
    skills = {"cuda", "cpp", "nccl"}
    verified = Candidate("v", verified={s: 0.9 for s in skills}, years=6, degree="bachelor")
    claimed = Candidate("c", claimed=frozenset(skills), years=6, degree="bachelor")
    assert match(verified, JOB, TAX)["score"] > match(claimed, JOB, TAX)["score"]


def test_missing_a_required_skill_costs_more_than_missing_a_preferred_one():
    everything = {"cuda": 1.0, "cpp": 1.0, "nccl": 1.0, "triton": 1.0, "kubernetes": 1.0}
    no_required = Candidate("a", verified={k: v for k, v in everything.items() if k != "nccl"})
    no_preferred = Candidate("b", verified={k: v for k, v in everything.items() if k != "triton"})
    a, b = match(no_required, JOB, TAX), match(no_preferred, JOB, TAX)
    assert a["score"] < b["score"]
    assert [m["skill"] for m in a["missing_required"]] == ["nccl"]
    assert [m["skill"] for m in b["missing_preferred"]] == ["triton"]


@pytest.mark.parametrize("seed", range(20))
def test_the_reasons_add_up_to_the_score(seed):
    rng = random.Random(seed)
    ids = [sid for sid, _ in JOB.skills] + ["python", "slurm", "verilog"]
    cand = Candidate(seed, verified={s: round(rng.random(), 2) for s in rng.sample(ids, 3)},
                     claimed=frozenset(rng.sample(ids, 2)), years=rng.choice([None, 1, 3, 7]),
                     degree=rng.choice([None, "bachelor", "master", "phd"]))
    result = match(cand, JOB, TAX)
    assert 0 <= result["score"] <= 100
    assert round(sum(r["points"] for r in result["reasons"]), 1) == result["score"]


def test_a_perfect_candidate_scores_100_and_a_stranger_little():
    perfect = Candidate("p", verified={sid: 1.0 for sid, _ in JOB.skills}, years=10, degree="phd")
    assert match(perfect, JOB, TAX)["score"] == pytest.approx(100, abs=2.5)  # track fit is a cosine
    stranger = Candidate("s", verified={"verilog": 1.0, "uvm": 1.0})
    assert match(stranger, JOB, TAX)["score"] < 15


def test_a_claim_is_worth_the_documented_fraction():
    weight_only = Job(skills=(("cuda", "required"),), tracks={}, experience_paths=())
    claimed = match(Candidate("c", claimed=frozenset({"cuda"})), weight_only, TAX)
    skill_reason = next(r for r in claimed["reasons"] if r["kind"] == "skill")
    assert skill_reason["points"] == pytest.approx(70 * CLAIMED_CREDIT, abs=0.1)
    assert skill_reason["evidence"] == "claimed"


@pytest.mark.parametrize("years, degree, fit", [
    (6, "bachelor", 1.0), (4, "master", 1.0), (2, "phd", 1.0),
    (3, "bachelor", 0.75),       # the bachelor path, half the years
    (2, "master", 0.75),         # the master path with half its years beats the PhD path without the degree
    (None, None, 0.0 + 0.0),
])
def test_experience_is_judged_on_the_best_path(years, degree, fit):
    value, _ = experience_fit(JOB.experience_paths, years, degree)
    assert value == pytest.approx(fit, abs=1e-9)


def test_suggestions_name_the_task_that_would_verify_a_skill():
    cand = Candidate("x", verified={"cpp": 1.0}, claimed=frozenset({"cuda"}), years=6, degree="bachelor")
    practice = {"cuda": [("reduce_sum", 0.5), ("matmul", 1.0)], "nccl": []}
    result = match(cand, JOB, TAX, practice)
    texts = [s["text"] for s in result["suggestions"]]
    assert any(t.startswith("verify CUDA with the matmul task: +") for t in texts)
    assert result["suggestions"] == sorted(result["suggestions"], key=lambda s: -s["gain"])


def test_ranking_many_gives_the_same_scores_as_explaining_one():
    rng = random.Random(3)
    ids = list(TAX.skills)
    pool_candidates = [
        Candidate(i, verified={s: round(rng.random(), 2) for s in rng.sample(ids, rng.randint(0, 12))},
                  claimed=frozenset(rng.sample(ids, rng.randint(0, 8))),
                  years=rng.choice([None, 0, 2, 5, 9]), degree=rng.choice([None, "bachelor", "master", "phd"]))
        for i in range(300)]
    pool = CandidatePool.build(pool_candidates, TAX)
    fast = scores(pool, JOB)
    slow = np.array([sum(r["points"] for r in match(c, JOB, TAX)["reasons"]) for c in pool_candidates])
    np.testing.assert_allclose(fast, slow, atol=0.35)  # reasons are rounded to 0.1 each
    top = rank(pool, JOB, top=5)
    assert len(top) == 5 and [s for _, s in top] == sorted((s for _, s in top), reverse=True)
    assert top[0][1] == pytest.approx(fast.max(), abs=0.05)


def test_ranking_edge_cases():
    assert rank(CandidatePool.build([], TAX), JOB, top=5) == []
    pool = CandidatePool.build([Candidate(1), Candidate(2, claimed=frozenset({"cuda"}))], TAX)
    assert [cid for cid, _ in rank(pool, JOB, top=10)] == [2, 1]
    assert rank(pool, JOB, top=0) == []
