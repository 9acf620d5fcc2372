// Shared implementation of the 16-bit float types (__half, __nv_bfloat16): storage plus
// arithmetic done in float, as the GPU does for anything but native half instructions.
#pragma once
#include <cstdint>
#include <cstring>

namespace kp {
inline unsigned short f2h(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xFF, mant = x & 0x7FFFFF;
    if (exp == 0xFF) return uint16_t(sign | 0x7C00 | (mant ? 0x200 | (mant >> 13) : 0));
    int e = int(exp) - 112;
    if (e >= 31) return uint16_t(sign | 0x7C00);
    if (e <= 0) {
        if (e < -10) return uint16_t(sign);
        mant |= 0x800000;
        int shift = 14 - e;
        uint32_t hm = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (hm & 1))) hm++;
        return uint16_t(sign | hm);
    }
    uint32_t hm = mant >> 13, rem = mant & 0x1FFF;
    uint32_t h = sign | (uint32_t(e) << 10) | hm;
    if (rem > 0x1000 || (rem == 0x1000 && (hm & 1))) h++;
    return uint16_t(h);
}
inline float h2f(unsigned short h) {
    uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, mant = h & 0x3FF, x;
    if (exp == 0) {
        if (!mant) x = sign;
        else {
            int e = -1;
            do { e++; mant <<= 1; } while (!(mant & 0x400));
            x = sign | (uint32_t(127 - 15 - e) << 23) | ((mant & 0x3FF) << 13);
        }
    } else if (exp == 31) x = sign | 0x7F800000 | (mant << 13);
    else x = sign | ((exp + 112) << 23) | (mant << 13);
    float f;
    memcpy(&f, &x, 4);
    return f;
}
inline unsigned short f2bf(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7FFFFFFF) > 0x7F800000) return uint16_t((x >> 16) | 0x40);
    return uint16_t((x + 0x7FFF + ((x >> 16) & 1)) >> 16);
}
inline float bf2f(unsigned short h) {
    uint32_t x = uint32_t(h) << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}
}  // namespace kp

#define KP_HALF_TYPE(H, H2, TOF, FROMF)                                                            \
    struct __attribute__((aligned(2))) H {                                                        \
        unsigned short __x;                                                                       \
        H() = default;                                                                            \
        H(float f) : __x(FROMF(f)) {}                                                             \
        H(double d) : __x(FROMF(float(d))) {}                                                     \
        H(int i) : __x(FROMF(float(i))) {}                                                        \
        H(unsigned i) : __x(FROMF(float(i))) {}                                                   \
        H(long long i) : __x(FROMF(float(i))) {}                                                  \
        H(unsigned long long i) : __x(FROMF(float(i))) {}                                         \
        H(short i) : __x(FROMF(float(i))) {}                                                      \
        H(unsigned short i) : __x(FROMF(float(i))) {}                                             \
        operator float() const { return TOF(__x); }                                               \
        H& operator+=(const H& o) { *this = H(float(*this) + float(o)); return *this; }           \
        H& operator-=(const H& o) { *this = H(float(*this) - float(o)); return *this; }           \
        H& operator*=(const H& o) { *this = H(float(*this) * float(o)); return *this; }           \
        H& operator/=(const H& o) { *this = H(float(*this) / float(o)); return *this; }           \
    };                                                                                            \
    inline H operator+(const H& a, const H& b) { return H(float(a) + float(b)); }                 \
    inline H operator-(const H& a, const H& b) { return H(float(a) - float(b)); }                 \
    inline H operator*(const H& a, const H& b) { return H(float(a) * float(b)); }                 \
    inline H operator/(const H& a, const H& b) { return H(float(a) / float(b)); }                 \
    inline H operator-(const H& a) { H r = a; r.__x ^= 0x8000; return r; }                        \
    inline H operator+(const H& a) { return a; }                                                  \
    inline bool operator==(const H& a, const H& b) { return float(a) == float(b); }               \
    inline bool operator!=(const H& a, const H& b) { return float(a) != float(b); }               \
    inline bool operator<(const H& a, const H& b) { return float(a) < float(b); }                 \
    inline bool operator<=(const H& a, const H& b) { return float(a) <= float(b); }               \
    inline bool operator>(const H& a, const H& b) { return float(a) > float(b); }                 \
    inline bool operator>=(const H& a, const H& b) { return float(a) >= float(b); }               \
    struct __attribute__((aligned(4))) H2 {                                                       \
        H x, y;                                                                                   \
        H2() = default;                                                                           \
        H2(H a, H b) : x(a), y(b) {}                                                              \
    };                                                                                            \
    inline H2 operator+(const H2& a, const H2& b) { return H2(a.x + b.x, a.y + b.y); }            \
    inline H2 operator-(const H2& a, const H2& b) { return H2(a.x - b.x, a.y - b.y); }            \
    inline H2 operator*(const H2& a, const H2& b) { return H2(a.x * b.x, a.y * b.y); }            \
    inline H2 operator/(const H2& a, const H2& b) { return H2(a.x / b.x, a.y / b.y); }
