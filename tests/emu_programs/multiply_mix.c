/* 32-bit multiplies and divisions among many live values, in loops, with values passed
 * through to calls untouched: the counting code put before each one takes a scratch
 * register that gcc's code has no live value in, so the results are those of the same
 * functions compiled natively (-DNATIVE prints them; the DPU program leaves them in
 * `output`). */
#include <stdint.h>
#ifdef NATIVE
#include <stdio.h>
#define HOST_SYMBOL
#else
#include <defs.h>
#define HOST_SYMBOL __host
#endif

#define N 96
#define OUTPUTS 6

HOST_SYMBOL uint32_t output[OUTPUTS];
uint32_t input[N];

/* Eight accumulators live across the loop, each updated by a multiply or a division. */
static uint32_t __attribute__((noinline)) pressure(const uint32_t *v, uint32_t n)
{
    uint32_t a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = v[i];
        a = a * x + b;
        b = (b ^ x) * c + d / (x | 1);
        c = c * e + (x >> 3);
        d = d * f - g;
        e = e * (x + 1) + h % (x | 3);
        f = (f + x) * (g | 1);
        g = g * h + a;
        h = (h ^ a) * (x & 0xff) + 1;
    }
    return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h;
}

/* The product of two signed values, wrapping as the hardware does (no undefined overflow). */
static inline int32_t wrapping_product(int32_t x, int32_t y)
{
    return (int32_t)((uint32_t)x * (uint32_t)y);
}

/* A divisor of either sign, never 0 or -1 (INT32_MIN / -1 would trap). */
static inline int32_t divisor(int32_t x)
{
    int32_t d = x | 1;
    return d == -1 ? 3 : d;
}

/* Signed products and quotients, negative values included. */
static int32_t __attribute__((noinline)) signed_mix(const uint32_t *v, uint32_t n)
{
    int32_t s = -7, t = 11, u = 0;
    for (uint32_t i = 0; i < n; i++) {
        int32_t x = (int32_t)v[i] >> 9;
        s = (int32_t)((uint32_t)wrapping_product(s, x) + (uint32_t)(t / divisor(x)));
        int32_t moved = (int32_t)((uint32_t)t - (uint32_t)(x >> 1));
        t = (int32_t)((uint32_t)wrapping_product(moved, s | 5) - (uint32_t)u);
        u = (int32_t)((uint32_t)u + (uint32_t)(wrapping_product(x, x) / divisor(s >> 20)));
    }
    return s ^ t ^ u;
}

static uint32_t __attribute__((noinline)) take(uint32_t p, uint32_t q, uint32_t r, uint32_t s,
                                               uint32_t t, uint32_t w)
{
    return p ^ (q << 1) ^ (r << 2) ^ (s << 3) ^ (t << 4) ^ (w << 5);
}

/* A product computed between the arguments' arrival and the call that takes them on. */
static uint32_t __attribute__((noinline)) pass_on(uint32_t p, uint32_t q, uint32_t r,
                                                  uint32_t s, uint32_t t, uint32_t w)
{
    return take(p * q, q, r, s, t, w * p);
}

/* A product whose value is returned past a call that made another return value. */
static uint32_t __attribute__((noinline)) around_call(uint32_t p, uint32_t q, uint32_t *out)
{
    uint32_t kept = take(p, q, p, q, p, q);
    *out = p * q;
    return kept;
}

int main(void)
{
    uint32_t state = 12345;
    for (uint32_t i = 0; i < N; i++) {
        state = state * 1103515245u + 12345u;
        input[i] = state;
    }
    output[0] = pressure(input, N);
    output[1] = (uint32_t)signed_mix(input, N);
    output[2] = pass_on(input[0], input[1], input[2], input[3], input[4], input[5]);
    output[3] = around_call(input[6], input[7], &output[4]);
    output[5] = pressure(input + 1, N - 1) * (uint32_t)signed_mix(input + 2, N / 2);
#ifdef NATIVE
    for (int i = 0; i < OUTPUTS; i++)
        printf("%u\n", output[i]);
#endif
    return 0;
}
