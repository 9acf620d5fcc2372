"""The profile's counters against what is known exactly (runtime/core/profile.cpp through
Kernel.profile): grids of at most 16 blocks run whole, so nothing is scaled."""
from __future__ import annotations

import numpy as np
import pytest

from assessments.judge.kinds.cupy.backends.cpu.emulator import compile_module
from assessments.judge.kinds.cupy.backends.cpu.emulator.profile_map import CLASSES
from assessments.judge.kinds.cupy.perfmodel import whole_site


def _profile(source: str, name: str, grid, block, args, shared_mem: int = 0) -> dict:
    counters = compile_module(source).get_function(name).profile(grid, block, args, shared_mem)
    assert counters["totals"]["blocks_run"] == counters["totals"]["blocks_total"]
    assert counters["totals"]["dropped"] == 0
    return counters


def _site(counters: dict, kind: int, space: int) -> dict:
    """One site's counters for all its executions, as the model reads them (whole_site)."""
    (site,) = [s for s in counters["sites"] if s["kind"] == kind and s["space"] == space]
    return whole_site(site)


COPY = r'''
extern "C" __global__ void copy(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = a[i];
}
'''


def test_a_coalesced_copy_moves_4n_bytes_in_full_sectors():
    n = 4096
    a = np.arange(n, dtype=np.float32)
    b = np.zeros(n, np.float32)
    c = _profile(COPY, "copy", (n // 256,), (256,), [a, b, np.int32(n)])
    load, store = _site(c, 0, 0), _site(c, 1, 0)
    for s in (load, store):
        assert s["bytes"] == 4 * n and s["requests"] == n // 32
        assert s["sectors"] == s["ideal"] == 4 * n // 32          # 100% efficiency
    read, written = c["buffers"][c["arrays"].index("a")], c["buffers"][c["arrays"].index("b")]
    assert read["read"] * 32 == 4 * n and written["written"] * 32 == 4 * n
    assert np.array_equal(b, a)    # the profiled run is the kernel's run


TRANSPOSE = r'''
extern "C" __global__ void transpose(const float* a, float* b, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) b[(size_t)c * rows + r] = a[(size_t)r * cols + c];
}
'''


def test_a_transpose_that_writes_columns_stores_at_one_eighth_efficiency():
    rows = cols = 64
    a = np.ones((rows, cols), np.float32)
    b = np.zeros((cols, rows), np.float32)
    c = _profile(TRANSPOSE, "transpose", (cols // 32, rows // 16), (32, 16),
                 [a, b, np.int32(rows), np.int32(cols)])
    load, store = _site(c, 0, 0), _site(c, 1, 0)
    assert load["ideal"] / load["sectors"] == 1.0
    assert store["ideal"] / store["sectors"] == 0.125           # 4 of 32 bytes per sector
    assert store["sectors"] == 32 * store["requests"]


TILE = r'''
extern "C" __global__ void tile(const float* a, float* out) {
    __shared__ float t[32][WIDTH];
    int x = threadIdx.x, y = threadIdx.y;
    t[y][x] = a[y * 32 + x];
    __syncthreads();
    out[y * 32 + x] = t[x][y];      // a column of the tile per warp
}
'''


@pytest.mark.parametrize("width,ways", [(32, 32), (33, 1)])
def test_a_tile_read_by_column_conflicts_32_ways_unless_padded(width, ways):
    a = np.arange(1024, dtype=np.float32)
    out = np.zeros(1024, np.float32)
    c = _profile(TILE.replace("WIDTH", str(width)), "tile", (1,), (32, 32), [a, out])
    write, read = _site(c, 1, 1), _site(c, 0, 1)
    assert write["wavefronts"] == write["ideal"] == 32           # rows: one pass each
    assert read["requests"] == 32 and read["wavefronts"] == ways * read["requests"]
    assert np.array_equal(out, a.reshape(32, 32).T.ravel())
    barrier = [x for x in c["lines"] if x["what"] == 0]
    assert barrier and barrier[0]["count"] == 1024                # every thread, once


ATOMIC = r'''
extern "C" __global__ void count(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&out[0], 1);
}
'''


def test_atomic_add_on_one_address_counts_every_thread_as_contended():
    n = 4096
    out = np.zeros(1, np.int32)
    c = _profile(ATOMIC, "count", (n // 256,), (256,), [out, np.int32(n)])
    s = _site(c, 2, 0)
    assert s["accesses"] == n and s["addresses"] == 1 and s["max_same"] == n
    assert s["shared_addr"] == 1                                 # every block updates it
    assert out[0] == n


def test_counters_are_attributed_to_the_kernels_lines():
    module = compile_module(COPY)
    n = 1024
    counters = module.get_function("copy").profile((4,), (256,), [np.ones(n, np.float32),
                                                                 np.zeros(n, np.float32), np.int32(n)])
    pmap = module.built(True).meta["profile_map"]
    lines = {pmap["calls"][format(s["pc"], "x")] for s in counters["sites"]}
    assert lines == {4}                                           # b[i] = a[i];
    executed = {row[0] for bb in counters["blocks"] for row in pmap["blocks"].get(format(bb["pc"], "x"), [])}
    assert {3, 4} <= executed


def _per_thread(source: str, dtype, n: int = 4096) -> dict:
    """Instructions by class per thread of an elementwise add of n elements (profile and map)."""
    module = compile_module(source, checking=True)
    counters = module.get_function("add").profile(
        (n // 256,), (256,), [np.ones(n, dtype), np.ones(n, dtype), np.zeros(n, dtype), np.int32(n)])
    pmap = module.meta["profile_map"]
    total = dict.fromkeys(CLASSES, 0)
    for bb in counters["blocks"]:
        for _, *counts in pmap["blocks"].get(format(bb["pc"], "x"), []):
            for cls, v in zip(CLASSES, counts):
                total[cls] += v * bb["thread_hits"]
    return {cls: v / n for cls, v in total.items()}


ADD = r'''
#include <cuda_fp16.h>
extern "C" __global__ void add(const T* a, const T* b, T* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = OP;
}
'''


def test_half_precision_arithmetic_counts_as_fp16_operations_not_its_software_conversions():
    half = _per_thread(ADD.replace("T*", "__half*").replace("OP", "__hadd(a[i], b[i])"), np.float16)
    single = _per_thread(ADD.replace("T*", "float*").replace("OP", "a[i] + b[i]"), np.float32)
    assert (half["fp16"], half["fp32"]) == (1, 0) and (single["fp32"], single["fp16"]) == (1, 0)
    issued = lambda c: c["fp"] + c["int"] + c["mem"] + c["ctrl"]   # noqa: E731
    assert issued(half) <= 1.5 * issued(single), (half, single)   # not the conversions' dozens
