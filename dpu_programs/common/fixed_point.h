/* The fixed-point helpers every DPU program of rl and pimopt uses (and the native C loops
 * they are compared with), once: 32-bit integer operations only, as the DPU has no 64-bit
 * multiply. Their definitions, bit for bit, are rl/fixed_point.py (Q15.16 values, Q0.15
 * coefficients) and pimopt/fixed_point.py (scaled coefficients).
 *
 * The builds of pyupmem.apps.training.TrainingRun have this folder on their include path:
 * dpu_programs/common/ in a source tree, pyupmem/dpu_programs/ in an installed wheel. */
#ifndef PYUPMEM_FIXED_POINT_H
#define PYUPMEM_FIXED_POINT_H

#include <stdint.h>

/* x times the Q0.15 coefficient c (|c| <= 32767), i.e. floor(x * c / 2^15 + 1/2): the
 * exact product rounded half up. Splitting x into x >> 15 and its low 15 bits keeps
 * both partial products within 32 bits, so it never overflows. */
static inline int32_t mul_q15(int32_t x, int32_t c)
{
    return (x >> 15) * c + (((x & 0x7FFF) * c + 0x4000) >> 15);
}

/* mul_q15(x, c) with one multiply instead of two where |x| <= 2^16 (a Q15.16 value within
 * +-1.0: weights, errors): then |x * c| + 2^14 < 2^31, so (x * c + 0x4000) >> 15 is the
 * same floor(x * c / 2^15 + 1/2) without overflow. A multiply is a loop of mul_step
 * instructions on a DPU (and the emulator counts it so), a comparison one instruction. */
static inline int32_t mul_q15_near_one(int32_t x, int32_t c)
{
    if ((uint32_t)x + 65536u <= 131072u)
        return (x * c + 0x4000) >> 15;
    return mul_q15(x, c);
}

/* The exact a + b clamped to the int32 range. */
static inline int32_t sat_add(int32_t a, int32_t b)
{
    int32_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT32_MAX : INT32_MIN;
    return r;
}

/* The exact a - b clamped to the int32 range. */
static inline int32_t sat_sub(int32_t a, int32_t b)
{
    int32_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? INT32_MAX : INT32_MIN;
    return r;
}

/* x times the scaled coefficient (c, s) (pimopt: small rates keep 15 significant bits):
 * mul_q15(x, c) >> s. */
static inline int32_t mul_scaled(int32_t x, uint32_t c, uint32_t s)
{
    return mul_q15(x, (int32_t)c) >> s;
}

/* The float whose bits the host sent in a uint32 (FP32 coefficients). */
static inline float float_of_bits(uint32_t bits)
{
    union {
        uint32_t u;
        float f;
    } v = {.u = bits};
    return v.f;
}

#endif
