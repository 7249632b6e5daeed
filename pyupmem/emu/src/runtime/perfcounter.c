/* perfcounter.c: the DPU performance counter. For a program built with cost counting it
 * gives the time model's figures: the DPU cycles of the running tasklet's modelled
 * clock, or the instructions all tasklets issued, since the launch started or the last
 * reset. Without counting it can only give cycles of a 350 MHz DPU from wall time. */
#include <time.h>

#include <perfcounter.h>

#include "runtime.h"

static uint64_t base_ns, base_cycles, base_instructions;
static perfcounter_config_t counting = COUNT_CYCLES;

uint64_t __dpurt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void __dpurt_perfcounter_reset(void)
{
    base_ns = __dpurt_now_ns();
    base_cycles = 0;
    base_instructions = 0;
    counting = COUNT_CYCLES;
}

perfcounter_t perfcounter_get(void)
{
    if (!__dpurt.counting)
        return (__dpurt_now_ns() - base_ns) * 7 / 20; /* 0.35 cycles per ns */
    uint64_t cycles = __dpurt_dpu_clock();
    if (counting == COUNT_INSTRUCTIONS)
        return __dpurt.instructions - base_instructions;
    return cycles - base_cycles;
}

perfcounter_t perfcounter_config(perfcounter_config_t config, bool reset_value)
{
    perfcounter_t value = perfcounter_get();
    if (config == COUNT_CYCLES || config == COUNT_INSTRUCTIONS)
        counting = config;
    if (reset_value) {
        base_ns = __dpurt_now_ns();
        base_cycles = __dpurt_dpu_clock();
        base_instructions = __dpurt.instructions;
    }
    return value;
}
