// CUDA C device dialect on the CPU: included before the candidate's source; g++ -std=c++17.
// The candidate's code passed NVRTC first, so this only has to accept valid CUDA.
#pragma once

#define __CUDACC__ 1
#define __CUDACC_RTC__ 1
#define __CUDA_ARCH__ 900
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 0
#define CUDART_VERSION 13000
#define __KP_EMULATOR__ 1

#include <cfloat>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kp_types.h"
#include "kp_core_api.h"

// ---- qualifiers -------------------------------------------------------------------------------
// __global__, __shared__ and __device__ leave markers in the preprocessed text; build.py finds
// kernels by the first, rewrites declarations carrying the second (block-wide storage that is
// poisoned at each block start and bounds-checked in checking builds; an unrewritten __shared__
// is still a function-level static, block-wide because blocks run one at a time) and gathers
// __device__ variables into one section, which a checked launch restores between its two runs.
#define __global__ __attribute__((kp_global))
#define __shared__ static __attribute__((kp_shared))
#define __device__ __attribute__((kp_device))
#define __host__
#define __constant__
#define __managed__ __attribute__((kp_device))
#define __grid_constant__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __maxnreg__(...)
#define __cluster_dims__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __device_builtin__
#define __cudart_builtin__
#define CUDART_CB

#ifdef KP_CHECKING
// Atomics must not be seen as plain loads and stores by the instrumentation, and an
// uninstrumented function cannot be inlined into an instrumented one.
#define KP_ATOM inline __attribute__((no_sanitize_thread, noinline))
// the atomic is a function of its own here: its caller's address names the kernel's line
#define KP_ATOM_HOOK(p) \
    ::kp::kp_atomic_access(static_cast<const volatile void*>(p), sizeof(*(p)), __builtin_return_address(0))
#define KP_FI inline
#else
#define KP_ATOM inline __attribute__((always_inline))
#define KP_ATOM_HOOK(p) ((void)0)
#define KP_FI inline __attribute__((always_inline))
#endif

static constexpr int warpSize = 32;

// ---- vector constructors ----------------------------------------------------------------------
#define KP_MK(T, N)                                                                              \
    KP_FI N##1 make_##N##1(T x) { return N##1{x}; }                                              \
    KP_FI N##2 make_##N##2(T x, T y) { return N##2{x, y}; }                                      \
    KP_FI N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }                              \
    KP_FI N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
KP_MK(signed char, char)
KP_MK(unsigned char, uchar)
KP_MK(short, short)
KP_MK(unsigned short, ushort)
KP_MK(int, int)
KP_MK(unsigned int, uint)
KP_MK(long, long)
KP_MK(unsigned long, ulong)
KP_MK(long long, longlong)
KP_MK(unsigned long long, ulonglong)
KP_MK(float, float)
KP_MK(double, double)
#undef KP_MK

// ---- min / max (CUDA has them as global functions for every arithmetic mix) ---------------------
template <class A, class B, class = std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B>>>
KP_FI std::common_type_t<A, B> min(A a, B b) {
    using C = std::common_type_t<A, B>;
    return C(b) < C(a) ? C(b) : C(a);
}
template <class A, class B, class = std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B>>>
KP_FI std::common_type_t<A, B> max(A a, B b) {
    using C = std::common_type_t<A, B>;
    return C(a) < C(b) ? C(b) : C(a);
}
KP_FI long long llmin(long long a, long long b) { return a < b ? a : b; }
KP_FI long long llmax(long long a, long long b) { return a < b ? b : a; }
KP_FI unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
KP_FI unsigned umax(unsigned a, unsigned b) { return a < b ? b : a; }
KP_FI unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
KP_FI unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a < b ? b : a; }

