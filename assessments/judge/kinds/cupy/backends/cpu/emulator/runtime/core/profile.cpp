// Profiling mode: counts per source location (the callers' return addresses, made offsets into the
// module; the judge maps them to lines) on a sample of blocks. Threads of a warp run one after
// another here, so a warp's request is rebuilt from its lanes: the k-th execution of an access
// site by each lane of a warp is one request, as on the GPU when the warp does not diverge.
#include "profile.h"

#include <dlfcn.h>
#include <sys/mman.h>

#include <cstring>

#include "arena.h"
#include "launch.h"
#include "scheduler.h"
#include "shared.h"

namespace kp::core {

bool g_profiling;

namespace {

// ---- what launch.py reads back (ctypes mirrors in launch.py) ----------------------------------
struct Site {            // one access instruction
    uint64_t pc;
    int32_t kind;        // 0 load, 1 store, 2 atomic
    int32_t space;       // 0 global, 1 shared
    uint64_t accesses;   // thread-level
    uint64_t requests;   // warp-level
    uint64_t sectors;    // 32-byte sectors the requests touched (global)
    uint64_t ideal;      // sectors (global) or wavefronts (shared) had the lanes read contiguously
    uint64_t bytes;      // bytes the lanes asked for
    uint64_t l1_new;     // sectors this block had not touched before (misses in a per-block L1)
    uint64_t wavefronts; // shared memory: passes through the 32 banks
    uint64_t addresses;  // atomics: distinct addresses
    uint64_t max_same;   // atomics: most updates of one address
    uint64_t shared_addr;// atomics: addresses updated by more than one block of the sample
    uint64_t skipped;    // executions past kOccCap per thread: in `accesses`, not in the requests
    int32_t buf;         // the array (global), -1 where several or none
    int32_t size;        // bytes per access
};

struct BB {              // one basic block of the module
    uint64_t pc;
    uint64_t thread_hits;
    uint64_t warp_hits;  // per warp, the most any lane ran it: what the warp issues
    uint64_t lane_slots; // per warp, warp_hits x the warp's lanes: thread_hits had no lane diverged
    uint64_t divergent;  // warps in which some lane ran it fewer times than the busiest lane
};

struct Line {            // barriers and warp collectives by source line
    int32_t line;
    int32_t what;        // 0 __syncthreads, 1 warp collective
    uint64_t count;
};

struct Totals {
    uint64_t blocks_total, blocks_run, threads_run, accesses, flushes;
    uint64_t partial_ppm;   // a block stopped part-way: the share of its threads that started, per million
    uint64_t nsites, nbbs, nlines, nbufs;
    uint64_t dropped;    // records that found no room (the counters are then a lower bound)
};

struct Buf {
    uint64_t sectors, read, written;
};

// ---- open-addressing tables --------------------------------------------------------------------
inline uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb3fe1a85ec53ULL;
    return x ^ (x >> 33);
}

void* zmap(size_t bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    madvise(p, bytes, MADV_HUGEPAGE);   // hashed tables: a page per probe would miss the TLB each time
    return p;
}

constexpr unsigned kSites = 1u << 12, kBBs = 1u << 13, kLines = 256;
constexpr unsigned kReq = 1u << 16;      // requests being assembled
constexpr unsigned kCov = 1u << 15;      // (warp, basic block) -> hits per lane
constexpr unsigned kAtom = 1u << 16;     // atomic addresses
// A thread's executions of one site beyond this are counted but not assembled into requests (the
// requests' counters are scaled by accesses / assembled accesses): a few threads looping over a
// whole array would otherwise hold millions of half-assembled requests.
constexpr uint32_t kOccCap = 512;

Site g_site[kSites];
unsigned g_nsite;
int32_t g_site_slot[kSites * 2];       // pc -> index, -1 empty
BB g_bb[kBBs];
unsigned g_nbb;
int32_t g_bb_slot[kBBs * 2];
Line g_line[kLines];
unsigned g_nline;

// The warps of a block whose accesses are assembled into requests: all of a block of up to
// kAssembled warps, else the first two, the middle one and the last (edges and the inside). The
// other warps' accesses are counted, their sectors noted and their atomics tallied; their requests
// are taken to look like the assembled warps' (perfmodel scales by accesses / assembled), as they
// are in kernels whose warps are alike. Assembling is most of a profile's time.
constexpr unsigned kAssembled = 4;

struct Occ { uint32_t gen, n; };
Occ* g_occ;      // [kAssembled * 32][kSites]: an assembled thread's executions of each site
uint32_t g_gen;  // bumps per block: older entries are empty

struct Req { uint64_t key; uint32_t gen, mask; int32_t site; uint32_t size; uint64_t addr[32]; };
Req* g_req;
unsigned* g_req_used;
unsigned g_nreq;

struct Cov { uint64_t key; uint32_t gen, pad; uint32_t lanes[32]; };
Cov* g_cov;
unsigned* g_cov_used;
unsigned g_ncov;

struct Atom { uint64_t addr; uint64_t n; uint32_t block, multi; int32_t site; };
Atom* g_atom;
unsigned g_natom;

uint32_t* g_stamp[64];   // per array: per 32-byte sector, last block (low 31 bits) | written
size_t g_stamp_bytes[64];
Buf g_buf[64];

uintptr_t g_base;
unsigned g_nbufs;
uint64_t g_blocks_total, g_blocks_run, g_threads, g_accesses, g_flushes, g_dropped;
uint64_t g_sample_first[2], g_sample_count[2];
uint64_t g_budget = 6u << 20;   // accesses after which no further block starts
uint64_t g_hard_cap = 24u << 20; // accesses after which even the first block stops
uint64_t g_partial_ppm;
unsigned g_max_blocks = 16;
uint32_t g_block_seq;

uint64_t off(uintptr_t pc) { return pc - g_base; }

int site_of(uint64_t pc, int kind, int space, unsigned size, int buf) {
    unsigned h = unsigned(mix(pc)) & (kSites * 2 - 1);
    for (;;) {
        int32_t s = g_site_slot[h];
        if (s < 0) break;
        if (g_site[s].pc == pc) {
            if (g_site[s].buf != buf) g_site[s].buf = -1;
            return s;
        }
        h = (h + 1) & (kSites * 2 - 1);
    }
    if (g_nsite >= kSites) return -1;
    Site& x = g_site[g_nsite];
    memset(&x, 0, sizeof x);
    x.pc = pc;
    x.kind = kind;
    x.space = space;
    x.size = int32_t(size);
    x.buf = buf;
    g_site_slot[h] = int32_t(g_nsite);
    return int(g_nsite++);
}

BB* bb_of(uint64_t pc) {
    unsigned h = unsigned(mix(pc)) & (kBBs * 2 - 1);
    for (;;) {
        int32_t s = g_bb_slot[h];
        if (s < 0) break;
        if (g_bb[s].pc == pc) return &g_bb[s];
        h = (h + 1) & (kBBs * 2 - 1);
    }
    if (g_nbb >= kBBs) return nullptr;
    BB& x = g_bb[g_nbb];
    x = BB{pc, 0, 0, 0, 0};
    g_bb_slot[h] = int32_t(g_nbb++);
    return &x;
}

void count_line(int line, int what) {
    for (unsigned i = 0; i < g_nline; i++)
        if (g_line[i].line == line && g_line[i].what == what) { g_line[i].count++; return; }
    if (g_nline < kLines) g_line[g_nline++] = Line{line, what, 1};
}

// The slot of an assembled thread in g_occ, or -1 for a thread whose warp is not assembled.
int assembled_slot(unsigned tid) {
    unsigned warps = (g_s.nthreads + 31) / 32, w = tid >> 5, k;
    if (warps <= kAssembled || w <= 1) k = w;
    else if (w == warps / 2) k = 2;
    else if (w == warps - 1) k = 3;
    else return -1;
    return int(k * 32 + (tid & 31));
}

// How many times this thread ran site `si` before (in this block).
uint32_t occurrence(int slot, int si) {
    Occ& o = g_occ[size_t(slot) * kSites + unsigned(si)];
    if (o.gen != g_gen) { o = Occ{g_gen, 1}; return 0; }
    return o.n++;
}

// ---- one warp request, once assembled ------------------------------------------------------------
inline unsigned distinct(uint64_t* v, unsigned n) {
    for (unsigned i = 1; i < n; i++) {  // insertion sort: at most 64 values
        uint64_t x = v[i];
        unsigned j = i;
        while (j > 0 && v[j - 1] > x) { v[j] = v[j - 1]; j--; }
        v[j] = x;
    }
    unsigned d = n ? 1 : 0;
    for (unsigned i = 1; i < n; i++) d += v[i] != v[i - 1];
    return d;
}

// Each array's sectors carry the last block that touched them (low 30 bits) and whether any
// block read (bit 30) or wrote (bit 31) them: what DRAM must supply and take back at least once.
constexpr uint32_t kRead = 1u << 30, kWritten = 1u << 31, kSeq = kRead - 1;

// Global addresses are made (array + 1) << 40 | offset, as if each array started on its own
// 256-byte boundary like a cudaMalloc'd one (the host's arrays need not be 32-byte aligned).
constexpr unsigned kArrayShift = 40;

void note_sector(uint64_t sector, int kind, Site& s) {
    unsigned i = unsigned(sector >> (kArrayShift - 5)) - 1;
    if (i >= g_nbufs || !g_stamp[i]) return;
    size_t k = sector & ((uint64_t(1) << (kArrayShift - 5)) - 1);
    if (k >= g_stamp_bytes[i] / 4) return;
    uint32_t* st = g_stamp[i];
    uint32_t v = st[k];
    if ((v & kSeq) != (g_block_seq & kSeq)) s.l1_new++;
    bool reads = kind != 1, writes = kind != 0;   // an atomic does both
    if (reads && !(v & kRead)) g_buf[i].read++;
    if (writes && !(v & kWritten)) g_buf[i].written++;
    st[k] = (g_block_seq & kSeq) | (v & (kRead | kWritten)) | (reads ? kRead : 0) | (writes ? kWritten : 0);
}

void finish(const Req& r) {
    Site& s = g_site[r.site];
    unsigned active = __builtin_popcount(r.mask);
    s.requests++;
    s.bytes += uint64_t(active) * r.size;
    if (s.space == 0) {
        uint64_t sec[64];
        unsigned n = 0;
        for (unsigned l = 0; l < 32; l++) {
            if (!(r.mask >> l & 1)) continue;
            uint64_t a = r.addr[l], lo = a >> 5, hi = (a + r.size - 1) >> 5;
            sec[n++] = lo;
            if (hi != lo) sec[n++] = hi;
        }
        unsigned d = distinct(sec, n);
        s.sectors += d;
        uint64_t ideal = (uint64_t(active) * r.size + 31) / 32;
        s.ideal += ideal < d ? ideal : d;   // lanes reading one address (a broadcast) need one sector
        uint64_t prev = ~0ull;
        for (unsigned i = 0; i < n; i++) {
            if (sec[i] == prev) continue;
            prev = sec[i];
            note_sector(sec[i], s.kind, s);
        }
    } else {
        // 32 banks of 4 bytes: a request needs as many passes as its busiest bank has distinct
        // words, and at least one per 128 bytes
        uint64_t words[32][4];
        unsigned nw[32] = {0};
        unsigned worst = 0;
        for (unsigned l = 0; l < 32; l++) {
            if (!(r.mask >> l & 1)) continue;
            for (uint64_t w = r.addr[l] >> 2; w <= (r.addr[l] + r.size - 1) >> 2; w++) {
                unsigned bank = unsigned(w & 31);
                bool seen = false;
                unsigned m = nw[bank] < 4 ? nw[bank] : 4;
                for (unsigned j = 0; j < m; j++) seen |= words[bank][j] == w;
                if (seen) continue;
                if (nw[bank] < 4) words[bank][nw[bank]] = w;
                else {   // more than 4 distinct words in one bank: check the rest the slow way
                    for (unsigned j = 0; j < l && !seen; j++)
                        if (r.mask >> j & 1)
                            for (uint64_t v = r.addr[j] >> 2; v <= (r.addr[j] + r.size - 1) >> 2; v++)
                                if (v == w) { seen = true; break; }
                    if (seen) continue;
                }
                nw[bank]++;
                if (nw[bank] > worst) worst = nw[bank];
            }
        }
        if (s.kind == 2) {
            // lanes updating the same word take turns
            for (unsigned l = 0; l < 32; l++) {
                if (!(r.mask >> l & 1)) continue;
                unsigned same = 0;
                for (unsigned j = 0; j < 32; j++)
                    same += (r.mask >> j & 1) && (r.addr[j] >> 2) == (r.addr[l] >> 2);
                if (same > worst) worst = same;
            }
        }
        uint64_t ideal = (uint64_t(active) * r.size + 127) / 128;
        s.ideal += ideal;
        s.wavefronts += worst > ideal ? worst : ideal;
    }
}

void flush_requests() {
    for (unsigned i = 0; i < g_nreq; i++) {
        Req& r = g_req[g_req_used[i]];
        if (r.gen == g_gen) finish(r);
        r.gen = 0;
    }
    g_nreq = 0;
}

void flush_cov() {
    for (unsigned i = 0; i < g_ncov; i++) {
        Cov& c = g_cov[g_cov_used[i]];
        if (c.gen != g_gen) continue;
        BB* b = bb_of(c.key & 0xffffffffffULL);
        if (b) {
            // the warp's lanes: 32, fewer in a block's last warp when its size is not a multiple
            unsigned warp = unsigned(c.key >> 48), first = warp * 32;
            unsigned present = g_s.nthreads > first ? g_s.nthreads - first : 0;
            if (present > 32) present = 32;
            uint32_t most = 0, least = ~0u;
            uint64_t sum = 0;
            for (unsigned l = 0; l < 32; l++) {
                sum += c.lanes[l];
                if (c.lanes[l] > most) most = c.lanes[l];
                if (l < present && c.lanes[l] < least) least = c.lanes[l];
            }
            b->thread_hits += sum;
            b->warp_hits += most;
            b->lane_slots += uint64_t(most) * present;
            b->divergent += present && least < most;
        } else {
            g_dropped++;
        }
        c.gen = 0;
    }
    g_ncov = 0;
}

[[noreturn]] void cut() {
    // one block of a grid-stride loop over the whole input: stop and scale by the threads that
    // started (exact when they do the same work, as such loops' threads do)
    flush_requests();
    flush_cov();
    // a runner keeps `next` to itself while it loops: the running thread's index says as much
    uint64_t started = g_s.next > g_s.tid_linear + 1 ? g_s.next : g_s.tid_linear + 1;
    g_partial_ppm = started * 1000000 / (g_s.nthreads ? g_s.nthreads : 1);
    if (g_partial_ppm == 0) g_partial_ppm = 1;
    fail(ST_PROFILE_CUT, "profile stopped after %llu accesses", (unsigned long long)g_accesses);
}

void note_atomic(uintptr_t a, int si) {
    if (g_natom >= kAtom) return;
    Site& s = g_site[si];
    unsigned h = unsigned(mix(a)) & (kAtom * 2 - 1);
    for (;;) {
        Atom& t = g_atom[h];
        if (t.n == 0) {
            t = Atom{a, 1, g_block_seq, 0, si};
            g_natom++;
            s.addresses++;
            if (s.max_same == 0) s.max_same = 1;
            return;
        }
        if (t.addr == a) {
            t.n++;
            if (t.n > g_site[t.site].max_same) g_site[t.site].max_same = t.n;
            if (t.block != g_block_seq && !t.multi) {
                t.multi = 1;
                g_site[t.site].shared_addr++;
            }
            return;
        }
        h = (h + 1) & (kAtom * 2 - 1);
    }
}

void record(uintptr_t a, unsigned n, int kind, uintptr_t pc, int space, int buf) {
    if (++g_accesses > g_hard_cap) cut();
    uint64_t p = off(pc);
    int si = site_of(p, kind, space, n, buf);
    if (si < 0) { g_dropped++; return; }
    Site& s = g_site[si];
    s.accesses++;
    if (kind == 2 && space == 0) note_atomic(a, si);   // contention per address, from every update
    unsigned tid = g_s.tid_linear;
    int slot = assembled_slot(tid);
    uint32_t occ = slot >= 0 ? occurrence(slot, si) : kOccCap;
    if (occ >= kOccCap) {
        s.skipped++;
        if (space == 0) {   // the sectors still count once each towards DRAM and the block's L1
            for (uint64_t sec = a >> 5; sec <= (a + n - 1) >> 5; sec++) note_sector(sec, kind, s);
        }
        return;
    }
    uint64_t key = (uint64_t(tid >> 5) << 59) ^ (p << 24) ^ occ;
    unsigned h = unsigned(mix(key)) & (kReq * 2 - 1);
    for (;;) {
        Req& r = g_req[h];
        if (r.gen != g_gen) {
            if (g_nreq >= kReq) {   // too many open requests: finish those we have
                g_flushes++;
                flush_requests();
                h = unsigned(mix(key)) & (kReq * 2 - 1);
                continue;
            }
            r.key = key;
            r.gen = g_gen;
            r.mask = 0;
            r.site = si;
            r.size = n;
            g_req_used[g_nreq++] = h;
        } else if (r.key != key) {
            h = (h + 1) & (kReq * 2 - 1);
            continue;
        }
        unsigned lane = tid & 31;
        if (r.mask >> lane & 1) { g_dropped++; return; }
        r.mask |= 1u << lane;
        r.addr[lane] = a;
        if (n > r.size) r.size = n;
        return;
    }
}

}  // namespace

