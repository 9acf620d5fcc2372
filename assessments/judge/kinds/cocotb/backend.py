"""Where a testbench runs: the run sandbox, whose one program is Icarus Verilog's `vvp` with
cocotb's VPI library and one design (sim.py; the only backend of this kind: a `--backend` name is
ignored)."""
from __future__ import annotations

import functools
import os
import shutil
import sys
from pathlib import Path

from ...sandbox import GiB, MiB, Limits
from ..child_backend import ChildBackend

# What the simulator's Python imports of the judge (the exec ban, boot.py) besides sandbox.CHILD_FILES.
CHILD_FILES = ("assessments/judge/kinds/__init__.py", "assessments/judge/kinds/cocotb/__init__.py",
               "assessments/judge/kinds/cocotb/boot.py")
# cocotb and what it imports in the simulator (pytest: its assertion rewriting and raises).
SITE_ENTRIES = ("cocotb", "cocotb-*.dist-info", "cocotb_tools", "pygpi", "find_libpython", "pytest", "_pytest", "pluggy",
                "iniconfig", "packaging", "py.py", "pygments")
# cocotb's start-up entry points with the exec ban and boot.py before the regression imports the
# testbench (pygpi/entry.py runs them in order and stops at the first that fails).
ENTRY_POINTS = ("cocotb.logging:_configure", "cocotb._init:init_package_from_simulation",
                "assessments.judge.exec_ban:install", "assessments.judge.kinds.cocotb.boot:prepare",
                "cocotb.regression:_run_regression")
MODULE = "testbench"          # the submission's module name (boot.MODULE)
RESULTS = "results.xml"       # cocotb's JUnit-style results, in the scratch
BOOT_STATUS = "boot.json"     # boot.STATUS


GLOBAL_LOAD = ("/proc/loadavg", "/proc/stat", "/proc/schedstat", "/proc/pressure/cpu",
               "/proc/pressure/io", "/proc/pressure/memory")


class ToolMissing(RuntimeError):
    """Icarus Verilog or cocotb is not installed where the judge runs."""


@functools.lru_cache(maxsize=1)
def tools() -> dict[str, str]:
    """The simulator, cocotb's VPI library for Icarus and the libpython it embeds."""
    vvp, iverilog = shutil.which("vvp"), shutil.which("iverilog")
    if not (vvp and iverilog):
        raise ToolMissing("Icarus Verilog (iverilog, vvp) is not installed: `make system-deps`")
    try:
        import cocotb
        from cocotb_tools import config
        from find_libpython import find_libpython
    except ImportError as exc:
        raise ToolMissing(f"cocotb is not installed ({exc}): pip install -r requirements.txt") from None
    libpython = find_libpython()
    if not libpython:
        raise ToolMissing("cocotb cannot find this Python's libpython")
    return {"vvp": vvp, "iverilog": iverilog, "libpython": libpython,
            "vpi": config.lib_entry("vpi", "icarus"), "pygpi": config.pygpi_entry_point(),
            "cocotb": cocotb.__version__}


class CocotbBackend(ChildBackend):
    name = "sim"
    description = "Icarus Verilog with cocotb"
    # One simulation of the correct design; a mutant's is shorter (stages.mutant_limit).
    limits = Limits(cpu_s=60, wall_s=180.0, op_wall_s=20.0, memory=2 * GiB, processes=32,
                    file_size=16 * MiB, scratch_size=256 * MiB)
    child_module = ""      # no protocol child: the sandbox's program is the simulator (sim.py)
    child_files = CHILD_FILES
    site_entries = SITE_ENTRIES

    def env(self, sandboxed: bool) -> dict[str, str]:
        t = tools()
        return {"COCOTB_TEST_MODULES": MODULE, "TOPLEVEL_LANG": "verilog",
                "COCOTB_REWRITE_ASSERTION_FILES": "", "COCOTB_ANSI_OUTPUT": "0", "GPI_LOG_LEVEL": "WARNING",
                "PYGPI_PYTHON_BIN": sys.executable, "GPI_USERS": f"{t['libpython']};{t['pygpi']}",
                "PYGPI_USERS": ",".join(ENTRY_POINTS), "PYTHONHASHSEED": "0"}

    def scratch_env(self, scratch: Path) -> dict[str, str]:
        return {"COCOTB_RESULTS_FILE": str(Path(scratch) / RESULTS)}

    def binds(self) -> list[str]:
        # The machine's load, run queue and pressure would tell a testbench whether other
        # simulations run beside it: hidden.
        return [arg for path in GLOBAL_LOAD if os.path.exists(path) for arg in ("--ro-bind", "/dev/null", path)]


SIM = CocotbBackend()
