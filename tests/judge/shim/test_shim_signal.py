"""The stand-in's cupyx.scipy.signal gives what SciPy gives: shapes, dtypes and values of
correlate, convolve, correlate2d and convolve2d for every mode (and boundary), including a
kernel larger than the image and even-sized kernels, whose 'same' centring differs by function."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

scipy_signal = pytest.importorskip("scipy.signal")
SHIM = Path(__file__).resolve().parents[3] / "assessments" / "judge" / "kinds" / "cupy" / "backends" / "cpu" / "shim"


def _signal_math():
    # Loaded by path: putting the stand-in on sys.path would shadow the real cupy here.
    spec = importlib.util.spec_from_file_location("kp_signal_math", SHIM / "_kpshim" / "signal_math.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SHAPES_1D = [((n,), (k,)) for n in (1, 2, 5, 6) for k in (1, 2, 3, 4, 7)]
SHAPES_2D = [((h, w), (kh, kw)) for h, w in ((1, 1), (3, 4), (5, 5)) for kh, kw in ((1, 1), (2, 2), (2, 3), (3, 3), (4, 2), (6, 6))]


@pytest.mark.parametrize("shape_a,shape_k", SHAPES_1D + SHAPES_2D)
def test_as_scipy_gives(shape_a, shape_k):
    sm = _signal_math()
    rng = np.random.default_rng(len(shape_a) * 100 + sum(shape_a) * 10 + sum(shape_k))
    a = rng.normal(size=shape_a).astype(np.float32)
    k = rng.normal(size=shape_k).astype(np.float32)
    calls = [(name, {}) for name in ("correlate", "convolve")]
    if len(shape_a) == 2:
        calls += [(name, {"boundary": b}) for name in ("correlate2d", "convolve2d")
                  for b in ("fill", "wrap", "symm")]
    compared = 0
    for name, extra in calls:
        for mode in ("full", "same", "valid"):
            kwargs = dict(extra, method="direct") if name in ("correlate", "convolve") else extra
            try:
                expected = getattr(scipy_signal, name)(a, k, mode, **kwargs)
            except ValueError:
                with pytest.raises(ValueError):
                    getattr(sm, name)(a, k, mode, **extra)
                continue
            got = getattr(sm, name)(a, k, mode, **extra)
            assert got.shape == expected.shape and got.dtype == expected.dtype, (name, mode, extra)
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, err_msg=f"{name} {mode} {extra}")
            compared += 1
    assert compared >= 4


def test_three_dimensions_are_refused_clearly():
    sm = _signal_math()
    with pytest.raises(NotImplementedError, match="1-D and 2-D arrays only"):
        sm.correlate(np.zeros((2, 2, 2)), np.ones((1, 1, 1)))