bool profile_runs_block(uint64_t b) {
    if (g_blocks_run >= g_max_blocks) return false;
    if (g_blocks_run >= 1 && g_accesses >= g_budget) return false;
    for (int r = 0; r < 2; r++)
        if (b >= g_sample_first[r] && b - g_sample_first[r] < g_sample_count[r]) return true;
    return false;
}

void profile_launch_begin(const LaunchDesc* L) {
    Dl_info info;
    g_base = dladdr(reinterpret_cast<void*>(&kp_run_grid), &info) ? uintptr_t(info.dli_fbase) : 0;
    if (!g_occ) {
        g_occ = static_cast<Occ*>(zmap(sizeof(Occ) * kAssembled * 32 * kSites));
        g_req = static_cast<Req*>(zmap(sizeof(Req) * kReq * 2));
        g_req_used = static_cast<unsigned*>(zmap(sizeof(unsigned) * kReq));
        g_cov = static_cast<Cov*>(zmap(sizeof(Cov) * kCov * 2));
        g_cov_used = static_cast<unsigned*>(zmap(sizeof(unsigned) * kCov));
        g_atom = static_cast<Atom*>(zmap(sizeof(Atom) * kAtom * 2));
    }
    memset(g_site_slot, 0xff, sizeof g_site_slot);
    memset(g_bb_slot, 0xff, sizeof g_bb_slot);
    memset(g_atom, 0, sizeof(Atom) * kAtom * 2);
    g_nsite = g_nbb = g_nline = g_natom = 0;
    g_blocks_run = g_threads = g_accesses = g_flushes = g_dropped = g_partial_ppm = 0;
    g_block_seq = 0;
    g_blocks_total = uint64_t(L->grid[0]) * L->grid[1] * L->grid[2];
    // Two runs of neighbouring blocks, at the grid's start and middle: neighbours share what
    // they read as blocks running at once on the GPU do, and the middle is away from the edges.
    uint64_t want = g_blocks_total < g_max_blocks ? g_blocks_total : g_max_blocks;
    g_sample_first[0] = 0;
    g_sample_count[0] = (want + 1) / 2;
    g_sample_first[1] = g_blocks_total / 2 > g_sample_count[0] ? g_blocks_total / 2 : g_sample_count[0];
    g_sample_count[1] = want - g_sample_count[0];
    for (unsigned i = 0; i < 64; i++) {
        if (g_stamp[i]) munmap(g_stamp[i], g_stamp_bytes[i]);
        g_stamp[i] = nullptr;
        g_buf[i] = Buf{0, 0, 0};
    }
    g_nbufs = g_act ? (g_act->n < 64 ? g_act->n : 64) : 0;
    if (g_act) {
        for (unsigned i = 0; i < g_nbufs; i++) {
            GBuf& b = g_act->bufs[i];
            size_t sectors = (b.hi - b.lo + 31) >> 5;
            g_stamp_bytes[i] = sectors * 4 + 4;
            g_stamp[i] = static_cast<uint32_t*>(zmap(g_stamp_bytes[i]));
            g_buf[i].sectors = sectors;
        }
    }
}

