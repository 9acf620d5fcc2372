// Fiber stacks: a pool of mmap'd stacks with a guard page each, and the context switch.
#pragma once
#include "core.h"

// Context switch: saves the callee-saved registers on the current stack, stores the stack
// pointer in *save and continues on `to`. A plain function call, so no system call per switch.
extern "C" void kp_switch_ctx(void** save, void* to);

#pragma GCC visibility push(hidden)
namespace kp::core {

extern size_t g_stack_bytes;  // every pooled stack has this size
extern Fiber* g_free;         // fibers running no thread, ready for reuse

Fiber* alloc_fiber();         // a new stack, for when the pool is empty
bool in_fiber_guard(uintptr_t a);
void free_all_fibers();       // after an abort: the abandoned threads never resume

inline Fiber* take_fiber() {
    Fiber* f = g_free;
    if (f) g_free = f->next_free;
    else f = alloc_fiber();
    return f;
}

inline void give_fiber(Fiber* f) {
    f->next_free = g_free;
    g_free = f;
}

}  // namespace kp::core
#pragma GCC visibility pop
