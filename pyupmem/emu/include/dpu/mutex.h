/* mutex.h: tasklet mutexes. As in the SDK, a mutex is the address of a byte (an
 * atomic bit): any byte works, and locking never writes to it or its neighbours. */
#ifndef _DPUSYSCORE_MUTEX_H_
#define _DPUSYSCORE_MUTEX_H_

#include <atomic_bit.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* C++ DPU programs: the runtime has C linkage */
#endif

typedef uint8_t *mutex_id_t;

#define MUTEX_INIT(_name)                                                                          \
    ATOMIC_BIT_INIT(mutex_##_name);                                                                \
    const mutex_id_t _name = &ATOMIC_BIT_GET(mutex_##_name)
#define MUTEX_GET(_name) (_name)

void mutex_lock(mutex_id_t mutex);
/** Takes the mutex if it is free; returns true when taken. */
bool mutex_trylock(mutex_id_t mutex);
void mutex_unlock(mutex_id_t mutex);

#ifdef __cplusplus
}
#endif

#endif
