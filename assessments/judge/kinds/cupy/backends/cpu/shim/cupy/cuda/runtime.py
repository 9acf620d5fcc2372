"""cupy.cuda.runtime: the calls candidates make, answered for one H100 (sm_90)."""
from __future__ import annotations

from _kpshim.errors import CUDARuntimeError  # noqa: F401

from .device import ATTRIBUTES

is_hip = False
cudaDevAttrMaxThreadsPerBlock = 1
cudaDevAttrMaxBlockDimX = 2
cudaDevAttrMaxBlockDimY = 3
cudaDevAttrMaxBlockDimZ = 4
cudaDevAttrMaxGridDimX = 5
cudaDevAttrMaxGridDimY = 6
cudaDevAttrMaxGridDimZ = 7
cudaDevAttrMaxSharedMemoryPerBlock = 8
cudaDevAttrTotalConstantMemory = 9
cudaDevAttrWarpSize = 10
cudaDevAttrMaxRegistersPerBlock = 12
cudaDevAttrClockRate = 13
cudaDevAttrMultiProcessorCount = 16
cudaDevAttrMemoryClockRate = 36
cudaDevAttrGlobalMemoryBusWidth = 37
cudaDevAttrL2CacheSize = 38
cudaDevAttrMaxThreadsPerMultiProcessor = 39
cudaDevAttrComputeCapabilityMajor = 75
cudaDevAttrComputeCapabilityMinor = 76
cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81
cudaDevAttrMaxRegistersPerMultiprocessor = 82
cudaDevAttrMaxSharedMemoryPerBlockOptin = 97

_ATTR_BY_CODE = {
    1: "MaxThreadsPerBlock", 2: "MaxBlockDimX", 3: "MaxBlockDimY", 4: "MaxBlockDimZ",
    5: "MaxGridDimX", 6: "MaxGridDimY", 7: "MaxGridDimZ", 8: "MaxSharedMemoryPerBlock",
    9: "TotalConstantMemory", 10: "WarpSize", 12: "MaxRegistersPerBlock", 13: "ClockRate",
    16: "MultiProcessorCount", 36: "MemoryClockRate", 37: "GlobalMemoryBusWidth",
    38: "L2CacheSize", 39: "MaxThreadsPerMultiProcessor", 75: "ComputeCapabilityMajor",
    76: "ComputeCapabilityMinor", 81: "MaxSharedMemoryPerMultiprocessor",
    82: "MaxRegistersPerMultiprocessor", 97: "MaxSharedMemoryPerBlockOptin",
}

TOTAL_MEMORY = 85_031_714_816

_PROPERTIES = {
    "name": b"NVIDIA H100 80GB HBM3", "totalGlobalMem": TOTAL_MEMORY,
    "sharedMemPerBlock": 49152, "regsPerBlock": 65536, "warpSize": 32, "memPitch": 2147483647,
    "maxThreadsPerBlock": 1024, "maxThreadsDim": (1024, 1024, 64),
    "maxGridSize": (2147483647, 65535, 65535), "clockRate": 1980000, "totalConstMem": 65536,
    "major": 9, "minor": 0, "textureAlignment": 512, "texturePitchAlignment": 32,
    "deviceOverlap": 1, "multiProcessorCount": 132, "kernelExecTimeoutEnabled": 0,
    "integrated": 0, "canMapHostMemory": 1, "computeMode": 0, "concurrentKernels": 1,
    "ECCEnabled": 1, "pciBusID": 0, "pciDeviceID": 0, "pciDomainID": 0, "tccDriver": 0,
    "asyncEngineCount": 3, "unifiedAddressing": 1, "memoryClockRate": 2619000,
    "memoryBusWidth": 5120, "l2CacheSize": 52428800, "persistingL2CacheMaxSize": 82837504,
    "maxThreadsPerMultiProcessor": 2048, "streamPrioritiesSupported": 1,
    "globalL1CacheSupported": 1, "localL1CacheSupported": 1,
    "sharedMemPerMultiprocessor": 233472, "regsPerMultiprocessor": 65536, "managedMemory": 1,
    "isMultiGpuBoard": 0, "multiGpuBoardGroupID": 0, "singleToDoublePrecisionPerfRatio": 2,
    "pageableMemoryAccess": 0, "concurrentManagedAccess": 1, "computePreemptionSupported": 1,
    "canUseHostPointerForRegisteredMem": 1, "cooperativeLaunch": 1,
    "cooperativeMultiDeviceLaunch": 0, "sharedMemPerBlockOptin": 232448,
    "pageableMemoryAccessUsesHostPageTables": 0, "directManagedMemAccessFromHost": 0,
    "maxBlocksPerMultiProcessor": 32, "accessPolicyMaxWindowSize": 134213632,
    "reservedSharedMemPerBlock": 1024, "uuid": b"\x00" * 16, "luid": b"\x00" * 8,
}


def _device(device: int) -> None:
    if int(device) != 0:
        raise CUDARuntimeError(101, "cudaErrorInvalidDevice: invalid device ordinal")


def getDeviceProperties(device: int = 0) -> dict:
    _device(device)
    return dict(_PROPERTIES)


def deviceGetAttribute(attrib: int, device: int = 0) -> int:
    _device(device)
    try:
        return ATTRIBUTES[_ATTR_BY_CODE[int(attrib)]]
    except KeyError:
        raise CUDARuntimeError(1, "cudaErrorInvalidValue: invalid argument") from None


def deviceSynchronize() -> None:
    return None


def streamSynchronize(stream=0) -> None:
    return None


def getDevice() -> int:
    return 0


def setDevice(device: int) -> None:
    _device(device)


def getDeviceCount() -> int:
    return 1


def runtimeGetVersion() -> int:
    return 13000


def driverGetVersion() -> int:
    return 13000


def memGetInfo() -> tuple:
    return (TOTAL_MEMORY - 512 * 1024 * 1024, TOTAL_MEMORY)


def deviceCanAccessPeer(device: int, peer: int) -> int:
    return 0


def getLastError() -> int:
    return 0


def peekAtLastError() -> int:
    return 0
