// Warp collectives: a collective completes when every live lane its mask names has arrived;
// lanes that exited count as absent.
#pragma once
#include "scheduler.h"

#pragma GCC visibility push(hidden)
namespace kp::core {

inline unsigned lanes_present(unsigned w) {
    unsigned n = g_s.nthreads - w * 32;
    return n >= 32 ? ~0u : ((1u << n) - 1);
}

unsigned lanes_exited(unsigned w);

inline bool coll_complete(unsigned w, const WarpColl& c) {
    unsigned need = c.mask & lanes_present(w) & ~lanes_exited(w);
    return (c.arrived & need) == need;
}

// Computes every arrived lane's result, wakes the waiting lanes and frees the slot; returns the
// result for `me` (-1: none of them is running).
uint64_t coll_finish(unsigned w, WarpColl& c, int me);

// Completes the collectives that lanes leaving have made complete; true if any woke up.
bool release_warps();

const char* wop_name(int kind);

}  // namespace kp::core
#pragma GCC visibility pop
