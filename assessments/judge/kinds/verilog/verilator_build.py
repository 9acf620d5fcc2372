"""Verilator builds of a candidate's module: its ports as elaborated for a parameter set, and a
shared library with a small C interface that the run sandbox's child loads with ctypes (the
simulation is the child's own code: no simulator program runs there).

    ports = elaborate(workdir, source, top, params)              # or BuildError with the log
    meta = build(workdir, source, top, params, runtime)   # workdir/model.so

Both run in the compile sandbox on the source text alone. The library links Verilator's runtime,
compiled once per machine with a precompiled `verilated.h` (`build_runtime`: a folder) like the
CUDA emulator's core.
"""
from __future__ import annotations

import os
import re
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass
from pathlib import Path

SOURCE_FILE = "design.sv"
CXX = os.environ.get("KERNELPATH_VERILATOR_CXX", "g++")
CXXFLAGS = ["-std=c++17", "-O1", "-fPIC", "-w"]
RUNTIME_UNITS = ("verilated.cpp", "verilated_threads.cpp")
MAX_WIDTH = 64          # ports wider than this are refused (the tasks' are narrower)
TIMEOUT_S = 120


class BuildError(Exception):
    """The design does not build: `log` is the tool's message, cleaned of the build's paths."""

    def __init__(self, log: str, what: str = "compile_error"):
        super().__init__(log)
        self.log = log
        self.what = what


@dataclass(frozen=True)
class Port:
    name: str
    direction: str      # input | output | inout
    width: int

    def to_dict(self) -> dict:
        return asdict(self)


def verilator_root() -> Path:
    out = subprocess.run(["verilator", "--getenv", "VERILATOR_ROOT"], capture_output=True, text=True,
                         timeout=30)
    root = out.stdout.strip()
    if out.returncode != 0 or not root:
        raise BuildError("Verilator is not installed (the judge needs `verilator`)", "internal")
    return Path(root)


