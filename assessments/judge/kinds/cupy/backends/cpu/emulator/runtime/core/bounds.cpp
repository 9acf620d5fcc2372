// Checking mode's memory hooks: the compiler's -fsanitize=thread callbacks (no libtsan) land
// here; each access is bounds-checked, then its 4-byte granules go through the race check.
#include "bounds.h"

#include <cstdio>

#include "arena.h"
#include "launch.h"
#include "profile.h"
#include "race.h"
#include "shared.h"

namespace kp::core {

namespace {
uintptr_t g_ga_lo, g_ga_span, g_sa_lo, g_sa_span, g_da_lo, g_da_span;
Shadow* g_sh_shadow;   // shared arena
Shadow* g_dyn_shadow;  // dynamic shared area

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

void global_access(uintptr_t a, unsigned n, int kind, uintptr_t pc) {
    GBuf* b = find_buf(a);
    if (g_profiling) {
        // between borrowed arrays lies memory that is not the kernel's: the plain build's
        // guard pages and the tests' checks are what judge bounds, the profile only counts
        if (b && a + n <= b->hi) profile_global(b, a, n, kind, pc);
        return;
    }
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

void shared_access(uintptr_t a, unsigned n, int kind, uintptr_t pc) {
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
    if (g_profiling) return profile_shared(a, n, kind, pc);
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

// `pc` is where the kernel made the access (profiling attributes it to a source line).
inline void kp_access(const volatile void* p, unsigned n, int kind, void* pc) {
    uintptr_t a = reinterpret_cast<uintptr_t>(p), at = reinterpret_cast<uintptr_t>(pc);
    // shared memory first: a profiled launch's borrowed arrays may span it (they are not
    // packed into one arena)
    if (a - g_sa_lo < g_sa_span || a - g_da_lo < g_da_span) shared_access(a, n, kind, at);
    else if (a - g_ga_lo < g_ga_span) global_access(a, n, kind, at);
}
}  // namespace

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

void checking_begin(const LaunchDesc* L) {
    race_begin(L);
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
void checking_shared_grew() {
    if (g_checking && g_in_launch && g_sh_base) {
        if (!g_sh_shadow) g_sh_shadow = map_shadow(kShArena);
        g_sa_lo = uintptr_t(g_sh_base);
        g_sa_span = kShArena;
    }
}

}  // namespace kp::core

namespace kp {
void kp_atomic_access(const volatile void* p, unsigned n, void* pc) { core::kp_access(p, n, 2, pc); }
}  // namespace kp

// The entry points -fsanitize=thread instrumentation calls, as libtsan would define them.
#define KP_TSAN_RW(N)                                                                               \
    extern "C" void __tsan_read##N(void* p) { kp::core::kp_access(p, N, 0, __builtin_return_address(0)); }                       \
    extern "C" void __tsan_write##N(void* p) { kp::core::kp_access(p, N, 1, __builtin_return_address(0)); }                      \
    extern "C" void __tsan_unaligned_read##N(void* p) { kp::core::kp_access(p, N, 0, __builtin_return_address(0)); }             \
    extern "C" void __tsan_unaligned_write##N(void* p) { kp::core::kp_access(p, N, 1, __builtin_return_address(0)); }            \
    extern "C" void __tsan_volatile_read##N(void* p) { kp::core::kp_access(p, N, 0, __builtin_return_address(0)); }              \
    extern "C" void __tsan_volatile_write##N(void* p) { kp::core::kp_access(p, N, 1, __builtin_return_address(0)); }
KP_TSAN_RW(1)
KP_TSAN_RW(2)
KP_TSAN_RW(4)
KP_TSAN_RW(8)
KP_TSAN_RW(16)
extern "C" void __tsan_read_range(void* p, unsigned long n) {
    for (unsigned long i = 0; i < n; i += 4)
        kp::core::kp_access(static_cast<char*>(p) + i, n - i < 4 ? unsigned(n - i) : 4, 0, __builtin_return_address(0));
}
extern "C" void __tsan_write_range(void* p, unsigned long n) {
    for (unsigned long i = 0; i < n; i += 4)
        kp::core::kp_access(static_cast<char*>(p) + i, n - i < 4 ? unsigned(n - i) : 4, 1, __builtin_return_address(0));
}
extern "C" void __tsan_init() {}
extern "C" void __tsan_func_entry(void*) {}
extern "C" void __tsan_func_exit() {}
extern "C" void __tsan_vptr_update(void**, void*) {}
extern "C" void __tsan_vptr_read(void**) {}
