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

#define __host __attribute__((aligned(8), used))
#define __mram __attribute__((section("dpu_mram"), aligned(8), used))
#define __mram_noinit __attribute__((section(__DPURT_NOINIT_SECTION), aligned(8), used))
#define __mram_keep __mram
#define __mram_noinit_keep __mram_noinit
#define __mram_ptr
#define __mram_fct
#define __dma_aligned __attribute__((aligned(8)))
#define __keep __attribute__((used))
#define __noinline __attribute__((noinline))
#define __atomic_bit
#define __section(s) __attribute__((section(s)))

#endif
