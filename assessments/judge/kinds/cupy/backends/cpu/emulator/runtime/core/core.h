// What every unit of the emulator core includes first. Names the units share live in kp::core,
// which build.py makes local to the combined runtime object, so a candidate's symbols never
// meet them; the kernel-facing entry points stay in kp (kp_core_api.h). Each unit's header
// declares its names hidden, so that loads and calls across units stay direct (no GOT).
#pragma once
#include <cstddef>
#include <cstdint>

#define KP_CORE 1  // the core writes the built-in variables that kernels see as const
#include "kp_types.h"
#include "kp_core_api.h"

namespace kp::core {

constexpr size_t kPage = 4096;

}  // namespace kp::core
