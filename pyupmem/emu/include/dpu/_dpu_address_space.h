/* Whether DPU code reaches MRAM through gcc's named address space __seg_gs (GNU C), or in
 * the ordinary address space (C++, strict ISO C): see attributes.h. */
#ifndef PYUPMEM_DPU_ADDRESS_SPACE_H
#define PYUPMEM_DPU_ADDRESS_SPACE_H
#if defined(__SEG_GS) && !defined(__cplusplus) && !defined(__STRICT_ANSI__)
#define __DPURT_MRAM_SPACE __seg_gs
#else
#define __DPURT_MRAM_SPACE
#define __DPURT_FLAT_MRAM 1
#endif
#endif
