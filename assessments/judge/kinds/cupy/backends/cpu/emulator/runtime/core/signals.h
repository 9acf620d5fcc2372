// Safety nets of a launch: faults and a deadline become errors instead of ending the process.
#pragma once
#include "core.h"

#pragma GCC visibility push(hidden)
namespace kp::core {

void install_signals(double timeout_s);  // timeout_s <= 0: no deadline
void restore_signals();

}  // namespace kp::core
#pragma GCC visibility pop
