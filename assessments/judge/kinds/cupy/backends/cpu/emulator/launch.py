"""Loading built modules and launching kernels through ctypes, with CuPy's argument rules."""
from __future__ import annotations

import ctypes
import os
import re
import threading
import time
from typing import NamedTuple

import numpy as np

from . import build
from .errors import EmulatorError

MAX_THREADS = 1024
DEFAULT_SHARED_LIMIT = 48 * 1024
MAX_SHARED_OPTIN = 227 * 1024
_STATUS_KIND = {1: "deadlock", 2: "timeout", 3: "memory_error", 4: "race_detected", 5: "launch_error",
                6: "profile_cut"}
_LOCK = threading.RLock()   # the runtime keeps its scheduler in globals: one launch at a time
_libs: dict[str, ctypes.CDLL] = {}


class Param(NamedTuple):
    name: str
    ctype: str
    is_pointer: bool
    is_const: bool


class _Desc(ctypes.Structure):
    _fields_ = [("grid", ctypes.c_uint32 * 3), ("block", ctypes.c_uint32 * 3),
                ("dyn_shared", ctypes.c_uint64), ("reverse", ctypes.c_int32), ("checking", ctypes.c_int32),
                ("timeout_s", ctypes.c_double), ("xblock_ok", ctypes.c_int32), ("status", ctypes.c_int32),
                ("float_atomics", ctypes.c_int32), ("profile", ctypes.c_int32),
                ("message", ctypes.c_char * 4096)]


class _ParamInfo(ctypes.Structure):
    _fields_ = [("size", ctypes.c_int64), ("align", ctypes.c_int64), ("kind", ctypes.c_int32),
                ("pointee_const", ctypes.c_int32), ("type_name", ctypes.c_char_p)]


class _ProfSite(ctypes.Structure):
    _fields_ = [("pc", ctypes.c_uint64), ("kind", ctypes.c_int32), ("space", ctypes.c_int32),
                *[(n, ctypes.c_uint64) for n in ("accesses", "requests", "sectors", "ideal", "bytes",
                                                  "l1_new", "wavefronts", "addresses", "max_same",
                                                  "shared_addr", "skipped")],
                ("buf", ctypes.c_int32), ("size", ctypes.c_int32)]


class _ProfBB(ctypes.Structure):
    _fields_ = [("pc", ctypes.c_uint64), ("thread_hits", ctypes.c_uint64), ("warp_hits", ctypes.c_uint64),
                ("lane_slots", ctypes.c_uint64), ("divergent", ctypes.c_uint64)]


class _ProfLine(ctypes.Structure):
    _fields_ = [("line", ctypes.c_int32), ("what", ctypes.c_int32), ("count", ctypes.c_uint64)]


class _ProfTotals(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in ("blocks_total", "blocks_run", "threads_run", "accesses",
                                               "flushes", "partial_ppm", "nsites", "nbbs", "nlines", "nbufs", "dropped")]


class _ProfBuf(ctypes.Structure):
    _fields_ = [("sectors", ctypes.c_uint64), ("read", ctypes.c_uint64), ("written", ctypes.c_uint64)]


PROFILE_MAX_BLOCKS = 16          # blocks of a grid the profile runs, at most
PROFILE_ACCESS_BUDGET = 6 << 20  # accesses after which no further block starts (2 blocks at least)


def _load(path: str, stack_kib: int = 64) -> ctypes.CDLL:
    lib = _libs.get(path)
    if lib is None:
        lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
        lib.kp_set_stack_kib.argtypes = [ctypes.c_int]
        lib.kp_set_stack_kib(int(stack_kib))  # each module has its own fiber pool
        lib.kp_arena_create.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64)]
        lib.kp_arena_create.restype = ctypes.c_int
        lib.kp_arena_label.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int64]
        lib.kp_arena_activate.argtypes = [ctypes.c_int]
        lib.kp_arena_destroy.argtypes = [ctypes.c_int]
        lib.kp_arena_drop_shadow.argtypes = [ctypes.c_int]
        lib.kp_devglobals.argtypes = [ctypes.POINTER(ctypes.c_uint64)]
        lib.kp_devglobals.restype = ctypes.c_uint64
        _libs[path] = lib
    return lib


