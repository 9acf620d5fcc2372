"""The judge's child on the fake GPU: this folder (the fake cupy) comes first on sys.path.

Usage as a judge wrapper: [python, -s, -B, child_entry.py, --fake-mode MODE, --backend cuda, ...].
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if sys.path[0] != HERE:
    sys.path.insert(0, HERE)

args = sys.argv[1:]
if args[:1] == ["--fake-mode"]:
    os.environ["KP_FAKE_GPU_MODE"] = args[1]
    args = args[2:]

from assessments.judge.kinds.cupy import child  # noqa: E402

sys.exit(child.main(args))
