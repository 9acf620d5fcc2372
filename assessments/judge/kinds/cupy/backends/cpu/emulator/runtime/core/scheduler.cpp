// Blocks run one after another; in each, runner fibers call the kernel for one thread after
// another, and a thread that blocks keeps its runner. The block barrier and deadlock reports.
#include "scheduler.h"

#include <cstdio>

#include "launch.h"
#include "profile.h"
#include "race.h"
#include "shared.h"
#include "warp.h"

uint3 threadIdx;
uint3 blockIdx;
dim3 blockDim;
dim3 gridDim;

namespace kp {
Sched g_s;
}  // namespace kp

namespace kp::core {

Block g_b;
void* g_main_sp;

namespace {
[[noreturn]] void fiber_entry();
}  // namespace

Fiber* new_runner() {
    Fiber* f = take_fiber();
    f->bound = 0;
    uint64_t* top = reinterpret_cast<uint64_t*>(f->stack_top);
    uint64_t* sp = top - 8;
    for (int i = 0; i < 6; i++) sp[i] = 0;                     // r15 r14 r13 r12 rbx rbp
    sp[6] = reinterpret_cast<uint64_t>(&fiber_entry);         // "return address"
    sp[7] = 0;
    f->sp = sp;
    return f;
}

namespace {

[[noreturn]] void report_deadlock(const char* lead) {
    char buf[3000];
    size_t n = 0;
    unsigned exited = g_s.nthreads - g_b.live_bound;
    n += snprintf(buf + n, sizeof buf - n, "%sblock (%u,%u,%u) of %u threads cannot finish:", lead,
                  blockIdx.x, blockIdx.y, blockIdx.z, g_s.nthreads);
    if (g_b.nwait)
        n += snprintf(buf + n, sizeof buf - n, " %u thread(s) wait at __syncthreads() (line %d);",
                      g_b.nwait, g_b.bar_line);
    for (unsigned w = 0; w < g_b.nwarps && n < sizeof buf - 200; w++)
        for (unsigned s = 0; s < kCollSlots; s++) {
            WarpColl& c = g_b.coll[w][s];
            if (!c.active) continue;
            unsigned missing = c.mask & lanes_present(w) & ~c.arrived & ~lanes_exited(w);
            n += snprintf(buf + n, sizeof buf - n,
                          " lanes 0x%08x of warp %u wait in %s (line %d, mask 0x%08x) for lanes 0x%08x;",
                          c.arrived, w, wop_name(c.kind), c.line, c.mask, missing);
        }
    snprintf(buf + n, sizeof buf - n, " %u thread(s) exited without reaching %s", exited,
             g_b.nwait ? "the barrier" : "the warp operation");
    fail(ST_DEADLOCK, "%s", buf);
}

void begin_block(uint64_t linear_block) {
    g_s.next = 0;
    g_b.bar_arrived = 0;
    g_b.bar_count = 0;
    g_b.nwait = 0;
    g_b.rhead = g_b.rtail = 0;
    g_b.ready = g_b.lists[0];
    g_b.bar_wait = g_b.lists[1];
    g_b.live_bound = 0;
    g_b.nwarps = (g_s.nthreads + 31) / 32;
    for (unsigned w = 0; w < g_b.nwarps; w++) {
        g_b.alive[w] = 0;
        g_b.wp[w] = 0;
        for (unsigned s = 0; s < kCollSlots; s++) g_b.coll[w][s].active = 0;
    }
    poison_shared();
    if (g_profiling) profile_block_begin();
    else if (g_checking) note_block_start(linear_block);
}

void run_block() {
    Fiber* f = new_runner();
    resume(f, &g_main_sp);
    for (;;) {
        if (g_b.live_bound == 0 && g_s.next >= g_s.nthreads) break;
        if (release_warps()) {
            resume(pop_ready(), &g_main_sp);
            continue;
        }
        report_deadlock("deadlock: ");
    }
    if (g_profiling) profile_block_end();
    else if (g_checking) check_suspects();
}

[[noreturn]] void fiber_entry() {
    g_s.run(g_s.ctx);
    Fiber* f = g_s.cur;
    if (f->bound) {
        unsigned w = f->tid >> 5;
        g_b.alive[w] &= ~(1u << (f->tid & 31));
        g_b.live_bound--;
        f->bound = 0;
        for (unsigned s = 0; s < kCollSlots; s++) {
            WarpColl& c = g_b.coll[w][s];
            if (c.active && coll_complete(w, c)) coll_finish(w, c, -1);
        }
    }
    Fiber* n = pop_ready();
    if (!n && g_s.next < g_s.nthreads) n = new_runner();
    give_fiber(f);
    void* dead;
    if (n) resume(n, &dead);
    else to_main(&dead);
    __builtin_unreachable();
}

[[noreturn]] __attribute__((noinline, cold)) void barrier_sites_differ(int line) {
    char w[128];
    where(w, sizeof w);
    fail(ST_DEADLOCK,
         "deadlock: threads of block (%u,%u,%u) wait at different __syncthreads() calls: %u "
         "thread(s) at line %d, %s at line %d (a barrier must be reached by every thread of the "
         "block at the same place)",
         blockIdx.x, blockIdx.y, blockIdx.z, g_b.bar_arrived, g_b.bar_line, w, line);
}

}  // namespace

__attribute__((noinline)) void run_blocks(const LaunchDesc* L) {
    uint64_t gx = L->grid[0], gy = L->grid[1], nb = gx * gy * L->grid[2];
    for (uint64_t i = 0; i < nb; i++) {
        uint64_t b = L->reverse ? nb - 1 - i : i;
        if (g_profiling && !profile_runs_block(b)) continue;
        blockIdx.x = unsigned(b % gx);
        blockIdx.y = unsigned((b / gx) % gy);
        blockIdx.z = unsigned(b / (gx * gy));
        begin_block(b);
        run_block();
    }
}

}  // namespace kp::core

namespace kp {
using namespace core;

unsigned kp_barrier(int line, int pred) {
    Fiber* f = g_s.cur;
    if (__builtin_expect(!f, 0)) fail(ST_LAUNCH, "__syncthreads() called outside a kernel");
    if (!f->bound) bind(f);
    if (g_profiling) profile_barrier(line);
    Block& b = g_b;
    if (b.bar_arrived == 0) {
        b.bar_line = line;
        b.bar_count = 0;
    } else if (__builtin_expect(line != b.bar_line, 0)) {
        barrier_sites_differ(line);
    }
    b.bar_count += pred != 0;
    if (++b.bar_arrived == g_s.nthreads) {
        if (g_profiling) profile_barrier_passed();
        unsigned cnt = b.bar_count;
        b.bar_result = cnt;
        if (b.rhead == b.rtail) {
            // Usual case: nothing else is runnable, so the wait list becomes the ready queue.
            Fiber** t = b.ready;
            b.ready = b.bar_wait;
            b.bar_wait = t;
            b.rhead = 0;
            b.rtail = b.nwait;
        } else {
            for (unsigned i = 0; i < b.nwait; i++) push_ready(b.bar_wait[i]);
        }
        b.nwait = 0;
        b.bar_arrived = 0;
        new_phase();
        return cnt;
    }
    b.bar_wait[b.nwait++] = f;
    suspend(f);
    return b.bar_result;
}

}  // namespace kp
