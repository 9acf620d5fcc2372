"""Where the profiling build's counters land in the source: the instrumented module's
instructions (objdump) and lines (addr2line, inline frames included), made at build time in the
compile sandbox and kept with the build's metadata.

The runtime reports return addresses as offsets into the module: of each basic block's
coverage call (the block's instructions follow it) and of each call that made a memory access
(the access hook's caller, or an atomic's). Each is mapped to the kernel's own source line, the
innermost inline frame in kernel.cu, so code the runtime's header inlined into a line counts there.

Instructions are classed by what they compute, the host's stand-in for the GPU's: fp32 and fp64
arithmetic (a fused multiply-add counts as two operations, as in FLOP counts), integer and
address arithmetic, memory (loads and stores other than the stack's), control (branches and
calls). The instrumentation's own calls and the stack traffic around them are not counted.
16-bit floats (`__half`, `__nv_bfloat16`) are done in float here, with conversions in software:
inside their implementation (the innermost inline frame in the runtime's 16-bit headers) the
float arithmetic counts as fp16 operations and the rest, which the GPU's half instructions do
natively, not at all.
"""
from __future__ import annotations

import re
import subprocess

from .source import CANDIDATE_FILE

# Per line: fp32 and fp64 operations (FLOPs), then instructions by class; `fp` counts the
# floating-point instructions themselves (a fused multiply-add is one instruction, two FLOPs).
CLASSES = ("fp32", "fp64", "fp16", "fp", "int", "mem", "ctrl")
FLOP_CLASSES = ("fp32", "fp64", "fp16")
# the runtime's 16-bit float implementation (runtime/include)
HALF_FILES = ("kp_half_common.h", "cuda_fp16.h", "cuda_bf16.h")
_INSN = re.compile(r"^\s*([0-9a-f]+):\s+((?:(?:addr32|data16|notrack|bnd|lock|rep[nz]*|cs|ds)\s+)*)(\S+)\s*(.*)$")
_FUNC = re.compile(r"^[0-9a-f]+ <(.+)>:$")
_CALL_TARGET = re.compile(r"<([^>+]+)")
_INSTRUMENTATION = ("__sanitizer_cov_trace_pc", "__tsan_")
_FP_OPS = ("add", "sub", "mul", "div", "min", "max", "sqrt", "rcp", "rsqrt", "fmadd", "fmsub",
           "fnmadd", "fnmsub", "comi", "ucomi", "round", "and", "xor", "andn", "or", "cmp")


def _fp_class(mnemonic: str) -> tuple[str, int] | None:
    m = mnemonic[1:] if mnemonic.startswith("v") else mnemonic
    for suffix, cls, width in (("ss", "fp32", 1), ("ps", "fp32", 4), ("sd", "fp64", 1), ("pd", "fp64", 2)):
        if m.endswith(suffix) and m != "mov" + suffix and not m.startswith(("mov", "cvt", "unpck", "shuf")):
            op = m[:-len(suffix)]
            op = re.sub(r"(132|213|231)$", "", op)
            if op in _FP_OPS or any(op.startswith(f) for f in ("fmadd", "fmsub", "fnmadd", "fnmsub")):
                flops = 2 if "fm" in op or "fnm" in op else 1
                return cls, flops * width
    return None


_REG = r"%[a-z0-9]+"
_REG_MOVE = re.compile(rf"^{_REG},{_REG}$")


def classify(mnemonic: str, operands: str) -> tuple[str, int] | None:
    """(class, weight) of one instruction, None for what the GPU would not execute: stack
    traffic, register-to-register copies (register allocation on the GPU), padding."""
    if mnemonic.startswith(("push", "pop", "endbr", "nop", "xchg %ax")) or mnemonic == "leave":
        return None
    if mnemonic.startswith(("mov", "vmov")) and _REG_MOVE.match(operands.replace(" ", "")):
        return None
    if mnemonic.startswith("call"):
        target = _CALL_TARGET.search(operands)
        if target and target.group(1).startswith(_INSTRUMENTATION):
            return None
        return "ctrl", 1
    if mnemonic.startswith(("j", "ret", "cmov", "set")):
        return "ctrl", 1
    fp = _fp_class(mnemonic)
    if fp:
        return fp
    if "(%rsp)" in operands or "(%rbp)" in operands:
        return None   # spills and reloads: registers on the GPU
    if "(" in operands and not mnemonic.startswith("lea"):
        return "mem", 1
    return "int", 1


