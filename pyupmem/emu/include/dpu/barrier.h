/* barrier.h: tasklet barriers; a barrier re-arms itself once every tasklet passed. */
#ifndef _DPUSYSCORE_BARRIER_H_
#define _DPUSYSCORE_BARRIER_H_

#include <stdint.h>

typedef struct barrier_t {
    uint32_t count;
    uint32_t arrived;
    uint32_t generation;
} barrier_t;

#define BARRIER_INIT(_name, _count) barrier_t _name = {(_count), 0, 0}
void barrier_wait(barrier_t *barrier);

#endif
