"""Where a design's simulation runs: the run sandbox, as a Python child that loads the models
Verilator built (the only backend of this kind; a `--backend` name is ignored)."""
from __future__ import annotations

from pathlib import Path

from ... import seccomp
from ...sandbox import GiB, Limits

CHILD_FILES = ("assessments/judge/kinds/__init__.py", "assessments/judge/kinds/verilog/__init__.py",
               "assessments/judge/kinds/verilog/child.py", "assessments/judge/kinds/verilog/driver.py")


class SimBackend:
    name = "sim"
    description = "the Verilator simulation"
    # a test simulates a few thousand cycles in well under a second: 10 s is a loop that never ends
    limits = Limits(memory=2 * GiB, op_wall_s=10.0)
    child_module = "assessments.judge.kinds.verilog.child"
    child_files = CHILD_FILES
    site_entries: tuple[str, ...] = ()
    timed = False
    profiled = False

    def env(self, sandboxed: bool) -> dict[str, str]:
        return {}

    def scratch_env(self, scratch: Path) -> dict[str, str]:
        return {}

    def binds(self) -> list[str]:
        return []

    def syscall_filter(self) -> bytes:
        return seccomp.program()

    def emulator_fingerprint(self) -> None:
        return None

    def __repr__(self) -> str:
        return "<SimBackend 'sim'>"


SIM = SimBackend()
