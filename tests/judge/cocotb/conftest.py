"""Fixtures of the testbench tests: the testbenches several tests read, each judged once."""
from __future__ import annotations

import pytest

from tb_stage import REFERENCE, fixture, judged


@pytest.fixture(scope="session")
def reference_report():
    return judged(REFERENCE.read_text())


@pytest.fixture(scope="session")
def reset_only_report():
    return judged(fixture("reset_only.py"))
