// The running launch and the failure path that ends it early.
#pragma once
#include <csetjmp>
#include <csignal>

#include "core.h"

#pragma GCC visibility push(hidden)
namespace kp::core {

extern LaunchDesc* g_L;
extern volatile sig_atomic_t g_in_launch;
extern sigjmp_buf g_jmp;   // where a failure returns to in kp_run_grid
extern bool g_checking;    // the running module is the instrumented variant

void where(char* buf, size_t n);

// Records the first failure of the launch and abandons it (outside a launch: aborts).
[[noreturn]] __attribute__((format(printf, 2, 3))) void fail(int status, const char* fmt, ...);

}  // namespace kp::core
#pragma GCC visibility pop
