"""`KIND`: function tasks in C++ as the judge's core sees them (kinds.Kind): its own screen,
session and loading (stages.py), the function kinds' other steps (kinds/python/stages.py, the
pipeline it inherits)."""
from __future__ import annotations

from ..python.kind import PythonKind
from . import stages


class CppKind(PythonKind):
    name = "cpp"
    language = "cpp"
    extensions = (".cpp", ".cc")

    screen = staticmethod(stages.screen)
    session = staticmethod(stages.session)
    load = staticmethod(stages.load)


KIND = CppKind()
