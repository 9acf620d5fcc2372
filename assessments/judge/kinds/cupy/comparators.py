"""Output comparators, registered by name (a task's `check`): a submission's array against the
float64 reference. Pure functions."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

MAX_MISMATCHES = 5
# Timing re-checks compare outputs of 2^25 elements and more: in blocks, float64 temporaries stay
# in cache instead of a dozen full-size copies (a re-check's compare was seconds at that size).
BLOCK = 1 << 18


@dataclass(frozen=True)
class Mismatch:
    index: tuple
    got: float | int
    expected: float | int


@dataclass(frozen=True)
class Comparison:
    passed: bool
    max_error: float
    mismatches: list = field(default_factory=list)
    message: str = ""


def _scalar(value):
    """A JSON-friendly Python scalar."""
    value = value.item() if isinstance(value, np.generic) else value
    return value


def _mismatches(bad: np.ndarray, got: np.ndarray, expected: np.ndarray) -> list[Mismatch]:
    """The first MAX_MISMATCHES flagged elements in row-major index order."""
    out = []
    for flat in np.flatnonzero(bad)[:MAX_MISMATCHES]:
        index = tuple(int(i) for i in np.unravel_index(int(flat), bad.shape))
        out.append(Mismatch(index, _scalar(got[index]), _scalar(expected[index])))
    return out


def _fmt_index(index: tuple) -> str:
    return "[" + ", ".join(str(i) for i in index) + "]"


def _prepare(got, expected):
    """(got, expected, error Comparison or None): float64 views of both, shape checked."""
    got = np.asarray(got)
    expected = np.asarray(expected)
    if got.shape != expected.shape:
        return got, expected, Comparison(
            False, float("inf"), [], f"output has shape {got.shape}, expected {expected.shape}"
        )
    return got, expected, None


def _blocks(size: int):
    """Slices covering range(size) in BLOCK-sized pieces."""
    for start in range(0, size, BLOCK):
        yield slice(start, min(start + BLOCK, size))


def _f64(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float64, copy=False)


def _nonfinite(got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Elements of `got` that are NaN/Inf where the reference is not the same non-finite value."""
    bad = ~np.isfinite(got)        # in got's own dtype: no float64 copy of a clean output
    if bad.any():
        g, e = _f64(got), _f64(expected)
        same = (np.isnan(g) & np.isnan(e)) | (np.isinf(g) & (g == e))
        bad &= ~same
    return bad


def _blockwise_abs_error(got: np.ndarray, expected: np.ndarray, allowed) -> tuple[float, bool]:
    """(largest |got - expected|, whether any element exceeds `allowed(expected block)`), block
    by block. A NaN error (both sides the same non-finite value) makes the maximum NaN, as a
    whole-array max would."""
    g, e = got.reshape(-1), expected.reshape(-1)
    peaks, exceeded = [], False
    for s in _blocks(g.size):
        eb = _f64(e[s])
        diff = np.abs(_f64(g[s]) - eb)
        peaks.append(diff.max())
        exceeded = exceeded or bool((diff > allowed(eb)).any())
    return float(np.max(peaks)), exceeded


def _fail_nonfinite(bad, got, expected, initial=None) -> Comparison:
    count = int(bad.sum())
    mism = _mismatches(bad, got, expected)
    first = mism[0]
    return Comparison(
        False,
        float("inf"),
        mism,
        f"{count} of {got.size} elements are NaN or Inf (first at {_fmt_index(first.index)}: "
        f"got {first.got}, expected {first.expected})" + _nonfinite_hint(bad, got, initial),
    )


def _nonfinite_hint(bad, got, initial) -> str:
    """Tells elements never written (still bitwise the NaN the output arrived filled with, whose
    payload no arithmetic makes) from NaN or Inf the code computed."""
    nan = np.isnan(got[bad].astype(np.float64))
    if not nan.any():
        return "; an overflow, or a division by zero, gives Inf"
    if initial is None or np.shape(initial) != got.shape or initial.dtype != got.dtype:
        return "; outputs arrive filled with NaN, so a NaN is often an element never written"
    width = got.dtype.itemsize
    raw = got.view(f"u{width}")[bad]
    unwritten = int(np.count_nonzero(raw == np.asarray(initial).view(f"u{width}")[bad]))
    count = int(bad.sum())
    if unwritten == count:
        return ("; they still hold the NaN the output arrived filled with: never written (or "
                "computed from that NaN)")
    if unwritten:
        return (f"; {unwritten} of them still hold the NaN the output arrived filled with (never "
                f"written), the other {count - unwritten} your code computed (an overflow, 0/0 "
                "or inf - inf)")
    return ("; your code computed them (the output arrived filled with a NaN of another bit "
            "pattern): look for an overflow, 0/0 or inf - inf")


def _summary(bad: np.ndarray, got, expected, what: str, verb: str = "out of tolerance") -> tuple[list[Mismatch], str]:
    mism = _mismatches(bad, got, expected)
    count = int(bad.sum())
    if not mism:
        return mism, what
    first = mism[0]
    return mism, (
        f"{what}; {count} of {got.size} elements {verb}, first at "
        f"{_fmt_index(first.index)}: got {first.got}, expected {first.expected}"
    )


def _comparable(got, expected, initial=None):
    """Shapes and dtypes checked, empty and non-finite outputs decided: either a final
    Comparison or (got, expected) as arrays. `initial` is the output
    as it was handed to solve, to tell elements never written from computed NaN."""
    got, expected, err = _prepare(got, expected)
    if err:
        return err
    if got.size == 0:
        return Comparison(True, 0.0, [], "empty output")
    bad_nf = _nonfinite(got, expected)
    if bad_nf.any():
        return _fail_nonfinite(bad_nf, got, expected, initial)
    return got, expected


