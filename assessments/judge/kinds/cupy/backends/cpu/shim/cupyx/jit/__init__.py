"""Stand-in for `cupyx.jit`: kernels are transpiled by the real CuPy and run on the CPU emulator."""
import sys as _sys

from _kpshim.jit_api import JitBuiltin as _B
from _kpshim.jit_api import JitRawKernel as _JitRawKernel  # noqa: F401
from _kpshim.jit_api import builtin_module as _builtin_module
from _kpshim.jit_api import rawkernel  # noqa: F401

_n_functions_upperlimit = 100

_NAMES = (
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpsize", "grid", "gridsize", "laneid",
    "syncthreads", "syncwarp", "shared_memory", "range",
    "atomic_add", "atomic_sub", "atomic_exch", "atomic_min", "atomic_max", "atomic_inc",
    "atomic_dec", "atomic_cas", "atomic_and", "atomic_or", "atomic_xor",
    "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync",
)

for _name in _NAMES:
    globals()[_name] = _B("cupyx.jit", _name)

cg = _builtin_module("cupyx.jit.cg", "Cooperative groups (inside cupyx.jit kernels).")
cub = _builtin_module("cupyx.jit.cub", "CUB (inside cupyx.jit kernels).")
thrust = _builtin_module("cupyx.jit.thrust", "Thrust (inside cupyx.jit kernels).")
for _mod in (cg, cub, thrust):
    _sys.modules[_mod.__name__] = _mod

del _name, _mod
