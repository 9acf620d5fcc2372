"""The parent's side of a plain child (every kind's but `cupy`'s, whose backends bind GPUs and an
emulator): the base of its backend, a Python program in the run sandbox with nothing of its own
bound (a kind's backend names its child, limits and packages and overrides only what differs),
and the child's start and close around a judging's tests."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from .. import seccomp
from ..outcome import Decided, Outcome
from ..runner import ChildDied, ChildProcess
from ..sandbox import Limits, SandboxSpec
from ..verdicts import Verdict


class ChildBackend:
    name: str
    description: str
    limits: Limits
    child_module: str                     # run as `python -m <child_module> --backend <name>`
    child_files: tuple[str, ...]          # repository paths bound for the child
    site_entries: tuple[str, ...] = ()    # site-packages entries (glob patterns) it imports
    timed = False                         # the submission's time earns points

    def env(self, sandboxed: bool) -> dict[str, str]:
        return {}

    def scratch_env(self, scratch: Path) -> dict[str, str]:
        return {}

    def binds(self) -> list[str]:
        return []

    def syscall_filter(self) -> bytes:
        return seccomp.program()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


@contextmanager
def started_child(run, spec: SandboxSpec):
    """`run.child` started in its sandbox for the body, closed after (the stages `start` and
    `teardown`); a sandbox that cannot start is the judge's own error, not the submission's."""
    run.report.sandbox = spec.mode
    run.child = ChildProcess(spec)
    with run.stage("start"):
        try:
            run.child.start()
        except ChildDied as died:
            raise Decided(Outcome(Verdict.INTERNAL_ERROR, f"the sandbox did not start: {died.detail}")) from None
    try:
        yield run.child
    finally:
        with run.stage("teardown"):
            run.child.close()
