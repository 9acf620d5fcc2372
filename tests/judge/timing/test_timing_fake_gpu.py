"""The whole timing path (parent, real child, harness) on the fake GPU: honest, forged, hidden,
replayed. The child is the judge's own, started with the fake `cupy` first on its path."""
from __future__ import annotations

import dataclasses

import pytest
from timing_helpers import FAKE_PEAKS, HOST_LOAD_FLAGS, fake_wrapper, small_vector_add

from assessments.judge import Verdict, judge
from assessments.judge.kinds.cupy import stages


def _judge(fixtures, name: str, mode: str = "honest", seed: int = 11, **kwargs):
    source = (fixtures / f"{name}.py").read_text()
    return judge(small_vector_add(), source, backend="cuda", seed=seed, wrapper=fake_wrapper(mode),
                 **kwargs)


def _describe(r) -> str:
    t = r.timing
    return (f"{r.verdict.value}: {r.message}\n{r.details or ''}\n"
            f"flags={t and t.flags} wall={t and t.wall} median={t and t.median_ms}")


def test_honest_run_gives_median_ci_count_and_is_eligible(fake_gpu):
    r = _judge(fake_gpu, "honest")
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    t = r.timing
    # A busy host can raise the wall flag on an honest run; exact consistency is asserted with
    # constructed numbers in test_timing_crosscheck.py.
    assert set(t.flags) <= HOST_LOAD_FLAGS, _describe(r)
    assert t.leaderboard_eligible == (not t.flags)
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
    assert t.wall["batches"] >= 1 and t.wall["overhead_ms_per_repeat"] > 0
    assert t.wall["slack_s_per_batch"] == 0.002 and t.wall["slack_rel"] == 0.10
    assert t.harness["slots"] == 8 and t.harness["variants"] == 3
    assert t.harness["flush_bytes"] >= 2 * t.harness["l2_bytes"] == 2 * 256 * 1024
    assert t.harness["persisting_l2_reset"].startswith("unsupported")
    assert len(t.harness["rechecked_repeats"]) >= 3
    assert t.gpu["lock"] == "held" and t.gpu["nvml"] is False
    if t.flags:
        assert r.score == 60.0 and r.score_detail["withheld"]
    else:
        assert r.score == round(60 + 40 * t.roofline_fraction, 2) and not r.score_detail["withheld"]
    text = r.render_text()
    assert "95% CI [" in text and "GB/s" in text and ("flagged" in text) == bool(t.flags)


# Honest but heavy: 20 passes a call put ~2.6 ms of device time a repeat against well under 1 ms
# of empty-batch overhead, so what a timer reading low hides dwarfs any host delay.
HEAVY = """import cupy as cp


def solve(a, b, c, n):
    for _ in range(20):
        c[...] = a + b
"""


def test_forged_timer_is_flagged(fake_gpu, monkeypatch):
    # Events read a thousandth of the truth, as if a forgery had got past the captured references.
    # Today's allowance, set here so the test does not drift with the defaults.
    monkeypatch.setattr(stages, "TIMING_CONFIG", dataclasses.replace(
        stages.TIMING_CONFIG, wall_slack_s_per_batch=0.002, wall_slack_rel=0.10))
    r = judge(small_vector_add(), HEAVY, backend="cuda", seed=11, wrapper=fake_wrapper("forge"))
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    t = r.timing
    assert "below_physical_floor" in t.flags and "events_inconsistent_with_wall_time" in t.flags
    assert t.wall["excess_s"] > 2 * t.wall["allowed_s"], _describe(r)
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
    assert r.message.startswith("a timed run's output is wrong at the benchmark size"), r.message
    assert "timed repeat" in r.message and r.score == 0
    t = r.timing
    assert t is not None and not t.leaderboard_eligible
    assert t.harness["recheck_failure"]["mismatches"]


def test_rebinding_the_timer_in_the_submission_is_refused(fake_gpu):
    r = _judge(fake_gpu, "forged_timer")
    assert r.verdict is Verdict.SECURITY_VIOLATION and r.timing is None, _describe(r)


def test_rebinding_the_timer_in_the_submission_changes_nothing(fake_gpu):
    # Past the static check, the rebinding runs: the harness captured the event API before the
    # file was imported, so the times stay honest. Had the forged timer reached the harness, its
    # median (1e-6 ms) would sit far under the physical floor and earn its flag.
    r = _judge(fake_gpu, "forged_timer", static_checks=False)
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    t = r.timing
    assert "below_physical_floor" not in t.flags and set(t.flags) <= HOST_LOAD_FLAGS, _describe(r)
    assert t.median_ms > t.physical_floor_ms > 0
    assert t.median_ms > 1e3 * FAKE_PEAKS.bandwidth_bytes_s ** -1 * 12 * 65536 * 0.75


def test_samples_on_the_gpu_are_never_timed(fake_gpu):
    task = small_vector_add()
    r = judge(task, (fake_gpu / "honest.py").read_text(), backend="cuda", suite="samples",
              wrapper=fake_wrapper("honest"))
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    assert r.timing is None and r.suite == "samples" and r.seed == 0
    assert r.score == 0.0 and r.score_detail["counted"] is False
    assert [t.name for t in r.tests] == [c.name for c in task.sample_cases]


def test_cpu_backend_has_no_timing():
    source = "import cupy as cp\n\ndef solve(a, b, c, n):\n    c[...] = a + b\n"
    r = judge(small_vector_add(), source, backend="cpu", seed=1)
    assert r.verdict is Verdict.ACCEPTED and r.timing is None
    assert r.score_detail["estimated"] and r.profile["estimated_us"] > 0    # estimated, not timed


def test_unusable_scratch_during_timing_is_a_verdict_not_a_judge_error(fake_gpu, monkeypatch):
    from assessments.judge.kinds.cupy import arrays

    real = arrays.write_inputs

    def refuse_bench_inputs(task, inputs, path):
        if path.name.startswith("bench."):  # as if the child had filled its scratch by now
            raise OSError(28, "No space left on device")
        return real(task, inputs, path)

    monkeypatch.setattr(arrays, "write_inputs", refuse_bench_inputs)
    r = _judge(fake_gpu, "honest")
    assert r.verdict is Verdict.RUNTIME_ERROR, _describe(r)
    assert "scratch space is full or unusable" in r.message
