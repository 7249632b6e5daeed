/* mram.h: DMA between WRAM and MRAM. Transfers follow the hardware rules (size a
 * multiple of 8 in 8..2048, both addresses 8-aligned, inside MRAM); a broken rule
 * faults the DPU with the source line. */
#ifndef _DPUSYSCORE_MRAM_H_
#define _DPUSYSCORE_MRAM_H_

#include <attributes.h>
#include <stdint.h>

extern char __sys_used_mram_end[];
/** The first MRAM byte not used by the program's MRAM variables. */
#define DPU_MRAM_HEAP_POINTER ((__mram_ptr void *)(__sys_used_mram_end))

void __dpurt_mram_read(const void *from, void *to, unsigned int nb_of_bytes, const char *file, int line);
void __dpurt_mram_write(const void *from, void *to, unsigned int nb_of_bytes, const char *file, int line);

#define mram_read(from, to, nb_of_bytes)                                                           \
    __dpurt_mram_read((const void *)(from), (void *)(to), (nb_of_bytes), __FILE__, __LINE__)
#define mram_write(from, to, nb_of_bytes)                                                          \
    __dpurt_mram_write((const void *)(from), (void *)(to), (nb_of_bytes), __FILE__, __LINE__)

#endif
