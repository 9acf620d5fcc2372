"""cupyx.scipy on the CPU backend: signal (correlation, convolution) and special (softmax and
kin), the parts array code most uses."""
import importlib as _importlib


def __getattr__(name):
    # `from cupyx.scipy import signal` asks the package for the name first: a submodule is
    # imported, and one the stand-in lacks is refused with its message (_kpshim.missing)
    if name.startswith("__"):
        raise AttributeError(name)
    return _importlib.import_module(f"{__name__}.{name}")
