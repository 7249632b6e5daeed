/* vmutex.h: virtual mutexes (many locks multiplexed on few hardware mutexes). The
 * emulator gives each virtual mutex a byte of its own. */
#ifndef _DPUSYSCORE_VMUTEX_H_
#define _DPUSYSCORE_VMUTEX_H_

#include <mutex.h>

typedef struct vmutex_t {
    uint32_t nb_vmutexes;
    uint8_t *mutexes;
} vmutex_t;

#define VMUTEX_INIT(_name, _nb_vmutexes, _nb_hw_mutexes)                                           \
    ATOMIC_BIT_INIT(vmutex_##_name)[_nb_vmutexes];                                                 \
    vmutex_t _name = {(_nb_vmutexes), ATOMIC_BIT_GET(vmutex_##_name)}

static inline void vmutex_lock(vmutex_t *vmutex, uint32_t id)
{
    mutex_lock(&vmutex->mutexes[id % vmutex->nb_vmutexes]);
}
static inline void vmutex_unlock(vmutex_t *vmutex, uint32_t id)
{
    mutex_unlock(&vmutex->mutexes[id % vmutex->nb_vmutexes]);
}

#endif
