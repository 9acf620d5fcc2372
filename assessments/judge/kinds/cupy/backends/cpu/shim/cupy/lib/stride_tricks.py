"""cupy.lib.stride_tricks on the CPU backend: numpy's, with results as device arrays (views)."""
import numpy.lib.stride_tricks as _numpy_module

from _kpshim.numpy_api import convert as _convert

as_strided = _convert(_numpy_module.as_strided, "as_strided")
sliding_window_view = _convert(_numpy_module.sliding_window_view, "sliding_window_view")
