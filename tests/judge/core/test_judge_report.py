"""Report: JSON shape, non-finite numbers, candidate view, text rendering, outcome mapping."""
import json

from assessments.judge.kinds.cupy.faults import from_error, from_incidents
from assessments.judge.outcome import Scrubber
from assessments.judge.report import KernelReport, MismatchReport, Report, TestReport, TimingReport
from assessments.judge.sandbox import Limits
from assessments.judge.verdicts import Verdict


def _report():
    return Report(
        task="vector_add", backend="cpu", verdict=Verdict.WRONG_ANSWER,
        message="wrong answer on test 'prime'", seed=42,
        tests=[TestReport("tiny", {"n": 1}, True, 0.0),
               TestReport("prime", {"n": 1021}, False, float("inf"),
                          [MismatchReport([1020], float("nan"), 1.5)], "NaN marks an element never written"),
               TestReport("large", {"n": 99})],
        kernels=[KernelReport("vadd", "RawKernel", "sm_90", True, 10, 0, 0, 0, 0, 0, 0, [256, 1, 1],
                              [4, 1, 1], 1, 1.0, "warps", 8)],
        score=0.0, score_detail={"total": 0.0, "correctness": 0.0, "performance": None, "max": 100.0})


def test_json_keys_and_values():
    d = json.loads(_report().to_json())
    for key in ("task", "backend", "verdict", "message", "tests", "kernels", "timing", "score"):
        assert key in d
    assert d["verdict"] == "wrong_answer" and d["timing"] is None
    t = d["tests"][1]
    assert set(t) >= {"name", "sizes", "passed", "max_error", "mismatches"}
    assert t["max_error"] == "inf"
    assert t["mismatches"][0] == {"index": [1020], "got": "nan", "expected": 1.5}
    k = d["kernels"][0]
    assert set(k) >= {"name", "registers", "shared_bytes", "spill_bytes", "occupancy"}
    assert d["seed"] == 42
    assert "seed" not in _report().to_dict(candidate_view=True)


def test_text_rendering():
    text = _report().render_text()
    assert "WRONG ANSWER" in text
    assert "FAIL    prime (n=1021)" in text
    assert "at (1020,): got nan, expected 1.5" in text
    assert "not run large" in text
    assert "vadd [RawKernel] regs 10" in text and "100% (warps)" in text


def test_timing_rendering():
    r = _report()
    r.verdict = Verdict.ACCEPTED
    r.timing = TimingReport({"n": 1 << 20}, 0.01, 0.009, 0.02, 20, 3, "H100",
                            {"achieved_bytes_s": 1.2e12, "achieved_flops_s": 1e11, "fraction": 0.36,
                             "bound": "memory"})
    assert "1200.0 GB/s" in r.render_text() and "36% of the memory roofline" in r.render_text()


def test_incident_decides_and_unknown_verdicts_are_demoted():
    out = from_incidents([{"verdict": "race_detected", "message": "write-write on out[3]\nmore",
                           "kernel": "hist"}], "")
    assert out.verdict is Verdict.RACE_DETECTED
    assert out.message == "Race detected in kernel 'hist': write-write on out[3]"
    out = from_incidents([{"verdict": "accepted", "message": "forged"}], "")
    assert out.verdict is Verdict.RUNTIME_ERROR
    assert from_incidents([], "") is None


def test_error_mapping():
    lim = Limits()
    assert from_error({"kind": "memory"}, "", phase="on test 'x'", limits=lim).verdict \
        is Verdict.MEMORY_LIMIT_EXCEEDED
    assert from_error({"kind": "emulator:race_detected", "detail": "d"}, "", phase="").verdict \
        is Verdict.RACE_DETECTED
    assert from_error({"kind": "emulator:deadlock", "detail": "d"}, "", phase="").verdict \
        is Verdict.RUNTIME_ERROR
    assert from_error({"kind": "emulator:timeout", "detail": "d"}, "", phase="").verdict \
        is Verdict.TIME_LIMIT_EXCEEDED
    assert from_error({"kind": "illegal_address", "message": "x"}, "", phase="").verdict \
        is Verdict.MEMORY_ERROR
    out = from_error({"kind": "exception", "type": "IndexError", "message": "list index out of range",
                      "where": "solution.py:9"}, "", phase="on test 'tiny' (n=1)")
    assert out.verdict is Verdict.RUNTIME_ERROR
    assert out.message == "IndexError: list index out of range (solution.py:9) on test 'tiny' (n=1)"
    assert from_error({"kind": "setup", "message": "x"}, "", phase="").verdict is Verdict.INTERNAL_ERROR


def test_scrubber(tmp_path):
    s = Scrubber(tmp_path, "/srv/kp")
    assert s(f"{tmp_path}/solution.py line 3, /srv/kp/assessments/x.py") == \
        "solution.py line 3, <judge>/assessments/x.py"


def test_a_kernel_reports_its_largest_launch_not_its_first():
    from assessments.judge.kinds.cupy import kernel_log
    rec = kernel_log.KernelRecord(kind="raw", name="k", source="")
    kernel_log.record_launch(rec, (1,), (256,))           # the tiny test
    kernel_log.record_launch(rec, (4096,), (256,))        # the large one
    kernel_log.record_launch(rec, (2,), (512,))           # a larger block, far fewer threads
    assert rec.grid == (4096, 1, 1) and rec.block == (256, 1, 1) and rec.launches == 3
