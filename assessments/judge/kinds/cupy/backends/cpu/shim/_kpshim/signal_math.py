"""Correlation and convolution as scipy.signal defines them (numpy only), for the stand-in's
cupyx.scipy.signal: direct sums over sliding windows, in float64, of 1-D and 2-D arrays."""
from __future__ import annotations

import numpy
from numpy.lib.stride_tricks import sliding_window_view

MODES = ("full", "valid", "same")
BOUNDARIES = {"fill": "constant", "wrap": "wrap", "symm": "symmetric"}


def _full(a, k, boundary: str = "fill", fillvalue=0):
    """Every overlap of `k` sliding over `a` (no flip): shape a.shape + k.shape - 1."""
    pad = [(n - 1, n - 1) for n in k.shape]
    if boundary == "fill":
        padded = numpy.pad(a, pad, mode="constant", constant_values=fillvalue)
    else:
        padded = numpy.pad(a, pad, mode=BOUNDARIES[boundary])
    windows = sliding_window_view(padded, k.shape)
    axes = tuple(range(a.ndim, 2 * a.ndim))
    return numpy.tensordot(windows, k, axes=(axes, tuple(range(k.ndim))))


def _check(in1, in2, mode):
    a, k = numpy.asarray(in1), numpy.asarray(in2)
    if mode not in MODES:
        raise ValueError("acceptable mode flags are 'valid', 'same', or 'full'")
    if a.ndim != k.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if a.ndim not in (1, 2):
        raise NotImplementedError("the judge's CPU stand-in correlates and convolves 1-D and 2-D "
                                  "arrays only")
    if mode == "valid" and not (all(x >= y for x, y in zip(a.shape, k.shape))
                                or all(x <= y for x, y in zip(a.shape, k.shape))):
        raise ValueError("For 'valid' mode, one must be at least as large as the other in every "
                         "dimension")
    return a, k


def _result_type(a, k):
    return numpy.result_type(a.dtype, k.dtype, numpy.float32 if a.dtype.kind in "iub" else a.dtype)


def _valid(full, a, k):
    lo = [min(x, y) - 1 for x, y in zip(a.shape, k.shape)]
    hi = [max(x, y) for x, y in zip(a.shape, k.shape)]
    return full[tuple(slice(l, h) for l, h in zip(lo, hi))]


def _same(full, a, starts):
    return full[tuple(slice(s, s + n) for s, n in zip(starts, a.shape))]


def correlate(in1, in2, mode="full"):
    """scipy.signal.correlate, direct method."""
    return _nd(in1, in2, mode, flip=False)


def convolve(in1, in2, mode="full"):
    """scipy.signal.convolve, direct method."""
    return _nd(in1, in2, mode, flip=True)


def _nd(in1, in2, mode, flip: bool):
    a, k = _check(in1, in2, mode)
    kernel = k[(slice(None, None, -1),) * k.ndim] if flip else numpy.conj(k)
    full = _full(a.astype(numpy.float64), kernel.astype(numpy.float64))
    if mode == "valid":
        out = _valid(full, a, k)
    elif mode == "same":   # centred as scipy's _centered does, for both
        out = _same(full, a, [(n - 1) // 2 for n in k.shape])
    else:
        out = full
    return out.astype(_result_type(a, k))


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """scipy.signal.correlate2d."""
    return _2d(in1, in2, mode, boundary, fillvalue, flip=False)


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """scipy.signal.convolve2d."""
    return _2d(in1, in2, mode, boundary, fillvalue, flip=True)


def _2d(in1, in2, mode, boundary, fillvalue, flip: bool):
    a, k = numpy.asarray(in1), numpy.asarray(in2)
    if a.ndim != 2 or k.ndim != 2:
        raise ValueError(f"{'convolve2d' if flip else 'correlate2d'} inputs must both be 2-D arrays")
    if boundary not in BOUNDARIES:
        raise ValueError("Acceptable boundary flags are 'fill', 'circular' (or 'wrap'), and "
                         "'symmetric' (or 'symm').")
    _check(a, k, mode)
    kernel = (k[::-1, ::-1] if flip else k).astype(numpy.float64)
    full = _full(a.astype(numpy.float64), kernel, "fill" if mode == "valid" else boundary, fillvalue)
    if mode == "valid":
        out = _valid(full, a, k)
    elif mode == "same":
        out = _same(full, a, [(n - 1) // 2 if flip else n // 2 for n in k.shape])
    else:
        out = full
    return out.astype(_result_type(a, k))
