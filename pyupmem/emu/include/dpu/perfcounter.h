/* perfcounter.h: the DPU performance counter. The emulator counts cycles of an
 * emulated 350 MHz DPU from wall time since the last reset; it cannot count
 * instructions, so COUNT_INSTRUCTIONS gives the same number. */
#ifndef _DPUSYSCORE_PERFCOUNTER_H_
#define _DPUSYSCORE_PERFCOUNTER_H_

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* C++ DPU programs: the runtime has C linkage */
#endif

typedef uint64_t perfcounter_t;
typedef enum _perfcounter_config_t {
    COUNT_SAME = 0,
    COUNT_CYCLES = 1,
    COUNT_INSTRUCTIONS = 2,
    COUNT_NOTHING = 3,
} perfcounter_config_t;

#undef CLOCKS_PER_SEC
#define CLOCKS_PER_SEC 350000000

perfcounter_t perfcounter_config(perfcounter_config_t config, bool reset_value);
perfcounter_t perfcounter_get(void);

#ifdef __cplusplus
}
#endif

#endif
