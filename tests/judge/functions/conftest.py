"""The function kinds' tests need the sandbox: skipped where bubblewrap cannot run."""
from __future__ import annotations

import pytest

from assessments.judge import sandbox


@pytest.fixture(scope="session", autouse=True)
def _needs_bubblewrap():
    usable, why = sandbox.probe()
    if not usable:
        pytest.skip(f"no sandbox here: {why}")
