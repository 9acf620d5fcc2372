"""CPU backend, child side: CUDA C on the CPU (emulator/), the `cupy` stand-in (shim/, a sys.path
entry) and child.py, which sets them up in the child."""