// ---- floating-point functions CUDA has and libm lacks ----------------------------------------
KP_FI float rsqrtf(float x) { return 1.0f / sqrtf(x); }
KP_FI double rsqrt(double x) { return 1.0 / sqrt(x); }
KP_FI float rcbrtf(float x) { return 1.0f / cbrtf(x); }
KP_FI double rcbrt(double x) { return 1.0 / cbrt(x); }
KP_FI float fdividef(float a, float b) { return a / b; }
KP_FI float __fdividef(float a, float b) { return a / b; }
KP_FI float __saturatef(float x) { return x != x ? 0.0f : (x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x)); }
KP_FI float __expf(float x) { return expf(x); }
KP_FI float __exp10f(float x) { return exp10f(x); }
KP_FI float __logf(float x) { return logf(x); }
KP_FI float __log2f(float x) { return log2f(x); }
KP_FI float __log10f(float x) { return log10f(x); }
KP_FI float __sinf(float x) { return sinf(x); }
KP_FI float __cosf(float x) { return cosf(x); }
KP_FI float __tanf(float x) { return tanf(x); }
KP_FI float __powf(float x, float y) { return powf(x, y); }
KP_FI void __sincosf(float x, float* s, float* c) { *s = sinf(x); *c = cosf(x); }
KP_FI float sinpif(float x) { return sinf(float(M_PI) * x); }
KP_FI float cospif(float x) { return cosf(float(M_PI) * x); }
KP_FI void sincospif(float x, float* s, float* c) { *s = sinpif(x); *c = cospif(x); }
KP_FI double sinpi(double x) { return sin(M_PI * x); }
KP_FI double cospi(double x) { return cos(M_PI * x); }
KP_FI void sincospi(double x, double* s, double* c) { *s = sinpi(x); *c = cospi(x); }
KP_FI float normcdff(float x) { return 0.5f * erfcf(-x * float(M_SQRT1_2)); }
KP_FI double normcdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
KP_FI double erfinv(double y) {
    if (y <= -1.0) return -HUGE_VAL;
    if (y >= 1.0) return HUGE_VAL;
    double w = -log((1.0 - y) * (1.0 + y)), x;
    if (w < 5.0) { w -= 2.5; x = 2.81022636e-08; x = 3.43273939e-07 + x * w; x = -3.5233877e-06 + x * w;
        x = -4.39150654e-06 + x * w; x = 0.00021858087 + x * w; x = -0.00125372503 + x * w;
        x = -0.00417768164 + x * w; x = 0.246640727 + x * w; x = 1.50140941 + x * w; }
    else { w = sqrt(w) - 3.0; x = -0.000200214257; x = 0.000100950558 + x * w; x = 0.00134934322 + x * w;
        x = -0.00367342844 + x * w; x = 0.00573950773 + x * w; x = -0.0076224613 + x * w;
        x = 0.00943887047 + x * w; x = 1.00167406 + x * w; x = 2.83297682 + x * w; }
    x *= y;
    for (int i = 0; i < 2; i++) x -= (erf(x) - y) / (2.0 / sqrt(M_PI) * exp(-x * x));  // Newton polish
    return x;
}
KP_FI float erfinvf(float y) { return float(erfinv(y)); }
KP_FI double erfcinv(double y) { return erfinv(1.0 - y); }
KP_FI float erfcinvf(float y) { return float(erfinv(1.0 - double(y))); }
KP_FI double normcdfinv(double p) { return -M_SQRT2 * erfcinv(2.0 * p); }
KP_FI float normcdfinvf(float p) { return float(normcdfinv(p)); }
KP_FI double erfcx(double x) { return exp(x * x) * erfc(x); }
KP_FI float erfcxf(float x) { return float(erfcx(x)); }
KP_FI float rhypotf(float x, float y) { return 1.0f / hypotf(x, y); }
KP_FI double rhypot(double x, double y) { return 1.0 / hypot(x, y); }
KP_FI float norm3df(float a, float b, float c) { return sqrtf(a * a + b * b + c * c); }
KP_FI float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
KP_FI float norm4df(float a, float b, float c, float d) { return sqrtf(a * a + b * b + c * c + d * d); }
KP_FI float rnorm4df(float a, float b, float c, float d) { return 1.0f / norm4df(a, b, c, d); }
KP_FI double norm3d(double a, double b, double c) { return sqrt(a * a + b * b + c * c); }
KP_FI double rnorm3d(double a, double b, double c) { return 1.0 / norm3d(a, b, c); }
KP_FI float normf(int n, const float* a) { float s = 0; for (int i = 0; i < n; i++) s += a[i] * a[i]; return sqrtf(s); }
KP_FI float rnormf(int n, const float* a) { return 1.0f / normf(n, a); }
KP_FI double norm(int n, const double* a) { double s = 0; for (int i = 0; i < n; i++) s += a[i] * a[i]; return sqrt(s); }

