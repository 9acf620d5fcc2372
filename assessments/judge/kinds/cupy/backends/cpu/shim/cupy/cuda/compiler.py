"""cupy.cuda.compiler: CompileException as CuPy raises it for a kernel NVRTC refuses."""
from _kpshim.errors import CompileException  # noqa: F401
from _kpshim.params import is_valid_kernel_name  # noqa: F401


def compile_using_nvrtc(*args, **kwargs):
    raise NotImplementedError("cupy.cuda.compiler.compile_using_nvrtc is not available on the "
                              "CPU backend; use RawKernel or RawModule")
