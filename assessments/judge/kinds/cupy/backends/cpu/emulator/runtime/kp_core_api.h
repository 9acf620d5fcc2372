// Entry points of the emulator core that compiled kernels call.
#pragma once
#include <cstddef>
#include <cstdint>
#include "kp_types.h"

namespace kp {

enum WarpOp : int {
    WOP_SHFL_IDX = 1, WOP_SHFL_UP, WOP_SHFL_DOWN, WOP_SHFL_XOR, WOP_BALLOT, WOP_ANY, WOP_ALL,
    WOP_SYNC, WOP_MATCH_ANY, WOP_MATCH_ALL, WOP_RED_ADD, WOP_RED_MIN, WOP_RED_MAX, WOP_RED_AND,
    WOP_RED_OR, WOP_RED_XOR,
};

KP_HIDDEN int kp_run_grid(LaunchDesc* L, void (*run)(void*), void* ctx);
KP_HIDDEN unsigned kp_barrier(int line, int pred);
KP_HIDDEN uint64_t kp_warp_op(int kind, unsigned mask, uint64_t val, int param, int width, int line);
KP_HIDDEN unsigned kp_activemask();
[[noreturn]] KP_HIDDEN void kp_trap(const char* what);
[[noreturn]] KP_HIDDEN void kp_assert_fail(const char* expr, const char* file, int line);
KP_HIDDEN void kp_note_float_atomic();
KP_HIDDEN int kp_printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
KP_HIDDEN void* kp_shared_alloc(size_t size, size_t align, const char* name, size_t itemsize, int rank);
KP_HIDDEN void kp_atomic_access(const volatile void* p, unsigned n, void* pc);
extern KP_HIDDEN char* const kp_dyn_smem;

}  // namespace kp
