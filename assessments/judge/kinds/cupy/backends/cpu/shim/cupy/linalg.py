"""cupy.linalg on the CPU backend: numpy.linalg with results as device arrays."""
import numpy.linalg as _numpy_module

from _kpshim.numpy_api import convert as _convert


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    value = _convert(getattr(_numpy_module, name), name)
    globals()[name] = value
    return value
