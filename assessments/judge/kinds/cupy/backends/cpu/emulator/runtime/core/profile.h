// Profiling mode of the instrumented build: the per-access and per-basic-block callbacks count
// what an Nsight Compute source view shows (sectors per warp request, shared-memory wavefronts,
// atomics, barriers, warp collectives, instructions per warp), on a sample of the grid's blocks.
#pragma once
#include "core.h"

#pragma GCC visibility push(hidden)
namespace kp::core {

struct GBuf;

extern bool g_profiling;   // the running launch is profiled (a checking build, run once)

bool profile_runs_block(uint64_t linear_block);   // whether the sample includes this block
void profile_launch_begin(const LaunchDesc* L);
void profile_block_begin();
void profile_block_end();
void profile_global(const GBuf* b, uintptr_t a, unsigned n, int kind, uintptr_t pc);
void profile_shared(uintptr_t a, unsigned n, int kind, uintptr_t pc);
void profile_barrier(int line);
void profile_barrier_passed();   // every thread of the block arrived
void profile_warp_op(int line);

}  // namespace kp::core
#pragma GCC visibility pop
