"""Memory pools: host memory backs every device array, so the pools only answer questions."""
from __future__ import annotations

import numpy

from _kpshim.array import MemoryPointer


class _Chunk:
    """Keeps the host buffer of a raw allocation alive."""

    def __init__(self, size: int):
        self.buffer = numpy.empty(max(int(size), 1), numpy.uint8)


def alloc(size):
    """cupy.cuda.alloc: raw bytes, returned as a MemoryPointer."""
    chunk = _Chunk(size)
    return MemoryPointer(chunk, chunk.buffer.ctypes.data, int(size))


def malloc_managed(size):
    return alloc(size)


class MemoryPool:
    """cupy.cuda.MemoryPool: nothing is cached, so there is never anything to free."""

    def __init__(self, allocator=None):
        self._limit = 0

    def malloc(self, size):
        return alloc(size)

    def free_all_blocks(self, stream=None):
        return None

    def free_all_free(self):
        return None

    def n_free_blocks(self) -> int:
        return 0

    def used_bytes(self) -> int:
        return 0

    def free_bytes(self) -> int:
        return 0

    def total_bytes(self) -> int:
        return 0

    def set_limit(self, size=None, fraction=None):
        self._limit = int(size or 0)

    def get_limit(self) -> int:
        return self._limit


class PinnedMemoryPool(MemoryPool):
    pass


_pool = MemoryPool()
_pinned = PinnedMemoryPool()
_allocator = [_pool.malloc]


def get_default_memory_pool() -> MemoryPool:
    return _pool


def get_default_pinned_memory_pool() -> PinnedMemoryPool:
    return _pinned


def set_allocator(allocator=None):
    _allocator[0] = allocator or _pool.malloc


def get_allocator():
    return _allocator[0]


def set_pinned_memory_allocator(allocator=None):
    return None
