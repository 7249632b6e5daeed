/* mram.h: DMA between WRAM and MRAM. The documented rules: a size that is a multiple of
 * 8 in 8..2048, both addresses 8-aligned, an MRAM address inside MRAM. A broken rule
 * does what the hardware does (whole 8-byte units, a wrapping length, the low address
 * bits ignored, only the MRAM offset bits used) with a warning naming the source line;
 * PYUPMEM_EMU_STRICT=1 makes it a fault. A DMA lets the other tasklets run. */
#ifndef _DPUSYSCORE_MRAM_H_
#define _DPUSYSCORE_MRAM_H_

#include <_dpu_diag_string.h>
#include <attributes.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* C++ DPU programs: the runtime has C linkage */
#endif

extern char __sys_used_mram_end[];
/** The first MRAM byte not used by the program's MRAM variables. */
#define DPU_MRAM_HEAP_POINTER ((__mram_ptr void *)(__UINTPTR_TYPE__)(__sys_used_mram_end))

void __dpurt_mram_read(const void *from, void *to, unsigned int nb_of_bytes, const char *file, int line);
void __dpurt_mram_write(const void *from, void *to, unsigned int nb_of_bytes, const char *file, int line);

#define mram_read(from, to, nb_of_bytes)                                                           \
    __dpurt_mram_read((const void *)(__UINTPTR_TYPE__)(from), (void *)(to), (nb_of_bytes), __DPURT_FILE, \
                      __LINE__)
#define mram_write(from, to, nb_of_bytes)                                                          \
    __dpurt_mram_write((const void *)(from), (void *)(__UINTPTR_TYPE__)(to), (nb_of_bytes), __DPURT_FILE, \
                       __LINE__)

#ifdef __cplusplus
}
#endif

#endif
