// Race tracking: the reports, the suspects (unordered writes compared when their interval ends),
// the block each phase belongs to, and the shadows' memory.
#include "race.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>

#include "arena.h"
#include "shared.h"

namespace kp::core {

uint32_t g_phase = 1;
uint32_t g_block_first;
bool g_xblock_ok;

namespace {
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
}  // namespace

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

void add_suspect(uintptr_t a, uint64_t w, uint32_t tid, int region) {
    if (g_nsus == sizeof g_sus / sizeof g_sus[0]) check_suspects();
    uint32_t v;
    memcpy(&v, reinterpret_cast<void*>(a), 4);
    g_sus[g_nsus++] = Suspect{a, v, rtid(w), ph(w), tid, region};
}

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

void race_begin(const LaunchDesc* L) {
    g_nsus = 0;
    g_nbstarts = 0;
    g_xblock_ok = L->xblock_ok != 0;
}

Shadow* map_shadow(size_t bytes) {
    size_t sz = ((bytes + 3) / 4) * sizeof(Shadow);
    if (!sz) return nullptr;
    void* m = mmap(nullptr, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return m == MAP_FAILED ? nullptr : static_cast<Shadow*>(m);
}

}  // namespace kp::core
