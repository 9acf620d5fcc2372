#!/usr/bin/env bash
# The cuda backend checked on a GPU machine in one go (bench/gpu_check.py; at most about 8
# minutes). On a machine without bubblewrap the children run unsandboxed: only the project's own
# solutions and fixtures are judged here. Results: $OUT (or bench/results) / cuda-<device>.json,
# gpu-check.log, pytest-gpu.log.
#   bash bench/gpu_check.sh [STEP...]        (steps: see bench/gpu_check.py --help)
set -u
cd "$(dirname "$0")/.."
OUT="${OUT:-bench/results}"
mkdir -p "$OUT"
PY="${PYTHON:-python3}"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export KERNELPATH_GPU_CACHE="${KERNELPATH_GPU_CACHE:-$(mktemp -d)}"
export KERNELPATH_EMULATOR_CACHE="${KERNELPATH_EMULATOR_CACHE:-$(mktemp -d)}"
UNSAFE=""
command -v bwrap >/dev/null 2>&1 || UNSAFE="--unsafe-no-sandbox"
"$PY" bench/gpu_check.py --out "$OUT" --deadline-s "${DEADLINE_S:-420}" $UNSAFE "$@" 2>&1 | tee "$OUT/gpu-check.log"
