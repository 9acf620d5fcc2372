"""The CuPy kind's compile jobs, run by compile_sandbox.py: their entry modules and the files
they import (tests/judge/core/test_judge_sandbox.py audits them)."""
from __future__ import annotations

from .backends.base import SITE_ENTRIES
from .compile_sandbox import JobFiles

BUILD_MODULE = "assessments.judge.backends.cpu.emulator.compile_job"
LISTING_MODULE = "assessments.judge.listing"
COMPILE_FILES = ("assessments/__init__.py", "assessments/judge/__init__.py",
                 "assessments/judge/listing.py", "assessments/judge/listing_text.py",
                 "assessments/judge/nvrtc.py", "assessments/judge/diagnostics.py",
                 "assessments/judge/protocol.py",
                 "assessments/judge/backends/__init__.py", "assessments/judge/backends/cpu/__init__.py",
                 "assessments/judge/backends/cpu/emulator")
FILES = JobFiles(COMPILE_FILES, SITE_ENTRIES)
