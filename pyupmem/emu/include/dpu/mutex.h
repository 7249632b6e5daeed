/* mutex.h: tasklet mutexes. */
#ifndef _DPUSYSCORE_MUTEX_H_
#define _DPUSYSCORE_MUTEX_H_

#include <stdbool.h>
#include <stdint.h>

struct __dpurt_mutex {
    uint32_t locked;
    uint32_t owner;
};
typedef struct __dpurt_mutex *mutex_id_t;

#define MUTEX_INIT(_name)                                                                          \
    struct __dpurt_mutex __dpurt_mutex_##_name = {0, 0};                                           \
    mutex_id_t const _name = &__dpurt_mutex_##_name
#define MUTEX_GET(_name) (_name)

void mutex_lock(mutex_id_t mutex);
/** Takes the mutex if it is free; returns true when taken. */
bool mutex_trylock(mutex_id_t mutex);
void mutex_unlock(mutex_id_t mutex);

#endif
