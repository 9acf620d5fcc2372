"""The run sandbox's child for testbenches: starts one simulation and says how it ended.

    {"op": "simulate", "design": "<base64 of the .vvp>", "vvp": "/usr/bin/vvp", "vpi": "<cocotb's
     VPI library>", "cpu_s": 12}  ->  {"ok": true, "returncode": 0, "signal": null, "cpu_s": 0.31, "over_cpu": false}

`cpu_s` (optional) caps the simulator's CPU seconds: this process watches the simulator's CPU time
and kills it past the cap (`over_cpu`), where an rlimit would tell the testbench its cap (and so
which kind of design it runs against). The answer's `cpu_s` is what it used, a measure that a
busy machine barely moves.

The design arrives on the request pipe and goes to the simulator through an anonymous memory
file, so no file of it exists in the sandbox: once the simulator has read it and the testbench's
Python starts (boot.py closes the descriptor), nothing is left to read or fingerprint. The
simulator runs the testbench's Python inside it; the exec ban is installed there (PYGPI_USERS),
after cocotb's set-up and before the testbench is imported. This process runs no candidate code.
"""
from __future__ import annotations

import base64
import ctypes
import os
import signal
import sys
import time

from ... import protocol

DESIGN_NAME = "design"     # the memory file's name: the same for every design
PR_SET_DUMPABLE = 4
POLL_S = 0.02
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _undumpable() -> None:
    """The design passes through this process's memory: the simulator (the same user) must not
    read it through /proc/<pid>/mem."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0),
                  ctypes.c_ulong(0)) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE)")


def _cpu_seconds(pid: int) -> float:
    """The CPU time a running process has used so far (every thread)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    except (OSError, IndexError, ValueError):
        return 0.0


def _simulate(msg: dict) -> dict:
    fd = os.memfd_create(DESIGN_NAME, 0)     # inheritable: the simulator opens it by /proc path
    try:
        os.write(fd, base64.b64decode(msg["design"]))
        argv = [str(msg["vvp"]), "-n", "-m", str(msg["vpi"]), f"/proc/self/fd/{fd}"]
        # Inherited: stdout, stderr and the design; the pipes to the parent are not inheritable.
        pid = os.posix_spawn(argv[0], argv, os.environ,
                             file_actions=[(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0)])
    finally:
        os.close(fd)
    cap = float(msg.get("cpu_s") or 0.0)
    over = False
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if cap and _cpu_seconds(pid) > cap:
            over = True
            os.kill(pid, signal.SIGKILL)
            done, status, usage = os.wait4(pid, 0)
            break
        time.sleep(POLL_S)
    killed = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    return {"ok": True, "returncode": -killed if killed else os.WEXITSTATUS(status), "signal": killed,
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 3), "over_cpu": over}


def main(argv: list[str] | None = None) -> int:
    args = protocol.child_arguments(sys.argv[1:] if argv is None else argv)
    for fd in (args.request_fd, args.answer_fd):
        os.set_inheritable(fd, False)   # the simulator gets neither
    os.chdir(args.scratch)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    _undumpable()

    def handle(msg: dict) -> dict:
        if msg.get("op") == "simulate":
            return _simulate(msg)
        return {"ok": False, "error": {"kind": "protocol", "message": f"unknown op {msg.get('op')!r}"}}
    return protocol.serve(args.request_fd, args.answer_fd, handle)


if __name__ == "__main__":
    sys.exit(main())
