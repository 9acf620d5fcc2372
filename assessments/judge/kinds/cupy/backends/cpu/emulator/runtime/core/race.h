// Race tracking: per 4-byte granule the last writer, the last reader and a summary of the other
// readers of the current barrier interval, checked on every access of a checked run.
#pragma once
#include "launch.h"
#include "scheduler.h"

#pragma GCC visibility push(hidden)
namespace kp::core {

// Records: phase << 32 | wp << 11 | atomic << 10 | tid.
struct Shadow { uint64_t w, r, o; };

constexpr uint32_t kWpMask = 0x1FFFFF;

extern uint32_t g_phase;        // increases at every block start and barrier, never reset
extern uint32_t g_block_first;  // phase in which the current block started
extern bool g_xblock_ok;        // the source orders blocks itself (__threadfence)

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

[[noreturn]] void race(const char* what, uint64_t other, bool other_block, const char* loc,
                       const char* other_did);
[[noreturn]] void race_other_readers(const char* loc, bool same_warp);
// Two writes without order between them race only if they leave different values: checked when
// the interval ends.
void add_suspect(uintptr_t a, uint64_t w, uint32_t tid, int region);
void check_suspects();
void note_block_start(uint64_t linear_block);
void race_begin(const LaunchDesc* L);
Shadow* map_shadow(size_t bytes);

inline void new_phase() {
    if (g_checking) check_suspects();
    g_phase++;
}

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

}  // namespace kp::core
#pragma GCC visibility pop