// Rounding-mode variants: the CPU runs round-to-nearest; the directed modes are approximated.
#define KP_F2(name, expr) \
    KP_FI float name##_rn(float a, float b) { return expr; } \
    KP_FI float name##_rz(float a, float b) { return expr; } \
    KP_FI float name##_ru(float a, float b) { return expr; } \
    KP_FI float name##_rd(float a, float b) { return expr; }
KP_F2(__fadd, a + b)
KP_F2(__fsub, a - b)
KP_F2(__fmul, a * b)
KP_F2(__fdiv, a / b)
#undef KP_F2
#define KP_D2(name, expr) \
    KP_FI double name##_rn(double a, double b) { return expr; } \
    KP_FI double name##_rz(double a, double b) { return expr; } \
    KP_FI double name##_ru(double a, double b) { return expr; } \
    KP_FI double name##_rd(double a, double b) { return expr; }
KP_D2(__dadd, a + b)
KP_D2(__dsub, a - b)
KP_D2(__dmul, a * b)
KP_D2(__ddiv, a / b)
#undef KP_D2
KP_FI float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
KP_FI float __fmaf_rz(float a, float b, float c) { return fmaf(a, b, c); }
KP_FI float __fmaf_ru(float a, float b, float c) { return fmaf(a, b, c); }
KP_FI float __fmaf_rd(float a, float b, float c) { return fmaf(a, b, c); }
KP_FI float __fmaf_ieee_rn(float a, float b, float c) { return fmaf(a, b, c); }
KP_FI double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
KP_FI double __fma_rz(double a, double b, double c) { return fma(a, b, c); }
KP_FI double __fma_ru(double a, double b, double c) { return fma(a, b, c); }
KP_FI double __fma_rd(double a, double b, double c) { return fma(a, b, c); }
KP_FI float __frcp_rn(float x) { return 1.0f / x; }
KP_FI float __frcp_rz(float x) { return 1.0f / x; }
KP_FI float __frcp_ru(float x) { return 1.0f / x; }
KP_FI float __frcp_rd(float x) { return 1.0f / x; }
KP_FI float __fsqrt_rn(float x) { return sqrtf(x); }
KP_FI float __fsqrt_rz(float x) { return sqrtf(x); }
KP_FI float __fsqrt_ru(float x) { return sqrtf(x); }
KP_FI float __fsqrt_rd(float x) { return sqrtf(x); }
KP_FI float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
KP_FI double __drcp_rn(double x) { return 1.0 / x; }
KP_FI double __dsqrt_rn(double x) { return sqrt(x); }