def build_map(so_path: str, cwd: str, timeout_s: float = 60.0) -> dict:
    """{"blocks": {offset: [[line, *counts], ...]}, "calls": {offset: line}, "classes": CLASSES
    (the counts' names)} for the module at `so_path`; offsets are hexadecimal strings."""
    dis = subprocess.run(["objdump", "-d", "-w", "--no-show-raw-insn", so_path], cwd=cwd,
                         capture_output=True, text=True, timeout=timeout_s)
    if dis.returncode != 0:
        return {"blocks": {}, "calls": {}, "classes": list(CLASSES), "error": dis.stderr[-500:]}
    functions: list[list[tuple[int, str, str]]] = []
    skip = True
    for line in dis.stdout.splitlines():
        f = _FUNC.match(line)
        if f:
            name = f.group(1)
            # the runtime core (localised kp::core, the hooks) is not the kernel's code
            skip = name.startswith(("_ZN2kp4core", "__tsan_", "__sanitizer_", "kp_", "_init", "_fini",
                                    "__do_global", "deregister_tm", "register_tm", "frame_dummy",
                                    "_ZN2kp11kp_"))
            if not skip:
                functions.append([])
            continue
        if skip:
            continue
        m = _INSN.match(line)
        if m:
            functions[-1].append((int(m.group(1), 16), m.group(3), m.group(4)))
    addrs = [a for fn in functions for a, _, _ in fn]
    lines, half = _lines(so_path, cwd, addrs, timeout_s)
    blocks: dict[str, list] = {}
    calls: dict[str, int] = {}
    for fn in functions:
        current: dict[int, list[int]] | None = None
        last = None
        for i, (a, mnem, ops) in enumerate(fn):
            nxt = fn[i + 1][0] if i + 1 < len(fn) else None
            # code the compiler merged or moved has no line of its own: the line before it
            if lines.get(a):
                last = lines[a]
            elif last is not None:
                lines[a] = last
            if mnem.startswith(("call", "jmp")) and "__sanitizer_cov_trace_pc" in ops:
                current = None   # a tail call: the block is the next one's
            if mnem.startswith("call"):
                target = _CALL_TARGET.search(ops)
                if nxt is not None and lines.get(a):
                    calls[format(nxt, "x")] = lines[a]
                if target and target.group(1) == "__sanitizer_cov_trace_pc" and nxt is not None:
                    current = {}
                    blocks[format(nxt, "x")] = current   # filled below, as a dict until the end
                    continue
            if current is None:
                continue
            line = lines.get(a)
            cls = classify(mnem, ops)
            if cls is not None and a in half:
                cls = ("fp16", cls[1]) if cls[0] in FLOP_CLASSES else None
            if line is None or cls is None:
                continue
            row = current.setdefault(line, [0] * len(CLASSES))
            row[CLASSES.index(cls[0])] += cls[1]
            if cls[0] in FLOP_CLASSES:
                row[CLASSES.index("fp")] += 1
    return {"blocks": {k: [[ln, *row] for ln, row in sorted(v.items())] for k, v in blocks.items() if v},
            "calls": calls, "classes": list(CLASSES)}


def _lines(so_path: str, cwd: str, addrs: list[int], timeout_s: float) -> tuple[dict[int, int], set[int]]:
    """Each address's innermost line in the kernel's own file (None where it has none), and the
    addresses whose innermost frame is in the 16-bit float implementation."""
    if not addrs:
        return {}, set()
    out = subprocess.run(["addr2line", "-a", "-i", "-e", so_path], cwd=cwd, capture_output=True,
                         text=True, timeout=timeout_s,
                         input="\n".join(format(a, "x") for a in addrs) + "\n")
    found: dict[int, int] = {}
    half: set[int] = set()
    current, innermost = None, False
    for row in out.stdout.splitlines():
        if row.startswith("0x"):
            current, innermost = int(row, 16), True
            continue
        if current is None or current in found:
            continue
        path, _, rest = row.rpartition(":")
        name = path.rsplit("/", 1)[-1]
        if innermost and name in HALF_FILES:
            half.add(current)
        innermost = False
        if name == CANDIDATE_FILE:
            m = re.match(r"(\d+)", rest)
            if m and int(m.group(1)) > 0:
                found[current] = int(m.group(1))
    return found, half