def _entry(lib, idx: int):
    fn = getattr(lib, f"kp_launch_{idx}")
    fn.argtypes = [ctypes.POINTER(_Desc), ctypes.c_char_p]
    fn.restype = ctypes.c_int
    return fn


class Module:
    """A compiled source: its kernels by name. Built at once in the variant its launches will
    mostly use (`checking`), which also gives the kernels and their layouts; the other variant
    on demand (a process whose launches are all checked never builds the plain one)."""

    def __init__(self, source: str, options=(), name_expressions=(), checking: bool = False):
        self.source = source
        self.options = tuple(options)
        self.name_expressions = tuple(name_expressions)
        self._first = bool(checking)
        self._built = {self._first: build.build(source, self.options, self.name_expressions, self._first)}
        self._functions: dict[str, Kernel] = {}

    def built(self, checking: bool) -> build.Built:
        b = self._built.get(checking)
        if b is None:
            b = self._built[checking] = build.build(self.source, self.options, self.name_expressions, checking)
        return b

    def lib(self, checking: bool) -> ctypes.CDLL:
        b = self.built(checking)
        return _load(b.path, b.meta.get("stack_kib", 64))

    @property
    def meta(self) -> dict:
        """The first build's metadata: kernels, entries (the same in both variants)."""
        return self._built[self._first].meta

    @property
    def kernel_names(self) -> list[str]:
        return list(self.meta["entries"])

    def get_function(self, name: str) -> "Kernel":
        k = self._functions.get(name)
        if k is None:
            entries = self.meta["entries"]
            if name not in entries:
                known = ", ".join(entries) or "none"
                raise EmulatorError("launch_error", name,
                                    f"no kernel named '{name}' in the module (launchable: {known}; "
                                    "templates need name_expressions)")
            k = self._functions[name] = Kernel(self, name, entries[name])
        return k


