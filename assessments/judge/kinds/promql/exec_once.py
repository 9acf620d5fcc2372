"""Child side: start one program with no way for it to start another.

The run sandbox refuses exec once a child is set up (exec_ban.py), but here the program under
test is promtool itself, which the child must exec. So the forked process installs, before its
one execve, a seccomp filter that refuses execveat always and execve unless its path argument is
the very buffer this process holds the program's path in: the exec below passes; the program,
with a new address space, passes only by handing the kernel a pointer equal to that address,
which no code path of promtool does (it never starts a program). The sandbox's own filter
(seccomp.py) stays underneath; filters only add up.
"""
from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct

from ... import seccomp

PR_SET_NO_NEW_PRIVS = 38
SECCOMP_SET_MODE_FILTER = 1
_SYS_SECCOMP = {"x86_64": 317, "aarch64": 277}
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_LD_W_ABS, _JEQ_K, _RET_K = 0x20, 0x15, 0x06
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_NR, _ARCH, _ARG0_LO, _ARG0_HI = 0, 4, 16, 20    # offsets in struct seccomp_data (little endian)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def program(path_address: int, machine: str | None = None) -> bytes:
    """The filter: execve only with `path_address` as its path, execveat never."""
    machine = machine or platform.machine()
    calls = {k: v for k, v in seccomp.refused(machine, deny_exec=True).items() if k.startswith("execve")}
    lo, hi = path_address & 0xFFFFFFFF, path_address >> 32
    insns = [
        _insn(_LD_W_ABS, 0, 0, _ARCH),
        _insn(_JEQ_K, 0, 8, _AUDIT_ARCH[machine]),        # another ABI: refused
        _insn(_LD_W_ABS, 0, 0, _NR),
        _insn(_JEQ_K, 6, 0, calls["execveat"]),
        _insn(_JEQ_K, 0, 4, calls["execve"]),             # any other call: allowed
        _insn(_LD_W_ABS, 0, 0, _ARG0_LO),
        _insn(_JEQ_K, 0, 3, lo),
        _insn(_LD_W_ABS, 0, 0, _ARG0_HI),
        _insn(_JEQ_K, 0, 1, hi),
        _insn(_RET_K, 0, 0, _RET_ALLOW),
        _insn(_RET_K, 0, 0, _RET_ERRNO | errno.EPERM),
    ]
    return b"".join(insns)


class Program:
    """A program's path, arguments and environment, held in buffers made before the fork."""

    def __init__(self, argv: list[str], env: dict[str, str]):
        self.path = ctypes.create_string_buffer(argv[0].encode())
        self._args = [ctypes.create_string_buffer(a.encode()) for a in argv]
        self._env = [ctypes.create_string_buffer(f"{k}={v}".encode()) for k, v in env.items()]
        self.argv = (ctypes.c_char_p * (len(argv) + 1))(*[ctypes.addressof(b) for b in self._args], None)
        self.envp = (ctypes.c_char_p * (len(env) + 1))(*[ctypes.addressof(b) for b in self._env], None)
        self.filter = program(ctypes.addressof(self.path))

    def exec(self) -> None:
        """In the forked process: install the filter, then become the program (returns only on
        failure, with OSError)."""
        libc = ctypes.CDLL(None, use_errno=True)
        machine = platform.machine()
        if libc.prctl(PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0),
                      ctypes.c_ulong(0)) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        code = ctypes.create_string_buffer(self.filter, len(self.filter))
        fprog = _SockFprog(len(self.filter) // 8, ctypes.cast(code, ctypes.c_void_p))
        if libc.syscall(ctypes.c_long(_SYS_SECCOMP[machine]), ctypes.c_long(SECCOMP_SET_MODE_FILTER),
                        ctypes.c_long(0), ctypes.byref(fprog)) != 0:
            raise OSError(ctypes.get_errno(), "seccomp(SECCOMP_SET_MODE_FILTER)")
        libc.execve(self.path, self.argv, self.envp)
        err = ctypes.get_errno()
        raise OSError(err, f"execve {self.path.value.decode(errors='replace')}: {os.strerror(err)}")
