"""The `stage` fixture of the hostile-submission suite (hostile_stage.py has the rest)."""
from __future__ import annotations

import secrets
import tempfile
from pathlib import Path

import pytest

from assessments.judge import sandbox
from hostile_stage import ROOT, Listener, Stage, cache_listing


@pytest.fixture
def stage(tmp_path, monkeypatch):
    token = secrets.token_hex(12)
    secret = f"kp-canary-{token}"
    (ROOT / "instance").mkdir(exist_ok=True)
    canaries = [ROOT / "instance" / f"hostile-canary-{token}.txt", tmp_path / "canary.txt",
                Path("/tmp") / f"kp-hostile-canary-{token}.txt"]
    for c in canaries:
        c.write_text(secret + "\n")
    outside = [ROOT / "instance" / f"hostile-written-{token}", ROOT / f"hostile-written-{token}",
               tmp_path / "written", Path("/tmp") / f"kp-hostile-written-{token}",
               Path(sandbox.emulator_cache_dir()) / f"planted-{token}.so",
               Path.home() / f"hostile-written-{token}", Path("/dev/shm") / f"kp-hostile-{token}",
               Path("/var/tmp") / f"kp-hostile-{token}"]
    env_secrets = {"KERNELPATH_SECRET_KEY": f"sk-{token}",
                   "DATABASE_URL": f"postgresql://judge:pw-{token}@db/kp"}
    for k, v in env_secrets.items():
        monkeypatch.setenv(k, v)
    # The judge's scratch dirs land in this test's tmp dir, so leftovers can be found by path.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    listener = Listener()
    st = Stage(token, secret, canaries, outside, listener, tmp_path, env_secrets, cache_listing())
    yield st
    listener.close()
    for p in canaries + outside:
        try:
            p.unlink()
        except OSError:
            pass
