"""CPU backend: CUDA C on the CPU (emulator/) and the `cupy` stand-in (shim/, a sys.path entry)."""
