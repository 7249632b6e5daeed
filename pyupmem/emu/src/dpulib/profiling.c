/* profiling.c: profiling_start and profiling_stop of profiling.h, on one tasklet's slots of
 * a profiling context. */
#include <assert.h>
#include <stdint.h>

#include <perfcounter.h>
#include <profiling.h>

/* assert's own entry point, so that the fault names the caller's line. */
static void fault(const char *what, const char *file, int line, const char *function)
{
    __assert_fail(what, file, (unsigned int)line, function);
}

void __profiling_start(uint32_t *start, const char *file, int line)
{
    if (*start != PROFILING_RESET_VALUE)
        fault("profiling_start: this tasklet already profiles this section "
              "(__FAULT_ALREADY_PROFILING__)",
              file, line, "profiling_start");
    *start = (uint32_t)perfcounter_get();
}

void __profiling_stop(uint32_t *start, uint32_t *count, const char *file, int line)
{
    if (*start == PROFILING_RESET_VALUE)
        fault("profiling_stop: this tasklet did not start profiling this section "
              "(__FAULT_NOT_PROFILING__)",
              file, line, "profiling_stop");
    *count += (uint32_t)perfcounter_get() - *start;
    *start = PROFILING_RESET_VALUE;
}
