/* mutex_pool.h: a pool of mutexes indexed by key (key % size). */
#ifndef _DPUSYSCORE_MUTEX_POOL_H_
#define _DPUSYSCORE_MUTEX_POOL_H_

#include <mutex.h>

struct mutex_pool {
    uint32_t nb_mutexes;
    uint8_t *mutexes;
};

#define MUTEX_POOL_INIT(_name, _nb_mutexes)                                                        \
    ATOMIC_BIT_INIT(mutex_pool_##_name)[_nb_mutexes];                                              \
    struct mutex_pool _name = {(_nb_mutexes), ATOMIC_BIT_GET(mutex_pool_##_name)}

static inline void mutex_pool_lock(struct mutex_pool *pool, uint32_t key)
{
    mutex_lock(&pool->mutexes[key % pool->nb_mutexes]);
}
static inline void mutex_pool_unlock(struct mutex_pool *pool, uint32_t key)
{
    mutex_unlock(&pool->mutexes[key % pool->nb_mutexes]);
}

#endif