void profile_block_begin() {
    g_gen++;
    if (g_gen == 0) g_gen = 1;
    g_block_seq++;
    g_nreq = g_ncov = 0;
}

void profile_block_end() {
    flush_requests();
    flush_cov();
    g_blocks_run++;
    g_threads += g_s.nthreads;
}

void profile_global(const GBuf* b, uintptr_t a, unsigned n, int kind, uintptr_t pc) {
    unsigned i = unsigned(b - g_act->bufs);
    record((uint64_t(i + 1) << kArrayShift) | (a - b->lo), n, kind, pc, 0, int(i));
}

// Banks from the offset into the variable's arena or the dynamic area (both 128-byte aligned on
// a GPU), whatever the host's alignment.
void profile_shared(uintptr_t a, unsigned n, int kind, uintptr_t pc) {
    uintptr_t dyn = uintptr_t(kp_dyn_smem);
    uintptr_t base = a >= dyn && a < dyn + kDynMax ? dyn : uintptr_t(g_sh_base);
    record(a - base, n, kind, pc, 1, -1);
}

void profile_barrier(int line) { count_line(line, 0); }

// No warp request spans a block barrier: those open are finished, and the table holds no more
// than one phase's requests (a tiled kernel's block would otherwise fill it with finished ones).
void profile_barrier_passed() { flush_requests(); }
void profile_warp_op(int line) { count_line(line, 1); }

}  // namespace kp::core

