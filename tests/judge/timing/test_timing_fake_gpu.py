"""The whole timing path (parent, real child, harness) on the fake GPU: honest, forged, hidden,
replayed. The child is the judge's own, started with the fake `cupy` first on its path."""
from __future__ import annotations

import pytest
from timing_helpers import FAKE_PEAKS, fake_wrapper, small_vector_add

from assessments.judge import Verdict, judge


def _judge(fixtures, name: str, mode: str = "honest", seed: int = 11):
    source = (fixtures / f"{name}.py").read_text()
    return judge(small_vector_add(), source, backend="cuda", seed=seed, wrapper=fake_wrapper(mode))


def _describe(r) -> str:
    t = r.timing
    return (f"{r.verdict.value}: {r.message}\n{r.details or ''}\n"
            f"flags={t and t.flags} wall={t and t.wall} median={t and t.median_ms}")


def test_honest_run_gives_median_ci_count_and_is_eligible(fake_gpu):
    r = _judge(fake_gpu, "honest")
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    t = r.timing
    assert t.flags == [] and t.leaderboard_eligible, _describe(r)
    assert t.repeats >= 10 and len(t.times_ms) == t.repeats
    assert t.ci_low_ms <= t.median_ms <= t.ci_high_ms
    assert t.min_ms <= t.ci_low_ms and t.ci_high_ms <= t.max_ms
    assert t.stop_reason in ("converged", "max_seconds", "max_repeats")
    assert t.converged == (t.stop_reason == "converged")
    assert t.device == "Fake GPU" and t.peaks["source"] == "test"
    # The fake device books ~0.14 ms for a + b and the store at n = 65536.
    assert 0.05 < t.median_ms < 2.0
    assert t.achieved_gb_s == pytest.approx(12 * 65536 / (t.median_ms * 1e-3) / 1e9)
    assert 0 < t.roofline_fraction <= 1 and t.roofline["bound"] == "memory"
    assert t.wall["ok"] and t.wall["batches"] >= 1 and t.wall["overhead_ms_per_repeat"] > 0
    assert t.harness["slots"] == 8 and t.harness["variants"] == 3
    assert t.harness["flush_bytes"] >= 2 * t.harness["l2_bytes"] == 2 * 256 * 1024
    assert t.harness["persisting_l2_reset"].startswith("unsupported")
    assert len(t.harness["rechecked_repeats"]) >= 3
    assert t.gpu["lock"] == "held" and t.gpu["nvml"] is False
    assert r.score == round(60 + 40 * t.roofline_fraction, 2) and not r.score_detail["withheld"]
    text = r.render_text()
    assert "95% CI [" in text and "GB/s" in text and "flagged" not in text


def test_forged_timer_is_flagged(fake_gpu):
    # Events read a thousandth of the truth, as if a forgery had got past the captured references.
    r = _judge(fake_gpu, "honest", mode="forge")
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    t = r.timing
    assert "below_physical_floor" in t.flags and "events_inconsistent_with_wall_time" in t.flags
    assert not t.leaderboard_eligible and not t.wall["ok"]
    assert r.score == 60.0 and r.score_detail["withheld"] and r.score_detail["performance"] == 0.0
    assert "flagged for review" in r.message and "flagged for review" in r.render_text()


def test_work_hidden_on_another_stream_is_flagged(fake_gpu):
    r = _judge(fake_gpu, "hidden_stream")
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    t = r.timing
    assert "events_inconsistent_with_wall_time" in t.flags, _describe(r)
    assert t.wall["excess_s"] > t.wall["allowed_s"] and not t.leaderboard_eligible
    assert r.score == 60.0


def test_replayed_output_is_caught_by_the_recheck(fake_gpu):
    r = _judge(fake_gpu, "replay_by_pointer")
    assert all(t.passed for t in r.tests)     # every test passes: only timing can catch it
    assert r.verdict is Verdict.WRONG_ANSWER, _describe(r)
    assert r.message.startswith("the output changed under timing"), r.message
    assert "timed repeat" in r.message and r.score == 0
    t = r.timing
    assert t is not None and not t.leaderboard_eligible
    assert t.harness["recheck_failure"]["mismatches"]


def test_rebinding_the_timer_in_the_submission_changes_nothing(fake_gpu):
    # The harness captured the event API before the file was imported; a static refusal of
    # module attribute assignment is an equally good answer.
    r = _judge(fake_gpu, "forged_timer")
    if r.verdict is Verdict.SECURITY_VIOLATION:
        return
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    assert r.timing.flags == [] and r.timing.leaderboard_eligible, _describe(r)
    assert r.timing.median_ms > 1e3 * FAKE_PEAKS.bandwidth_bytes_s ** -1 * 12 * 65536 * 0.75


def test_cpu_backend_has_no_timing():
    source = "import cupy as cp\n\ndef solve(a, b, c, n):\n    c[...] = a + b\n"
    r = judge(small_vector_add(), source, backend="cpu", seed=1)
    assert r.verdict is Verdict.ACCEPTED and r.timing is None and r.score == 60.0
    assert r.score_detail["performance"] is None


def test_unusable_scratch_during_timing_is_a_verdict_not_a_judge_error(fake_gpu, monkeypatch):
    from assessments.judge import evaluate

    real = evaluate.write_inputs

    def refuse_bench_inputs(task, inputs, path):
        if path.name.startswith("bench."):  # as if the child had filled its scratch by now
            raise OSError(28, "No space left on device")
        return real(task, inputs, path)

    monkeypatch.setattr(evaluate, "write_inputs", refuse_bench_inputs)
    r = _judge(fake_gpu, "honest")
    assert r.verdict is Verdict.RUNTIME_ERROR, _describe(r)
    assert "scratch space is full or unusable" in r.message
