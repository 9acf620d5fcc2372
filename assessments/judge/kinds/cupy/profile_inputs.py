"""The inputs a profile runs on: the task's generator at the cuda backend's benchmark size, with
one fixed seed, so that every submission of a task (and every machine) is profiled on the same
arrays. Made once per task into the judge's cache, one .npy file per array, and bound read-only
into the sandbox, where the child maps them copy-on-write: a sampled launch touches a few pages
of arrays of hundreds of megabytes, and nothing is copied."""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from .timing.peaks import cache_dir

PROFILE_SEED = 20_261_126
VERSION = 1


def prepare(task, dims: dict) -> tuple[Path, list[dict]]:
    """The folder holding the inputs (`<name>.npy` each) and the argument list for the child.
    Raises OSError when the cache cannot take them."""
    key = hashlib.sha256(json.dumps([VERSION, task.slug, dims, PROFILE_SEED, np.__version__],
                                    sort_keys=True).encode()).hexdigest()[:20]
    root = cache_dir() / "profile-inputs"
    folder = root / f"{task.slug}-{key}"
    meta = folder / "args.json"
    if not meta.exists():
        root.mkdir(parents=True, exist_ok=True)
        inputs = task.generate(np.random.default_rng(PROFILE_SEED), dict(dims))
        tmp = Path(tempfile.mkdtemp(dir=root))
        args = []
        for a in task.args:
            value = inputs[a.name]
            if a.role == "scalar":
                args.append({"scalar": int(value) if a.dtype == "int" else float(value)})
            else:
                np.save(tmp / f"{a.name}.npy", np.ascontiguousarray(value))
                args.append({"array": a.name})
        (tmp / "args.json").write_text(json.dumps(args))
        try:
            os.rename(tmp, folder)
        except OSError:   # another judge made it meanwhile
            for f in tmp.iterdir():
                f.unlink()
            tmp.rmdir()
    return folder, json.loads(meta.read_text())
