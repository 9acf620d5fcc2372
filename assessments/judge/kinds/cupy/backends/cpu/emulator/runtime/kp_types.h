// CUDA's built-in vector types and the state shared by the emulator core and compiled kernels.
#pragma once
#include <cstddef>
#include <cstdint>

#define KP_HIDDEN __attribute__((visibility("hidden")))

// ---- vector types, with CUDA's sizes and alignments --------------------------------------------
#define KP_V1(T, N, A) struct __attribute__((aligned(A))) N##1 { T x; };
#define KP_V2(T, N, A) struct __attribute__((aligned(A))) N##2 { T x, y; };
#define KP_V3(T, N, A) struct N##3 { T x, y, z; };
#define KP_V4(T, N, A) struct __attribute__((aligned(A))) N##4 { T x, y, z, w; };
#define KP_VEC(T, N, A1, A2, A4) KP_V1(T, N, A1) KP_V2(T, N, A2) KP_V3(T, N, 0) KP_V4(T, N, A4)
KP_VEC(signed char, char, 1, 2, 4)
KP_VEC(unsigned char, uchar, 1, 2, 4)
KP_VEC(short, short, 2, 4, 8)
KP_VEC(unsigned short, ushort, 2, 4, 8)
KP_VEC(int, int, 4, 8, 16)
KP_VEC(unsigned int, uint, 4, 8, 16)
KP_VEC(long, long, 8, 16, 16)
KP_VEC(unsigned long, ulong, 8, 16, 16)
KP_VEC(long long, longlong, 8, 16, 16)
KP_VEC(unsigned long long, ulonglong, 8, 16, 16)
KP_VEC(float, float, 4, 8, 16)
KP_VEC(double, double, 8, 16, 16)
#undef KP_V1
#undef KP_V2
#undef KP_V3
#undef KP_V4
#undef KP_VEC

struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

// Built-in variables: plain globals, because one OS thread runs every CUDA thread and the
// scheduler rewrites threadIdx whenever it resumes a different one. Kernels see the other three
// as const: only the core writes them, between blocks, and every block starts new fibers, so the
// compiler may keep them in registers for as long as a fiber runs.
#ifdef KP_CORE
#define KP_BUILTIN_CONST
#else
#define KP_BUILTIN_CONST const
#endif
extern KP_HIDDEN uint3 threadIdx;
extern KP_HIDDEN KP_BUILTIN_CONST uint3 blockIdx;
extern KP_HIDDEN KP_BUILTIN_CONST dim3 blockDim;
extern KP_HIDDEN KP_BUILTIN_CONST dim3 gridDim;

namespace kp {

// Result codes shared with launch.py.
enum Status : int32_t {
    ST_OK = 0, ST_DEADLOCK = 1, ST_TIMEOUT = 2, ST_MEMORY = 3, ST_RACE = 4, ST_LAUNCH = 5,
    ST_PROFILE_CUT = 6,   // a profiled block ran past the access budget: counted so far, then stopped
};

// Launch description filled by launch.py (ctypes mirror: launch.py _Desc).
struct LaunchDesc {
    uint32_t grid[3];
    uint32_t block[3];
    uint64_t dyn_shared;
    int32_t reverse;        // run blocks and threads last to first
    int32_t checking;       // the module is the instrumented variant
    double timeout_s;       // <= 0: no deadline
    int32_t xblock_ok;      // the source synchronises blocks itself (__threadfence): no cross-block reports
    int32_t status;         // out
    int32_t float_atomics;  // out: floating-point atomics ran (their order changes rounding)
    int32_t profile;        // checking build, run once: count (profile.cpp) instead of checking races
    char message[4096];     // out
};

// One kernel parameter as the compiler sees it (ctypes mirror: launch.py _ParamInfo).
struct ParamInfo {
    int64_t size;
    int64_t align;
    int32_t kind;           // 0 other, 1 pointer, 2 signed integer, 3 unsigned integer, 4 floating, 5 bool
    int32_t pointee_const;
    const char* type_name;  // __PRETTY_FUNCTION__ text holding "T = <type>"
};

struct Fiber {
    void* sp;
    uint3 idx;
    unsigned tid;           // linear index in the block
    int bound;              // suspended at least once: owns one CUDA thread until it exits
    uint64_t xresult;       // result of the warp collective it waited in
    char* stack_lo;
    char* stack_top;
    Fiber* next_free;
};

struct Sched {
    Fiber* cur;             // running fiber (null: the launching context)
    unsigned nthreads;
    unsigned next;          // threads started so far, in run order (exact whenever a runner is not running)
    unsigned nbind;         // counts bind(): a runner that sees it change was bound meanwhile
    int reverse;
    unsigned bdx, bdy, bdz;
    uint3 resume_idx;       // threadIdx of the thread a runner last stopped at (see bind())
    void (*run)(void*);
    void* ctx;
    unsigned tid_linear;    // kept current in checking builds only
    int float_atomics;
};
extern KP_HIDDEN Sched g_s;

}  // namespace kp
