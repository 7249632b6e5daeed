/* perfcounter.c: cycles of an emulated 350 MHz DPU, from the monotonic clock. */
#include <time.h>

#include <perfcounter.h>

#include "runtime.h"

static uint64_t base_ns;

uint64_t __dpurt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

perfcounter_t perfcounter_get(void)
{
    return (__dpurt_now_ns() - base_ns) * 7 / 20; /* 0.35 cycles per ns */
}

perfcounter_t perfcounter_config(perfcounter_config_t config, bool reset_value)
{
    perfcounter_t value = perfcounter_get();
    (void)config;
    if (reset_value)
        base_ns = __dpurt_now_ns();
    return value;
}
