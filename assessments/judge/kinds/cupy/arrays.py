"""The arrays the parent hands the child and reads back: .npz files in the child's scratch."""
from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import numpy as np

from ...outcome import Decided, Outcome
from ...verdicts import Verdict
from .task import Task


def write_inputs(task: Task, inputs: dict, path: Path) -> list[dict]:
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


def array_args(task: Task, inputs: dict) -> dict[str, np.ndarray]:
    """The array arguments as they were sent: what the child's file must hold again."""
    return {a.name: np.asarray(inputs[a.name]) for a in task.args if a.role != "scalar"}


def load_arrays(path: Path, originals: dict[str, np.ndarray], phase: str) -> dict:
    """The arrays the child wrote, refusing anything larger or shaped other than what was sent
    (Decided: runtime_error for an unusable file, wrong_answer for a reshaped array)."""
    def unusable(why: str) -> Decided:
        return Decided(Outcome(Verdict.RUNTIME_ERROR,
                               f"your program returned no usable arrays {phase} ({why})"))

    limit = sum(a.nbytes for a in originals.values()) * 2 + (1 << 20)
    if not path.exists() or path.stat().st_size > limit:
        raise unusable("missing or oversized file")
    got = {}
    try:
        with np.load(path, allow_pickle=False) as data:
            for name, ref in originals.items():
                if name not in data.files:
                    raise unusable(f"array '{name}' is missing")
                # The archive may claim small and inflate large: check before reading.
                if data.zip.getinfo(f"{name}.npy").file_size > ref.nbytes + 4096:
                    raise unusable(f"array '{name}' is oversized")
                got[name] = data[name]
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        raise unusable(type(exc).__name__) from None
    for name, ref in originals.items():
        if got[name].shape != ref.shape or got[name].dtype != ref.dtype:
            raise Decided(Outcome(Verdict.WRONG_ANSWER,
                                  f"array '{name}' changed from {ref.dtype}{list(ref.shape)} to "
                                  f"{got[name].dtype}{list(got[name].shape)} {phase}"))
    return got
