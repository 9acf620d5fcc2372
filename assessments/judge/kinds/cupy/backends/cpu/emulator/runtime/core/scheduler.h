// The running block: its threads' fibers in a ready queue, the barrier, the warps' state, and the
// switches between fibers (inline: they are the emulator's hot path).
#pragma once
#include "fiber.h"

#pragma GCC visibility push(hidden)
namespace kp::core {

constexpr unsigned kMaxThreads = 1024;
constexpr unsigned kMaxWarps = kMaxThreads / 32;
constexpr unsigned kCollSlots = 4;

struct WarpColl {
    int active;
    int kind;
    unsigned mask;
    unsigned arrived;
    int width;
    int line;
    uint64_t vals[32];
    int params[32];
    Fiber* fibers[32];
};

struct Block {
    unsigned bar_arrived;
    unsigned bar_count;
    unsigned bar_result;     // count of the last completed barrier (for __syncthreads_count)
    int bar_line;
    unsigned nwait;
    Fiber** bar_wait;        // points at one of lists[], the other is the ready queue
    Fiber** ready;           // ring of 2 * kMaxThreads entries
    unsigned rhead, rtail;
    Fiber* lists[2][kMaxThreads * 2];
    unsigned live_bound;
    unsigned nwarps;
    unsigned alive[kMaxWarps];
    unsigned wp[kMaxWarps];  // warp-sync epoch: completed collectives per warp
    WarpColl coll[kMaxWarps][kCollSlots];
};

extern Block g_b;
extern void* g_main_sp;

Fiber* new_runner();
void run_blocks(const LaunchDesc* L);

inline void push_ready(Fiber* f) { g_b.ready[g_b.rtail++ % (kMaxThreads * 2)] = f; }
inline __attribute__((always_inline)) Fiber* pop_ready() {
    if (g_b.rhead == g_b.rtail) return nullptr;
    return g_b.ready[g_b.rhead++ % (kMaxThreads * 2)];
}

inline __attribute__((always_inline)) void resume(Fiber* to, void** save) {
    g_s.cur = to;
    if (to->bound) {
        threadIdx = to->idx;
        g_s.tid_linear = to->tid;
    }
    kp_switch_ctx(save, to->sp);
}

inline void to_main(void** save) {
    g_s.cur = nullptr;
    kp_switch_ctx(save, g_main_sp);
}

// Leave the running fiber (which stays suspended) for the next runnable one.
inline __attribute__((always_inline)) void suspend(Fiber* f) {
    Fiber* n = pop_ready();
    if (g_b.rhead != g_b.rtail) {
        // With hundreds of fibers their stacks do not stay in L1: fetch the saved registers of
        // the fiber after the next one, and the record (holding the stack pointer) of the one
        // after that, so that no load waits on another miss.
        Fiber* m = g_b.ready[g_b.rhead % (kMaxThreads * 2)];
        char* sp = static_cast<char*>(m->sp);
        __builtin_prefetch(sp);
        __builtin_prefetch(sp + 64);
        __builtin_prefetch(sp + 128);
        __builtin_prefetch(sp + 192);
        if (g_b.rhead + 1 != g_b.rtail) __builtin_prefetch(g_b.ready[(g_b.rhead + 1) % (kMaxThreads * 2)]);
    }
    if (!n && g_s.next < g_s.nthreads) n = new_runner();
    if (n) resume(n, &f->sp);
    else to_main(&f->sp);
}

inline unsigned linear_tid(uint3 i) { return i.x + g_s.bdx * (i.y + g_s.bdy * i.z); }

// A runner that blocks becomes its thread's own fiber.
inline __attribute__((always_inline)) void bind(Fiber* f) {
    f->bound = 1;
    f->idx = threadIdx;
    g_s.resume_idx = threadIdx;  // only the newest runner binds: the next runner starts after it
    f->tid = linear_tid(threadIdx);
    g_s.nbind++;
    g_s.next = (g_s.reverse ? g_s.nthreads - 1 - f->tid : f->tid) + 1;  // runners do not keep it
    g_s.tid_linear = f->tid;
    g_b.live_bound++;
    g_b.alive[f->tid >> 5] |= 1u << (f->tid & 31);
}

}  // namespace kp::core
#pragma GCC visibility pop
