#!/usr/bin/env bash
# Bubblewrap for a GPU machine that has none (no apt there): this machine's bwrap and the
# libraries it links, in .gpu_tools/ (bwrap, lib/). Carry the folder to the GPU machine and run
#   KERNELPATH_BWRAP_DIR=$PWD/.gpu_tools bash bench/gpu_check.sh sandbox ...
# The sandbox step uses it; lib/ only where the machine's own libraries do not serve it.
# .gpu_tools/ is a build output (.gitignore).
set -eu
cd "$(dirname "$0")/.."
bwrap="$(command -v bwrap || true)"
if [ -z "$bwrap" ]; then
  echo "bubblewrap is not installed here: make system-deps" >&2
  exit 1
fi
rm -rf .gpu_tools
mkdir -p .gpu_tools/lib
cp "$bwrap" .gpu_tools/bwrap
ldd "$bwrap" | awk '/=> \// {print $3}' | while read -r lib; do cp -L "$lib" .gpu_tools/lib/; done
echo "$(.gpu_tools/bwrap --version) in .gpu_tools/ with $(ls .gpu_tools/lib | wc -l) libraries"
