/* defs.h: tasklet identity and control. */
#ifndef _DPUSYSCORE_DEFS_H_
#define _DPUSYSCORE_DEFS_H_

#include <attributes.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* C++ DPU programs: the runtime has C linkage */
#endif

#ifndef NR_TASKLETS
#define NR_TASKLETS 1
#endif

typedef unsigned int sysname_t;
typedef sysname_t thread_id_t;

/** The id of the running tasklet, 0 .. NR_TASKLETS-1. */
sysname_t me(void);
/** Stops the calling tasklet (it counts as finished for this launch). */
void halt(void) __attribute__((noreturn));
/** Bytes left on the calling tasklet's emulated stack (never negative here). */
int check_stack(void);

#ifdef __cplusplus
}
#endif

#endif