class Kernel:
    """One launchable kernel of a Module."""

    def __init__(self, module: Module, name: str, index: int):
        self.module = module
        self.name = name
        self.index = index
        self.max_dynamic_shared_size_bytes = DEFAULT_SHARED_LIMIT
        self._layout = None
        self._params = None

    # -- signature --------------------------------------------------------------------------------
    def layout(self) -> list[tuple[int, int, int, int, str]]:
        """(offset, size, kind, pointee_const, C++ type) per parameter, as the compiler lays them out."""
        if self._layout is None:
            lib = self.module.lib(self.module._first)
            fn = getattr(lib, f"kp_layout_{self.index}")
            fn.argtypes = [ctypes.POINTER(_ParamInfo), ctypes.c_int]
            fn.restype = ctypes.c_int
            cap = 256
            arr = (_ParamInfo * cap)()
            n = fn(arr, cap)
            out, off = [], 0
            for i in range(min(n, cap)):
                p = arr[i]
                off = (off + p.align - 1) // p.align * p.align
                tname = (p.type_name or b"").decode(errors="replace")
                m = re.search(r"\[with T = (.*)\]$", tname)
                out.append((off, p.size, p.kind, p.pointee_const, m.group(1).strip() if m else tname))
                off += p.size
            self._layout = out
        return self._layout

    @property
    def params(self) -> list[Param]:
        if self._params is None:
            base = re.sub(r"<.*$", "", self.name).strip().lstrip("&")
            decl = None
            for k in self.module.meta["kernels"]:
                if base in (k["name"], k["qualified"]):
                    decl = k
                    break
            texts = decl["params"] if decl else []
            out = []
            for i, (_, _, kind, pconst, ctype) in enumerate(self.layout()):
                name, text = texts[i] if i < len(texts) and len(texts) == len(self.layout()) else (f"arg{i}", "")
                is_const = bool(pconst) if kind == 1 else bool(re.match(r"\s*const\b", text))
                out.append(Param(name, ctype, kind == 1, is_const))
            self._params = out
        return self._params

    # -- launch -----------------------------------------------------------------------------------
    def launch(self, grid, block, args, shared_mem=0, *, checking=False, timeout_s=None) -> None:
        """Run the kernel on the CPU; raises EmulatorError on any failure of the kernel."""
        grid, block, args, shared_mem = self._config(grid, block, args, shared_mem)
        deadline = time.monotonic() + timeout_s if timeout_s else None
        with _LOCK:
            if checking:
                self._launch_checked(grid, block, args, shared_mem, deadline)
            else:
                lib = self.module.lib(False)
                buf = self._pack(args, {})
                self._run(lib, grid, block, shared_mem, buf, 0, False, deadline)

    def _config(self, grid, block, args, shared_mem):
        """The launch's grid, block, arguments and dynamic shared memory, checked as CuPy would."""
        grid = _dims(grid, "grid", self.name)
        block = _dims(block, "block", self.name)
        _check_config(grid, block, self.name)
        if isinstance(shared_mem, bool) or not isinstance(shared_mem, (int, np.integer)) or shared_mem < 0:
            raise EmulatorError("launch_error", self.name, f"shared_mem must be a non-negative int, got {shared_mem!r}")
        shared_mem = int(shared_mem)
        limit = min(int(self.max_dynamic_shared_size_bytes), MAX_SHARED_OPTIN)
        if shared_mem > limit:
            raise EmulatorError("launch_error", self.name,
                                f"{shared_mem} bytes of dynamic shared memory exceed the limit of {limit} "
                                "(raise max_dynamic_shared_size_bytes for more than 48 KiB)")
        args = list(args)
        layout = self.layout()
        if len(args) != len(layout):
            raise EmulatorError("launch_error", self.name,
                                f"the kernel takes {len(layout)} arguments, {len(args)} were given")
        return grid, block, args, shared_mem

    def _pack(self, args, pointers: dict) -> bytes:
        layout = self.layout()
        total = layout[-1][0] + layout[-1][1] if layout else 0
        buf = bytearray(max(total, 8))
        for i, (a, (off, size, kind, _, ctype)) in enumerate(zip(args, layout)):
            raw = _arg_bytes(a, pointers.get(i), self.name, i, ctype)
            raw = raw[:size]
            buf[off:off + len(raw)] = raw
        return bytes(buf)

    def profile(self, grid, block, args, shared_mem=0, *, timeout_s=None) -> dict:
        """Run a sample of the grid's blocks once in the instrumented build on the arrays
        themselves, counting instead of checking (runtime/core/profile.cpp). The counters
        are per module offset: `profile_map` in the build's metadata names their lines."""
        grid, block, args, shared_mem = self._config(grid, block, args, shared_mem)
        deadline = time.monotonic() + timeout_s if timeout_s else None
        built = self.module.built(True)
        with _LOCK:
            lib = self.module.lib(True)
            lib.kp_profile_config.argtypes = [ctypes.c_int, ctypes.c_uint64]
            lib.kp_profile_config(PROFILE_MAX_BLOCKS, PROFILE_ACCESS_BUDGET)
            names = [p.name for p in self.params]
            groups = _groups(args)
            n = len(groups)
            lib.kp_arena_borrow.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_uint64),
                                            ctypes.POINTER(ctypes.c_uint64)]
            lib.kp_arena_borrow.restype = ctypes.c_int
            h = lib.kp_arena_borrow(n, (ctypes.c_uint64 * max(n, 1))(*[lo for lo, _, _ in groups]),
                                    (ctypes.c_uint64 * max(n, 1))(*[hi - lo for lo, hi, _ in groups]))
            if h < 0:
                raise MemoryError("the emulator has no room for another launch's arrays")
            try:
                for g, (_, _, members) in enumerate(groups):
                    sizes = {args[i].dtype.itemsize for i in members}
                    lib.kp_arena_label(h, g, "/".join(names[i] for i in members).encode()[:63],
                                       sizes.pop() if len(sizes) == 1 else 1)
                lib.kp_arena_activate(h)
                try:
                    self._run(lib, grid, block, shared_mem, self._pack(args, {}), 0, True, deadline,
                              profile=True)
                except EmulatorError as exc:
                    if exc.kind != "profile_cut":
                        raise
                finally:
                    lib.kp_arena_activate(-1)
                counters = _read_profile(lib)
            finally:
                lib.kp_arena_destroy(h)
        counters["arrays"] = ["/".join(names[i] for i in members) for _, _, members in groups]
        counters["instrumented"] = bool(built.meta.get("instrumented"))
        counters["module"] = os.path.basename(built.path)   # the judge knows its map by this name
        return counters

    def _run(self, lib, grid, block, shared_mem, buf, reverse, checking, deadline, profile=False) -> _Desc:
        d = _Desc()
        d.grid[:] = grid
        d.block[:] = block
        d.dyn_shared = shared_mem
        d.reverse = reverse
        d.checking = 1 if checking else 0
        d.profile = 1 if profile else 0
        d.xblock_ok = 1 if self.module.built(checking).meta.get("xblock_ok") else 0
        if deadline is not None:
            d.timeout_s = max(deadline - time.monotonic(), 0.001)
        status = _entry(lib, self.index)(ctypes.byref(d), buf)
        if status:
            kind = _STATUS_KIND.get(status, "launch_error")
            raise EmulatorError(kind, self.name, d.message.decode(errors="replace"))
        return d

    def _launch_checked(self, grid, block, args, shared_mem, deadline) -> None:
        lib = self.module.lib(True)
        names = [p.name for p in self.params]
        groups = _groups(args)
        runs, float_atomics = [], False
        dg_lo = ctypes.c_uint64()
        dg_size = lib.kp_devglobals(ctypes.byref(dg_lo))
        dg_start = ctypes.string_at(dg_lo.value, dg_size) if dg_size else b""
        dg_after_forward = None
        # A pointer given as a bare address is memory the emulator cannot copy: run it once only.
        orders = (0,) if any(kind == 1 and not isinstance(a, np.ndarray) and a is not None and _as_int(a)
                             for a, (_, _, kind, _, _) in zip(args, self.layout())) else (0, 1)
        try:
            for reverse in orders:
                if reverse and dg_size:
                    # __device__ variables: the second run starts where the first one did
                    dg_after_forward = ctypes.string_at(dg_lo.value, dg_size)
                    ctypes.memmove(dg_lo.value, dg_start, dg_size)
                h, addrs = _arena(lib, groups, names, args)
                runs.append((h, addrs))
                pointers = {}
                for g, (lo, _, members) in enumerate(groups):
                    for i in members:
                        pointers[i] = addrs[g] + (args[i].__array_interface__["data"][0] - lo)
                lib.kp_arena_activate(h)
                try:
                    d = self._run(lib, grid, block, shared_mem, self._pack(args, pointers), reverse, True, deadline)
                finally:
                    lib.kp_arena_activate(-1)
                    lib.kp_arena_drop_shadow(h)
                float_atomics = float_atomics or bool(d.float_atomics)
            for g, (lo, hi, members) in enumerate(groups):
                if len(runs) < 2:
                    break
                fwd = _view(runs[0][1][g], hi - lo)
                rev = _view(runs[1][1][g], hi - lo)
                if not np.array_equal(fwd, rev):
                    _compare_orders(self.name, args, members, names, fwd, rev, float_atomics)
            for g, (lo, hi, members) in enumerate(groups):
                fwd = _view(runs[0][1][g], hi - lo)
                orig = _view(lo, hi - lo)
                if not np.array_equal(fwd, orig):
                    if not all(args[i].flags.writeable for i in members):
                        raise EmulatorError("memory_error", self.name,
                                            f"the kernel wrote to read-only memory ({names[members[0]]})")
                    ctypes.memmove(lo, runs[0][1][g], hi - lo)
        finally:
            if dg_after_forward is not None:
                ctypes.memmove(dg_lo.value, dg_after_forward, dg_size)
            for h, _ in runs:
                lib.kp_arena_destroy(h)


