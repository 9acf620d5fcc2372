"""Inside the child: which kernels were built and launched, and verdict-worthy incidents.

The CPU stand-in for `cupy` and the cuda backend's wrappers call in here; the child ships
`snapshot()` to the parent with every answer and streams incidents as they happen, so an
incident survives both a candidate catching the exception and the child dying right after.
`ask` is the way to the parent for what the child may not do itself: compiling (the NVRTC gate,
the emulator's builds), which the parent does in its compile sandbox.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Callable

MAX_INCIDENTS = 20
MAX_MESSAGE = 4000

_state = {
    "arch": "sm_90",
    "gate": True,        # run NVRTC on every new source
    "gate_fatal": True,  # a failing gate raises CompileFailed (cpu); on a GPU CuPy's own compile decides
}
_sink: Callable[[dict], None] | None = None
_ask: Callable[[dict], dict] | None = None
_records: dict[tuple, "KernelRecord"] = {}
_compiled: dict[str, object] = {}
_incidents: list[dict] = []


class CompileFailed(Exception):
    """The NVRTC gate refused a kernel; `log` is NVRTC's log."""

    def __init__(self, log: str, kernel: str | None = None, source: str = ""):
        super().__init__(log.strip().splitlines()[0] if log.strip() else "compilation failed")
        self.log = log
        self.kernel = kernel
        self.source = source


@dataclass
class KernelRecord:
    """One kernel as the candidate built it, with its compile report and launch history."""

    kind: str
    name: str
    source: str
    options: tuple = ()
    name_expressions: tuple = ()
    key: str = ""
    compiled: bool | None = None       # None: gate not run (disabled or NVRTC unavailable)
    usage: dict | None = None          # ResourceUsage.to_dict() of this kernel
    launches: int = 0
    block: tuple | None = None         # the largest launch's block (most threads in all),
    grid: tuple | None = None          # and its grid: the benchmark-sized test, not the tiny one
    shared_mem: int = 0                # largest dynamic shared memory launched with
    extra: dict = field(default_factory=dict)
    # The gate's CompileResult (names the program for the listings); never sent with the snapshot.
    program: object = field(default=None, repr=False, compare=False)

    def to_dict(self, with_source: bool = False) -> dict:
        d = {"kind": self.kind, "name": self.name, "key": self.key, "compiled": self.compiled,
             "usage": self.usage, "launches": self.launches,
             "block": list(self.block) if self.block else None,
             "grid": list(self.grid) if self.grid else None,
             "shared_mem": self.shared_mem, "options": [str(o) for o in self.options]}
        if self.extra:
            d["extra"] = self.extra
        if with_source or self.compiled is False:
            d["source"] = self.source
        return d


def configure(*, arch: str | None = None, gate: bool | None = None, gate_fatal: bool | None = None,
              sink: Callable[[dict], None] | None = None,
              ask: Callable[[dict], dict] | None = None) -> None:
    """Set the target architecture, gate behaviour, the incident sink and the way to ask the
    parent (both the child's channel)."""
    global _sink, _ask
    if arch is not None:
        _state["arch"] = arch
    if gate is not None:
        _state["gate"] = gate
    if gate_fatal is not None:
        _state["gate_fatal"] = gate_fatal
    if sink is not None:
        _sink = sink
    if ask is not None:
        _ask = ask


def can_ask() -> bool:
    """True inside the judge's child, whose parent answers requests."""
    return _ask is not None


def ask(event: str, **fields) -> dict:
    """Ask the parent (`{"event": event, ...}`) and wait for its reply."""
    if _ask is None:
        raise RuntimeError("no judge to ask")
    return _ask({"event": event, **fields})


