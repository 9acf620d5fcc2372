"""The timing part of the report (JSON fields, text) and the bench's cuda table, without a GPU."""
from __future__ import annotations

import importlib.util
import json
import sys
import types
from pathlib import Path

import pytest

from assessments.judge.report import Report, TimingReport
from assessments.judge.verdicts import Verdict

ROOT = Path(__file__).resolve().parents[3]


def _timing(**kw) -> TimingReport:
    t = TimingReport(
        {"n": 1 << 25}, 0.1412, 0.1398, 0.1503, 240, 3, "NVIDIA H100 80GB HBM3",
        roofline={"achieved_bytes_s": 2.85e12, "achieved_flops_s": 2.4e11, "fraction": 0.95,
                  "bound": "memory"},
        peaks={"bandwidth_bytes_s": 3.0e12, "flops_s": 5.1e13, "tensor_flops_s": 3.8e14,
               "source": "measured (cublas_sgemm, NVIDIA H100 80GB HBM3|driver 580.159.04)"},
        ci_low_ms=0.1409, ci_high_ms=0.1415, ci_rel_halfwidth=0.0021, converged=True,
        stop_reason="converged", achieved_gb_s=2850.0, achieved_gflop_s=240.0, roofline_fraction=0.95,
        physical_floor_ms=0.1, flags=[], leaderboard_eligible=True, times_ms=[0.1412] * 3)
    for k, v in kw.items():
        setattr(t, k, v)
    return t


def test_report_json_has_the_timing_fields():
    r = Report("vector_add", "cuda", Verdict.ACCEPTED, "ok", timing=_timing())
    d = json.loads(r.to_json())["timing"]
    for key in ("median_ms", "ci_low_ms", "ci_high_ms", "repeats", "achieved_gb_s", "achieved_gflop_s",
                "roofline_fraction", "flags", "leaderboard_eligible", "wall", "harness", "gpu", "times_ms",
                "converged", "stop_reason", "physical_floor_ms", "confidence"):
        assert key in d
    assert d["flags"] == [] and d["leaderboard_eligible"] is True


def test_text_shows_the_interval_and_the_flags():
    r = Report("vector_add", "cuda", Verdict.ACCEPTED, "ok", timing=_timing())
    text = r.render_text()
    assert "median 0.1412 ms, 95% CI [0.1409, 0.1415] (min 0.1398, 240 repeats)" in text
    assert "2850.0 GB/s" in text and "95% of the memory roofline" in text and "flagged" not in text
    r.timing = _timing(flags=["below_physical_floor"], leaderboard_eligible=False, ci_low_ms=None)
    text = r.render_text()
    assert "CI [" not in text
    assert "flagged for review (below_physical_floor): not on the leaderboard" in text


def _load_bench():
    spec = importlib.util.spec_from_file_location("kp_bench_judge", ROOT / "bench" / "judge.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_cuda_table(monkeypatch, capsys, tmp_path):
    bench = _load_bench()
    fake_cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(
        runtime=types.SimpleNamespace(getDeviceCount=lambda: 1)))
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy)

    def fake_judge(slug, source, backend, seed, unsafe_no_sandbox=False, listings=True):
        assert backend == "cuda" and unsafe_no_sandbox is (slug == "matmul")
        if slug == "relu":
            return Report(slug, "cuda", Verdict.WRONG_ANSWER, "a timed run's output is wrong at the benchmark size: ...")
        flags = ["events_inconsistent_with_wall_time"] if slug == "saxpy" else []
        r = Report(slug, "cuda", Verdict.ACCEPTED, "ok", timing=_timing(flags=flags), score=98.0)
        return r

    import assessments.judge as judge_pkg
    monkeypatch.setattr(judge_pkg, "judge", fake_judge, raising=False)
    assert bench.bench_cuda(["vector_add"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["task", "verdict", "median_ms", "ci_low", "ci_high", "repeats", "GB/s",
                              "GFLOP/s", "roofline", "bound", "score", "flags"]
    assert out[1].split() == ["vector_add", "accepted", "0.1412", "0.1409", "0.1415", "240", "2850.0",
                              "240.0", "95.0%", "memory", "98.0", "-"]
    assert "3000 GB/s, 51.0 TFLOP/s FP32, 380.0 TFLOP/s TF32" in out[-1]
    assert bench.bench_cuda(["saxpy"]) == 1       # a flagged reference fails the bench
    assert capsys.readouterr().out.splitlines()[1].endswith("events_inconsistent_with_wall_time")
    assert bench.bench_cuda(["relu"]) == 1
    # --save keeps the rows beside whatever else the results file holds
    saved = tmp_path / "cuda-test.json"
    saved.write_text('{"peaks": {"kept": true}}')
    capsys.readouterr()
    assert bench.bench_cuda(["matmul"], unsafe=True, save=str(saved)) == 0
    data = json.loads(saved.read_text())
    assert data["peaks"] == {"kept": True}
    row = data["references"]["rows"][0]
    assert row["task"] == "matmul" and row["median_ms"] == pytest.approx(0.1412)
    assert row["verdict"] == "accepted" and row["flags"] == [] and row["bound"] == "memory"
