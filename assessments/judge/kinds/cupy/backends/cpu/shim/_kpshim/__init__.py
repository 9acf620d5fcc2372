"""Private machinery behind the CPU stand-ins for `cupy` and `cupyx` (not part of their API)."""