// ---- bit casts and conversions ----------------------------------------------------------------
namespace kp {
template <class To, class From>
KP_FI To bitcast(From v) {
    static_assert(sizeof(To) == sizeof(From), "size mismatch");
    To t;
    memcpy(&t, &v, sizeof t);
    return t;
}
}  // namespace kp
KP_FI float __int_as_float(int x) { return kp::bitcast<float>(x); }
KP_FI int __float_as_int(float x) { return kp::bitcast<int>(x); }
KP_FI float __uint_as_float(unsigned x) { return kp::bitcast<float>(x); }
KP_FI unsigned __float_as_uint(float x) { return kp::bitcast<unsigned>(x); }
KP_FI double __longlong_as_double(long long x) { return kp::bitcast<double>(x); }
KP_FI long long __double_as_longlong(double x) { return kp::bitcast<long long>(x); }
KP_FI int __double2hiint(double x) { return int(kp::bitcast<unsigned long long>(x) >> 32); }
KP_FI int __double2loint(double x) { return int(kp::bitcast<unsigned long long>(x)); }
KP_FI double __hiloint2double(int hi, int lo) {
    return kp::bitcast<double>((static_cast<unsigned long long>(unsigned(hi)) << 32) | unsigned(lo));
}
#define KP_CVT(name, To, From, expr) KP_FI To name(From x) { return static_cast<To>(expr); }
#define KP_CVT4(base, To, From)                                   \
    KP_CVT(base##_rn, To, From, nearbyint(double(x)))             \
    KP_CVT(base##_rz, To, From, trunc(double(x)))                 \
    KP_CVT(base##_ru, To, From, ceil(double(x)))                  \
    KP_CVT(base##_rd, To, From, floor(double(x)))
KP_CVT4(__float2int, int, float)
KP_CVT4(__float2uint, unsigned, float)
KP_CVT4(__float2ll, long long, float)
KP_CVT4(__float2ull, unsigned long long, float)
KP_CVT4(__double2int, int, double)
KP_CVT4(__double2uint, unsigned, double)
KP_CVT4(__double2ll, long long, double)
KP_CVT4(__double2ull, unsigned long long, double)
#undef KP_CVT4
#define KP_CVTF(base, To, From) \
    KP_CVT(base##_rn, To, From, x) KP_CVT(base##_rz, To, From, x) KP_CVT(base##_ru, To, From, x) KP_CVT(base##_rd, To, From, x)
KP_CVTF(__int2float, float, int)
KP_CVTF(__uint2float, float, unsigned)
KP_CVTF(__ll2float, float, long long)
KP_CVTF(__ull2float, float, unsigned long long)
KP_CVTF(__double2float, float, double)
KP_CVTF(__ll2double, double, long long)
KP_CVTF(__ull2double, double, unsigned long long)
KP_CVT(__int2double_rn, double, int, x)
KP_CVT(__uint2double_rn, double, unsigned, x)
#undef KP_CVTF
#undef KP_CVT

// ---- integer intrinsics -----------------------------------------------------------------------
KP_FI int __popc(unsigned x) { return __builtin_popcount(x); }
KP_FI int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
KP_FI int __clz(int x) { return x ? __builtin_clz(unsigned(x)) : 32; }
KP_FI int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
KP_FI int __ffs(int x) { return __builtin_ffs(x); }
KP_FI int __ffsll(long long x) { return __builtin_ffsll(x); }
KP_FI unsigned __brev(unsigned x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    return __builtin_bswap32(x);
}
KP_FI unsigned long long __brevll(unsigned long long x) {
    return (static_cast<unsigned long long>(__brev(unsigned(x))) << 32) | __brev(unsigned(x >> 32));
}
KP_FI unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    unsigned long long v = (static_cast<unsigned long long>(y) << 32) | x;
    unsigned r = 0;
    for (int i = 0; i < 4; i++) r |= unsigned((v >> (((s >> (4 * i)) & 7) * 8)) & 0xFF) << (8 * i);
    return r;
}
KP_FI int __mul24(int a, int b) { return int((long long)((a << 8) >> 8) * ((b << 8) >> 8)); }
KP_FI unsigned __umul24(unsigned a, unsigned b) { return (a & 0xFFFFFF) * (b & 0xFFFFFF); }
KP_FI int __mulhi(int a, int b) { return int(((long long)a * b) >> 32); }
KP_FI unsigned __umulhi(unsigned a, unsigned b) { return unsigned(((unsigned long long)a * b) >> 32); }
KP_FI long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
KP_FI unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
KP_FI int __hadd(int a, int b) { return int(((long long)a + b) >> 1); }
KP_FI int __rhadd(int a, int b) { return int(((long long)a + b + 1) >> 1); }
KP_FI unsigned __uhadd(unsigned a, unsigned b) { return unsigned(((unsigned long long)a + b) >> 1); }
KP_FI unsigned __urhadd(unsigned a, unsigned b) { return unsigned(((unsigned long long)a + b + 1) >> 1); }
KP_FI unsigned __sad(int a, int b, unsigned c) { return c + unsigned(a > b ? a - b : b - a); }
KP_FI unsigned __usad(unsigned a, unsigned b, unsigned c) { return c + (a > b ? a - b : b - a); }
KP_FI unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
    unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return unsigned((v << (s & 31)) >> 32);
}
KP_FI unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) {
    unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return unsigned((v << (s > 32 ? 32 : s)) >> 32);
}
KP_FI unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
    unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return unsigned(v >> (s & 31));
}
KP_FI unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) {
    unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return unsigned(v >> (s > 32 ? 32 : s));
}
KP_FI int __dp4a(int a, int b, int c) {
    for (int i = 0; i < 4; i++) c += int(int8_t(a >> (8 * i))) * int(int8_t(b >> (8 * i)));
    return c;
}
KP_FI unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
    for (int i = 0; i < 4; i++) c += ((a >> (8 * i)) & 0xFF) * ((b >> (8 * i)) & 0xFF);
    return c;
}

