// Shared memory: storage for each static __shared__ variable on first use (poisoned, with gaps
// between variables), the dynamic area, and the poisoning at every block start.
#include "shared.h"

#include <cstdio>
#include <cstring>
#include <sys/mman.h>

#include "bounds.h"
#include "launch.h"

namespace kp::core {

alignas(4096) char g_dyn_area[kDynGap + kDynMax + kDynGap];
char* g_sh_base;
ShVar g_shvars[512];
unsigned g_nshvars;
size_t g_dyn_bytes;

namespace {
size_t g_sh_used;
}  // namespace

void poison_shared() {
    for (unsigned i = 0; i < g_nshvars; i++) memset(g_shvars[i].p, 0xFF, g_shvars[i].size);
    if (g_dyn_bytes) memset(kp_dyn_smem, 0xFF, g_dyn_bytes);
}

void fmt_shared(uintptr_t a, char* out, size_t n) {
    if (a - uintptr_t(g_dyn_area) < sizeof g_dyn_area) {
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

}  // namespace kp::core

namespace kp {
using namespace core;

char* const kp_dyn_smem = g_dyn_area + kDynGap;

void* kp_shared_alloc(size_t size, size_t align, const char* name, size_t itemsize, int rank) {
    if (!g_sh_base) {
        void* m = mmap(nullptr, kShArena, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) fail(ST_LAUNCH, "cannot reserve shared memory");
        g_sh_base = static_cast<char*>(m);
        g_sh_used = 0;
        checking_shared_grew();
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

}  // namespace kp
