"""cupyx.scipy.special on the CPU backend: softmax, log_softmax, logsumexp, expit and logit,
computed as SciPy defines them, with results as device arrays."""
import numpy as _numpy

from _kpshim.array import unwrap as _unwrap
from _kpshim.array import wrap as _wrap


def _host(x):
    return _numpy.asarray(_unwrap(x))


def _out(values, out=None):
    if out is not None:
        out[...] = values
        return out
    return _wrap(_numpy.asarray(values))


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    x = _host(a)
    top = _numpy.amax(x, axis=axis, keepdims=True)
    top = _numpy.where(_numpy.isfinite(top), top, 0)
    weights = _numpy.exp(x - top) if b is None else _host(b) * _numpy.exp(x - top)
    total = _numpy.sum(weights, axis=axis, keepdims=True)
    sign = _numpy.sign(total)
    with _numpy.errstate(divide="ignore"):
        result = _numpy.log(_numpy.abs(total)) + top
    if not keepdims:
        result = _numpy.squeeze(result, axis=axis)
        sign = _numpy.squeeze(sign, axis=axis)
    return (_out(result), _out(sign)) if return_sign else _out(result)


def softmax(x, axis=None):
    v = _host(x)
    shifted = _numpy.exp(v - _numpy.amax(v, axis=axis, keepdims=True))
    return _out(shifted / _numpy.sum(shifted, axis=axis, keepdims=True))


def log_softmax(x, axis=None):
    v = _host(x)
    shifted = v - _numpy.amax(v, axis=axis, keepdims=True)
    return _out(shifted - _numpy.log(_numpy.sum(_numpy.exp(shifted), axis=axis, keepdims=True)))


def expit(x, out=None):
    v = _host(x)
    return _out(1.0 / (1.0 + _numpy.exp(-v)), out)


def logit(x, out=None):
    v = _host(x)
    with _numpy.errstate(divide="ignore"):
        return _out(_numpy.log(v / (1.0 - v)), out)
