// Memory of checked launches: each array copied into an arena between inaccessible gaps, with a
// label for reports and a shadow for race tracking.
#pragma once
#include "core.h"

#pragma GCC visibility push(hidden)
namespace kp::core {

struct Shadow;

struct GBuf {
    uintptr_t lo, hi;
    char label[64];
    int64_t itemsize;
    Shadow* shadow;
    size_t shadow_bytes;
};

struct Arena {
    int used;
    int borrowed;      // the arrays' own memory, not copies (profiling: nothing is compared)
    char* base;
    size_t span;
    unsigned n;
    GBuf bufs[64];
};

extern Arena* g_act;  // arena the running checked launch uses

inline GBuf* find_buf(uintptr_t a) {
    Arena* A = g_act;
    for (unsigned i = 0; i < A->n; i++)
        if (a >= A->bufs[i].lo && a < A->bufs[i].hi) return &A->bufs[i];
    return nullptr;
}

// "label[index]", or a byte offset where `a` is not at an element's start.
void fmt_global(const GBuf& b, uintptr_t a, char* out, size_t n);

}  // namespace kp::core
#pragma GCC visibility pop
