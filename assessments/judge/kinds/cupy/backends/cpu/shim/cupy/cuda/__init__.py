"""Stand-in for `cupy.cuda` on the CPU backend: one pretend H100, synchronous streams."""
import contextlib as _contextlib

from _kpshim.array import MemoryPointer  # noqa: F401
from cupy.cuda import compiler, device, driver, function, memory, nvrtc, runtime, stream  # noqa: F401
from cupy.cuda.device import Device, get_device_id  # noqa: F401
from cupy.cuda.function import Function, Module  # noqa: F401
from cupy.cuda.memory import (  # noqa: F401
    MemoryPool, PinnedMemoryPool, alloc, get_allocator, get_default_memory_pool,
    get_default_pinned_memory_pool, malloc_managed, set_allocator, set_pinned_memory_allocator,
)
from cupy.cuda.stream import (  # noqa: F401
    Event, ExternalStream, Stream, get_current_stream, get_elapsed_time,
)


def is_available() -> bool:
    return True


def get_cuda_path():
    return None


def get_nvcc_path():
    return None


@_contextlib.contextmanager
def profile():
    yield


@_contextlib.contextmanager
def using_allocator(allocator=None):
    yield
