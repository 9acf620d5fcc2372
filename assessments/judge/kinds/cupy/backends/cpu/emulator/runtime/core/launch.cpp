// One launch: configuration checks, the run of every block under the safety nets, the failure
// path, and the device-side trap, assert and printf.
#include "launch.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include "bounds.h"
#include "fiber.h"
#include "profile.h"
#include "scheduler.h"
#include "shared.h"
#include "signals.h"

namespace kp::core {

LaunchDesc* g_L;
volatile sig_atomic_t g_in_launch;
sigjmp_buf g_jmp;
bool g_checking;

namespace {
bool g_mute;

[[noreturn]] void fail_v(int status, const char* fmt, va_list ap) {
    if (!g_in_launch) {
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        abort();
    }
    if (g_L->status == ST_OK) {
        g_L->status = status;
        vsnprintf(g_L->message, sizeof g_L->message, fmt, ap);
    }
    siglongjmp(g_jmp, 1);
}
}  // namespace

void where(char* buf, size_t n) {
    snprintf(buf, n, "thread (%u,%u,%u) of block (%u,%u,%u)", threadIdx.x, threadIdx.y, threadIdx.z,
             blockIdx.x, blockIdx.y, blockIdx.z);
}

void fail(int status, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fail_v(status, fmt, ap);
}

}  // namespace kp::core

namespace kp {
using namespace core;

int kp_run_grid(LaunchDesc* L, void (*run)(void*), void* ctx) {
    L->status = ST_OK;
    L->message[0] = 0;
    L->float_atomics = 0;
    uint64_t nt = uint64_t(L->block[0]) * L->block[1] * L->block[2];
    uint64_t nb = uint64_t(L->grid[0]) * L->grid[1] * L->grid[2];
    if (nt == 0 || nt > kMaxThreads || nb == 0) {
        L->status = ST_LAUNCH;
        snprintf(L->message, sizeof L->message, "invalid launch configuration: %llu threads per block, %llu blocks",
                 (unsigned long long)nt, (unsigned long long)nb);
        return L->status;
    }
    if (L->dyn_shared > kDynMax) {
        L->status = ST_LAUNCH;
        snprintf(L->message, sizeof L->message, "dynamic shared memory of %llu bytes exceeds %zu",
                 (unsigned long long)L->dyn_shared, kDynMax);
        return L->status;
    }
    g_L = L;
    gridDim = dim3(L->grid[0], L->grid[1], L->grid[2]);
    blockDim = dim3(L->block[0], L->block[1], L->block[2]);
    g_s.nthreads = unsigned(nt);
    g_s.bdx = L->block[0];
    g_s.bdy = L->block[1];
    g_s.bdz = L->block[2];
    g_s.reverse = L->reverse;
    g_s.run = run;
    g_s.ctx = ctx;
    g_s.cur = nullptr;
    g_s.float_atomics = 0;
    g_dyn_bytes = L->dyn_shared;
    g_checking = L->checking != 0;
    g_profiling = g_checking && L->profile;
    g_mute = (g_checking && L->reverse) || g_profiling;
    install_signals(L->timeout_s);
    if (sigsetjmp(g_jmp, 1) == 0) {
        g_in_launch = 1;
        if (g_checking) checking_begin(L);
        if (g_profiling) profile_launch_begin(L);
        run_blocks(L);
    } else {
        g_s.cur = nullptr;
        free_all_fibers();
    }
    g_in_launch = 0;
    restore_signals();
    if (g_checking) checking_end();
    g_profiling = false;
    L->float_atomics = g_s.float_atomics;
    fflush(stdout);
    return L->status;
}

[[noreturn]] void kp_trap(const char* what) {
    char w[128];
    where(w, sizeof w);
    fail(ST_LAUNCH, "%s in %s", what, w);
}

[[noreturn]] void kp_assert_fail(const char* expr, const char* file, int line) {
    char w[128];
    where(w, sizeof w);
    fail(ST_LAUNCH, "device-side assert triggered: %s:%d: Assertion `%s` failed in %s", file, line, expr, w);
}

void kp_note_float_atomic() { g_s.float_atomics = 1; }

int kp_printf(const char* fmt, ...) {
    if (g_mute) return 0;
    va_list ap;
    va_start(ap, fmt);
    int r = vprintf(fmt, ap);
    va_end(ap);
    return r;
}

}  // namespace kp