// ---- loads and stores with cache hints --------------------------------------------------------
template <class T> KP_FI T __ldg(const T* p) { return *p; }
template <class T> KP_FI T __ldca(const T* p) { return *p; }
template <class T> KP_FI T __ldcg(const T* p) { return *p; }
template <class T> KP_FI T __ldcs(const T* p) { return *p; }
template <class T> KP_FI T __ldlu(const T* p) { return *p; }
template <class T> KP_FI T __ldcv(const T* p) { return *p; }
template <class T> KP_FI void __stwb(T* p, T v) { *p = v; }
template <class T> KP_FI void __stcg(T* p, T v) { *p = v; }
template <class T> KP_FI void __stcs(T* p, T v) { *p = v; }
template <class T> KP_FI void __stwt(T* p, T v) { *p = v; }

// ---- fences, clocks, traps --------------------------------------------------------------------
// One OS thread runs every CUDA thread, so fences only have to stop compiler reordering.
KP_FI void __threadfence() { asm volatile("" ::: "memory"); }
KP_FI void __threadfence_block() { asm volatile("" ::: "memory"); }
KP_FI void __threadfence_system() { asm volatile("" ::: "memory"); }
KP_FI long long clock64() { return (long long)__builtin_ia32_rdtsc(); }
KP_FI long long __clock64() { return clock64(); }
KP_FI unsigned long long __globaltimer() { return (unsigned long long)__builtin_ia32_rdtsc(); }
KP_FI void __nanosleep(unsigned) {}
[[noreturn]] KP_FI void __trap() { kp::kp_trap("__trap() called"); }
[[noreturn]] KP_FI void __brkpt() { kp::kp_trap("__brkpt() called"); }
KP_FI unsigned __isGlobal(const void*) { return 1; }
KP_FI unsigned __isShared(const void*) { return 0; }
KP_FI void __prof_trigger(int) {}

// Device printf; silent in the second (reverse-order) run of a checked launch, whose output
// would only repeat the first one's.
#define printf ::kp::kp_printf

#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : ::kp::kp_assert_fail(#e, __FILE__, __LINE__))
#endif

// ---- block barrier ----------------------------------------------------------------------------
// A barrier's call site is its source line (robust to unrolling, which duplicates the code).
#define KP_SITE int kp_line = __builtin_LINE()
#define KP_AT kp_line
KP_FI void __syncthreads(KP_SITE) { kp::kp_barrier(KP_AT, 0); }
KP_FI int __syncthreads_count(int pred, KP_SITE) { return int(kp::kp_barrier(KP_AT, pred)); }
KP_FI int __syncthreads_and(int pred, KP_SITE) {
    return kp::kp_barrier(KP_AT, pred) == blockDim.x * blockDim.y * blockDim.z;
}
KP_FI int __syncthreads_or(int pred, KP_SITE) { return kp::kp_barrier(KP_AT, pred) != 0; }

// ---- warp collectives -------------------------------------------------------------------------
namespace kp {
template <class T>
KP_FI uint64_t to_bits(const T& v) {
    static_assert(sizeof(T) <= 8, "warp shuffles move at most 8 bytes");
    uint64_t u = 0;
    memcpy(&u, &v, sizeof(T));
    return u;
}
template <class T>
KP_FI T from_bits(uint64_t u) {
    T v;
    memcpy(&v, &u, sizeof(T));
    return v;
}
}  // namespace kp