def _run(cmd: list[str], cwd: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise BuildError(f"{cmd[0]} took longer than {TIMEOUT_S} s") from None
    except OSError as exc:
        raise BuildError(f"cannot run {cmd[0]}: {exc}", "internal") from None


def _clean(log: str, workdir: str) -> str:
    lines = [ln.replace(workdir + os.sep, "").replace(workdir, "") for ln in log.splitlines()]
    keep = [ln for ln in lines if ln.strip() and not ln.startswith("%Error: Exiting due to")]
    return "\n".join(keep[:60])


def _param_flags(params: dict) -> list[str]:
    return [f"-G{k}={int(v)}" for k, v in sorted(params.items())]


def elaborate(workdir: str, source: str, top: str, params: dict) -> tuple[list[Port], str]:
    """The top module's ports for `params`, and Verilator's warnings (the lint report);
    BuildError naming the problem when the design does not elaborate."""
    Path(workdir, SOURCE_FILE).write_text(source)
    r = _run(["verilator", "--xml-only", "--xml-output", "ports.xml", "-Wall", "-Wno-fatal",
              "-Wno-DECLFILENAME", "-Wno-UNUSEDPARAM", "--top-module", top, *_param_flags(params),
              SOURCE_FILE], workdir)
    log = _clean(r.stderr, workdir)
    if r.returncode != 0 or not Path(workdir, "ports.xml").exists():
        if f"Specified --top-module '{top}' was not found" in r.stderr or "not found in design" in r.stderr:
            raise BuildError(f"no module named `{top}` in the file (the task asks for `module {top}`)")
        raise BuildError(log or "Verilator refused the design")
    root = ET.parse(Path(workdir, "ports.xml")).getroot()
    types = {d.get("id"): d for d in root.iter() if d.get("id") and d.tag.endswith("dtype")}
    ports: list[Port] = []
    for module in root.iter("module"):
        if module.get("topModule") != "1":
            continue
        for var in module.findall("var"):
            direction = var.get("dir")
            if not direction:
                continue
            ports.append(Port(var.get("name"), direction, _width(types, var.get("dtype_id"))))
    return ports, log


def _width(types: dict, dtype_id: str | None) -> int:
    d = types.get(dtype_id)
    seen = 0
    while d is not None and d.tag == "refdtype" and seen < 16:   # typedefs: follow to the base
        d, seen = types.get(d.get("sub_dtype_id")), seen + 1
    if d is None:
        return 0
    left, right = d.get("left"), d.get("right")
    if left is None or right is None:
        return 1 if d.tag == "basicdtype" else 0
    return abs(int(left) - int(right)) + 1


def _shim(ports: list[Port]) -> str:
    """The C interface: kp_new/kp_free/kp_eval, kp_set and kp_get by port index."""
    sets, gets = [], []
    for i, p in enumerate(ports):
        field = f"t->{p.name}"
        if p.direction == "input":
            sets.append(f"        case {i}: {field} = v; break;")
        gets.append(f"        case {i}: return (uint64_t){field};")
    return f'''#include "Vtop.h"
#include "verilated.h"
#include <cstdint>
namespace {{
struct Sim {{
    VerilatedContext ctx;
    Vtop* top;
    Sim() {{ ctx.fatalOnError(false); top = new Vtop(&ctx); }}
    ~Sim() {{ top->final(); delete top; }}
}};
}}
extern "C" {{
__attribute__((visibility("default"))) void* kp_new() {{ return new Sim(); }}
__attribute__((visibility("default"))) void kp_free(void* s) {{ delete static_cast<Sim*>(s); }}
__attribute__((visibility("default"))) int kp_eval(void* s) {{
    Sim* sim = static_cast<Sim*>(s);
    sim->top->eval();
    return sim->ctx.gotFinish() ? 1 : 0;
}}
__attribute__((visibility("default"))) void kp_set(void* s, int port, uint64_t v) {{
    Vtop* t = static_cast<Sim*>(s)->top;
    switch (port) {{
{chr(10).join(sets)}
        default: break;
    }}
}}
__attribute__((visibility("default"))) uint64_t kp_get(void* s, int port) {{
    Vtop* t = static_cast<Sim*>(s)->top;
    switch (port) {{
{chr(10).join(gets)}
        default: return 0;
    }}
}}
}}
'''


def build(workdir: str, source: str, top: str, params: dict, runtime: str | Path) -> dict:
    """`runtime`: build_runtime's folder (its object and precompiled header)."""
    runtime = Path(runtime)
    """workdir/model.so for `params`; its metadata: ports (in the library's order) and the lint
    report. BuildError when Verilator or g++ refuses the design."""
    ports, lint = elaborate(workdir, source, top, params)
    wide = [p.name for p in ports if p.width > MAX_WIDTH or p.width == 0]
    if wide:
        raise BuildError(f"ports wider than {MAX_WIDTH} bits or of unsupported types: {', '.join(wide)}")
    r = _run(["verilator", "--cc", "-Wno-fatal", "-Wno-lint", "-Wno-style", "--prefix", "Vtop",
              "--Mdir", "obj", "--top-module", top, *_param_flags(params), SOURCE_FILE], workdir)
    if r.returncode != 0:
        raise BuildError(_clean(r.stderr, workdir) or "Verilator refused the design")
    if Path(workdir, "obj", "Vtop__Dpi.h").exists():   # Verilator writes it for DPI imports and exports
        raise BuildError("the design imports or exports DPI functions: a design must be plain "
                         "Verilog or SystemVerilog (DPI calls into C are not allowed)")
    Path(workdir, "shim.cpp").write_text(_shim(ports))
    include = verilator_root() / "include"
    # One translation unit, opening with Verilator's header (precompiled): the header is most of
    # each generated file's compile time.
    units = sorted(p.name for p in Path(workdir, "obj").glob("Vtop*.cpp"))
    Path(workdir, "model.cpp").write_text('#include "verilated.h"\n'
                                          + "".join(f'#include "obj/{u}"\n' for u in units)
                                          + '#include "shim.cpp"\n')
    r = _run([CXX, *CXXFLAGS, "-shared", "-fvisibility=hidden", "-I", str(runtime / "pch"), "-I", "obj",
              "-I", str(include), "-I", str(include / "vltstd"), "model.cpp", str(runtime / RUNTIME_OBJECT),
              "-o", "model.so", "-lpthread", "-Wl,-z,defs"], workdir)
    if r.returncode != 0:
        missing = re.findall(r"undefined reference to `([^']+)'", r.stderr)
        if missing:
            raise BuildError("the design calls functions the judge does not provide (DPI imports "
                             f"are not allowed): {', '.join(sorted(set(missing))[:5])}")
        raise BuildError(_clean(r.stderr, workdir) or "the simulation model does not compile")
    return {"ports": [p.to_dict() for p in ports], "lint": lint}


RUNTIME_OBJECT = "runtime.o"


def build_runtime(workdir: str) -> Path:
    """`workdir` made into Verilator's runtime (built once per machine, by the parent): one
    relocatable object, and pch/ with `verilated.h` precompiled for the models' flags beside a
    link to the header (the header's later includes must find it, skipped by its guard)."""
    include = verilator_root() / "include"
    pch = Path(workdir, "pch")
    pch.mkdir(parents=True, exist_ok=True)
    (pch / "verilated.h").symlink_to(include / "verilated.h")
    r = _run([CXX, *CXXFLAGS, "-I", str(include), "-I", str(include / "vltstd"), "-x", "c++-header",
              str(include / "verilated.h"), "-o", str(pch / "verilated.h.gch")], workdir)
    if r.returncode != 0:
        raise BuildError(f"Verilator's header does not precompile: {r.stderr[-2000:]}", "internal")
    objs = []
    for unit in RUNTIME_UNITS:
        out = Path(workdir, unit.replace(".cpp", ".o"))
        r = _run([CXX, *CXXFLAGS, "-I", str(include), "-I", str(include / "vltstd"), "-c",
                  str(include / unit), "-o", str(out)], workdir)
        if r.returncode != 0:
            raise BuildError(f"Verilator's runtime does not build: {r.stderr[-2000:]}", "internal")
        objs.append(str(out))
    combined = Path(workdir, RUNTIME_OBJECT)
    r = _run([CXX, "-r", "-nostdlib", "-o", str(combined), *objs], workdir)
    if r.returncode != 0:
        raise BuildError(f"Verilator's runtime does not link: {r.stderr[-2000:]}", "internal")
    for obj in objs:
        Path(obj).unlink()
    return Path(workdir)