# ---- helpers ------------------------------------------------------------------------------------
def _read_profile(lib) -> dict:
    """The counters of the launch that just ran, as plain lists."""
    fn = lib.kp_profile_read
    t = _ProfTotals()
    sites, bbs, lines, bufs = (_ProfSite * 4096)(), (_ProfBB * 8192)(), (_ProfLine * 256)(), (_ProfBuf * 64)()
    fn(ctypes.byref(t), sites, 4096, bbs, 8192, lines, 256, bufs, 64)
    row = lambda s: {name: getattr(s, name) for name, _ in s._fields_}   # noqa: E731
    return {"totals": row(t),
            "sites": [row(sites[i]) for i in range(min(t.nsites, 4096))],
            "blocks": [row(bbs[i]) for i in range(min(t.nbbs, 8192))],
            "lines": [row(lines[i]) for i in range(min(t.nlines, 256))],
            "buffers": [row(bufs[i]) for i in range(min(t.nbufs, 64))]}



def _dims(v, what: str, kernel: str) -> tuple[int, int, int]:
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        v = (v,)
    if not isinstance(v, (tuple, list)) or not 1 <= len(v) <= 3:
        raise EmulatorError("launch_error", kernel, f"{what} must be a tuple of 1 to 3 ints, got {v!r}")
    out = []
    for x in v:
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
            raise EmulatorError("launch_error", kernel, f"{what} must be a tuple of ints, got {v!r}")
        out.append(int(x))
    while len(out) < 3:
        out.append(1)
    return tuple(out)


