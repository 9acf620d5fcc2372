"""A clear message for the parts of CuPy this stand-in does not have.

Without it, `import cupyx.scipy.signal` fails as a bare ModuleNotFoundError, which reads like a
mistake in the submission. The finder sits last on sys.meta_path, so it only answers for
`cupy.*` and `cupyx.*` names no other finder has.
"""
from __future__ import annotations

import sys

PROVIDED = ("cupy", "cupy.cuda", "cupy.fft", "cupy.linalg", "cupy.random", "cupy.lib",
            "cupy.lib.stride_tricks", "cupyx", "cupyx.jit", "cupyx.profiler", "cupyx.scipy",
            "cupyx.scipy.signal", "cupyx.scipy.special")


def refusal(name: str) -> ModuleNotFoundError:
    return ModuleNotFoundError(
        f"{name} is not in the judge's CPU stand-in for CuPy: write it as a kernel or as array "
        f"code (real CuPy, on the cuda backend, has it). The stand-in has {', '.join(PROVIDED)}, "
        "and numpy's functions under cupy.*", name=name)


class MissingCupyModule:
    """Refuses the CuPy modules the stand-in lacks, naming what it has."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if not name.startswith(("cupy.", "cupyx.")):
            return None
        raise refusal(name)


def install() -> None:
    if not any(isinstance(f, MissingCupyModule) for f in sys.meta_path):
        sys.meta_path.append(MissingCupyModule())
