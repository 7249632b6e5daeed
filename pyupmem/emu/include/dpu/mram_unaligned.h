/* mram_unaligned.h: MRAM accesses of any size and alignment. */
#ifndef _DPUSYSCORE_MRAM_UNALIGNED_H_
#define _DPUSYSCORE_MRAM_UNALIGNED_H_

#include <mram.h>

#ifdef __cplusplus
extern "C" { /* C++ DPU programs: the runtime has C linkage */
#endif

void *__dpurt_mram_read_unaligned(const void *from, void *buffer, unsigned int nb_of_bytes,
                                  const char *file, int line);
void __dpurt_mram_write_unaligned(const void *from, void *dest, unsigned int nb_of_bytes,
                                  const char *file, int line);

/** Reads nb_of_bytes from any MRAM address; returns where in buffer the data starts. */
#define mram_read_unaligned(from, buffer, nb_of_bytes)                                             \
    __dpurt_mram_read_unaligned((const void *)(__UINTPTR_TYPE__)(from), (void *)(buffer), (nb_of_bytes), \
                                __DPURT_FILE, __LINE__)
#define mram_write_unaligned(from, dest, nb_of_bytes)                                              \
    __dpurt_mram_write_unaligned((const void *)(from), (void *)(__UINTPTR_TYPE__)(dest), (nb_of_bytes), \
                                 __DPURT_FILE, __LINE__)

#ifdef __cplusplus
}
#endif

#endif