def _check_config(grid, block, kernel) -> None:
    if min(grid) < 1 or min(block) < 1:
        raise EmulatorError("launch_error", kernel, f"invalid configuration: grid {grid}, block {block}")
    if block[0] > 1024 or block[1] > 1024 or block[2] > 64:
        raise EmulatorError("launch_error", kernel, f"block {block} exceeds the limits (1024, 1024, 64)")
    if block[0] * block[1] * block[2] > MAX_THREADS:
        raise EmulatorError("launch_error", kernel,
                            f"block {block} has {block[0] * block[1] * block[2]} threads; at most {MAX_THREADS}")
    if grid[0] > 2 ** 31 - 1 or grid[1] > 65535 or grid[2] > 65535:
        raise EmulatorError("launch_error", kernel, f"grid {grid} exceeds the limits (2^31-1, 65535, 65535)")


def _arg_bytes(a, pointer, kernel, i, ctype) -> bytes:
    """The bytes CuPy would hand the driver for one argument."""
    if isinstance(a, np.ndarray):
        return int(pointer if pointer is not None else a.__array_interface__["data"][0]).to_bytes(8, "little")
    if a is None:
        return bytes(8)
    if isinstance(a, (bool, np.bool_)):
        return b"\x01" if a else b"\x00"
    if isinstance(a, int):
        if -2 ** 63 <= a < 2 ** 63:
            return a.to_bytes(8, "little", signed=True)
        if 0 <= a < 2 ** 64:
            return a.to_bytes(8, "little")
        raise EmulatorError("launch_error", kernel, f"argument {i}: Python int {a} does not fit in 64 bits")
    if isinstance(a, float):
        return np.float64(a).tobytes()
    if isinstance(a, complex):
        return np.complex128(a).tobytes()
    if isinstance(a, np.generic):
        return a.tobytes()
    if isinstance(a, (ctypes._SimpleCData, ctypes.Structure, ctypes.Array)):
        return bytes(memoryview(a).cast("B"))
    raise EmulatorError("launch_error", kernel,
                        f"argument {i} ({ctype}): unsupported type {type(a).__name__}")