template <class T>
KP_FI T __shfl_sync(unsigned mask, T var, int src, int width = 32, int kp_line = __builtin_LINE()) {
    return kp::from_bits<T>(kp::kp_warp_op(kp::WOP_SHFL_IDX, mask, kp::to_bits(var), src, width, kp_line));
}
template <class T>
KP_FI T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32, int kp_line = __builtin_LINE()) {
    return kp::from_bits<T>(kp::kp_warp_op(kp::WOP_SHFL_UP, mask, kp::to_bits(var), int(delta), width, kp_line));
}
template <class T>
KP_FI T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32, int kp_line = __builtin_LINE()) {
    return kp::from_bits<T>(kp::kp_warp_op(kp::WOP_SHFL_DOWN, mask, kp::to_bits(var), int(delta), width, kp_line));
}
template <class T>
KP_FI T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32, int kp_line = __builtin_LINE()) {
    return kp::from_bits<T>(kp::kp_warp_op(kp::WOP_SHFL_XOR, mask, kp::to_bits(var), lane_mask, width, kp_line));
}
KP_FI unsigned __ballot_sync(unsigned mask, int pred, int kp_line = __builtin_LINE()) {
    return unsigned(kp::kp_warp_op(kp::WOP_BALLOT, mask, pred != 0, 0, 32, kp_line));
}
KP_FI int __any_sync(unsigned mask, int pred, int kp_line = __builtin_LINE()) {
    return int(kp::kp_warp_op(kp::WOP_ANY, mask, pred != 0, 0, 32, kp_line));
}
KP_FI int __all_sync(unsigned mask, int pred, int kp_line = __builtin_LINE()) {
    return int(kp::kp_warp_op(kp::WOP_ALL, mask, pred != 0, 0, 32, kp_line));
}
KP_FI int __uni_sync(unsigned mask, int pred, int kp_line = __builtin_LINE()) {
    int a = __all_sync(mask, pred, kp_line);
    return a || !__any_sync(mask, pred, kp_line);
}
KP_FI void __syncwarp(unsigned mask = 0xFFFFFFFFu, int kp_line = __builtin_LINE()) {
    kp::kp_warp_op(kp::WOP_SYNC, mask, 0, 0, 32, kp_line);
}
KP_FI unsigned __activemask() { return kp::kp_activemask(); }
template <class T>
KP_FI unsigned __match_any_sync(unsigned mask, T value, int kp_line = __builtin_LINE()) {
    return unsigned(kp::kp_warp_op(kp::WOP_MATCH_ANY, mask, kp::to_bits(value), 0, 32, kp_line));
}
template <class T>
KP_FI unsigned __match_all_sync(unsigned mask, T value, int* pred, int kp_line = __builtin_LINE()) {
    uint64_t r = kp::kp_warp_op(kp::WOP_MATCH_ALL, mask, kp::to_bits(value), 0, 32, kp_line);
    *pred = int(r >> 32);
    return unsigned(r);
}
#define KP_RED(name, op)                                                                            \
    KP_FI unsigned name(unsigned mask, unsigned v, int kp_line = __builtin_LINE()) {                \
        return unsigned(kp::kp_warp_op(op, mask, v, 0, 32, kp_line));                              \
    }                                                                                              \
    KP_FI int name(unsigned mask, int v, int kp_line = __builtin_LINE()) {                          \
        return int(kp::kp_warp_op(op, mask, unsigned(v), 1, 32, kp_line));                         \
    }
KP_RED(__reduce_add_sync, kp::WOP_RED_ADD)
KP_RED(__reduce_min_sync, kp::WOP_RED_MIN)
KP_RED(__reduce_max_sync, kp::WOP_RED_MAX)
KP_RED(__reduce_and_sync, kp::WOP_RED_AND)
KP_RED(__reduce_or_sync, kp::WOP_RED_OR)
KP_RED(__reduce_xor_sync, kp::WOP_RED_XOR)
#undef KP_RED

