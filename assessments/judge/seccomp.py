"""The sandboxes' seccomp filters as classic BPF: pure assembly, shared by both sides.

The filter fails with EPERM the system calls no submission needs and that either attack the
kernel (bpf, io_uring, userfaultfd, perf events, keyrings, module and mount calls) or could turn
the child's scratch into a trap for the parent: the parent reads and writes files there by name,
so the child may create neither symlinks nor device nodes and FIFOs. Other ABIs (32-bit int
0x80, x32) get EPERM for everything. The parent hands it to bubblewrap (run and compile
sandboxes); the child installs it again with execve and execveat refused too (exec_ban.py),
once its interpreter has started and imported what it needs.
"""
from __future__ import annotations

import errno
import platform
import struct

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
# From the kernel's uapi tables: arch/x86/entry/syscalls/syscall_64.tbl, asm-generic/unistd.h.
_REFUSED = {
    "x86_64": {
        "symlink": 88, "symlinkat": 266, "mknod": 133, "mknodat": 259, "ptrace": 101,
        "process_vm_readv": 310, "process_vm_writev": 311, "bpf": 321, "perf_event_open": 298,
        "userfaultfd": 323, "keyctl": 250, "add_key": 248, "request_key": 249,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313,
        "delete_module": 176, "mount": 165, "umount2": 166, "pivot_root": 155, "swapon": 167,
        "swapoff": 168, "reboot": 169, "acct": 163, "setns": 308, "unshare": 272,
        "name_to_handle_at": 303, "open_by_handle_at": 304, "open_tree": 428, "move_mount": 429,
        "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    },
    "aarch64": {
        "symlinkat": 36, "mknodat": 33, "ptrace": 117, "process_vm_readv": 270,
        "process_vm_writev": 271, "bpf": 280, "perf_event_open": 241, "userfaultfd": 282,
        "keyctl": 219, "add_key": 217, "request_key": 218, "io_uring_setup": 425,
        "io_uring_enter": 426, "io_uring_register": 427, "kexec_load": 104,
        "kexec_file_load": 294, "init_module": 105, "finit_module": 273, "delete_module": 106,
        "mount": 40, "umount2": 39, "pivot_root": 41, "swapon": 224, "swapoff": 225,
        "reboot": 142, "acct": 89, "setns": 268, "unshare": 97, "name_to_handle_at": 264,
        "open_by_handle_at": 265, "open_tree": 428, "move_mount": 429, "fsopen": 430,
        "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    },
}
# Starting a program: refused in the run sandbox once the child is set up (exec_ban.py).
_EXEC = {"x86_64": {"execve": 59, "execveat": 322}, "aarch64": {"execve": 221, "execveat": 281}}
_X32_BIT = 0x40000000

# BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000


def supported() -> bool:
    return platform.machine() in _REFUSED


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def refused(machine: str | None = None, *, deny_exec: bool = False,
            allow: tuple[str, ...] = ()) -> dict[str, int]:
    """The refused calls by name and number (`deny_exec`: execve and execveat as well; `allow`:
    names taken off the list)."""
    machine = machine or platform.machine()
    out = dict(_REFUSED[machine])
    if deny_exec:
        out.update(_EXEC[machine])
    return {name: nr for name, nr in out.items() if name not in allow}


def program(machine: str | None = None, *, deny_exec: bool = False,
            allow: tuple[str, ...] = ()) -> bytes:
    """The filter as bytes of `struct sock_filter`, ready for bubblewrap's --seccomp FD or for
    seccomp(SECCOMP_SET_MODE_FILTER)."""
    machine = machine or platform.machine()
    numbers = sorted(set(refused(machine, deny_exec=deny_exec, allow=allow).values()))
    # Layout: arch check, load nr, [x32 check], one jeq per refused call, allow, deny.
    checks = [("jge", _X32_BIT)] if machine == "x86_64" else []
    checks += [("jeq", nr) for nr in numbers]
    deny = 3 + len(checks) + 1          # index of the final "return EPERM"
    out = [_insn(_LD_W_ABS, 0, 0, 4)]   # seccomp_data.arch
    out.append(_insn(_JEQ_K, 0, deny - 2, _AUDIT_ARCH[machine]))
    out.append(_insn(_LD_W_ABS, 0, 0, 0))   # seccomp_data.nr
    for i, (kind, value) in enumerate(checks):
        here = 3 + i
        out.append(_insn(_JGE_K if kind == "jge" else _JEQ_K, deny - here - 1, 0, value))
    out.append(_insn(_RET_K, 0, 0, _RET_ALLOW))
    out.append(_insn(_RET_K, 0, 0, _RET_ERRNO | errno.EPERM))
    return b"".join(out)
