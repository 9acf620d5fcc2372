"""g++ builds of candidate CUDA C: preprocess, find kernels, rewrite, compile, cache by hash.

Two variants per source: the plain one, and the checking one compiled with -fsanitize=thread,
whose per-access callbacks (defined in runtime/core/bounds.cpp, no libtsan) check bounds and races.
In the judge's child nothing is compiled here: `use_builder` hands every build to the trusted
parent, which runs `compile_in` in its compile sandbox (compile_job.py) and keeps the result in
its own cache.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import profile_map
from . import source as src
from .errors import EmulatorError

RUNTIME = Path(__file__).resolve().parent / "runtime"
CORE_UNITS = RUNTIME / "core"
CORE_INTERNAL = "_ZN2kp4core*"  # kp::core: names the core's units share, local once combined
BUILD_VERSION = "kp-emulator-1"
CXX = os.environ.get("KERNELPATH_EMULATOR_CXX", "g++")
OBJCOPY = "objcopy"
CXXFLAGS = ["-O2", "-fPIC", "-fno-strict-aliasing", "-fno-threadsafe-statics", "-fvisibility=hidden",
            "-fno-plt", "-w"]
MIN_STACK_KIB, MAX_STACK_KIB = 64, 1024
# The checking build also profiles (runtime/core/profile.cpp): a callback per basic block, line
# tables with inline frames (DWARF 4: binutils misnames some files in g++'s DWARF 5; no variable
# locations, whose tracking is half of a heavy kernel's compile and changes no instruction), and
# no vectorising, so that instructions count one per operation.
# fmaf() becomes one instruction where the CPU has FMA, as on the GPU (the rounding is the same);
# a * b + c stays two (no contraction), so results match the plain build's.
HOST_FMA = ["-mfma", "-ffp-contract=off"] if " fma " in (
    open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else "") else []
CHECK_FLAGS = ["-fsanitize=thread", "--param", "tsan-instrument-func-entry-exit=0",
               "-fsanitize-coverage=trace-pc", "-gdwarf-4", "-fno-var-tracking-assignments",
               "-fno-tree-vectorize", "-fpeel-loops", *HOST_FMA, "-DKP_CHECKING=1"]
_fingerprint: list[str] = []
_builder: list = []   # the judge child's remote builder (use_builder), else builds happen here


@dataclass
class Built:
    path: str           # shared library
    meta: dict          # kernels, entries, flags


def cache_dir() -> Path:
    """KERNELPATH_EMULATOR_CACHE, else the user's cache dir, else a per-user temp dir."""
    candidates = []
    env = os.environ.get("KERNELPATH_EMULATOR_CACHE")
    if env:
        candidates.append(Path(env))
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    candidates.append(Path(xdg) / "kernelpath" / "emulator")
    candidates.append(Path(tempfile.gettempdir()) / f"kernelpath-emulator-{os.getuid()}")
    for c in candidates:
        try:
            c.mkdir(parents=True, exist_ok=True)
            probe = c / f".probe-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
            return c
        except OSError:
            continue
    raise EmulatorError("compile_error", "", "no writable cache directory for the emulator")


def fingerprint() -> str:
    """Changes whenever the runtime, this builder or the compiler does. The judge's child, which
    may not run the compiler, gets the parent's (KERNELPATH_EMULATOR_FINGERPRINT)."""
    if not _fingerprint and os.environ.get("KERNELPATH_EMULATOR_FINGERPRINT"):
        _fingerprint.append(os.environ["KERNELPATH_EMULATOR_FINGERPRINT"])
    if not _fingerprint:
        h = hashlib.sha256(BUILD_VERSION.encode())
        for p in sorted(RUNTIME.rglob("*")):
            if p.is_file():
                h.update(str(p.relative_to(RUNTIME)).encode())
                h.update(p.read_bytes())
        h.update(Path(__file__).read_bytes())
        h.update(Path(src.__file__).read_bytes())
        h.update(Path(profile_map.__file__).read_bytes())
        h.update(" ".join(CHECK_FLAGS).encode())
        try:
            h.update(subprocess.run([CXX, "--version"], capture_output=True, check=True).stdout)
        except (OSError, subprocess.CalledProcessError) as exc:
            raise EmulatorError("compile_error", "", f"the C++ compiler ({CXX}) is not usable: {exc}")
        _fingerprint.append(h.hexdigest()[:24])
    return _fingerprint[0]


