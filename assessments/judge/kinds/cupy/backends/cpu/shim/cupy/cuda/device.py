"""cupy.cuda.Device for the one (pretend) H100 the CPU backend models."""
from __future__ import annotations

from _kpshim.errors import CUDARuntimeError

COMPUTE_CAPABILITY = "90"

ATTRIBUTES = {
    "MaxThreadsPerBlock": 1024, "MaxBlockDimX": 1024, "MaxBlockDimY": 1024, "MaxBlockDimZ": 64,
    "MaxGridDimX": 2147483647, "MaxGridDimY": 65535, "MaxGridDimZ": 65535,
    "MaxSharedMemoryPerBlock": 49152, "MaxSharedMemoryPerBlockOptin": 232448,
    "MaxSharedMemoryPerMultiprocessor": 233472, "TotalConstantMemory": 65536, "WarpSize": 32,
    "MaxRegistersPerBlock": 65536, "MaxRegistersPerMultiprocessor": 65536,
    "ClockRate": 1980000, "MemoryClockRate": 2619000, "GlobalMemoryBusWidth": 5120,
    "MultiProcessorCount": 132, "L2CacheSize": 52428800, "MaxThreadsPerMultiProcessor": 2048,
    "MaxBlocksPerMultiprocessor": 32, "ComputeCapabilityMajor": 9, "ComputeCapabilityMinor": 0,
    "ConcurrentKernels": 1, "EccEnabled": 1, "UnifiedAddressing": 1, "ManagedMemory": 1,
    "AsyncEngineCount": 3, "CooperativeLaunch": 1, "MaxPersistingL2CacheSize": 82837504,
}


def get_device_id() -> int:
    return 0


class Device:
    """cupy.cuda.Device(0); using any other id fails as it would on a one-GPU machine."""

    def __init__(self, device=None):
        self.id = 0 if device is None else int(device)

    def _check(self):
        if self.id != 0:
            raise CUDARuntimeError(101, "cudaErrorInvalidDevice: invalid device ordinal")

    def use(self):
        self._check()

    def __enter__(self):
        self._check()
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self):
        self._check()

    @property
    def compute_capability(self) -> str:
        return COMPUTE_CAPABILITY

    @property
    def attributes(self) -> dict:
        return dict(ATTRIBUTES)

    @property
    def mem_info(self) -> tuple:
        from cupy.cuda import runtime
        return runtime.memGetInfo()

    @property
    def pci_bus_id(self) -> str:
        return "0000:00:00.0"

    def __int__(self):
        return self.id

    def __index__(self):
        return self.id

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def __repr__(self):
        return f"<CUDA Device {self.id}>"
