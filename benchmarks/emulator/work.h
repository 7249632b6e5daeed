/* The compute-bound loop shared by the DPU program and the native baseline:
 * integer hashing, no memory traffic. */
#include <stdint.h>

static inline uint32_t work(uint32_t x, uint32_t iterations)
{
    uint32_t acc = 0;
    for (uint32_t i = 0; i < iterations; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        acc += x * 0x9E3779B9u + (acc >> 7);
    }
    return acc;
}

static inline uint32_t seed_of(uint32_t item)
{
    return item * 2654435761u + 1u;
}
