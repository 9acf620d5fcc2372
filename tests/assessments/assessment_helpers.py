"""Helpers for the assessment tests: reading solutions and waiting for grading to end."""
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "submissions"
# Grading runs a sandboxed child per submission; on a busy 2-core machine a queue of them can
# take minutes. The bound only stops a hung test: nothing asserts on speed here.
GRADING_TIMEOUT_S = 600

JOB_TEXT = """GPU Kernel Engineer

Minimum qualifications:
- 3+ years writing CUDA kernels in C++; shared memory, warp shuffles and parallel reduction
- BS in Computer Science

Nice to have:
- Triton, CUTLASS
"""


def fixture_source(task: str, name: str) -> str:
    return (FIXTURES / task / f"{name}.py").read_text()


def wait_final(client, path: str, headers: dict, timeout: float = GRADING_TIMEOUT_S) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        resp = client.get(path, headers=headers)
        assert resp.status_code == 200, resp.get_json()
        body = resp.get_json()
        if body["status"] in ("done", "failed"):
            return body
        if time.monotonic() > deadline:
            pytest.fail(f"{path} still {body['status']} after {timeout} s")
        time.sleep(0.2)
