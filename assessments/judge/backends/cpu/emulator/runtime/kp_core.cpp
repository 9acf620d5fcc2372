// Emulator core: fibers, block scheduling, barriers, warp collectives, launch safety nets and the
// checking-mode memory hooks. Compiled once (never instrumented) and linked into every module.
#include <csetjmp>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pthread.h>

#define KP_CORE 1
#include "kp_types.h"
#include "kp_core_api.h"

uint3 threadIdx;
uint3 blockIdx;
dim3 blockDim;
dim3 gridDim;

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

// Context switch: saves the callee-saved registers on the current stack, stores the stack
// pointer in *save and continues on `to`. A plain function call, so no system call per switch.
extern "C" void kp_switch_ctx(void** save, void* to);
asm(R"(
    .text
    .p2align 4
    .globl kp_switch_ctx
    .hidden kp_switch_ctx
    .type kp_switch_ctx,@function
kp_switch_ctx:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size kp_switch_ctx, .-kp_switch_ctx
)");

namespace kp {

Sched g_s;

namespace {

constexpr unsigned kMaxThreads = 1024;
constexpr unsigned kMaxWarps = kMaxThreads / 32;
constexpr unsigned kCollSlots = 4;
constexpr size_t kPage = 4096;
size_t g_stack_bytes = 64 * 1024;

constexpr int W_BARRIER = 100;  // wop_name() code for the block barrier

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
    unsigned wp[kMaxWarps];
    WarpColl coll[kMaxWarps][kCollSlots];
};

Block g_b;
void* g_main_sp;
LaunchDesc* g_L;
volatile sig_atomic_t g_in_launch;
sigjmp_buf g_jmp;

Fiber** g_fibers;          // every fiber ever made (they are reused, never freed)
unsigned g_nfibers, g_capfibers;
Fiber* g_free;

// ---- failure reporting ------------------------------------------------------------------------
void where(char* buf, size_t n) {
    snprintf(buf, n, "thread (%u,%u,%u) of block (%u,%u,%u)", threadIdx.x, threadIdx.y, threadIdx.z,
             blockIdx.x, blockIdx.y, blockIdx.z);
}

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

[[noreturn]] __attribute__((format(printf, 2, 3))) void fail(int status, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fail_v(status, fmt, ap);
}

// ---- fibers -----------------------------------------------------------------------------------
Fiber* alloc_fiber() {
    size_t total = g_stack_bytes + kPage;
    char* mem = static_cast<char*>(mmap(nullptr, total, PROT_READ | PROT_WRITE,
                                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
    if (mem == MAP_FAILED) fail(ST_LAUNCH, "cannot allocate a thread stack (out of memory)");
    mprotect(mem, kPage, PROT_NONE);  // guard page: a stack overflow faults instead of corrupting
    // The fiber's record sits right above its stack so that a switch touches as few cache lines
    // as possible; tops are staggered so that equal frame offsets spread over the cache sets.
    uintptr_t top = reinterpret_cast<uintptr_t>(mem + total) - (g_nfibers % 31) * 192 - sizeof(Fiber);
    top &= ~uintptr_t(63);
    Fiber* f = reinterpret_cast<Fiber*>(top);
    memset(f, 0, sizeof(Fiber));
    f->stack_lo = mem + kPage;
    f->stack_top = reinterpret_cast<char*>(top);
    if (g_nfibers == g_capfibers) {
        g_capfibers = g_capfibers ? g_capfibers * 2 : 256;
        g_fibers = static_cast<Fiber**>(realloc(g_fibers, g_capfibers * sizeof(Fiber*)));
    }
    g_fibers[g_nfibers++] = f;
    return f;
}

[[noreturn]] void fiber_entry();

Fiber* new_runner() {
    Fiber* f = g_free;
    if (f) g_free = f->next_free;
    else f = alloc_fiber();
    f->bound = 0;
    uint64_t* top = reinterpret_cast<uint64_t*>(f->stack_top);
    uint64_t* sp = top - 8;
    for (int i = 0; i < 6; i++) sp[i] = 0;                     // r15 r14 r13 r12 rbx rbp
    sp[6] = reinterpret_cast<uint64_t>(&fiber_entry);         // "return address"
    sp[7] = 0;
    f->sp = sp;
    return f;
}

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

// ---- checking: phases (barrier intervals) ------------------------------------------------------
uint32_t g_phase = 1;         // increases at every block start and barrier, never reset
uint32_t g_block_first;       // phase in which the current block started
bool g_checking;
void check_suspects();
void note_block_start(uint64_t linear_block);

inline void new_phase() {
    if (g_checking) check_suspects();
    g_phase++;
}

// ---- warp collectives -------------------------------------------------------------------------
unsigned lanes_present(unsigned w) {
    unsigned n = g_s.nthreads - w * 32;
    return n >= 32 ? ~0u : ((1u << n) - 1);
}

unsigned lanes_started(unsigned w) {
    unsigned lo = w * 32, n = g_s.nthreads, nx = g_s.next;
    if (!g_s.reverse) {
        if (nx <= lo) return 0;
        unsigned c = nx - lo;
        return c >= 32 ? ~0u : ((1u << c) - 1);
    }
    unsigned first = n - nx;  // tids >= first have started
    if (first <= lo) return ~0u;
    if (first >= lo + 32) return 0;
    return ~0u << (first - lo);
}

unsigned lanes_exited(unsigned w) { return lanes_started(w) & ~g_b.alive[w] & lanes_present(w); }

bool coll_complete(unsigned w, const WarpColl& c) {
    unsigned need = c.mask & lanes_present(w) & ~lanes_exited(w);
    return (c.arrived & need) == need;
}

// Computes every arrived lane's result, wakes the waiting lanes and frees the slot; returns the
// result for `me` (-1: none of them is running).
uint64_t coll_finish(unsigned w, WarpColl& c, int me) {
    uint64_t res[32];
    unsigned arr = c.arrived;
    int width = c.width;
    if (width < 1 || width > 32 || (width & (width - 1))) width = 32;
    auto val = [&](int src, int self) -> uint64_t {
        if (src < 0 || src > 31 || !(arr >> src & 1)) return c.vals[self];
        return c.vals[src];
    };
    unsigned ballot = 0, allsame = 1;
    if (c.kind == WOP_BALLOT || c.kind == WOP_ANY || c.kind == WOP_ALL) {
        for (int l = 0; l < 32; l++)
            if ((arr >> l & 1) && c.vals[l]) ballot |= 1u << l;
    } else if (c.kind == WOP_MATCH_ALL) {
        int firstl = __builtin_ctz(arr);
        for (int l = 0; l < 32; l++)
            if ((arr >> l & 1) && c.vals[l] != c.vals[firstl]) allsame = 0;
    }
    for (int l = 0; l < 32; l++) {
        if (!(arr >> l & 1)) continue;
        int base = l & ~(width - 1), p = c.params[l];
        uint64_t r = 0;
        switch (c.kind) {
        case WOP_SHFL_IDX: r = val(base + (p & (width - 1)), l); break;
        case WOP_SHFL_UP: r = (l - p < base) ? c.vals[l] : val(l - p, l); break;
        case WOP_SHFL_DOWN: r = (l + p >= base + width) ? c.vals[l] : val(l + p, l); break;
        case WOP_SHFL_XOR: {
            int s = l ^ p;
            r = (s < 0 || s > 31 || (s & ~(width - 1)) != base) ? c.vals[l] : val(s, l);
            break;
        }
        case WOP_BALLOT: r = ballot; break;
        case WOP_ANY: r = ballot != 0; break;
        case WOP_ALL: r = ballot == arr; break;
        case WOP_SYNC: r = 0; break;
        case WOP_MATCH_ANY: {
            unsigned m = 0;
            for (int k = 0; k < 32; k++)
                if ((arr >> k & 1) && c.vals[k] == c.vals[l]) m |= 1u << k;
            r = m;
            break;
        }
        case WOP_MATCH_ALL: r = allsame ? (uint64_t(arr) | (uint64_t(1) << 32)) : 0; break;
        default: {  // reductions: param 1 = signed
            int64_t acc = 0;
            bool first = true;
            for (int k = 0; k < 32; k++) {
                if (!(arr >> k & 1)) continue;
                int64_t v = p ? int64_t(int32_t(uint32_t(c.vals[k]))) : int64_t(uint32_t(c.vals[k]));
                if (first) { acc = v; first = false; continue; }
                switch (c.kind) {
                case WOP_RED_ADD: acc += v; break;
                case WOP_RED_MIN: acc = v < acc ? v : acc; break;
                case WOP_RED_MAX: acc = v > acc ? v : acc; break;
                case WOP_RED_AND: acc &= v; break;
                case WOP_RED_OR: acc |= v; break;
                case WOP_RED_XOR: acc ^= v; break;
                }
            }
            r = uint64_t(uint32_t(acc));
        }
        }
        res[l] = r;
    }
    c.active = 0;
    g_b.wp[w]++;
    if (!g_s.reverse) {
        for (int l = 0; l < 32; l++)
            if ((arr >> l & 1) && l != me) { c.fibers[l]->xresult = res[l]; push_ready(c.fibers[l]); }
    } else {
        for (int l = 31; l >= 0; l--)
            if ((arr >> l & 1) && l != me) { c.fibers[l]->xresult = res[l]; push_ready(c.fibers[l]); }
    }
    return me >= 0 ? res[me] : 0;
}

// Completes the collectives that lanes leaving have made complete; true if any woke up.
bool release_warps() {
    bool any = false;
    for (unsigned w = 0; w < g_b.nwarps; w++)
        for (unsigned s = 0; s < kCollSlots; s++) {
            WarpColl& c = g_b.coll[w][s];
            if (c.active && coll_complete(w, c)) { coll_finish(w, c, -1); any = true; }
        }
    return any;
}

const char* wop_name(int kind) {
    switch (kind) {
    case WOP_SHFL_IDX: return "__shfl_sync";
    case WOP_SHFL_UP: return "__shfl_up_sync";
    case WOP_SHFL_DOWN: return "__shfl_down_sync";
    case WOP_SHFL_XOR: return "__shfl_xor_sync";
    case WOP_BALLOT: return "__ballot_sync";
    case WOP_ANY: return "__any_sync";
    case WOP_ALL: return "__all_sync";
    case WOP_SYNC: return "__syncwarp";
    case WOP_MATCH_ANY: return "__match_any_sync";
    case WOP_MATCH_ALL: return "__match_all_sync";
    case W_BARRIER: return "__syncthreads()";
    default: return "__reduce_*_sync";
    }
}

// ---- deadlock diagnostics ---------------------------------------------------------------------
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

// ---- block execution --------------------------------------------------------------------------
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
    if (g_checking) note_block_start(linear_block);
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
    if (g_checking) check_suspects();
}

__attribute__((noinline)) void run_blocks(const LaunchDesc* L) {
    uint64_t gx = L->grid[0], gy = L->grid[1], nb = gx * gy * L->grid[2];
    for (uint64_t i = 0; i < nb; i++) {
        uint64_t b = L->reverse ? nb - 1 - i : i;
        blockIdx.x = unsigned(b % gx);
        blockIdx.y = unsigned((b / gx) % gy);
        blockIdx.z = unsigned(b / (gx * gy));
        begin_block(b);
        run_block();
    }
}

void reset_after_abort() {
    g_s.cur = nullptr;
    g_free = nullptr;
    for (unsigned i = 0; i < g_nfibers; i++) {
        g_fibers[i]->bound = 0;
        g_fibers[i]->next_free = g_free;
        g_free = g_fibers[i];
    }
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
    f->next_free = g_free;
    g_free = f;
    void* dead;
    if (n) resume(n, &dead);
    else to_main(&dead);
    __builtin_unreachable();
}

}  // namespace

// ---- synchronisation entry points used by kernels ---------------------------------------------
namespace {
[[noreturn]] __attribute__((noinline, cold)) void barrier_sites_differ(int line) {
    char w[128];
    where(w, sizeof w);
    fail(ST_DEADLOCK,
         "deadlock: threads of block (%u,%u,%u) wait at different __syncthreads() calls: %u "
         "thread(s) at line %d, %s at line %d (a barrier must be reached by every thread of the "
         "block at the same place)",
         blockIdx.x, blockIdx.y, blockIdx.z, g_b.bar_arrived, g_b.bar_line, w, line);
}

[[noreturn]] __attribute__((noinline, cold)) void warp_ops_differ(unsigned w, const WarpColl* c, int kind, int line) {
    char wh[128];
    where(wh, sizeof wh);
    fail(ST_DEADLOCK,
         "deadlock: lanes of warp %u in block (%u,%u,%u) meet at different warp operations "
         "with mask 0x%08x: %s (line %d) and %s in %s (line %d)",
         w, blockIdx.x, blockIdx.y, blockIdx.z, c->mask, wop_name(c->kind), c->line, wh,
         wop_name(kind), line);
}
}  // namespace

unsigned kp_barrier(int line, int pred) {
    Fiber* f = g_s.cur;
    if (__builtin_expect(!f, 0)) fail(ST_LAUNCH, "__syncthreads() called outside a kernel");
    if (!f->bound) bind(f);
    Block& b = g_b;
    if (b.bar_arrived == 0) {
        b.bar_line = line;
        b.bar_count = 0;
    } else if (__builtin_expect(line != b.bar_line, 0)) {
        barrier_sites_differ(line);
    }
    b.bar_count += pred != 0;
    if (++b.bar_arrived == g_s.nthreads) {
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

uint64_t kp_warp_op(int kind, unsigned mask, uint64_t val, int param, int width, int line) {
    Fiber* f = g_s.cur;
    if (__builtin_expect(!f, 0)) fail(ST_LAUNCH, "warp operation called outside a kernel");
    if (!f->bound) bind(f);
    unsigned w = f->tid >> 5, lane = f->tid & 31;
    mask |= 1u << lane;
    WarpColl* c = nullptr;
    WarpColl* freeslot = nullptr;
    for (unsigned s = 0; s < kCollSlots; s++) {
        WarpColl& x = g_b.coll[w][s];
        if (x.active && x.mask == mask && !(x.arrived >> lane & 1)) { c = &x; break; }
        if (!x.active && !freeslot) freeslot = &x;
    }
    if (!c) {
        if (__builtin_expect(!freeslot, 0))
            fail(ST_DEADLOCK, "deadlock: too many different warp operations pending in warp %u of block "
                 "(%u,%u,%u) (masks that do not match)", w, blockIdx.x, blockIdx.y, blockIdx.z);
        c = freeslot;
        c->active = 1;
        c->kind = kind;
        c->mask = mask;
        c->arrived = 0;
        c->width = width;
        c->line = line;
    } else if (__builtin_expect(c->kind != kind, 0)) {
        warp_ops_differ(w, c, kind, line);
    }
    c->arrived |= 1u << lane;
    c->vals[lane] = val;
    c->params[lane] = param;
    c->fibers[lane] = f;
    if (coll_complete(w, *c)) return coll_finish(w, *c, int(lane));
    suspend(f);
    return f->xresult;
}

unsigned kp_activemask() {
    unsigned tid = linear_tid(threadIdx), w = tid >> 5;
    if (g_s.cur && !g_s.cur->bound) g_s.next = (g_s.reverse ? g_s.nthreads - 1 - tid : tid) + 1;
    return (lanes_present(w) & ~lanes_exited(w)) | (1u << (tid & 31));
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

namespace { bool g_mute; }

int kp_printf(const char* fmt, ...) {
    if (g_mute) return 0;
    va_list ap;
    va_start(ap, fmt);
    int r = vprintf(fmt, ap);
    va_end(ap);
    return r;
}

// ---- shared memory ----------------------------------------------------------------------------
namespace {
constexpr size_t kShArena = 4u << 20;
constexpr size_t kDynGap = 64 * 1024;
constexpr size_t kDynMax = 232448;  // 227 KiB, the most a block may opt in to on sm_90
alignas(4096) char g_dyn_area[kDynGap + kDynMax + kDynGap];

struct ShVar { char* p; size_t size; const char* name; size_t itemsize; int rank; };
char* g_sh_base;
size_t g_sh_used;
ShVar g_shvars[512];
unsigned g_nshvars;
size_t g_dyn_bytes;
}  // namespace

char* const kp_dyn_smem = g_dyn_area + kDynGap;

void* kp_shared_alloc(size_t size, size_t align, const char* name, size_t itemsize, int rank) {
    if (!g_sh_base) {
        void* m = mmap(nullptr, kShArena, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) fail(ST_LAUNCH, "cannot reserve shared memory");
        g_sh_base = static_cast<char*>(m);
        g_sh_used = 0;
        kp_checking_shared_grew();
    }
    if (align < 64) align = 64;
    size_t gap = 1024 + (size < 65536 ? size : 65536);
    size_t off = (g_sh_used + gap + align - 1) & ~(align - 1);
    if (off + size + gap > kShArena || g_nshvars == sizeof g_shvars / sizeof g_shvars[0])
        fail(ST_LAUNCH, "static __shared__ memory exceeds what the emulator reserves (%zu bytes)", kShArena);
    g_shvars[g_nshvars++] = ShVar{g_sh_base + off, size, name, itemsize ? itemsize : 1, rank};
    memset(g_sh_base + off, 0xFF, size);
    g_sh_used = off + size;
    return g_sh_base + off;
}

// Unwritten shared memory reads as 0xFF bytes (a NaN as float, -1 as int) in every block.
void poison_shared() {
    for (unsigned i = 0; i < g_nshvars; i++) memset(g_shvars[i].p, 0xFF, g_shvars[i].size);
    if (g_dyn_bytes) memset(kp_dyn_smem, 0xFF, g_dyn_bytes);
}

// ---- signals and deadline ---------------------------------------------------------------------
namespace {
constexpr int kSigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
struct sigaction g_old_act[5];
stack_t g_old_stack;
char* g_altstack;
timer_t g_timer;
bool g_timer_armed;
sigset_t g_old_mask;

int timer_signal() { return SIGRTMIN + 2; }

bool in_fiber_guard(uintptr_t a) {
    for (unsigned i = 0; i < g_nfibers; i++) {
        uintptr_t lo = reinterpret_cast<uintptr_t>(g_fibers[i]->stack_lo);
        if (a >= lo - kPage && a < lo) return true;
    }
    return false;
}

void describe_global_fault(uintptr_t a, char* out, size_t n);

void on_signal(int sig, siginfo_t* si, void*) {
    if (!g_in_launch) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    char w[128];
    where(w, sizeof w);
    uintptr_t a = reinterpret_cast<uintptr_t>(si->si_addr);
    int status = ST_MEMORY;
    char msg[1024];
    if (sig == timer_signal()) {
        status = ST_TIMEOUT;
        snprintf(msg, sizeof msg, "the kernel did not finish within %.3g s (last running: %s)",
                 g_L->timeout_s, w);
    } else if (sig == SIGSEGV && in_fiber_guard(a)) {
        snprintf(msg, sizeof msg,
                 "stack overflow in %s: a CUDA thread used more than %zu KiB of local memory "
                 "(large local arrays or deep recursion)", w, g_stack_bytes / 1024);
    } else if (sig == SIGSEGV || sig == SIGBUS) {
        char d[512];
        describe_global_fault(a, d, sizeof d);
        snprintf(msg, sizeof msg, "invalid memory access in %s: %s", w, d);
    } else if (sig == SIGFPE) {
        status = ST_LAUNCH;
        snprintf(msg, sizeof msg, "%s in %s",
                 si->si_code == FPE_INTDIV ? "integer division by zero" : "arithmetic exception", w);
    } else {
        status = ST_LAUNCH;
        snprintf(msg, sizeof msg, "illegal instruction in %s", w);
    }
    if (g_L->status == ST_OK) {
        g_L->status = status;
        snprintf(g_L->message, sizeof g_L->message, "%s", msg);
    }
    siglongjmp(g_jmp, 1);
}

void install_signals(double timeout_s) {
    if (!g_altstack) g_altstack = static_cast<char*>(malloc(256 * 1024));
    stack_t ss{};
    ss.ss_sp = g_altstack;
    ss.ss_size = 256 * 1024;
    sigaltstack(&ss, &g_old_stack);
    struct sigaction sa{};
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (unsigned i = 0; i < 4; i++) sigaction(kSigs[i], &sa, &g_old_act[i]);
    sigaction(timer_signal(), &sa, &g_old_act[4]);
    sigset_t un;
    sigemptyset(&un);
    for (int s : kSigs) sigaddset(&un, s);
    sigaddset(&un, timer_signal());
    pthread_sigmask(SIG_UNBLOCK, &un, &g_old_mask);
    g_timer_armed = false;
    if (timeout_s > 0) {
        struct sigevent sev{};
        sev.sigev_notify = SIGEV_THREAD_ID;
        sev.sigev_signo = timer_signal();
        sev.sigev_notify_thread_id = static_cast<pid_t>(syscall(SYS_gettid));
        if (timer_create(CLOCK_MONOTONIC, &sev, &g_timer) == 0) {
            struct itimerspec its{};
            its.it_value.tv_sec = time_t(timeout_s);
            its.it_value.tv_nsec = long((timeout_s - double(time_t(timeout_s))) * 1e9);
            if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1;
            timer_settime(g_timer, 0, &its, nullptr);
            g_timer_armed = true;
        }
    }
}

void restore_signals() {
    if (g_timer_armed) timer_delete(g_timer);
    g_timer_armed = false;
    for (unsigned i = 0; i < 4; i++) sigaction(kSigs[i], &g_old_act[i], nullptr);
    sigaction(timer_signal(), &g_old_act[4], nullptr);
    pthread_sigmask(SIG_SETMASK, &g_old_mask, nullptr);
    sigaltstack(&g_old_stack, nullptr);
}
}  // namespace

void checking_begin(const LaunchDesc* L);
void checking_end();

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
    g_mute = g_checking && L->reverse;
    install_signals(L->timeout_s);
    if (sigsetjmp(g_jmp, 1) == 0) {
        g_in_launch = 1;
        if (g_checking) checking_begin(L);
        run_blocks(L);
    } else {
        reset_after_abort();
    }
    g_in_launch = 0;
    restore_signals();
    if (g_checking) checking_end();
    L->float_atomics = g_s.float_atomics;
    fflush(stdout);
    return L->status;
}

// ---- checking: bounds and race tracking -------------------------------------------------------
namespace {

// Per 4-byte granule: last writer, last reader, and a summary of the other readers of the
// current barrier interval. Records: phase << 32 | wp << 11 | atomic << 10 | tid.
struct Shadow { uint64_t w, r, o; };

constexpr uint32_t kWpMask = 0x1FFFFF;

inline uint64_t mk(uint32_t tid, uint32_t wp, uint32_t atomic) {
    return (uint64_t(g_phase) << 32) | ((wp & kWpMask) << 11) | (atomic << 10) | tid;
}
inline uint32_t ph(uint64_t r) { return uint32_t(r >> 32); }
inline uint32_t rtid(uint64_t r) { return uint32_t(r) & 1023; }
inline uint32_t rwp(uint64_t r) { return (uint32_t(r) >> 11) & kWpMask; }
inline bool ratomic(uint64_t r) { return (r >> 10) & 1; }

// Same block and barrier interval: ordered only by program order or a warp-level sync.
inline bool ordered(uint64_t r, uint32_t tid, uint32_t wp) {
    uint32_t t = rtid(r);
    if (t == tid) return true;
    if ((t >> 5) != (tid >> 5)) return false;
    return rwp(r) != (wp & kWpMask);
}

struct GBuf {
    uintptr_t lo, hi;
    char label[64];
    int64_t itemsize;
    Shadow* shadow;
    size_t shadow_bytes;
};

struct Arena {
    int used;
    char* base;
    size_t span;
    unsigned n;
    GBuf bufs[64];
};
Arena g_arenas[8];
Arena* g_act;  // arena the running checked launch uses

uintptr_t g_ga_lo, g_ga_span, g_sa_lo, g_sa_span, g_da_lo, g_da_span;
bool g_xblock_ok;
Shadow* g_sh_shadow;   // shared arena
Shadow* g_dyn_shadow;  // dynamic shared area

struct BlockStart { uint32_t phase; uint64_t block; };
BlockStart* g_bstarts;
size_t g_nbstarts, g_capbstarts;

struct Suspect {
    uintptr_t addr;
    uint32_t old;
    uint32_t tid_a, phase_a, tid_b;
    int region;  // 0 global, 1 shared
};
Suspect g_sus[4096];
unsigned g_nsus;

void fmt_thread(uint32_t tid, char* out, size_t n) {
    unsigned x = tid % g_s.bdx, y = (tid / g_s.bdx) % g_s.bdy, z = tid / (g_s.bdx * g_s.bdy);
    snprintf(out, n, "thread (%u,%u,%u)", x, y, z);
}

void fmt_block_of_phase(uint32_t phase, char* out, size_t n) {
    size_t lo = 0, hi = g_nbstarts;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (g_bstarts[mid].phase <= phase) lo = mid; else hi = mid;
    }
    uint64_t b = g_nbstarts ? g_bstarts[lo].block : 0;
    uint64_t gx = gridDim.x, gy = gridDim.y;
    snprintf(out, n, "block (%llu,%llu,%llu)", (unsigned long long)(b % gx),
             (unsigned long long)((b / gx) % gy), (unsigned long long)(b / (gx * gy)));
}

void fmt_global(const GBuf& b, uintptr_t a, char* out, size_t n) {
    long long off = (long long)(a - b.lo);
    if (b.itemsize > 0 && off % b.itemsize == 0)
        snprintf(out, n, "%s[%lld]", b.label, off / b.itemsize);
    else
        snprintf(out, n, "%s (byte offset %lld)", b.label, off);
}

void fmt_shared(uintptr_t a, char* out, size_t n) {
    if (a - g_da_lo < g_da_span) {
        snprintf(out, n, "dynamic shared memory (byte offset %lld)", (long long)(a - uintptr_t(kp_dyn_smem)));
        return;
    }
    for (unsigned i = 0; i < g_nshvars; i++) {
        uintptr_t p = uintptr_t(g_shvars[i].p);
        if (a >= p && a < p + g_shvars[i].size) {
            const ShVar& v = g_shvars[i];
            unsigned long long off = a - p, el = off / v.itemsize;
            if (off % v.itemsize) snprintf(out, n, "__shared__ %s (byte offset %llu)", v.name, off);
            else if (v.rank <= 1) snprintf(out, n, "__shared__ %s[%llu]", v.name, el);
            else snprintf(out, n, "__shared__ %s (element %llu, counting row by row)", v.name, el);
            return;
        }
    }
    snprintf(out, n, "shared memory");
}

[[noreturn]] void race(const char* what, uint64_t other, bool other_block, const char* loc,
                       const char* other_did) {
    char me[160], them[160], blk[64];
    where(me, sizeof me);
    if (other_block) {
        fmt_block_of_phase(ph(other), blk, sizeof blk);
        fail(ST_RACE, "data race on %s: %s %s it and a thread of %s %s it; blocks run in no "
             "guaranteed order and cannot wait for each other (use atomics, or a second kernel)",
             loc, me, what, blk, other_did);
    }
    fmt_thread(rtid(other), them, sizeof them);
    if ((rtid(other) >> 5) == (g_s.tid_linear >> 5))
        fail(ST_RACE, "data race on %s: %s %s it and %s of the same warp %s it, with no __syncwarp() "
             "or __syncthreads() between them (threads of a warp do not run in lockstep)",
             loc, me, what, them, other_did);
    fail(ST_RACE, "data race on %s: %s %s it and %s of the same block %s it, with no "
         "__syncthreads() between them", loc, me, what, them, other_did);
}

[[noreturn]] void race_other_readers(const char* loc, bool same_warp) {
    char me[160];
    where(me, sizeof me);
    if (same_warp)
        fail(ST_RACE, "data race on %s: %s writes it while other threads of its warp read it, with no "
             "__syncwarp() or __syncthreads() between them (threads of a warp do not run in lockstep)",
             loc, me);
    fail(ST_RACE, "data race on %s: %s writes it while other threads of the same block read it, "
         "with no __syncthreads() between them", loc, me);
}

void add_suspect(uintptr_t a, uint64_t w, uint32_t tid, int region);

// The core of the race check for one granule. kind: 0 read, 1 write, 2 atomic.
template <class Loc>
inline void track(Shadow& s, uintptr_t a, int kind, bool cross_block, const Loc& loc) {
    uint32_t tid = g_s.tid_linear, wp = g_b.wp[tid >> 5];
    uint32_t cur = g_phase, bf = g_block_first;
    uint64_t W = s.w;
    if (W) {
        uint32_t p = ph(W);
        bool same = p == cur, xb = p < bf && cross_block && !g_xblock_ok;
        if ((same && !ordered(W, tid, wp)) || xb) {
            char l[160];
            if (kind == 0) { loc(a, l, sizeof l); race("reads", W, xb, l, ratomic(W) ? "updates atomically" : "writes"); }
            if (kind == 2 && !ratomic(W)) { loc(a, l, sizeof l); race("atomically updates", W, xb, l, "writes"); }
            if (kind == 1) {
                if (ratomic(W)) { loc(a, l, sizeof l); race("writes", W, xb, l, "updates atomically"); }
                add_suspect(a, W, tid, cross_block ? 0 : 1);
            }
        }
    }
    if (kind == 0) {
        uint64_t R = s.r;
        if (ph(R) != cur) { s.r = mk(tid, wp, 0); s.o = 0; }
        else if (rtid(R) == tid) s.r = mk(tid, wp, 0);
        else {
            uint64_t O = s.o;
            uint32_t rw = rtid(R) >> 5, rwp_ = rwp(R);
            if (ph(O) != cur || !(O >> 31 & 1)) {
                O = (uint64_t(cur) << 32) | (1u << 31) | (rw << 26) | (rw << 21) | rwp_;
            } else {
                uint32_t mn = (O >> 26) & 31, mx = (O >> 21) & 31, mw = O & kWpMask;
                mn = rw < mn ? rw : mn;
                mx = rw > mx ? rw : mx;
                mw = rwp_ > mw ? rwp_ : mw;
                O = (uint64_t(cur) << 32) | (1u << 31) | (mn << 26) | (mx << 21) | mw;
            }
            s.o = O;
            s.r = mk(tid, wp, 0);
        }
        return;
    }
    if (kind == 1) {
        uint64_t R = s.r;
        if (R) {
            uint32_t p = ph(R);
            bool xb = p < bf && cross_block && !g_xblock_ok;
            if ((p == cur && !ordered(R, tid, wp)) || xb) {
                char l[160];
                loc(a, l, sizeof l);
                race("writes", R, xb, l, "reads");
            }
        }
        uint64_t O = s.o;
        if (O && ph(O) == cur && (O >> 31 & 1)) {
            uint32_t mn = (O >> 26) & 31, mx = (O >> 21) & 31, mw = O & kWpMask, w = tid >> 5;
            if (mn != w || mx != w || mw == (wp & kWpMask)) {
                char l[160];
                loc(a, l, sizeof l);
                race_other_readers(l, mn == w && mx == w);
            }
        }
    }
    s.w = mk(tid, wp, kind == 2);
}

void add_suspect(uintptr_t a, uint64_t w, uint32_t tid, int region) {
    if (g_nsus == sizeof g_sus / sizeof g_sus[0]) check_suspects();
    uint32_t v;
    memcpy(&v, reinterpret_cast<void*>(a), 4);
    g_sus[g_nsus++] = Suspect{a, v, rtid(w), ph(w), tid, region};
}

GBuf* find_buf(uintptr_t a) {
    Arena* A = g_act;
    for (unsigned i = 0; i < A->n; i++)
        if (a >= A->bufs[i].lo && a < A->bufs[i].hi) return &A->bufs[i];
    return nullptr;
}

[[noreturn]] void oob_global(uintptr_t a, unsigned n, int kind) {
    Arena* A = g_act;
    GBuf* best = nullptr;
    uintptr_t bestd = ~uintptr_t(0);
    for (unsigned i = 0; i < A->n; i++) {
        GBuf& b = A->bufs[i];
        uintptr_t d = a < b.lo ? b.lo - a : (a >= b.hi ? a - b.hi : 0);
        if (d < bestd) { bestd = d; best = &b; }
    }
    char w[128];
    where(w, sizeof w);
    const char* op = kind == 0 ? "read" : kind == 1 ? "write" : "atomic update";
    if (!best) fail(ST_MEMORY, "out-of-bounds %s of %u bytes in %s", op, n, w);
    long long off = (long long)(a - best->lo);
    long long size = (long long)(best->hi - best->lo);
    if (best->itemsize > 0 && off % best->itemsize == 0)
        fail(ST_MEMORY, "out-of-bounds %s of %u bytes in %s: %s[%lld] is outside the array of %lld "
             "elements (byte offset %lld of %lld)", op, n, w, best->label, off / best->itemsize,
             size / best->itemsize, off, size);
    fail(ST_MEMORY, "out-of-bounds %s of %u bytes in %s: byte offset %lld of %s, which has %lld bytes",
         op, n, w, off, best->label, size);
}

void global_access(uintptr_t a, unsigned n, int kind) {
    GBuf* b = find_buf(a);
    if (!b || a + n > b->hi) oob_global(a, n, kind);
    if (n < 4 || !b->shadow) return;  // sub-word accesses: bounds only
    size_t g0 = (a - b->lo) >> 2, g1 = (a + n - 1 - b->lo) >> 2;
    auto loc = [b](uintptr_t x, char* out, size_t m) { fmt_global(*b, x, out, m); };
    for (size_t g = g0; g <= g1; g++) track(b->shadow[g], b->lo + g * 4, kind, true, loc);
}

[[noreturn]] void oob_shared(uintptr_t a, unsigned n, int kind) {
    char w[128];
    where(w, sizeof w);
    const char* op = kind == 0 ? "read" : kind == 1 ? "write" : "atomic update";
    if (a - g_da_lo < g_da_span) {
        fail(ST_MEMORY, "out-of-bounds shared memory %s of %u bytes in %s: byte offset %lld of the "
             "dynamic shared memory, which has %zu bytes (the launch's shared_mem)",
             op, n, w, (long long)(a - uintptr_t(kp_dyn_smem)), g_dyn_bytes);
    }
    const ShVar* best = nullptr;
    uintptr_t bestd = ~uintptr_t(0);
    for (unsigned i = 0; i < g_nshvars; i++) {
        uintptr_t p = uintptr_t(g_shvars[i].p), e = p + g_shvars[i].size;
        uintptr_t d = a < p ? p - a : (a >= e ? a - e : 0);
        if (d < bestd) { bestd = d; best = &g_shvars[i]; }
    }
    if (!best) fail(ST_MEMORY, "out-of-bounds shared memory %s in %s", op, w);
    long long off = (long long)(a - uintptr_t(best->p)), isz = (long long)best->itemsize;
    if (best->rank <= 1 && off % isz == 0)
        fail(ST_MEMORY, "out-of-bounds shared memory %s of %u bytes in %s: __shared__ %s[%lld] is outside "
             "the array of %lld elements", op, n, w, best->name, off / isz, (long long)best->size / isz);
    fail(ST_MEMORY, "out-of-bounds shared memory %s of %u bytes in %s: byte offset %lld of __shared__ "
         "%s, which has %zu bytes", op, n, w, off, best->name, best->size);
}

void shared_access(uintptr_t a, unsigned n, int kind) {
    bool ok = false;
    if (a - g_da_lo < g_da_span) {
        uintptr_t base = uintptr_t(kp_dyn_smem);
        ok = a >= base && a + n <= base + g_dyn_bytes;
    } else {
        // bump allocation keeps the variables sorted by address
        unsigned lo = 0, hi = g_nshvars;
        while (hi - lo > 1) {
            unsigned mid = (lo + hi) / 2;
            if (uintptr_t(g_shvars[mid].p) <= a) lo = mid; else hi = mid;
        }
        if (g_nshvars) {
            uintptr_t p = uintptr_t(g_shvars[lo].p);
            ok = a >= p && a + n <= p + g_shvars[lo].size;
        }
    }
    if (!ok) oob_shared(a, n, kind);
    if (n < 4) return;
    Shadow* sh;
    uintptr_t base;
    if (a - g_da_lo < g_da_span) { sh = g_dyn_shadow; base = g_da_lo; }
    else { sh = g_sh_shadow; base = g_sa_lo; }
    if (!sh) return;
    auto loc = [](uintptr_t x, char* out, size_t m) { fmt_shared(x, out, m); };
    for (uintptr_t g = (a - base) >> 2, e = (a + n - 1 - base) >> 2; g <= e; g++)
        track(sh[g], base + g * 4, kind, false, loc);
}

Shadow* map_shadow(size_t bytes) {
    size_t sz = ((bytes + 3) / 4) * sizeof(Shadow);
    if (!sz) return nullptr;
    void* m = mmap(nullptr, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return m == MAP_FAILED ? nullptr : static_cast<Shadow*>(m);
}

}  // namespace

inline void kp_access(const volatile void* p, unsigned n, int kind) {
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    if (a - g_ga_lo < g_ga_span) global_access(a, n, kind);
    else if (a - g_sa_lo < g_sa_span || a - g_da_lo < g_da_span) shared_access(a, n, kind);
}

void kp_atomic_access(const volatile void* p, unsigned n) { kp_access(p, n, 2); }

namespace {
void check_suspects() {
    for (unsigned i = 0; i < g_nsus; i++) {
        Suspect& s = g_sus[i];
        uint32_t v;
        memcpy(&v, reinterpret_cast<void*>(s.addr), 4);
        if (v == s.old) continue;  // both wrote the same value: harmless
        char loc[160], a[64], b[64];
        if (s.region == 0) {
            GBuf* buf = find_buf(s.addr);
            if (buf) fmt_global(*buf, s.addr, loc, sizeof loc);
            else snprintf(loc, sizeof loc, "global memory");
        } else {
            fmt_shared(s.addr, loc, sizeof loc);
        }
        fmt_thread(s.tid_b, b, sizeof b);
        g_nsus = 0;
        if (s.phase_a < g_block_first) {
            char blk[64];
            fmt_block_of_phase(s.phase_a, blk, sizeof blk);
            fail(ST_RACE, "data race: %s of block (%u,%u,%u) and a thread of %s both write %s with "
                 "different values (blocks run in no guaranteed order; use atomics)", b,
                 blockIdx.x, blockIdx.y, blockIdx.z, blk, loc);
        }
        fmt_thread(s.tid_a, a, sizeof a);
        fail(ST_RACE, "data race: %s and %s of block (%u,%u,%u) both write %s with different values "
             "and no __syncthreads() between (use atomics or a barrier)", a, b, blockIdx.x, blockIdx.y,
             blockIdx.z, loc);
    }
    g_nsus = 0;
}

void note_block_start(uint64_t linear_block) {
    check_suspects();
    g_phase++;
    g_block_first = g_phase;
    if (g_nbstarts == g_capbstarts) {
        g_capbstarts = g_capbstarts ? g_capbstarts * 2 : 1024;
        g_bstarts = static_cast<BlockStart*>(realloc(g_bstarts, g_capbstarts * sizeof(BlockStart)));
    }
    g_bstarts[g_nbstarts++] = BlockStart{g_phase, linear_block};
}

void describe_global_fault(uintptr_t a, char* out, size_t n) {
    if (g_act && a - g_ga_lo < g_ga_span) {
        Arena* A = g_act;
        for (unsigned i = 0; i < A->n; i++) {
            GBuf& b = A->bufs[i];
            long long off = (long long)(a - b.lo);
            if (off >= -(long long)kPage * 16 && a < b.hi + kPage * 16) {
                snprintf(out, n, "address 0x%llx is outside %s (byte offset %lld of %lld)",
                         (unsigned long long)a, b.label, off, (long long)(b.hi - b.lo));
                return;
            }
        }
    }
    snprintf(out, n, "address 0x%llx is not memory the kernel was given (an index out of bounds?)",
             (unsigned long long)a);
}
}  // namespace

void checking_begin(const LaunchDesc* L) {
    g_nsus = 0;
    g_nbstarts = 0;
    g_xblock_ok = L->xblock_ok != 0;
    if (g_act) {
        g_ga_lo = uintptr_t(g_act->base);
        g_ga_span = g_act->span;
    } else {
        g_ga_lo = g_ga_span = 0;
    }
    if (g_sh_base) {
        if (!g_sh_shadow) g_sh_shadow = map_shadow(kShArena);
        g_sa_lo = uintptr_t(g_sh_base);
        g_sa_span = kShArena;
    } else {
        g_sa_lo = g_sa_span = 0;
    }
    if (!g_dyn_shadow) g_dyn_shadow = map_shadow(sizeof g_dyn_area);
    g_da_lo = uintptr_t(g_dyn_area);
    g_da_span = sizeof g_dyn_area;
}

void checking_end() {
    g_ga_span = g_sa_span = g_da_span = 0;
}

// Static __shared__ variables first used inside a checked launch need the hooks to see them.
void kp_checking_shared_grew() {
    if (g_checking && g_in_launch && g_sh_base) {
        if (!g_sh_shadow) g_sh_shadow = map_shadow(kShArena);
        g_sa_lo = uintptr_t(g_sh_base);
        g_sa_span = kShArena;
    }
}

}  // namespace kp

// ---- ThreadSanitizer-compatible instrumentation entry points ----------------------------------
// The checking variant is compiled with -fsanitize=thread and linked without libtsan: the
// compiler's per-access callbacks land here and feed the bounds and race checks above.
#define KP_TSAN_RW(N)                                                                            \
    extern "C" void __tsan_read##N(void* p) { kp::kp_access(p, N, 0); }                          \
    extern "C" void __tsan_write##N(void* p) { kp::kp_access(p, N, 1); }                         \
    extern "C" void __tsan_unaligned_read##N(void* p) { kp::kp_access(p, N, 0); }                \
    extern "C" void __tsan_unaligned_write##N(void* p) { kp::kp_access(p, N, 1); }               \
    extern "C" void __tsan_volatile_read##N(void* p) { kp::kp_access(p, N, 0); }                 \
    extern "C" void __tsan_volatile_write##N(void* p) { kp::kp_access(p, N, 1); }
KP_TSAN_RW(1)
KP_TSAN_RW(2)
KP_TSAN_RW(4)
KP_TSAN_RW(8)
KP_TSAN_RW(16)
extern "C" void __tsan_read_range(void* p, unsigned long n) {
    for (unsigned long i = 0; i < n; i += 4) kp::kp_access(static_cast<char*>(p) + i, n - i < 4 ? unsigned(n - i) : 4, 0);
}
extern "C" void __tsan_write_range(void* p, unsigned long n) {
    for (unsigned long i = 0; i < n; i += 4) kp::kp_access(static_cast<char*>(p) + i, n - i < 4 ? unsigned(n - i) : 4, 1);
}
extern "C" void __tsan_init() {}
extern "C" void __tsan_func_entry(void*) {}
extern "C" void __tsan_func_exit() {}
extern "C" void __tsan_vptr_update(void**, void*) {}
extern "C" void __tsan_vptr_read(void**) {}

// ---- arenas for checked launches (called from launch.py) --------------------------------------
extern "C" __attribute__((visibility("default"))) int kp_arena_create(int n, const uint64_t* sizes, uint64_t* addrs) {
    using namespace kp;
    if (n < 0 || n > 64) return -1;
    int h = -1;
    for (int i = 0; i < 8; i++)
        if (!g_arenas[i].used) { h = i; break; }
    if (h < 0) return -1;
    auto pages = [](uint64_t b) { return (b + kPage - 1) / kPage * kPage; };
    // Inaccessible space around each buffer, so that an index past either end lands in no other
    // buffer: as large as the buffer (capped, since it counts against address-space limits).
    auto gap = [&](uint64_t b) {
        uint64_t g = pages(b);
        return g < 65536 ? uint64_t(65536) : (g > (16u << 20) ? uint64_t(16u << 20) : g);
    };
    uint64_t span = 0, prev_gap = 0;
    for (int i = 0; i < n; i++) {
        uint64_t g = gap(sizes[i]);
        span += (g > prev_gap ? g : prev_gap) + pages(sizes[i]);
        prev_gap = g;
    }
    span += prev_gap > 65536 ? prev_gap : 65536;
    void* m = mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return -1;
    Arena& A = g_arenas[h];
    memset(&A, 0, sizeof A);
    A.used = 1;
    A.base = static_cast<char*>(m);
    A.span = span;
    A.n = unsigned(n);
    uint64_t off = 0;
    prev_gap = 0;
    for (int i = 0; i < n; i++) {
        uint64_t g = gap(sizes[i]);
        off += g > prev_gap ? g : prev_gap;
        prev_gap = g;
        char* p = A.base + off;
        if (sizes[i] && mprotect(p, pages(sizes[i]), PROT_READ | PROT_WRITE) != 0) {
            munmap(m, span);
            A.used = 0;
            return -1;
        }
        A.bufs[i].lo = uintptr_t(p);
        A.bufs[i].hi = uintptr_t(p) + sizes[i];
        A.bufs[i].itemsize = 1;
        snprintf(A.bufs[i].label, sizeof A.bufs[i].label, "argument %d", i);
        A.bufs[i].shadow = map_shadow(sizes[i]);
        A.bufs[i].shadow_bytes = ((sizes[i] + 3) / 4) * sizeof(Shadow);
        addrs[i] = uintptr_t(p);
        off += pages(sizes[i]);
    }
    return h;
}

extern "C" __attribute__((visibility("default"))) void kp_arena_label(int h, int i, const char* label, int64_t itemsize) {
    using namespace kp;
    if (h < 0 || h >= 8 || !g_arenas[h].used || i < 0 || unsigned(i) >= g_arenas[h].n) return;
    snprintf(g_arenas[h].bufs[i].label, sizeof g_arenas[h].bufs[i].label, "%s", label);
    g_arenas[h].bufs[i].itemsize = itemsize;
}

// The race bookkeeping of a finished run is not needed any more; its data is.
extern "C" __attribute__((visibility("default"))) void kp_arena_drop_shadow(int h) {
    using namespace kp;
    if (h < 0 || h >= 8 || !g_arenas[h].used) return;
    Arena& A = g_arenas[h];
    for (unsigned i = 0; i < A.n; i++)
        if (A.bufs[i].shadow) {
            munmap(A.bufs[i].shadow, A.bufs[i].shadow_bytes);
            A.bufs[i].shadow = nullptr;
        }
}

extern "C" __attribute__((visibility("default"))) void kp_arena_activate(int h) {
    using namespace kp;
    g_act = (h >= 0 && h < 8 && g_arenas[h].used) ? &g_arenas[h] : nullptr;
}

extern "C" __attribute__((visibility("default"))) void kp_arena_destroy(int h) {
    using namespace kp;
    if (h < 0 || h >= 8 || !g_arenas[h].used) return;
    Arena& A = g_arenas[h];
    if (g_act == &A) g_act = nullptr;
    for (unsigned i = 0; i < A.n; i++)
        if (A.bufs[i].shadow) munmap(A.bufs[i].shadow, A.bufs[i].shadow_bytes);
    munmap(A.base, A.span);
    A.used = 0;
}

// __device__ variables of the module (build.py puts them in this section), so that a checked
// launch can run twice from the same starting state.
extern "C" char __start_kp_devglobals[] __attribute__((weak, visibility("hidden")));
extern "C" char __stop_kp_devglobals[] __attribute__((weak, visibility("hidden")));
extern "C" __attribute__((visibility("default"))) uint64_t kp_devglobals(uint64_t* lo) {
    *lo = reinterpret_cast<uint64_t>(__start_kp_devglobals);
    return __start_kp_devglobals ? uint64_t(__stop_kp_devglobals - __start_kp_devglobals) : 0;
}

extern "C" __attribute__((visibility("default"))) void kp_set_stack_kib(int kib) {
    // Only before the first fiber exists: stacks are pooled at one size.
    if (kib >= 16 && kib <= 8192 && kp::g_nfibers == 0) kp::g_stack_bytes = size_t(kib) * 1024;
}
