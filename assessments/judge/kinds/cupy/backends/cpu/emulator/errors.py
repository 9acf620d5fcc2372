"""The one exception the emulator raises."""
from __future__ import annotations

KINDS = ("compile_error", "race_detected", "memory_error", "deadlock", "timeout", "launch_error")


class EmulatorError(Exception):
    """A failure of the candidate's kernel (or its build) on the CPU emulator.

    kind: one of KINDS; kernel: the kernel's name ("" for module-level failures);
    detail: what happened, in words, with the thread, block and index where known.
    """

    def __init__(self, kind: str, kernel: str = "", detail: str = ""):
        self.kind = kind
        self.kernel = kernel or ""
        self.detail = detail or ""
        where = f" in kernel '{self.kernel}'" if self.kernel else ""
        super().__init__(f"{kind}{where}: {self.detail}")

    def __reduce__(self):
        return (EmulatorError, (self.kind, self.kernel, self.detail))