using namespace kp;
using namespace kp::core;

extern "C" __attribute__((visibility("default"))) void kp_profile_config(int max_blocks, uint64_t budget) {
    if (max_blocks > 0) g_max_blocks = unsigned(max_blocks);
    if (budget > 0) g_budget = budget;
}

extern "C" __attribute__((visibility("default"))) int kp_profile_read(
    Totals* t, Site* sites, int cap_sites, BB* bbs, int cap_bbs, Line* lines, int cap_lines, Buf* bufs,
    int cap_bufs) {
    t->blocks_total = g_blocks_total;
    t->blocks_run = g_blocks_run;
    t->threads_run = g_threads;
    t->accesses = g_accesses;
    t->flushes = g_flushes;
    t->partial_ppm = g_partial_ppm;
    t->dropped = g_dropped;
    t->nsites = g_nsite;
    t->nbbs = g_nbb;
    t->nlines = g_nline;
    t->nbufs = g_nbufs;
    memcpy(sites, g_site, sizeof(Site) * (g_nsite < unsigned(cap_sites) ? g_nsite : unsigned(cap_sites)));
    memcpy(bbs, g_bb, sizeof(BB) * (g_nbb < unsigned(cap_bbs) ? g_nbb : unsigned(cap_bbs)));
    memcpy(lines, g_line, sizeof(Line) * (g_nline < unsigned(cap_lines) ? g_nline : unsigned(cap_lines)));
    unsigned nb = unsigned(t->nbufs) < unsigned(cap_bufs) ? unsigned(t->nbufs) : unsigned(cap_bufs);
    memcpy(bufs, g_buf, sizeof(Buf) * nb);
    return 0;
}

// Each basic block of an instrumented module starts with a call here (-fsanitize-coverage=trace-pc).
extern "C" void __sanitizer_cov_trace_pc() {
    if (!g_profiling) return;
    uint64_t pc = uintptr_t(__builtin_return_address(0)) - g_base;
    unsigned tid = g_s.tid_linear;
    uint64_t key = (uint64_t(tid >> 5) << 48) ^ pc;
    unsigned h = unsigned(mix(key)) & (kCov * 2 - 1);
    for (;;) {
        Cov& c = g_cov[h];
        if (c.gen != g_gen) {
            if (g_ncov >= kCov) { flush_cov(); h = unsigned(mix(key)) & (kCov * 2 - 1); continue; }
            c.key = key;
            c.gen = g_gen;
            memset(c.lanes, 0, sizeof c.lanes);
            g_cov_used[g_ncov++] = h;
        } else if (c.key != key) {
            h = (h + 1) & (kCov * 2 - 1);
            continue;
        }
        c.lanes[tid & 31]++;
        return;
    }
}
