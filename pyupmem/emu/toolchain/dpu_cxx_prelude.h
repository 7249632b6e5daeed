/* Included first in every C++ translation unit of a DPU program built for the pyupmem
 * emulator (by $UPMEM_HOME/bin/clang++): the runtime calls the program's main (renamed
 * dpu_main) by its C name. */
extern "C" int dpu_main(void);
