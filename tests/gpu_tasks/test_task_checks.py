"""Comparators: the registry, their behaviour on edge cases, and every task's comparator (its
`check`) on its own data."""
import math
import re
from pathlib import Path

import numpy as np
import pytest

import gpu_tasks
from assessments.judge.kinds.cupy.comparators import COMPARATORS, Comparison, Mismatch, run_comparator

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "submissions"
VERDICTS = {
    "accepted", "wrong_answer", "compile_error", "runtime_error", "time_limit_exceeded",
    "memory_limit_exceeded", "memory_error", "race_detected", "security_violation", "internal_error",
}
ALL = [t.slug for t in gpu_tasks.all_tasks()]


def _cases(task, limit=150_000):
    return [c for c in task.cases("cpu") if task.cost(c.dims)[0] // 4 <= limit]


def _as_output(ref: np.ndarray, like: np.ndarray) -> np.ndarray:
    """The float64/int64 reference stored in the output's own dtype, as a kernel would."""
    return ref.astype(like.dtype)


def _run(task, got, expected, inputs):
    return COMPARATORS[task.check](got, expected, **task.tolerance_for(inputs))


def test_registry():
    assert set(COMPARATORS) == {"exact", "allclose", "norm", "sum_abs"}
    for task in gpu_tasks.all_tasks():
        assert task.check in COMPARATORS
    with pytest.raises(KeyError, match="allclose"):
        run_comparator("nope", np.zeros(1), np.zeros(1))


def test_exact_reports_first_mismatches_in_index_order():
    expected = np.arange(24, dtype=np.int64).reshape(4, 6)
    got = expected.astype(np.int32)
    got[3, 5] = 0
    got[0, 2] = -1
    got[2, 0] = 7
    for idx in [(1, 1), (1, 3), (2, 2), (3, 0)]:
        got[idx] += 100
    res = COMPARATORS["exact"](got, expected)
    assert isinstance(res, Comparison) and not res.passed
    assert [m.index for m in res.mismatches] == [(0, 2), (1, 1), (1, 3), (2, 0), (2, 2)]
    assert all(isinstance(m, Mismatch) and isinstance(m.got, int) for m in res.mismatches)
    assert res.mismatches[0].got == -1 and res.mismatches[0].expected == 2
    assert res.max_error == 100
    assert "7 of 24 elements differ" in res.message and "[0, 2]" in res.message
    assert COMPARATORS["exact"](expected.astype(np.int32), expected).passed


def test_nan_and_inf_never_pass():
    ref = np.linspace(1, 2, 10)
    for check, tol in [("exact", {}), ("allclose", {"rtol": 1e9, "atol": 1e9}), ("norm", {"rtol": 1e9}),
                       ("sum_abs", {"rtol": 1e9, "scale": 1.0})]:
        for bad in (np.nan, np.inf, -np.inf):
            got = ref.astype(np.float32)
            got[4] = bad
            res = COMPARATORS[check](got, ref, **tol)
            assert not res.passed, (check, bad)
            assert res.mismatches[0].index == (4,)
            assert math.isinf(res.max_error)
    got = np.full(3, np.nan, np.float32)
    assert "never written" in COMPARATORS["allclose"](got, np.ones(3)).message


def test_never_written_is_told_from_computed_nan():
    """The output arrives filled with a NaN whose payload no arithmetic makes: elements still
    holding it were never written; any other NaN the code computed."""
    initial = gpu_tasks.output_like(4, "float32")
    expected = np.ones(4)
    unwritten = initial.copy()
    unwritten[:2] = 1.0
    msg = COMPARATORS["norm"](unwritten, expected, rtol=1e-5, initial=initial).message
    assert msg.endswith("they still hold the NaN the output arrived filled with: never written "
                        "(or computed from that NaN)")
    with np.errstate(invalid="ignore"):
        computed = (np.array([1, 1, 0, 1], np.float32) / np.array([1, 1, 0, 1], np.float32))
        computed[3] = np.float32(np.inf) - np.float32(np.inf)
    assert np.isnan(computed[2]) and np.isnan(computed[3])
    msg = COMPARATORS["allclose"](computed, expected, initial=initial).message
    assert "your code computed them" in msg and "never written" not in msg
    both = computed.copy()
    both[3] = initial[3]
    msg = COMPARATORS["exact"](both, expected, initial=initial).message
    assert "1 of them still hold the NaN the output arrived filled with (never written), the " \
           "other 1 your code computed" in msg
    inf = np.array([1, 1, 1, np.inf], np.float32)
    assert "overflow" in COMPARATORS["sum_abs"](inf, expected, rtol=1e-5, scale=4.0,
                                                  initial=initial).message


def test_shape_mismatch_fails():
    res = COMPARATORS["allclose"](np.zeros((3, 2), np.float32), np.zeros((2, 3)))
    assert not res.passed and "shape" in res.message


def test_allclose_norm_and_sum_abs_thresholds():
    ref = np.array([1.0, 100.0, -3.0])
    ok = ref * (1 + 0.9e-4)
    assert COMPARATORS["allclose"](ok, ref, rtol=1e-4, atol=0).passed
    bad = ref.copy()
    bad[2] += 1e-3
    res = COMPARATORS["allclose"](bad, ref, rtol=1e-4, atol=0)
    assert not res.passed and res.mismatches[0].index == (2,)
    assert res.max_error == pytest.approx(1e-3)

    big = np.ones(10_000)
    one_off = big.copy()
    one_off[123] += 5.0  # 5 / 100 = 5% in norm
    res = COMPARATORS["norm"](one_off, big, rtol=1e-2)
    assert not res.passed and [m.index for m in res.mismatches] == [(123,)]
    assert res.max_error == pytest.approx(0.05)
    assert COMPARATORS["norm"](big * (1 + 1e-6), big, rtol=1e-5).passed

    assert COMPARATORS["sum_abs"](np.array([10.05]), np.array([10.0]), rtol=1e-3, scale=100.0).passed
    assert not COMPARATORS["sum_abs"](np.array([10.2]), np.array([10.0]), rtol=1e-3, scale=100.0).passed
    assert not COMPARATORS["sum_abs"](np.array([10.05]), np.array([10.0]), rtol=1e-3).passed  # scale defaults to |ref|


@pytest.mark.parametrize("slug", ALL)
def test_task_check_accepts_rounded_reference_and_rejects_wrong_answers(slug):
    task = gpu_tasks.get_task(slug)
    for case in _cases(task):
        inputs = task.generate(np.random.default_rng(21), case.dims)
        ref = task.reference(inputs)
        for arg in task.outputs:
            out, expected = inputs[arg.name], ref[arg.name]
            good = _as_output(expected, out)
            assert _run(task, good, expected, inputs).passed, (case.name, "rounded reference")
            assert not _run(task, out, expected, inputs).passed, (case.name, "sentinel")

            nan = good.copy()
            nan.flat[nan.size // 2] = np.nan if nan.dtype.kind == "f" else nan.flat[nan.size // 2] + 1
            assert not _run(task, nan, expected, inputs).passed, (case.name, "one bad element")

            if np.any(expected != 0):
                zeros = np.zeros_like(good)
                assert not _run(task, zeros, expected, inputs).passed, (case.name, "zeros")

            scale = np.abs(expected).mean()
            delta = 0.01 * np.abs(expected) + 0.01 * scale
            wrong = expected.copy().astype(np.float64)
            half = max(1, wrong.size // 2)
            wrong.flat[:half] += delta.flat[:half] if delta.size else 0
            if out.dtype.kind == "i":
                wrong = expected.copy()
                wrong.flat[:half] += 1
            res = _run(task, _as_output(wrong, out), expected, inputs)
            assert not res.passed, (case.name, "perturbed")
            assert res.mismatches and len(res.mismatches) <= 5


def test_every_case_rejects_all_zeros_when_the_answer_is_not_zero():
    for task in gpu_tasks.all_tasks():
        for case in _cases(task):
            inputs = task.generate(np.random.default_rng(4), case.dims)
            ref = task.reference(inputs)
            for arg in task.outputs:
                if ref[arg.name].size > 1 or task.slug != "relu":
                    assert np.any(ref[arg.name] != 0), (task.slug, case.name)


def _layer_norm_f32(x, gamma, beta, eps, naive):
    x = x.astype(np.float32)
    cols = np.float32(x.shape[1])
    mean = x.sum(axis=1, dtype=np.float32, keepdims=True) / cols
    if naive:
        var = (x * x).sum(axis=1, dtype=np.float32, keepdims=True) / cols - mean * mean
        var = np.maximum(var, np.float32(0))
    else:
        d = x - mean
        var = (d * d).sum(axis=1, dtype=np.float32, keepdims=True) / cols
    return ((x - mean) / np.sqrt(var + np.float32(eps)) * gamma + beta).astype(np.float32)


def test_layer_norm_data_breaks_the_one_pass_variance_but_not_two_passes():
    task = gpu_tasks.get_task("layer_norm")
    naive_failures = 0
    for seed in (1, 2, 3):
        for case in task.cases("cpu"):
            inputs = task.generate(np.random.default_rng(seed), case.dims)
            expected = task.reference(inputs)["y"]
            args = (inputs["x"], inputs["gamma"], inputs["beta"], inputs["eps"])
            assert _run(task, _layer_norm_f32(*args, naive=False), expected, inputs).passed, case.name
            with np.errstate(invalid="ignore"):
                naive = _run(task, _layer_norm_f32(*args, naive=True), expected, inputs)
            if case.dims["cols"] >= 256:
                assert not naive.passed, (seed, case.name)
            naive_failures += not naive.passed
    assert naive_failures >= 9


def test_fixtures_declare_an_expected_verdict():
    files = sorted(FIXTURES.glob("*/*.py"))
    assert len(files) >= 30
    seen = {}
    for path in files:
        first = path.read_text().splitlines()[0]
        m = re.fullmatch(r"# expect: (\w+)", first)
        assert m and m.group(1) in VERDICTS, path
        assert path.parent.name in gpu_tasks.TASKS, path
        compile(path.read_text(), str(path), "exec")
        seen.setdefault(m.group(1), []).append(path)
    assert {"accepted", "wrong_answer", "memory_error", "race_detected", "runtime_error", "compile_error",
            "time_limit_exceeded", "security_violation"} <= set(seen)
    styles = {p.stem for p in (FIXTURES / "vector_add").glob("*.py")}
    assert {"raw_kernel", "elementwise", "jit", "array"} <= styles
    assert (FIXTURES / "reduce_sum" / "reduction.py").exists()


def _f32_dot(xs, ws) -> np.float32:
    """A float32 dot product with one fused multiply-add per term, in order (a plain loop)."""
    acc = np.float32(0)
    for a, b in zip(xs.astype(np.float64), ws.astype(np.float64)):
        acc = np.float32(np.float64(acc) + a * b)
    return acc


@pytest.mark.parametrize("slug,dims", [("conv1d", {"n": 1000, "k": 1000}),
                                       ("conv2d", {"rows": 7, "cols": 7, "k": 7}),
                                       ("sgemv", {"m": 1, "n": 1021})])
def test_a_single_output_that_cancels_is_not_failed_for_rounding(slug, dims):
    """One output is one long float32 sum: near zero after cancellation, its relative error
    alone would fail correct kernels on some seeds (about 2 % of them for conv1d 'full')."""
    task = gpu_tasks.get_task(slug)
    out = next(a.name for a in task.args if a.role == "out")
    short = 0
    for seed in range(300):
        inputs = task.generate(np.random.default_rng([seed, 1]), dims)
        expected = task.reference(inputs)[out]
        xs, ws = [np.ravel(inputs[a.name]) for a in task.args if a.role == "in"]
        xs = xs[:ws.size] if slug != "conv2d" else np.ravel(inputs["x"])   # the one window: all of x
        got = np.full(expected.shape, _f32_dot(xs, ws), np.float32)
        assert _run(task, got, expected, inputs).passed, seed
        # A kernel that drops one term is caught however the sum cancels.
        dropped = np.full(expected.shape, _f32_dot(xs[1:], ws[1:]), np.float32)
        short += not _run(task, dropped, expected, inputs).passed
    assert short >= 295
