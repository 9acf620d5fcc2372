// Memory of checked launches, set up by launch.py: arenas whose arrays sit between inaccessible
// gaps, their labels and shadows, and the span of the module's __device__ variables.
#include "arena.h"

#include <cstdio>
#include <cstring>
#include <sys/mman.h>

#include "race.h"

namespace kp::core {

Arena* g_act;

namespace {
Arena g_arenas[8];
}  // namespace

void fmt_global(const GBuf& b, uintptr_t a, char* out, size_t n) {
    long long off = (long long)(a - b.lo);
    if (b.itemsize > 0 && off % b.itemsize == 0)
        snprintf(out, n, "%s[%lld]", b.label, off / b.itemsize);
    else
        snprintf(out, n, "%s (byte offset %lld)", b.label, off);
}

// A free arena handle for `n` arrays, or -1.
int free_arena(int n) {
    if (n < 0 || n > 64) return -1;
    for (int i = 0; i < 8; i++)
        if (!g_arenas[i].used) return i;
    return -1;
}

}  // namespace kp::core

extern "C" __attribute__((visibility("default"))) int kp_arena_create(int n, const uint64_t* sizes, uint64_t* addrs) {
    using namespace kp::core;
    int h = free_arena(n);
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

// Profiling runs on the arrays themselves: an arena that only names them (no gaps, no copies).
extern "C" __attribute__((visibility("default"))) int kp_arena_borrow(int n, const uint64_t* los,
                                                                       const uint64_t* sizes) {
    using namespace kp::core;
    int h = free_arena(n);
    if (h < 0) return -1;
    Arena& A = g_arenas[h];
    memset(&A, 0, sizeof A);
    A.used = 1;
    A.borrowed = 1;
    A.n = unsigned(n);
    uintptr_t lo = ~uintptr_t(0), hi = 0;
    for (int i = 0; i < n; i++) {
        A.bufs[i].lo = uintptr_t(los[i]);
        A.bufs[i].hi = uintptr_t(los[i]) + sizes[i];
        A.bufs[i].itemsize = 1;
        snprintf(A.bufs[i].label, sizeof A.bufs[i].label, "argument %d", i);
        if (A.bufs[i].lo < lo) lo = A.bufs[i].lo;
        if (A.bufs[i].hi > hi) hi = A.bufs[i].hi;
    }
    A.base = reinterpret_cast<char*>(n ? lo : 0);
    A.span = n ? hi - lo : 0;
    return h;
}

extern "C" __attribute__((visibility("default"))) void kp_arena_label(int h, int i, const char* label, int64_t itemsize) {
    using namespace kp::core;
    if (h < 0 || h >= 8 || !g_arenas[h].used || i < 0 || unsigned(i) >= g_arenas[h].n) return;
    snprintf(g_arenas[h].bufs[i].label, sizeof g_arenas[h].bufs[i].label, "%s", label);
    g_arenas[h].bufs[i].itemsize = itemsize;
}

// The race bookkeeping of a finished run is not needed any more; its data is.
extern "C" __attribute__((visibility("default"))) void kp_arena_drop_shadow(int h) {
    using namespace kp::core;
    if (h < 0 || h >= 8 || !g_arenas[h].used) return;
    Arena& A = g_arenas[h];
    for (unsigned i = 0; i < A.n; i++)
        if (A.bufs[i].shadow) {
            munmap(A.bufs[i].shadow, A.bufs[i].shadow_bytes);
            A.bufs[i].shadow = nullptr;
        }
}

extern "C" __attribute__((visibility("default"))) void kp_arena_activate(int h) {
    using namespace kp::core;
    g_act = (h >= 0 && h < 8 && g_arenas[h].used) ? &g_arenas[h] : nullptr;
}

extern "C" __attribute__((visibility("default"))) void kp_arena_destroy(int h) {
    using namespace kp::core;
    if (h < 0 || h >= 8 || !g_arenas[h].used) return;
    Arena& A = g_arenas[h];
    if (g_act == &A) g_act = nullptr;
    for (unsigned i = 0; i < A.n; i++)
        if (A.bufs[i].shadow) munmap(A.bufs[i].shadow, A.bufs[i].shadow_bytes);
    if (!A.borrowed) munmap(A.base, A.span);
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
