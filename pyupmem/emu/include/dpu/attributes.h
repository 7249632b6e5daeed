/* attributes.h: the DPU variable attributes, mapped onto the host compiler. */
#ifndef _DPUSYSCORE_ATTRIBUTES_H_
#define _DPUSYSCORE_ATTRIBUTES_H_

/* MRAM variables go to sections that the emulator's linker script places at the
 * DPU's MRAM addresses (from 0x08000000). __mram_noinit data must not take room in
 * the file: with GCC on x86-64 the section is declared @nobits. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define __DPURT_NOINIT_SECTION "dpu_mram_noinit,\"aw\",@nobits#"
#else
#define __DPURT_NOINIT_SECTION "dpu_mram_noinit"
#endif

/* MRAM is a second address space, as on a DPU: an __mram_ptr access, or one of an __mram
 * variable, goes through gcc's named address space __seg_gs, whose base the emulator points
 * at the DPU's MRAM; an ordinary load or store at an MRAM address does not reach MRAM.
 * Named address spaces are a GNU C extension: in C++ and in strict ISO C (-std=c11) MRAM is
 * also in the ordinary address space (_dpu_program.h tells the worker). */
#include <_dpu_address_space.h>

/* Each attribute's declaration part apart: after a pointer's `*` (an array of pointers in
 * MRAM, `uint32_t *__mram_noinit table[2048];`), UPMEM's clang applies alignment and section
 * to the variable, gcc to the pointer type (and refuses an array of 4-byte elements aligned to
 * 8); the DPU source step (dpu_source.py) moves these parts after the declarator there. */
#define __DPURT_HOST_ATTRIBUTES __attribute__((aligned(8), used))
#define __DPURT_MRAM_ATTRIBUTES __attribute__((section("dpu_mram"), aligned(8), used))
#define __DPURT_MRAM_NOINIT_ATTRIBUTES                                                            \
    __attribute__((section(__DPURT_NOINIT_SECTION), aligned(8), used))
#define __DPURT_DMA_ALIGNED_ATTRIBUTES __attribute__((aligned(8)))

#define __host __DPURT_HOST_ATTRIBUTES
#define __mram __DPURT_MRAM_SPACE __DPURT_MRAM_ATTRIBUTES
#define __mram_noinit __DPURT_MRAM_SPACE __DPURT_MRAM_NOINIT_ATTRIBUTES
#define __mram_keep __mram
#define __mram_noinit_keep __mram_noinit
#define __mram_ptr __DPURT_MRAM_SPACE
#define __mram_fct
#define __dma_aligned __DPURT_DMA_ALIGNED_ATTRIBUTES
#define __keep __attribute__((used))
#define __noinline __attribute__((noinline))
#define __atomic_bit
#define __section(s) __attribute__((section(s)))

#endif
