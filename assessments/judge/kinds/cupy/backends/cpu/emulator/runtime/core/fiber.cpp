// Fiber stacks: allocation with a guard page, the pool (fibers are reused, never freed), and the
// hand-written context switch.
#include "fiber.h"

#include <cstdlib>
#include <cstring>
#include <sys/mman.h>

#include "launch.h"

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

namespace kp::core {

size_t g_stack_bytes = 64 * 1024;
Fiber* g_free;

namespace {
Fiber** g_fibers;          // every fiber ever made
unsigned g_nfibers, g_capfibers;
}  // namespace

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

bool in_fiber_guard(uintptr_t a) {
    for (unsigned i = 0; i < g_nfibers; i++) {
        uintptr_t lo = reinterpret_cast<uintptr_t>(g_fibers[i]->stack_lo);
        if (a >= lo - kPage && a < lo) return true;
    }
    return false;
}

void free_all_fibers() {
    g_free = nullptr;
    for (unsigned i = 0; i < g_nfibers; i++) {
        g_fibers[i]->bound = 0;
        g_fibers[i]->next_free = g_free;
        g_free = g_fibers[i];
    }
}

}  // namespace kp::core

extern "C" __attribute__((visibility("default"))) void kp_set_stack_kib(int kib) {
    // Only before the first fiber exists: stacks are pooled at one size.
    if (kib >= 16 && kib <= 8192 && kp::core::g_nfibers == 0) kp::core::g_stack_bytes = size_t(kib) * 1024;
}
