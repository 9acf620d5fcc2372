"""Where a function task's code runs: the run sandbox, as a Python child (`child.py`) that imports
the Python submission or loads the C++ one (the only backend of kinds `python` and `cpp`; a
`--backend` name is ignored)."""
from __future__ import annotations

from ...sandbox import GiB, Limits
from ..child_backend import ChildBackend

CHILD_FILES = ("assessments/judge/kinds/__init__.py", "assessments/judge/kinds/python/__init__.py",
               "assessments/judge/kinds/python/child.py", "assessments/judge/kinds/python/native.py")
SITE_ENTRIES = ("numpy", "numpy.libs", "numpy-*.dist-info")


class FunctionBackend(ChildBackend):
    name = "cpu"
    description = "the CPU"
    # A hidden test is at most a few million accesses: seconds in Python, well under one in C++.
    limits = Limits(cpu_s=300, wall_s=300.0, op_wall_s=60.0, memory=4 * GiB)
    child_module = "assessments.judge.kinds.python.child"
    child_files = CHILD_FILES
    site_entries = SITE_ENTRIES
    timed = True          # the submission's time against the reference's, in the same run


CPU = FunctionBackend()
