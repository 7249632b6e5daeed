/* profiling.h: the SDK's code-section profiling. PROFILING_INIT(name) defines a context
 * with one start and one count per tasklet; between profiling_start(&name) and
 * profiling_stop(&name), a tasklet's count grows by the performance counter's cycles
 * (perfcounter_get, low 32 bits). Starting twice, or stopping what was not started,
 * faults the DPU (__FAULT_ALREADY_PROFILING__, __FAULT_NOT_PROFILING__). The host reads
 * the context like any WRAM variable (dpu_copy_from).
 *
 * As in the SDK, profiling_start and profiling_stop do nothing unless the program is
 * built with DPU_PROFILING defined (the SDK's compiler defines it with -pg; here pass
 * -DDPU_PROFILING). */
#ifndef DPUSYSCORE_PROFILING_H
#define DPUSYSCORE_PROFILING_H

#include <_dpu_diag_string.h>
#include <attributes.h>
#include <defs.h>
#include <limits.h>
#include <stdint.h>

#ifndef NR_THREADS
#ifdef NR_TASKLETS
#define NR_THREADS NR_TASKLETS
#else
#include <dpu_characteristics.h>
#define NR_THREADS DPU_NR_THREADS
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A profiling context (the SDK's profiling_internals.h). */
typedef struct {
    uint32_t start[NR_THREADS];
    uint32_t count[NR_THREADS];
} dpu_profiling_t;

#define PROFILING_RESET_VALUE (UINT32_MAX)

#ifdef __cplusplus
}
/* C++ has no array range designators: a constexpr function fills the starts. */
static inline constexpr dpu_profiling_t __dpu_profiling_initial()
{
    dpu_profiling_t context {};
    for (unsigned i = 0; i < NR_THREADS; i++)
        context.start[i] = PROFILING_RESET_VALUE;
    return context;
}
#define PROFILING_INIT(_name) __keep dpu_profiling_t _name = __dpu_profiling_initial()
#else
#define PROFILING_INIT(_name)                                                                      \
    __keep dpu_profiling_t _name = {                                                               \
        .start = {[0 ...(NR_THREADS - 1)] = PROFILING_RESET_VALUE},                                \
        .count = {[0 ...(NR_THREADS - 1)] = 0},                                                    \
    }
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The tasklet's start and count slots; the file and line name the caller in a fault. */
void __profiling_start(uint32_t *start, const char *file, int line);
void __profiling_stop(uint32_t *start, uint32_t *count, const char *file, int line);

#ifdef __cplusplus
}
#endif

#ifdef DPU_PROFILING
#define profiling_start(context)                                                                   \
    __profiling_start(&(context)->start[me()], __DPURT_FILE, __LINE__)
#define profiling_stop(context)                                                                    \
    __profiling_stop(&(context)->start[me()], &(context)->count[me()], __DPURT_FILE, __LINE__)
#else
#define profiling_start(context)                                                                   \
    do {                                                                                           \
    } while (0)
#define profiling_stop(context)                                                                    \
    do {                                                                                           \
    } while (0)
#endif /* DPU_PROFILING */

#endif /* DPUSYSCORE_PROFILING_H */
