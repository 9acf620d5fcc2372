// Shared memory: static __shared__ variables in one reserved arena, sorted by address, and the
// dynamic area between inaccessible gaps.
#pragma once
#include "core.h"

#pragma GCC visibility push(hidden)
namespace kp::core {

constexpr size_t kShArena = 4u << 20;
constexpr size_t kDynGap = 64 * 1024;
constexpr size_t kDynMax = 232448;  // 227 KiB, the most a block may opt in to on sm_90
extern char g_dyn_area[kDynGap + kDynMax + kDynGap];

struct ShVar { char* p; size_t size; const char* name; size_t itemsize; int rank; };
extern char* g_sh_base;
extern ShVar g_shvars[512];
extern unsigned g_nshvars;
extern size_t g_dyn_bytes;  // the launch's dynamic shared memory

// Unwritten shared memory reads as 0xFF bytes (a NaN as float, -1 as int) in every block.
void poison_shared();

// "__shared__ name[index]" or the dynamic area's byte offset at `a`, for reports.
void fmt_shared(uintptr_t a, char* out, size_t n);

}  // namespace kp::core
#pragma GCC visibility pop
