/* Included first in every translation unit of a DPU program built for the pyupmem
 * emulator (by dpu-upmem-dpurte-clang). It records NR_TASKLETS in the binary, where
 * the host library reads it at load, and marks the file as a DPU program. */
#ifndef PYUPMEM_DPU_PROGRAM_H
#define PYUPMEM_DPU_PROGRAM_H
#ifndef NR_TASKLETS
#define NR_TASKLETS 1
#endif
__attribute__((weak, used)) const unsigned int __pyupmem_nr_tasklets = NR_TASKLETS;
#endif
