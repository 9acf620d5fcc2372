"""Timing on a real GPU: stable medians, hostile submissions caught, reference solutions on the
roofline. Skipped where CuPy sees no device; everything here also runs on the fake GPU elsewhere
in this folder, so a machine without a GPU still tests the logic."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assessments.judge import Verdict
from assessments.judge import judge as _judge

# The GPU machine of bench/gpu_check.sh has no bubblewrap: there, and for the project's own
# solutions and fixtures only, the children run without the sandbox.
NO_SANDBOX = os.environ.get("KERNELPATH_GPU_CHECK_NO_SANDBOX") == "1"


def judge(*args, **kwargs):
    return _judge(*args, unsafe_no_sandbox=NO_SANDBOX, **kwargs)

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "timing"
SOLUTIONS = ROOT / "gpu_tasks" / "solutions"
FORGE_ENTRY = Path(__file__).resolve().parent / "forged_timer_entry.py"

# Fractions of the roofline (measured copy bandwidth, cuBLAS FP32 rate) the reference solutions
# are held to. Elementwise kernels stream at close to copy speed; the rest are held to a floor
# that only a broken timing would miss. bench/judge.py --backend cuda prints what they reach.
MIN_FRACTION = {"vector_add": 0.5, "relu": 0.5, "saxpy": 0.5}
DEFAULT_MIN_FRACTION = 0.05


def _gpu_reason():
    # Probed in a subprocess: importing the real cupy here would shadow the CPU stand-in that
    # other tests import in-process.
    code = "import cupy; print(cupy.cuda.runtime.getDeviceCount())"
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"CuPy could not be probed ({exc})"
    if p.returncode != 0 or not p.stdout.strip().isdigit() or int(p.stdout) < 1:
        return "CuPy sees no GPU"
    return None


REASON = _gpu_reason()
pytestmark = [pytest.mark.gpu, pytest.mark.slow, pytest.mark.skipif(REASON is not None, reason=REASON or "")]


def _describe(r) -> str:
    t = r.timing
    extra = f"\nflags={t.flags} wall={t.wall} harness={t.harness} gpu={t.gpu}" if t else ""
    return f"{r.verdict.value}: {r.message}\n{r.details or ''}{extra}"


def _row(slug, r) -> str:
    t = r.timing
    if not t:
        return f"{slug:18s} {r.verdict.value:14s} {r.message}"
    return (f"{slug:18s} {t.median_ms:9.4f} ms [{t.ci_low_ms or 0:.4f}, {t.ci_high_ms or 0:.4f}] "
            f"n={t.repeats:4d} {t.achieved_gb_s:8.1f} GB/s {t.achieved_gflop_s:9.1f} GFLOP/s "
            f"{t.roofline_fraction:6.1%} {','.join(t.flags) or '-'}")


def _forge_wrapper(spec, argv):
    return [sys.executable, "-s", "-B", str(FORGE_ENTRY)] + argv[argv.index("--backend"):]


def test_measured_peaks_are_plausible_and_cached(tmp_path):
    env = {**os.environ, "KERNELPATH_GPU_CACHE": str(tmp_path), "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-m", "assessments.judge.kinds.cupy.timing.peaks"], cwd=ROOT,
                       env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    entry = json.loads(p.stdout.strip().splitlines()[-1])
    print(entry)
    assert 2e11 < entry["bandwidth_bytes_s"] < 2e13
    assert 1e12 < entry["flops_s"] < 2e14
    assert entry["tensor_flops_s"] is None or entry["tensor_flops_s"] >= entry["flops_s"]
    cached = json.loads((tmp_path / "gpu_peaks.json").read_text())
    assert entry["key"] in cached


def test_the_same_kernel_judged_five_times_gives_medians_within_two_percent():
    source = (SOLUTIONS / "vector_add.py").read_text()
    medians = []
    for i in range(5):
        r = judge("vector_add", source, backend="cuda", seed=100 + i)
        assert r.verdict is Verdict.ACCEPTED and r.timing.leaderboard_eligible, _describe(r)
        print(_row("vector_add", r))
        medians.append(r.timing.median_ms)
    assert max(medians) / min(medians) < 1.02, medians
    t = r.timing
    assert t.repeats >= 10 and t.ci_low_ms <= t.median_ms <= t.ci_high_ms
    if any(name in t.device for name in ("H100", "H200")):
        assert t.harness["persisting_l2_reset"] in ("runtime", "driver"), t.harness


def test_work_hidden_on_another_stream_is_caught():
    r = judge("vector_add", (FIXTURES / "hidden_stream.py").read_text(), backend="cuda", seed=5)
    print(_describe(r))
    if r.verdict is Verdict.WRONG_ANSWER:
        # The side stream does not wait for the default stream: its work races the upload of the
        # inputs (a test's output still partly the NaN it arrived filled with, as on the H100)
        # or the next repeat's inputs (under timing). Either way the submission is wrong.
        assert "under timing" in r.message or "NaN" in r.message, _describe(r)
        return
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    assert "events_inconsistent_with_wall_time" in r.timing.flags, _describe(r)
    assert not r.timing.leaderboard_eligible and r.score == 60.0


def test_a_forged_event_timer_is_caught():
    r = judge("vector_add", (SOLUTIONS / "vector_add.py").read_text(), backend="cuda", seed=5,
              wrapper=_forge_wrapper)
    print(_describe(r))
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    assert {"below_physical_floor", "events_inconsistent_with_wall_time"} <= set(r.timing.flags)
    assert not r.timing.leaderboard_eligible and r.score == 60.0


def test_rebinding_the_timer_in_a_submission_has_no_effect():
    honest = judge("vector_add", (FIXTURES / "honest.py").read_text(), backend="cuda", seed=5)
    r = judge("vector_add", (FIXTURES / "forged_timer.py").read_text(), backend="cuda", seed=5)
    print(_describe(honest), _describe(r))
    if r.verdict is Verdict.SECURITY_VIOLATION:
        return
    assert r.verdict is Verdict.ACCEPTED and r.timing.leaderboard_eligible, _describe(r)
    assert r.timing.median_ms == pytest.approx(honest.timing.median_ms, rel=0.2)


def test_replayed_output_is_caught():
    r = judge("vector_add", (FIXTURES / "replay_by_pointer.py").read_text(), backend="cuda", seed=5)
    assert r.verdict is Verdict.WRONG_ANSWER, _describe(r)
    assert r.message.startswith("a timed run's output is wrong at the benchmark size"), r.message


@pytest.mark.parametrize("slug", sorted(p.stem for p in SOLUTIONS.glob("*.py") if not p.stem.startswith("_")))
def test_reference_solution_reaches_its_roofline_fraction(slug):
    r = judge(slug, (SOLUTIONS / f"{slug}.py").read_text(), backend="cuda", seed=0)
    print(_row(slug, r))
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    t = r.timing
    assert t.flags == [] and t.leaderboard_eligible, _describe(r)
    assert t.roofline_fraction >= MIN_FRACTION.get(slug, DEFAULT_MIN_FRACTION), _row(slug, r)
    assert r.score == pytest.approx(60 + 40 * t.roofline_fraction, abs=0.01)


def test_bench_prints_the_timing_table():
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "judge.py"), "--backend", "cuda",
                        *(["--unsafe-no-sandbox"] if NO_SANDBOX else []), "vector_add", "relu"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    print(p.stdout)
    assert p.returncode == 0, p.stdout + p.stderr
    header = p.stdout.splitlines()[0].split()
    for column in ("task", "median_ms", "ci_low", "ci_high", "repeats", "GB/s", "GFLOP/s", "roofline", "flags"):
        assert column in header
    assert sum(line.split()[0] in ("vector_add", "relu") for line in p.stdout.splitlines()[1:]) == 2
