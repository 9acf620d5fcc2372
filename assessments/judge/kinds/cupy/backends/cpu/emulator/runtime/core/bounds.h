// Checking mode's memory hooks: every instrumented access is checked against the bounds of the
// launch's arrays and __shared__ variables, then goes through the race check.
#pragma once
#include "core.h"

#pragma GCC visibility push(hidden)
namespace kp::core {

void checking_begin(const LaunchDesc* L);
void checking_end();
void checking_shared_grew();  // the static __shared__ arena was just reserved

// Names what a faulting address was near, for reports of invalid accesses.
void describe_global_fault(uintptr_t a, char* out, size_t n);

}  // namespace kp::core
#pragma GCC visibility pop