def _as_int(a) -> int:
    try:
        return int(a)
    except (TypeError, ValueError):
        return 0


def _extent(a: np.ndarray) -> tuple[int, int]:
    lo = a.__array_interface__["data"][0]
    if a.size == 0:
        return lo, lo
    if a.flags.c_contiguous or a.flags.f_contiguous:
        return lo, lo + a.nbytes
    offs = [(s * (n - 1)) for s, n in zip(a.strides, a.shape)]
    return lo + sum(o for o in offs if o < 0), lo + sum(o for o in offs if o > 0) + a.itemsize


def _groups(args) -> list[tuple[int, int, list[int]]]:
    """Arrays merged where their memory overlaps (aliasing must survive the copy into the arena)."""
    spans = sorted((*_extent(a), i) for i, a in enumerate(args) if isinstance(a, np.ndarray))
    groups: list[list] = []
    for lo, hi, i in spans:
        if groups and lo < groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], hi)
            groups[-1][2].append(i)
        else:
            groups.append([lo, hi, [i]])
    return [(lo, hi, sorted(m)) for lo, hi, m in groups]


def _arena(lib, groups, names, args) -> tuple[int, list[int]]:
    n = len(groups)
    sizes = (ctypes.c_uint64 * max(n, 1))(*[hi - lo for lo, hi, _ in groups])
    addrs = (ctypes.c_uint64 * max(n, 1))()
    h = lib.kp_arena_create(n, sizes, addrs)
    if h < 0:
        raise MemoryError("the emulator could not reserve memory for a checked launch")
    for g, (lo, hi, members) in enumerate(groups):
        if hi > lo:
            ctypes.memmove(addrs[g], lo, hi - lo)
        label = "/".join(names[i] for i in members)
        sizes_ = {args[i].dtype.itemsize for i in members}
        lib.kp_arena_label(h, g, label.encode()[:63], sizes_.pop() if len(sizes_) == 1 else 1)
    return h, [int(addrs[g]) for g in range(n)]


def _view(addr: int, n: int) -> np.ndarray:
    if n == 0:
        return np.zeros(0, np.uint8)
    return np.ctypeslib.as_array((ctypes.c_uint8 * n).from_address(addr))


def _compare_orders(kernel, args, members, names, fwd, rev, float_atomics) -> None:
    """Raise race_detected unless the difference is rounding from reordered float atomics."""
    a = args[members[0]]
    dt = a.dtype if all(args[i].dtype == a.dtype for i in members) else np.dtype(np.uint8)
    usable = len(fwd) - len(fwd) % dt.itemsize
    f = fwd[:usable].view(dt)
    r = rev[:usable].view(dt)
    if dt.kind == "f":
        same = (f == r) | (np.isnan(f) & np.isnan(r))
        if float_atomics:
            scale = np.maximum(np.abs(f), np.abs(r)).astype(np.float64)
            finite = np.isfinite(f) & np.isfinite(r)
            tol = 1e-3 * scale + 1e-5 * float(np.max(scale[finite])) if finite.any() else 0.0
            same = same | (finite & (np.abs(f.astype(np.float64) - r) <= tol))
    else:
        same = f == r
    bad = np.flatnonzero(~same)
    if len(bad) == 0 and np.array_equal(fwd[usable:], rev[usable:]):
        return
    j = int(bad[0]) if len(bad) else usable // max(dt.itemsize, 1)
    label = "/".join(names[i] for i in members)
    shown = f" (forward order: {f[j]!r}, reverse order: {r[j]!r})" if j < len(f) else ""
    raise EmulatorError(
        "race_detected", kernel,
        f"the result depends on the order threads run in: {label}[{j}] differs between running each "
        f"block's threads first-to-last and last-to-first{shown}, {len(bad)} element(s) differ. "
        "A __syncthreads() is missing, or threads read and write the same memory without atomics.")
