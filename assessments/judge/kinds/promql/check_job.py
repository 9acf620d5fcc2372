"""The compile sandbox's job for rule files: `promtool check rules` (YAML, the rules' fields,
PromQL and templates), the stage before any test.

    stdin:  {"promtool": "/usr/bin/promtool", "source": "<the rule file>"}
    stdout: {"ok": true, "log": "...", "rules": 4} | {"ok": false, "log": "rules.yml: 5:11: ..."}
"""
from __future__ import annotations

import re
import subprocess
import sys

from ...protocol import answer_job

FILE = "rules.yml"
TIMEOUT_S = 30
LOG_CAP = 64 * 1024


def run(job: dict) -> dict:
    with open(FILE, "w") as fh:
        fh.write(job["source"])
    try:
        done = subprocess.run([job["promtool"], "check", "rules", "--lint=none", FILE], capture_output=True,
                              text=True, errors="replace", timeout=TIMEOUT_S, env={"GOMAXPROCS": "2"})
    except subprocess.TimeoutExpired:
        return {"ok": False, "log": f"promtool took longer than {TIMEOUT_S} s to read the rule file"}
    log = (done.stdout + done.stderr).strip()[:LOG_CAP]
    found = re.search(r"SUCCESS: (\d+) rules found", log)
    if done.returncode != 0 or not found:
        return {"ok": False, "log": log or f"promtool exited with {done.returncode}"}
    return {"ok": True, "log": log, "rules": int(found.group(1))}


if __name__ == "__main__":
    sys.exit(answer_job(run))
