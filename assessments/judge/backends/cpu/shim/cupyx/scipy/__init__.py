"""cupyx.scipy on the CPU backend: the special functions array code most uses (special)."""
from _kpshim.missing import refusal as _refusal


def __getattr__(name):
    # `from cupyx.scipy import signal` asks the package after the import machinery failed
    if name.startswith("__"):
        raise AttributeError(name)
    raise _refusal(f"cupyx.scipy.{name}")
