"""cupy.lib on the CPU backend: stride_tricks, as numpy.lib has it."""
from cupy.lib import stride_tricks  # noqa: F401