def _run(cmd, cwd, what) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        raise EmulatorError("compile_error", "", f"{what} took longer than 300 s") from None
    except OSError as exc:
        raise EmulatorError("compile_error", "", f"cannot run {cmd[0]}: {exc}") from None


def _run_all(cmds, cwd, what) -> list[subprocess.CompletedProcess]:
    """_run for independent commands, all running at once."""
    procs: list[subprocess.Popen] = []
    try:
        for cmd in cmds:
            procs.append(subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        results = []
        for p in procs:
            out, err = p.communicate(timeout=300)
            results.append(subprocess.CompletedProcess(p.args, p.returncode, out, err))
        return results
    except subprocess.TimeoutExpired:
        raise EmulatorError("compile_error", "", f"{what} took longer than 300 s") from None
    except OSError as exc:
        raise EmulatorError("compile_error", "", f"cannot run {cmds[0][0]}: {exc}") from None
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def _publish(tmp: Path, dest: Path) -> None:
    """Atomic rename, so that concurrent builders never see half-written files."""
    os.replace(tmp, dest)


def core_object() -> Path:
    """The runtime object every module links: in the judge's child, the copy the trusted side
    built (KERNELPATH_EMULATOR_CORE, bound read-only), so nothing the child writes is reused."""
    given = os.environ.get("KERNELPATH_EMULATOR_CORE")
    if given and os.path.isfile(given):
        return Path(given)
    out = cache_dir() / f"kp_core-{fingerprint()}.o"
    if out.exists():
        return out
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        _publish(_build_core(Path(tmp)), out)
    return out


def _build_core(tmp: Path) -> Path:
    """Every unit of runtime/core compiled (at the same time) and combined into one relocatable
    object whose global symbols are only what modules link against."""
    units = sorted(CORE_UNITS.glob("*.cpp"))
    compiles = [[CXX, "-std=c++17", *CXXFLAGS, "-I", str(RUNTIME), "-c", str(u), "-o", f"{u.stem}.o"]
                for u in units]
    combine = [CXX, "-r", "-nostdlib", "-o", "combined.o", *(c[-1] for c in compiles)]
    localize = [OBJCOPY, "--wildcard", f"--localize-symbol={CORE_INTERNAL}", "combined.o", "kp_core.o"]
    for step in (compiles, [combine], [localize]):
        for r in _run_all(step, tmp, "building the emulator core"):
            if r.returncode != 0:
                raise EmulatorError("compile_error", "", "the emulator core does not build:\n" + r.stderr[-4000:])
    return tmp / "kp_core.o"


def split_options(options) -> tuple[list[str], str]:
    """NVRTC options -> (g++ preprocessor flags, C++ standard). Target and codegen flags are dropped."""
    flags, std = [], "c++17"
    opts = [str(o) for o in options]
    i = 0
    while i < len(opts):
        o = opts[i]
        nxt = opts[i + 1] if i + 1 < len(opts) else None
        if o in ("-D", "--define-macro", "-I", "--include-path", "-U", "--undefine-macro") and nxt is not None:
            flag = {"-D": "-D", "--define-macro": "-D", "-I": "-I", "--include-path": "-I",
                    "-U": "-U", "--undefine-macro": "-U"}[o]
            flags += [flag + nxt]
            i += 2
            continue
        for prefix, flag in (("--define-macro=", "-D"), ("-D", "-D"), ("--include-path=", "-I"),
                             ("-I", "-I"), ("--undefine-macro=", "-U"), ("-U", "-U")):
            if o.startswith(prefix) and len(o) > len(prefix):
                flags.append(flag + o[len(prefix):])
                break
        else:
            m = re.match(r"^(?:-std=|--std=)(c\+\+\d\d)$", o)
            if m and m.group(1) in ("c++20", "c++2a"):
                std = "c++20"
        i += 1
    return flags, std


def _clean_log(text: str, tmp: str) -> str:
    text = text.replace(tmp + os.sep, "").replace(tmp, "")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return "\n".join(lines[:80])


def _entries(kernels: list[src.KernelDecl], name_expressions) -> tuple[str, dict]:
    """extern "C" launch/layout functions for each launchable kernel name."""
    names: dict[str, str] = {}
    for k in kernels:
        if not k.is_template:
            names.setdefault(k.name, k.qualified)
            names.setdefault(k.qualified, k.qualified)
    for expr in name_expressions:
        expr = str(expr).strip()
        if expr and expr not in names:
            names[expr] = expr
    entries, code = {}, []
    by_target: dict[str, int] = {}
    for key, target in names.items():
        if target not in by_target:
            idx = len(by_target)
            by_target[target] = idx
            fn = f"&{target}" if not target.startswith("&") else target
            code.append(
                f'extern "C" __attribute__((visibility("default"))) int kp_launch_{idx}'
                f"(kp::LaunchDesc* L, const char* p) {{ return kp::launch_entry<{fn}>(L, p); }}\n"
                f'extern "C" __attribute__((visibility("default"))) int kp_layout_{idx}'
                f"(kp::ParamInfo* o, int cap) {{ return kp::layout_entry<{fn}>(o, cap); }}\n")
        entries[key] = by_target[target]
    return "".join(code), entries


def use_builder(builder) -> None:
    """From now on `build` asks `builder(source, options, name_expressions, checking)` for a
    Built instead of compiling (the judge's child: its parent compiles)."""
    _builder[:] = [builder]


def build(source: str, options=(), name_expressions=(), checking: bool = False) -> Built:
    """Compile (or fetch from the cache) one variant of a module."""
    if _builder:
        return _builder[0](source, tuple(str(o) for o in options),
                           tuple(str(e) for e in name_expressions), bool(checking))
    flags, std = split_options(options)
    key_src = json.dumps([fingerprint(), checking, source, flags, std, list(map(str, name_expressions))])
    key = hashlib.sha256(key_src.encode()).hexdigest()[:32]
    base = cache_dir() / f"mod-{key}-{'chk' if checking else 'run'}"
    so, meta_path = base.with_suffix(".so"), base.with_suffix(".json")
    if so.exists() and meta_path.exists():
        try:
            return Built(str(so), json.loads(meta_path.read_text()))
        except (OSError, ValueError):
            pass
    core = core_object()
    with tempfile.TemporaryDirectory(dir=so.parent, prefix="build-") as tmp:
        meta = _build_in(tmp, source, flags, std, name_expressions, checking, core)
        tmp_meta = Path(tmp) / "meta.json"
        tmp_meta.write_text(json.dumps(meta))
        _publish(Path(tmp) / "module.so", so)
        _publish(tmp_meta, meta_path)
    return Built(str(so), meta)


def compile_in(tmp: str, source: str, options=(), name_expressions=(), checking: bool = False,
               core: str | Path | None = None) -> dict:
    """Build one variant into `tmp` (module.so) with the runtime object `core`; its metadata,
    or EmulatorError("compile_error") with g++'s log."""
    flags, std = split_options(options)
    return _build_in(tmp, source, flags, std, name_expressions, checking, core or core_object())


def _build_in(tmp, source, flags, std, name_expressions, checking, core) -> dict:
    Path(tmp, src.CANDIDATE_FILE).write_text(source)
    Path(tmp, "tu.cpp").write_text(f'#include "kp_cuda.h"\n#include "{src.CANDIDATE_FILE}"\n')
    defines = CHECK_FLAGS[-1:] if checking else []
    pre = _run([CXX, "-E", f"-std={std}", "-I", str(RUNTIME), "-I", str(RUNTIME / "include"), *defines,
                *flags, "tu.cpp", "-o", "tu.ii"], tmp, "preprocessing")
    if pre.returncode != 0:
        raise EmulatorError("compile_error", "", _explained(_clean_log(pre.stderr, tmp), source))
    pp = unroll_pragmas(Path(tmp, "tu.ii").read_text())
    kernels = src.find_kernels(pp)
    entry_code, entries = _entries(kernels, name_expressions)
    rewrites = src.shared_rewrites(pp) + src.device_variable_rewrites(pp)
    tail = f'\n# 1 "kp_entries.cpp"\n{entry_code}'
    attempts = [src.apply_rewrites(pp, rewrites) + tail]
    if rewrites:
        attempts.append(pp + tail)  # if a rewrite trips over something unusual, build without it
    plans = [(text, True) for text in attempts]
    if checking:
        # Without the per-access callbacks the checked run still compares thread orders and
        # poisons shared memory; better than no checked run at all.
        plans.append((attempts[-1], False))
    log = ""
    for n, (text, instrument) in enumerate(plans):
        Path(tmp, "final.ii").write_text(text)
        for old in Path(tmp).glob("*.su"):
            old.unlink()
        if checking:
            san = CHECK_FLAGS[:-1] if instrument else []
            r = _run([CXX, f"-std={std}", *CXXFLAGS, *san, "-fstack-usage", "-c", "final.ii", "-o", "module.o"],
                     tmp, "compiling")
            if r.returncode == 0:
                r = _run([CXX, "-shared", "-o", "module.so", "module.o", str(core), "-Wl,-z,defs"], tmp, "linking")
        else:
            r = _run([CXX, f"-std={std}", *CXXFLAGS, "-fstack-usage", "-shared", "final.ii", str(core),
                      "-o", "module.so", "-Wl,-z,defs"], tmp, "compiling")
        if r.returncode == 0:
            profile = profile_map.build_map(str(Path(tmp, "module.so")), tmp) if checking and instrument else None
            return {
                "profile_map": profile,
                "stack_kib": _stack_kib(tmp),
                "kernels": [{"name": k.name, "qualified": k.qualified, "template": k.is_template,
                             "extern_c": k.is_extern_c, "params": k.params} for k in kernels],
                "entries": entries,
                "shared_rewritten": text is attempts[0] and bool(rewrites),
                "instrumented": checking and instrument,
                "xblock_ok": src.uses_fences(source),
                "checking": checking,
            }
        if n == 0:
            log = r.stderr
    raise EmulatorError("compile_error", "", _explained(_clean_log(log, tmp), source))


_UNROLL = re.compile(r"^([ \t]*)#[ \t]*pragma[ \t]+unroll\b[ \t]*\(?[ \t]*(\d*)[ \t]*\)?[ \t]*$", re.M)


def unroll_pragmas(pp: str) -> str:
    """CUDA's `#pragma unroll [N]` as GCC's (which ignores CUDA's): loops unrolled as nvcc
    unrolls them, for the speed of the emulated run and for instruction counts like the GPU's."""
    return _UNROLL.sub(lambda m: f"{m.group(1)}#pragma GCC unroll {m.group(2) or 64}", pp)


_NO_LIBRARY = re.compile(r"fatal error: ((cub|thrust)/[^:\s]*): No such file or directory")


def _explained(msg: str, source: str) -> str:
    """g++'s log, headed by what it means where the cause is the emulator's, not the code's."""
    if src.has_inline_asm(source) and "asm" in msg:
        return "error: inline PTX assembly (asm) cannot run on the CPU emulator\n" + msg
    missing = _NO_LIBRARY.search(msg)
    if missing:
        library = {"cub": "CUB", "thrust": "Thrust"}[missing.group(2)]
        return (f"error: {library} ({missing.group(1)}) is not available on the CPU emulator: write "
                "this part with shared memory and warp shuffles, or judge on the cuda backend\n"
                + msg)
    return msg


def _stack_kib(tmp: str) -> int:
    """Per-thread stack for this module: every candidate frame at once (a bound without recursion),
    plus room for the runtime and printf; CUDA allows large per-thread local arrays."""
    total = 0
    for su in Path(tmp).glob("*.su"):
        for line in su.read_text(errors="replace").splitlines():
            parts = line.split("\t")
            if len(parts) < 3 or not parts[0].startswith(src.CANDIDATE_FILE + ":"):
                continue
            try:
                total += int(parts[1])
            except ValueError:
                continue
            if parts[2].startswith("dynamic") and "bounded" not in parts[2]:
                total += 256 * 1024  # alloca or a variable-length array: size unknown
    kib = (total + 48 * 1024 + 1023) // 1024
    size = MIN_STACK_KIB
    while size < kib and size < MAX_STACK_KIB:
        size *= 2
    return size


def clear_cache() -> None:
    """Remove built modules (keeps nothing; the next build starts cold)."""
    shutil.rmtree(cache_dir(), ignore_errors=True)
