"""Execution backends: `cpu` (emulator + CuPy stand-in) and `cuda` (real CuPy on a GPU)."""
