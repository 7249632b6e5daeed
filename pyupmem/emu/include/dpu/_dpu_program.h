/* Included first in every translation unit of a DPU program built for the pyupmem
 * emulator (by dpu-upmem-dpurte-clang). It records NR_TASKLETS and each tasklet's stack
 * size (STACK_SIZE_DEFAULT, STACK_SIZE_TASKLET_<n>: the SDK's defines, 1,024 bytes by
 * default) in the binary, outside WRAM, where the host library and the worker read them. */
#ifndef PYUPMEM_DPU_PROGRAM_H
#define PYUPMEM_DPU_PROGRAM_H
#ifdef __PYUPMEM_LONG64__
/* The DPU's long is 64 bits (the build's compiler proper makes each `long` a `long long`,
 * toolchain/dpu_source.py): the predefined macros say so, and the builtins named for
 * `long` take the 64-bit one, as on a DPU. */
#undef __SIZEOF_LONG__
#define __SIZEOF_LONG__ 8
#undef __LONG_MAX__
#define __LONG_MAX__ 0x7fffffffffffffffL
#undef __LONG_WIDTH__
#define __LONG_WIDTH__ 64
#define __builtin_clzl __builtin_clzll
#define __builtin_ctzl __builtin_ctzll
#define __builtin_clrsbl __builtin_clrsbll
#define __builtin_ffsl __builtin_ffsll
#define __builtin_parityl __builtin_parityll
#define __builtin_popcountl __builtin_popcountll
#define __builtin_labs __builtin_llabs
#endif
#ifndef NR_TASKLETS
#define NR_TASKLETS 1
#endif
#ifdef STACK_SIZE_DEFAULT
#define __DPURT_STACK_DEFAULT (STACK_SIZE_DEFAULT)
#else
#define __DPURT_STACK_DEFAULT 1024
#endif
#ifdef STACK_SIZE_TASKLET_0
#define __DPURT_STACK_0 (STACK_SIZE_TASKLET_0)
#else
#define __DPURT_STACK_0 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_1
#define __DPURT_STACK_1 (STACK_SIZE_TASKLET_1)
#else
#define __DPURT_STACK_1 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_2
#define __DPURT_STACK_2 (STACK_SIZE_TASKLET_2)
#else
#define __DPURT_STACK_2 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_3
#define __DPURT_STACK_3 (STACK_SIZE_TASKLET_3)
#else
#define __DPURT_STACK_3 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_4
#define __DPURT_STACK_4 (STACK_SIZE_TASKLET_4)
#else
#define __DPURT_STACK_4 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_5
#define __DPURT_STACK_5 (STACK_SIZE_TASKLET_5)
#else
#define __DPURT_STACK_5 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_6
#define __DPURT_STACK_6 (STACK_SIZE_TASKLET_6)
#else
#define __DPURT_STACK_6 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_7
#define __DPURT_STACK_7 (STACK_SIZE_TASKLET_7)
#else
#define __DPURT_STACK_7 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_8
#define __DPURT_STACK_8 (STACK_SIZE_TASKLET_8)
#else
#define __DPURT_STACK_8 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_9
#define __DPURT_STACK_9 (STACK_SIZE_TASKLET_9)
#else
#define __DPURT_STACK_9 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_10
#define __DPURT_STACK_10 (STACK_SIZE_TASKLET_10)
#else
#define __DPURT_STACK_10 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_11
#define __DPURT_STACK_11 (STACK_SIZE_TASKLET_11)
#else
#define __DPURT_STACK_11 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_12
#define __DPURT_STACK_12 (STACK_SIZE_TASKLET_12)
#else
#define __DPURT_STACK_12 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_13
#define __DPURT_STACK_13 (STACK_SIZE_TASKLET_13)
#else
#define __DPURT_STACK_13 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_14
#define __DPURT_STACK_14 (STACK_SIZE_TASKLET_14)
#else
#define __DPURT_STACK_14 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_15
#define __DPURT_STACK_15 (STACK_SIZE_TASKLET_15)
#else
#define __DPURT_STACK_15 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_16
#define __DPURT_STACK_16 (STACK_SIZE_TASKLET_16)
#else
#define __DPURT_STACK_16 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_17
#define __DPURT_STACK_17 (STACK_SIZE_TASKLET_17)
#else
#define __DPURT_STACK_17 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_18
#define __DPURT_STACK_18 (STACK_SIZE_TASKLET_18)
#else
#define __DPURT_STACK_18 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_19
#define __DPURT_STACK_19 (STACK_SIZE_TASKLET_19)
#else
#define __DPURT_STACK_19 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_20
#define __DPURT_STACK_20 (STACK_SIZE_TASKLET_20)
#else
#define __DPURT_STACK_20 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_21
#define __DPURT_STACK_21 (STACK_SIZE_TASKLET_21)
#else
#define __DPURT_STACK_21 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_22
#define __DPURT_STACK_22 (STACK_SIZE_TASKLET_22)
#else
#define __DPURT_STACK_22 __DPURT_STACK_DEFAULT
#endif
#ifdef STACK_SIZE_TASKLET_23
#define __DPURT_STACK_23 (STACK_SIZE_TASKLET_23)
#else
#define __DPURT_STACK_23 __DPURT_STACK_DEFAULT
#endif
#ifndef __ASSEMBLER__
#include <_dpu_address_space.h>
#ifdef __cplusplus
/* In C++ a const has internal linkage unless declared extern. */
#define __DPURT_EXPORTED_CONST extern const
extern "C" {
int dpu_main(void);
#else
#define __DPURT_EXPORTED_CONST const
#endif
__attribute__((weak, used, section(".dpurt_info"))) __DPURT_EXPORTED_CONST unsigned int __pyupmem_nr_tasklets = NR_TASKLETS;
#ifdef __DPURT_FLAT_MRAM
/* This code reaches MRAM at its ordinary addresses: the worker maps it there too. */
__attribute__((weak, used, section(".dpurt_info"))) __DPURT_EXPORTED_CONST unsigned int __pyupmem_flat_mram = 1;
#endif
__attribute__((weak, used, section(".dpurt_info"))) __DPURT_EXPORTED_CONST unsigned int __pyupmem_stack_sizes[24] = {
    __DPURT_STACK_0, __DPURT_STACK_1, __DPURT_STACK_2, __DPURT_STACK_3, __DPURT_STACK_4, __DPURT_STACK_5, __DPURT_STACK_6, __DPURT_STACK_7, __DPURT_STACK_8, __DPURT_STACK_9, __DPURT_STACK_10, __DPURT_STACK_11,
    __DPURT_STACK_12, __DPURT_STACK_13, __DPURT_STACK_14, __DPURT_STACK_15, __DPURT_STACK_16, __DPURT_STACK_17, __DPURT_STACK_18, __DPURT_STACK_19, __DPURT_STACK_20, __DPURT_STACK_21, __DPURT_STACK_22, __DPURT_STACK_23};
#ifdef __cplusplus
}
#endif
#endif /* __ASSEMBLER__ */
#endif
