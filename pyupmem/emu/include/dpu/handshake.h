/* handshake.h: one tasklet waits for another's notification. */
#ifndef _DPUSYSCORE_HANDSHAKE_H_
#define _DPUSYSCORE_HANDSHAKE_H_

#include <defs.h>
#include <errno.h>

#ifdef __cplusplus
extern "C" { /* C++ DPU programs: the runtime has C linkage */
#endif

/** Waits until a tasklet waits for the caller (handshake_wait_for(me())), then releases it. */
void handshake_notify(void);
/** Waits for tasklet `notifier` to notify; EALREADY when another tasklet already waits on it. */
int handshake_wait_for(sysname_t notifier);

#ifdef __cplusplus
}
#endif

#endif