// ---- atomics (single OS thread: a plain read-modify-write is atomic) --------------------------
namespace kp {
template <class T> struct nd { using type = T; };
template <class T> KP_FI void note_atomic() {
    if constexpr (!std::is_integral_v<T>) kp_note_float_atomic();
}
}  // namespace kp
template <class T> KP_ATOM T atomicAdd(T* p, typename kp::nd<T>::type v) {
    KP_ATOM_HOOK(p); kp::note_atomic<T>(); T o = *p; *p = T(o + v); return o;
}
KP_ATOM float2 atomicAdd(float2* p, float2 v) {
    KP_ATOM_HOOK(p); kp::kp_note_float_atomic(); float2 o = *p; *p = float2{o.x + v.x, o.y + v.y}; return o;
}
KP_ATOM float4 atomicAdd(float4* p, float4 v) {
    KP_ATOM_HOOK(p); kp::kp_note_float_atomic(); float4 o = *p;
    *p = float4{o.x + v.x, o.y + v.y, o.z + v.z, o.w + v.w}; return o;
}
template <class T> KP_ATOM T atomicSub(T* p, typename kp::nd<T>::type v) {
    KP_ATOM_HOOK(p); kp::note_atomic<T>(); T o = *p; *p = T(o - v); return o;
}
template <class T> KP_ATOM T atomicExch(T* p, typename kp::nd<T>::type v) {
    KP_ATOM_HOOK(p); T o = *p; *p = v; return o;
}
template <class T> KP_ATOM T atomicMin(T* p, typename kp::nd<T>::type v) {
    KP_ATOM_HOOK(p); T o = *p; *p = v < o ? v : o; return o;
}
template <class T> KP_ATOM T atomicMax(T* p, typename kp::nd<T>::type v) {
    KP_ATOM_HOOK(p); T o = *p; *p = o < v ? v : o; return o;
}
template <class T> KP_ATOM T atomicAnd(T* p, typename kp::nd<T>::type v) {
    KP_ATOM_HOOK(p); T o = *p; *p = o & v; return o;
}
template <class T> KP_ATOM T atomicOr(T* p, typename kp::nd<T>::type v) {
    KP_ATOM_HOOK(p); T o = *p; *p = o | v; return o;
}
template <class T> KP_ATOM T atomicXor(T* p, typename kp::nd<T>::type v) {
    KP_ATOM_HOOK(p); T o = *p; *p = o ^ v; return o;
}
template <class T> KP_ATOM T atomicCAS(T* p, typename kp::nd<T>::type cmp, typename kp::nd<T>::type v) {
    KP_ATOM_HOOK(p); T o = *p; if (o == cmp) *p = v; return o;
}
KP_ATOM unsigned atomicInc(unsigned* p, unsigned v) {
    KP_ATOM_HOOK(p); unsigned o = *p; *p = (o >= v) ? 0u : o + 1; return o;
}
KP_ATOM unsigned atomicDec(unsigned* p, unsigned v) {
    KP_ATOM_HOOK(p); unsigned o = *p; *p = (o == 0 || o > v) ? v : o - 1; return o;
}
#define KP_ATOM_SCOPES(op) \
    template <class... A> KP_FI auto op##_block(A... a) { return op(a...); } \
    template <class... A> KP_FI auto op##_system(A... a) { return op(a...); }
KP_ATOM_SCOPES(atomicAdd)
KP_ATOM_SCOPES(atomicSub)
KP_ATOM_SCOPES(atomicExch)
KP_ATOM_SCOPES(atomicMin)
KP_ATOM_SCOPES(atomicMax)
KP_ATOM_SCOPES(atomicAnd)
KP_ATOM_SCOPES(atomicOr)
KP_ATOM_SCOPES(atomicXor)
KP_ATOM_SCOPES(atomicCAS)
KP_ATOM_SCOPES(atomicInc)
KP_ATOM_SCOPES(atomicDec)
#undef KP_ATOM_SCOPES

// ---- launch machinery (used by the entry points build.py appends) ------------------------------
namespace kp {

template <class T>
KP_FI T* shared_var(size_t align, const char* name) {
    return static_cast<T*>(kp_shared_alloc(sizeof(T), align > alignof(T) ? align : alignof(T), name,
                                           sizeof(std::remove_all_extents_t<T>), int(std::rank_v<T>)));
}

template <class F> struct fn_traits;
template <class... A> struct fn_traits<void (*)(A...)> {
    using tuple = std::tuple<A...>;
    static constexpr size_t n = sizeof...(A);
};
template <class... A> struct fn_traits<void (*)(A...) noexcept> : fn_traits<void (*)(A...)> {};

template <class Tuple, size_t... I>
Tuple unpack(const char* p, std::index_sequence<I...>) {
    Tuple t{};
    size_t off = 0;
    ((off = (off + alignof(std::tuple_element_t<I, Tuple>) - 1) & ~(alignof(std::tuple_element_t<I, Tuple>) - 1),
      memcpy(static_cast<void*>(&std::get<I>(t)), p + off, sizeof(std::tuple_element_t<I, Tuple>)),
      off += sizeof(std::tuple_element_t<I, Tuple>)),
     ...);
    return t;
}

template <class T> const char* type_name() { return __PRETTY_FUNCTION__; }

template <class T> constexpr int kind_of() {
    if constexpr (std::is_pointer_v<T>) return 1;
    else if constexpr (std::is_same_v<T, bool>) return 5;
    else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) return std::is_signed_v<T> ? 2 : 3;
    else if constexpr (std::is_floating_point_v<T>) return 4;
    else return 0;
}

