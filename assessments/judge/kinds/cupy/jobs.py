"""The CuPy kind's compile jobs, run by compile_sandbox.py: their entry modules and the files
they import (tests/judge/core/test_judge_sandbox.py audits them)."""
from __future__ import annotations

from ...compile_sandbox import JobFiles
from .backends.base import SITE_ENTRIES

BUILD_MODULE = "assessments.judge.kinds.cupy.backends.cpu.emulator.compile_job"
LISTING_MODULE = "assessments.judge.kinds.cupy.listing"
COMPILE_FILES = ("assessments/__init__.py", "assessments/judge/__init__.py",
                 "assessments/judge/kinds/__init__.py", "assessments/judge/kinds/cupy/__init__.py",
                 "assessments/judge/kinds/cupy/listing.py", "assessments/judge/listing_text.py",
                 "assessments/judge/kinds/cupy/nvrtc.py", "assessments/judge/kinds/cupy/diagnostics.py",
                 "assessments/judge/protocol.py", "assessments/judge/kinds/cupy/backends/__init__.py",
                 "assessments/judge/kinds/cupy/backends/cpu/__init__.py",
                 "assessments/judge/kinds/cupy/backends/cpu/emulator")
FILES = JobFiles(COMPILE_FILES, SITE_ENTRIES)
