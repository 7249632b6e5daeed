/* Included first in every C++ translation unit of a DPU program built for the pyupmem
 * emulator (by $UPMEM_HOME/bin/clang++), in place of _dpu_program.h (its include guard is
 * taken here): in C++ a const variable has internal linkage unless declared extern, and
 * the host library must find the tasklet count by its C name; the runtime likewise calls
 * the program's main (renamed dpu_main) by its C name. */
#ifndef PYUPMEM_DPU_PROGRAM_H
#define PYUPMEM_DPU_PROGRAM_H
#ifndef NR_TASKLETS
#define NR_TASKLETS 1
#endif
extern "C" {
int dpu_main(void);
__attribute__((weak, used)) extern const unsigned int __pyupmem_nr_tasklets = NR_TASKLETS;
}
#endif
