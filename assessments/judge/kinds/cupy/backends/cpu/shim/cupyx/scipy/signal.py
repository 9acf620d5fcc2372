"""cupyx.scipy.signal on the CPU backend: correlate, convolve, correlate2d and convolve2d of
1-D and 2-D arrays, as SciPy defines them (direct sums), with results as device arrays."""
from _kpshim import signal_math as _math
from _kpshim.array import unwrap as _host
from _kpshim.array import wrap as _wrap


def correlate(in1, in2, mode="full", method="auto"):
    return _wrap(_math.correlate(_host(in1), _host(in2), mode))


def convolve(in1, in2, mode="full", method="auto"):
    return _wrap(_math.convolve(_host(in1), _host(in2), mode))


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    return _wrap(_math.correlate2d(_host(in1), _host(in2), mode, boundary, fillvalue))


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    return _wrap(_math.convolve2d(_host(in1), _host(in2), mode, boundary, fillvalue))
