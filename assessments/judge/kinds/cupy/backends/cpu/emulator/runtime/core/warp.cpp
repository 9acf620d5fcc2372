// Warp collectives: shuffles, votes, matches, reductions and __syncwarp, computed once every
// lane has arrived, and __activemask.
#include "warp.h"

#include "launch.h"
#include "profile.h"

namespace kp::core {

namespace {
constexpr int W_BARRIER = 100;  // wop_name() code for the block barrier

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
}  // namespace

unsigned lanes_exited(unsigned w) { return lanes_started(w) & ~g_b.alive[w] & lanes_present(w); }

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

namespace {
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

}  // namespace kp::core

namespace kp {
using namespace core;

uint64_t kp_warp_op(int kind, unsigned mask, uint64_t val, int param, int width, int line) {
    Fiber* f = g_s.cur;
    if (__builtin_expect(!f, 0)) fail(ST_LAUNCH, "warp operation called outside a kernel");
    if (!f->bound) bind(f);
    if (g_profiling) profile_warp_op(line);
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

}  // namespace kp