template <class T> constexpr int pointee_const() {
    if constexpr (std::is_pointer_v<T>) return std::is_const_v<std::remove_pointer_t<T>> ? 1 : 0;
    else return 0;
}

template <class Tuple, size_t... I>
int describe(ParamInfo* out, int cap, std::index_sequence<I...>) {
    int i = 0;
    ((i < cap ? (void)(out[i] = ParamInfo{int64_t(sizeof(std::tuple_element_t<I, Tuple>)),
                                          int64_t(alignof(std::tuple_element_t<I, Tuple>)),
                                          kind_of<std::tuple_element_t<I, Tuple>>(),
                                          pointee_const<std::tuple_element_t<I, Tuple>>(),
                                          type_name<std::tuple_element_t<I, Tuple>>()}) : (void)0, i++),
     ...);
    return i;
}

template <auto Fn>
struct Thunk {
    typename fn_traits<decltype(Fn)>::tuple args;
    KP_FI void operator()() { std::apply(Fn, args); }
};

// Runs threads in order, inside a fiber, as a plain loop. A thread that blocks (barrier, warp
// operation) keeps this fiber as its own; the scheduler then starts a new runner for the rest.
template <class Th>
void run_threads(void* ctx) {
    Th t = *static_cast<Th*>(ctx);  // a local copy: the arguments can stay in registers
    Sched& s = g_s;
    unsigned k = s.next;
    const unsigned n = s.nthreads, bx = s.bdx, by = s.bdy, snap = s.nbind;
    const int rev = s.reverse;
    if (k >= n) return;
    if (!rev && by == 1 && s.bdz == 1) {
        // The common case, forward order over a 1-D block: threadIdx.x is the loop counter.
        threadIdx.y = threadIdx.z = 0;
        for (unsigned x = k; x < n; ++x) {
            threadIdx.x = x;
#ifdef KP_CHECKING
            s.tid_linear = x;
#endif
            t();
            if (__builtin_expect(s.nbind != snap, 0)) return;
        }
        s.next = n;
        return;
    }
    unsigned tid = rev ? n - 1 - k : k;
    if (k == 0) {
        threadIdx = rev ? uint3{bx - 1, by - 1, s.bdz - 1} : uint3{0, 0, 0};
    } else {
        // continue after the thread the previous runner stopped at (no division per thread)
        threadIdx = s.resume_idx;
        tid = rev ? n - k : k - 1;
        goto step;
    }
    for (;;) {
#ifdef KP_CHECKING
        s.tid_linear = tid;
#endif
        t();
        if (__builtin_expect(s.nbind != snap, 0)) return;  // this thread blocked: the fiber is its own now
        if (++k >= n) {
            s.next = n;
            return;
        }
    step:
        if (!rev) {
            tid++;
            if (++threadIdx.x == bx) {
                threadIdx.x = 0;
                if (++threadIdx.y == by) { threadIdx.y = 0; ++threadIdx.z; }
            }
        } else {
            tid--;
            if (threadIdx.x-- == 0) {
                threadIdx.x = bx - 1;
                if (threadIdx.y-- == 0) { threadIdx.y = by - 1; --threadIdx.z; }
            }
        }
    }
}

template <auto Fn>
int launch_entry(LaunchDesc* L, const char* params) {
    using Tr = fn_traits<decltype(Fn)>;
    Thunk<Fn> t{unpack<typename Tr::tuple>(params, std::make_index_sequence<Tr::n>{})};
    return kp_run_grid(L, &run_threads<Thunk<Fn>>, &t);
}

template <auto Fn>
int layout_entry(ParamInfo* out, int cap) {
    using Tr = fn_traits<decltype(Fn)>;
    return describe<typename Tr::tuple>(out, cap, std::make_index_sequence<Tr::n>{});
}

}  // namespace kp