def _key(*parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(repr(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def _compile(source: str, options: tuple, name_expressions: tuple, build: tuple | None = None):
    key = _key(source, options, name_expressions, _state["arch"])
    if key not in _compiled:
        from . import nvrtc  # deferred: only runs with kernels need it
        if _ask is not None:   # the judge's child: its parent runs NVRTC (gate.py)
            extra = {} if build is None else {"build": {
                "source": build[0], "options": [str(o) for o in build[1]],
                "name_expressions": [str(e) for e in build[2]]}}
            reply = ask("gate", source=source, options=[str(o) for o in options],
                        name_expressions=[str(e) for e in name_expressions], arch=_state["arch"],
                        **extra)
            _compiled[key] = None if reply.get("unavailable") else nvrtc.CompileResult.from_dict(reply)
            return _compiled[key]
        try:
            _compiled[key] = nvrtc.nvrtc_compile(source, arch=_state["arch"], options=options,
                                                 name_expressions=name_expressions)
        except nvrtc.NvrtcUnavailable:
            _compiled[key] = None
    return _compiled[key]


def record_kernel(kind: str, name: str, source: str, options: tuple = (),
                  name_expressions: tuple = (), *, gate: bool | None = None,
                  build: tuple | None = None) -> KernelRecord:
    """Register a kernel; the first time its source is seen, pass it through the NVRTC gate.

    `gate=False` records without compiling (a source that is not a whole CUDA program, such as
    an ElementwiseKernel's operation on the GPU backend, where CuPy builds the program itself).
    `build`: the (source, options, name expressions) the CPU emulator will build once the gate
    passes; the judge's parent starts that build beside NVRTC.
    """
    options = tuple(options or ())
    name_expressions = tuple(name_expressions or ())
    if "<" in name and name not in name_expressions:
        name_expressions = name_expressions + (name,)
    rkey = (kind, name, source, options, name_expressions)
    rec = _records.get(rkey)
    if rec is not None:
        if rec.compiled is False and _state["gate_fatal"]:
            raise CompileFailed(rec.extra.get("log", ""), name, source)
        return rec
    rec = KernelRecord(kind, name, source, options, name_expressions, key=_key(*rkey))
    _records[rkey] = rec
    if not (_state["gate"] if gate is None else gate):
        return rec
    result = _compile(source, options, name_expressions, build)
    if result is None:
        return rec
    rec.compiled = result.ok
    if result.ok:
        rec.program = result
        usage = result.usage(name)
        if usage is None and len(result.kernels) == 1:
            usage = result.kernels[0]
        rec.usage = usage.to_dict() if usage else None
        return rec
    rec.extra["log"] = result.log[:MAX_MESSAGE * 4]
    if _state["gate_fatal"]:
        record_incident("compile_error", result.log, kernel=name, source=source)
        raise CompileFailed(result.log, name, source)
    return rec  # on a GPU CuPy's own compile decides; the gate only missed a resource report


def record_launch(record: KernelRecord, grid: tuple, block: tuple, shared_mem: int = 0) -> None:
    """Note one launch: keep the count, the largest launch's block and grid (most threads in
    all; on a tie, the larger block) and the largest dynamic shared memory."""
    grid = _dim3(grid)
    block = _dim3(block)
    record.launches += 1

    def size(b, g):
        per_block = b[0] * b[1] * b[2]
        return (per_block * g[0] * g[1] * g[2], per_block)
    if record.block is None or size(block, grid) > size(record.block, record.grid or (1, 1, 1)):
        record.block, record.grid = block, grid
    record.shared_mem = max(record.shared_mem, int(shared_mem or 0))


def _dim3(value) -> tuple:
    if isinstance(value, int):
        value = (value,)
    t = tuple(int(v) for v in value)[:3]
    return t + (1,) * (3 - len(t))


def record_incident(verdict: str, message: str, kernel: str | None = None, **detail) -> None:
    """Keep a verdict-worthy event (race, out-of-bounds, deadlock, endless kernel, compile error)."""
    if len(_incidents) >= MAX_INCIDENTS:
        return
    item = {"verdict": str(getattr(verdict, "value", verdict)), "message": str(message)[:MAX_MESSAGE],
            "kernel": kernel}
    for k, v in detail.items():
        item[k] = v if isinstance(v, (int, float, bool)) or v is None else str(v)[:MAX_MESSAGE * 4]
    _incidents.append(item)
    if _sink is not None:
        try:
            _sink({"event": "incident", **item})
        except Exception:
            pass  # the answer carries it anyway


def incidents() -> list[dict]:
    """Incidents so far, oldest first."""
    return list(_incidents)


def kernels() -> list[KernelRecord]:
    """Kernel records in the order they were first seen."""
    return list(_records.values())


def snapshot() -> dict:
    """What the child sends the parent: every kernel record and every incident."""
    return {"kernels": [r.to_dict() for r in _records.values()], "incidents": list(_incidents)}


def reset() -> None:
    """Forget everything (tests)."""
    _records.clear()
    _compiled.clear()
    _incidents.clear()