def compare_exact(got, expected, *, initial=None, **_ignored) -> Comparison:
    """Every element equal to the reference (integers, or floats that need no arithmetic)."""
    got, expected, err = _prepare(got, expected)
    if err:
        return err
    if got.size == 0:
        return Comparison(True, 0.0, [], "empty output")
    if got.dtype.kind == "f" or expected.dtype.kind == "f":
        bad_nf = _nonfinite(got, expected)
        if bad_nf.any():
            return _fail_nonfinite(bad_nf, got, expected, initial)
        wide = np.float64
    else:
        wide = np.int64
    g, e = got.reshape(-1), expected.reshape(-1)
    if all(np.array_equal(g[s].astype(wide, copy=False), e[s].astype(wide, copy=False))
           for s in _blocks(g.size)):
        return Comparison(True, 0.0, [], "all elements match exactly")
    g, e = got.astype(wide), expected.astype(wide)
    bad = g != e
    max_error = float(np.max(np.abs(g - e)))
    mism, message = _summary(bad, got, expected, f"max abs error {max_error:.6g}", "differ")
    return Comparison(False, max_error, mism, message)


def compare_allclose(got, expected, *, rtol: float = 1e-5, atol: float = 1e-8, initial=None, **_ignored) -> Comparison:
    """Element-wise |got - ref| <= atol + rtol * |ref|; max_error is the largest absolute error."""
    ready = _comparable(got, expected, initial)
    if isinstance(ready, Comparison):
        return ready
    got, expected = ready
    max_error, exceeded = _blockwise_abs_error(got, expected, lambda e: atol + rtol * np.abs(e))
    what = f"max abs error {max_error:.3g} (allowed: {atol:g} + {rtol:g} * |expected|)"
    if not exceeded:
        return Comparison(True, max_error, [], what)
    e = _f64(expected)
    bad = np.abs(_f64(got) - e) > atol + rtol * np.abs(e)
    mism, message = _summary(bad, got, expected, what)
    return Comparison(False, max_error, mism, message)


# Up to this many elements (every test size) the norms are taken over the whole array at once;
# larger outputs (timing re-checks) sum the squares block by block, which rounds differently
# only in the last bits.
NORM_WHOLE = 1 << 22


def _blockwise_norms(got: np.ndarray, expected: np.ndarray) -> tuple[float, float]:
    """(||got - expected||, ||expected||), block by block."""
    g, e = got.reshape(-1), expected.reshape(-1)
    err_sq = ref_sq = 0.0
    for s in _blocks(g.size):
        eb = _f64(e[s])
        diff = _f64(g[s]) - eb
        err_sq += float(np.dot(diff, diff))
        ref_sq += float(np.dot(eb, eb))
    return float(np.sqrt(err_sq)), float(np.sqrt(ref_sq))


def compare_norm(got, expected, *, rtol: float, atol: float = 0.0, initial=None, **_ignored) -> Comparison:
    """||got - ref|| <= rtol * ||ref|| + atol (2-norm over all elements); max_error is the ratio."""
    ready = _comparable(got, expected, initial)
    if isinstance(ready, Comparison):
        return ready
    got, expected = ready
    if got.size <= NORM_WHOLE:
        diff = _f64(got) - _f64(expected)
        err_norm = float(np.linalg.norm(diff.ravel()))
        ref_norm = float(np.linalg.norm(_f64(expected).ravel()))
    else:
        err_norm, ref_norm = _blockwise_norms(got, expected)
        diff = None
    rel = err_norm / ref_norm if ref_norm > 0 else (0.0 if err_norm == 0 else float("inf"))
    what = f"relative error ||got - ref|| / ||ref|| = {rel:.3g} (allowed: {rtol:g})"
    if err_norm <= rtol * ref_norm + atol:
        return Comparison(True, rel, [], what)
    # Elements whose error exceeds their share of the allowed norm; at least one must.
    share = (rtol * ref_norm + atol) / np.sqrt(got.size)
    if diff is None:
        diff = _f64(got) - _f64(expected)
    mism, message = _summary(np.abs(diff) > share, got, expected, what)
    return Comparison(False, rel, mism, message)


def compare_sum_abs(got, expected, *, rtol: float, scale: float | None = None, initial=None, **_ignored) -> Comparison:
    """|got - ref| <= rtol * scale, where scale is e.g. sum(|x|) of the summed inputs."""
    ready = _comparable(got, expected, initial)
    if isinstance(ready, Comparison):
        return ready
    got, expected = ready
    if scale is None:  # stricter stand-in when the caller has no inputs at hand
        scale = float(np.sum(np.abs(_f64(expected))))
    allowed = rtol * float(scale)
    max_error, exceeded = _blockwise_abs_error(got, expected, lambda e: allowed)
    what = f"abs error {max_error:.6g} (allowed: {rtol:g} * {float(scale):.6g} = {allowed:.3g})"
    if not exceeded:
        return Comparison(True, max_error, [], what)
    bad = np.abs(_f64(got) - _f64(expected)) > allowed
    mism, message = _summary(bad, got, expected, what)
    return Comparison(False, max_error, mism, message)


COMPARATORS: dict[str, Callable[..., Comparison]] = {
    "exact": compare_exact,
    "allclose": compare_allclose,
    "norm": compare_norm,
    "sum_abs": compare_sum_abs,
}


def run_comparator(name: str, got, expected, **tolerance) -> Comparison:
    """Look a comparator up by name and run it."""
    try:
        comparator = COMPARATORS[name]
    except KeyError:
        raise KeyError(f"unknown comparator {name!r}; known: {', '.join(sorted(COMPARATORS))}") from None
    return comparator(got, expected, **tolerance)
