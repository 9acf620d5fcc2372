"""The compile sandbox's entry point for C++ functions: `python -m ...cpp.compile_job`.

One job as JSON on stdin: the source text and the function's name. g++ builds a shared library
in the sandbox's tmpfs (the file is called solution.cpp, so messages name it); the answer
carries the library (base64) or g++'s refusal, and a library that does not export the function
unmangled is refused too.

    {"source", "function"} -> {"ok": true, "so": "<base64>", "log": warnings} | {"ok": false, "log"}
"""
from __future__ import annotations

import base64
import os
import subprocess
import sys
import tempfile

CXX = os.environ.get("KERNELPATH_FUNCTION_CXX", "g++")
# -z defs: a reference to nothing (a missing definition) is an error now, not at load time.
FLAGS = ("-O2", "-std=c++17", "-shared", "-fPIC", "-Wl,-z,defs", "-fdiagnostics-color=never",
         "-fmax-errors=20")
MAX_LIBRARY = 64 * 1024 * 1024
MAX_LOG = 64 * 1024


def run(job: dict) -> dict:
    with tempfile.TemporaryDirectory(prefix="cpp-") as tmp:
        src, lib = os.path.join(tmp, "solution.cpp"), os.path.join(tmp, "solution.so")
        with open(src, "w", encoding="utf-8") as fh:
            fh.write(job["source"])
        try:
            r = subprocess.run([CXX, *FLAGS, "solution.cpp", "-o", "solution.so"], cwd=tmp,
                               capture_output=True, text=True, errors="replace")
        except OSError as exc:
            return {"ok": False, "internal": True, "log": f"cannot run {CXX}: {exc}"}
        log = r.stderr[-MAX_LOG:]
        if r.returncode != 0:
            return {"ok": False, "log": log or f"{CXX} failed (exit status {r.returncode})"}
        function = str(job["function"])
        if not _exports(lib, function):
            return {"ok": False, "log": f'solution.cpp: error: no function `{function}` with C linkage: define '
                                        f'it as `extern "C"` with the statement\'s signature (a C++ name is '
                                        f'mangled and cannot be found)'}
        size = os.path.getsize(lib)
        if size > MAX_LIBRARY:
            return {"ok": False, "log": f"solution.cpp: error: the library is {size >> 20} MiB, over "
                                        f"{MAX_LIBRARY >> 20} MiB"}
        with open(lib, "rb") as fh:
            data = fh.read()
    return {"ok": True, "so": base64.b64encode(data).decode("ascii"), "log": log}


def _exports(lib: str, function: str) -> bool:
    r = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True)
    return any(line.split()[-1] == function and line.split()[-2] in ("T", "W", "i")
               for line in r.stdout.splitlines() if len(line.split()) >= 2)


def main() -> int:
    from assessments.judge.protocol import answer_job

    return answer_job(run)


if __name__ == "__main__":
    sys.exit(main())
