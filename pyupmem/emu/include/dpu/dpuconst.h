/* dpuconst.h: two constants of the DPU, as the SDK's runtime names them: the hardware
 * threads of a DPU and the log2 of its MRAM size (64 MiB). */
#ifndef DPUSYSCORE_DPUCONST_H
#define DPUSYSCORE_DPUCONST_H

#define __DPU_NUMBER_OF_THREADS 24
#define __DPU_MRAM_SIZE_LOG2 26

#endif /* DPUSYSCORE_DPUCONST_H */
