"""Benchmark-sized outputs (timing re-checks) are compared block by block: the verdicts, errors
and first mismatches are those of a whole-array comparison."""
from __future__ import annotations

import numpy as np
import pytest

from assessments.judge.kinds.cupy import comparators as cmp

N = cmp.NORM_WHOLE + 3 * cmp.BLOCK + 17     # past both thresholds, a ragged last block


@pytest.fixture(scope="module")
def pair():
    rng = np.random.default_rng(3)
    expected = rng.normal(0.0, 2.0, N)
    got = (expected + rng.normal(0.0, 1e-7, N)).astype(np.float32)
    return got, expected


def test_a_close_output_passes_with_the_whole_array_max_error(pair):
    got, expected = pair
    res = cmp.compare_allclose(got, expected, rtol=1e-4, atol=1e-5)
    assert res.passed
    assert res.max_error == float(np.max(np.abs(got.astype(np.float64) - expected)))


def test_one_wrong_element_in_the_last_block_fails_and_is_located(pair):
    got, expected = pair
    bad = got.copy()
    bad[N - 5] += 1.0
    for check, tol in ((cmp.compare_allclose, {"rtol": 1e-4, "atol": 1e-5}),
                       (cmp.compare_sum_abs, {"rtol": 1e-9, "scale": 1e6})):
        res = check(bad, expected, **tol)
        assert not res.passed
        assert res.mismatches[0].index == (N - 5,)


def test_norms_in_blocks_agree_with_the_whole_array_norm(pair):
    got, expected = pair
    res = cmp.compare_norm(got, expected, rtol=1e-5)
    whole = np.linalg.norm(got.astype(np.float64) - expected) / np.linalg.norm(expected)
    assert res.passed and res.max_error == pytest.approx(whole, rel=1e-9)
    wrong = got.copy()
    wrong[: N // 2] = 0.0
    assert not cmp.compare_norm(wrong, expected, rtol=1e-5).passed


def test_exact_outputs_in_blocks():
    ints = np.arange(N, dtype=np.int32)
    assert cmp.compare_exact(ints, ints.astype(np.int64)).passed
    off = ints.copy()
    off[-1] += 2
    res = cmp.compare_exact(off, ints.astype(np.int64))
    assert not res.passed and res.max_error == 2.0 and res.mismatches[0].index == (N - 1,)


def test_a_nan_where_the_reference_has_none_is_reported_as_such(pair):
    got, expected = pair
    nan = got.copy()
    nan[cmp.BLOCK + 1] = np.nan
    res = cmp.compare_allclose(nan, expected, rtol=1e-4, atol=1e-5)
    assert not res.passed and "NaN or Inf" in res.message and res.mismatches[0].index == (cmp.BLOCK + 1,)
