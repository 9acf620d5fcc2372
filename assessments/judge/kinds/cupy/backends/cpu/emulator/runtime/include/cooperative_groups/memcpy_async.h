// Part of the emulator's cooperative_groups.h.
#pragma once
#include <cooperative_groups.h>
