"""Trusted-side evaluation of one run: read back the arrays, compare them, describe the kernels."""
from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import numpy as np

from . import occupancy
from .outcome import Outcome
from .report import KernelReport, MismatchReport, TestReport
from .verdicts import Verdict


def write_inputs(task, inputs: dict, path: Path) -> list[dict]:
    """Arrays of one input set to an .npz in the child's scratch, and the argument list the child
    builds solve's call from. Raises OSError when the child has filled or wrecked its scratch."""
    args, arrays = [], {}
    for a in task.args:
        value = inputs[a.name]
        if a.role == "scalar":
            args.append({"scalar": int(value) if a.dtype == "int" else float(value)})
        else:
            arrays[a.name] = np.ascontiguousarray(value)
            args.append({"array": a.name})
    clear_path(path)
    np.savez(path, **arrays)
    return args


def clear_path(path: Path) -> None:
    """Make room for a file the parent writes where the child could have put something else."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def load_arrays(path: Path, originals: dict[str, np.ndarray], phase: str) -> dict | Outcome:
    """The arrays the child wrote, refusing anything larger or shaped other than what was sent."""
    def unusable(why: str) -> Outcome:
        return Outcome(Verdict.RUNTIME_ERROR, f"your program returned no usable arrays {phase} ({why})")

    limit = sum(a.nbytes for a in originals.values()) * 2 + (1 << 20)
    if not path.exists() or path.stat().st_size > limit:
        return unusable("missing or oversized file")
    got = {}
    try:
        with np.load(path, allow_pickle=False) as data:
            for name, ref in originals.items():
                if name not in data.files:
                    return unusable(f"array '{name}' is missing")
                # The archive may claim small and inflate large: check before reading.
                if data.zip.getinfo(f"{name}.npy").file_size > ref.nbytes + 4096:
                    return unusable(f"array '{name}' is oversized")
                got[name] = data[name]
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        return unusable(type(exc).__name__)
    for name, ref in originals.items():
        if got[name].shape != ref.shape or got[name].dtype != ref.dtype:
            return Outcome(Verdict.WRONG_ANSWER,
                           f"array '{name}' changed from {ref.dtype}{list(ref.shape)} to "
                           f"{got[name].dtype}{list(got[name].shape)} {phase}")
    return got


def modified_input(name: str, before: np.ndarray, after: np.ndarray, test: TestReport,
                   phase: str) -> Outcome | None:
    """Bitwise comparison of an input before and after solve (NaN payloads included)."""
    if before.size == 0:
        return None
    b = before.view(np.uint8).reshape(before.shape + (-1,))
    a = after.view(np.uint8).reshape(after.shape + (-1,))
    changed = (b != a).any(axis=-1)
    if not changed.any():
        return None
    flat = np.flatnonzero(changed)
    idx = tuple(int(i) for i in np.unravel_index(int(flat[0]), before.shape))
    was, now = before[idx].item(), after[idx].item()
    test.mismatches = [MismatchReport(list(idx), now, was)]
    return Outcome(Verdict.WRONG_ANSWER,
                   f"solve modified its input '{name}' {phase}: {len(flat)} element(s) changed, first "
                   f"at {list(idx)} (was {was}, now {now}); inputs must be left unchanged")


def check_test(task, inputs: dict, expected: dict, got: dict, test: TestReport, phase: str,
               checks: dict) -> Outcome | None:
    """Inputs unchanged, then every output against the reference with the task's check."""
    for a in task.args:
        if a.role == "in":
            decided = modified_input(a.name, np.asarray(inputs[a.name]), got[a.name], test, phase)
            if decided:
                return decided
    check = checks[task.check]
    tol = task.tolerance_for(inputs) if hasattr(task, "tolerance_for") else dict(task.tolerance)
    worst = 0.0
    for a in task.args:
        if a.role != "out":
            continue
        res = check(got[a.name], expected[a.name], **tol)
        worst = max(worst, float(res.max_error))
        if not res.passed:
            test.max_error = float(res.max_error)
            test.mismatches = [MismatchReport(list(m.index), m.got, m.expected) for m in res.mismatches]
            return Outcome(Verdict.WRONG_ANSWER, f"wrong answer {phase}: output '{a.name}': {res.message}")
    test.max_error = worst
    return None


def kernel_reports(records: list[dict], arch: str, listings: dict | None = None,
                   unlisted: str | None = None) -> list[KernelReport]:
    """Report rows from the child's kernel records, with theoretical occupancy where computable
    and the PTX/SASS listings by record key (`unlisted`: why a kernel has none)."""
    out = []
    for k in records:
        usage = k.get("usage") or {}
        block = k.get("block")
        rep = KernelReport(name=str(k.get("name")), kind=str(k.get("kind")), arch=arch,
                           compiled=k.get("compiled"), block=block, grid=k.get("grid"),
                           launches=int(k.get("launches", 0)),
                           dynamic_shared_bytes=int(k.get("shared_mem", 0) or 0))
        if usage:
            rep.registers = int(usage.get("registers", 0))
            rep.shared_bytes = int(usage.get("shared_bytes", 0))
            rep.stack_bytes = int(usage.get("stack_bytes", 0))
            rep.spill_stores = int(usage.get("spill_stores", 0))
            rep.spill_loads = int(usage.get("spill_loads", 0))
            rep.spill_bytes = rep.spill_stores + rep.spill_loads
            if block:
                threads = int(block[0]) * int(block[1]) * int(block[2])
                occ = occupancy.theoretical(rep.registers, threads,
                                            rep.shared_bytes + rep.dynamic_shared_bytes, arch)
                rep.occupancy, rep.occupancy_limited_by = occ.occupancy, occ.limited_by
                rep.blocks_per_sm = occ.blocks_per_sm
        if listings is not None:
            rep.ptx, rep.sass, rep.listing_note = listings.get(str(k.get("key")), (None, None, unlisted))
        out.append(rep)
    return out
