"""Child side: no program may start once the child is set up.

After the interpreter started and imported what the backend needs (and before the submission is
imported), the child installs seccomp.py's filter with execve and execveat refused (EPERM), on
every thread at once (SECCOMP_FILTER_FLAG_TSYNC). subprocess, os.system, os.exec*, posix_spawn,
pty, multiprocessing's spawn and forkserver, and a compiled kernel calling system() all fail
from then on; fork alone still works (and counts against the run's process cap). Filters only
add up, so the candidate's code can neither remove it nor loosen it.
"""
from __future__ import annotations

import ctypes
import os
import platform

from . import seccomp

PR_SET_NO_NEW_PRIVS = 38
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1
_SYS_SECCOMP = {"x86_64": 317, "aarch64": 277}
_installed: list[bool] = []


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install() -> None:
    """Refuse exec from now on in this process and all its threads; OSError if that fails."""
    if _installed:
        return
    machine = platform.machine()
    if machine not in _SYS_SECCOMP or not seccomp.supported():
        raise OSError(f"no seccomp filter for {machine}")
    prog = seccomp.program(machine, deny_exec=True)
    libc = ctypes.CDLL(None, use_errno=True)
    long = ctypes.c_long
    # Unprivileged filters need no_new_privs (bubblewrap has set it; without it, set it here).
    if libc.prctl(PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0),
                  ctypes.c_ulong(0)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl(PR_SET_NO_NEW_PRIVS): {os.strerror(err)}")
    code = ctypes.create_string_buffer(prog, len(prog))
    fprog = _SockFprog(len(prog) // 8, ctypes.cast(code, ctypes.c_void_p))
    rc = libc.syscall(long(_SYS_SECCOMP[machine]), long(SECCOMP_SET_MODE_FILTER),
                      long(SECCOMP_FILTER_FLAG_TSYNC), ctypes.byref(fprog))
    if rc < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"seccomp(SECCOMP_SET_MODE_FILTER): {os.strerror(err)}")
    if rc > 0:   # TSYNC names the thread that could not take the filter
        raise OSError(f"seccomp: thread {rc} could not take the filter")
    _installed.append(True)


def installed() -> bool:
    return bool(_installed)
