"""cupy.fft on the CPU backend: numpy.fft with results as device arrays."""
import numpy.fft as _numpy_module

from _kpshim.numpy_api import convert as _convert


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    value = _convert(getattr(_numpy_module, name), name)
    globals()[name] = value
    return value
