// Everything this header declares for device code is part of the emulator's kp_cuda.h.
#pragma once
