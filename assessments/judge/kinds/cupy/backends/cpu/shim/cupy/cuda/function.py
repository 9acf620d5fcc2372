"""cupy.cuda.function: the names only (kernels are RawKernel objects here)."""
from _kpshim.raw import RawModule as Module  # noqa: F401
from _kpshim.raw import _Function as Function  # noqa: F401
