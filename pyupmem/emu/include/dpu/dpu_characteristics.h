/* dpu_characteristics.h: the DPU's figures that the SDK's runtime uses internally: its
 * hardware threads, its atomic bits and its work registers per thread. */
#ifndef DPU_CHARACTERISTICS_H
#define DPU_CHARACTERISTICS_H

#define DPU_NR_THREADS 24
#define DPU_NR_ATOMIC_BITS 256
#define DPU_NR_WORK_REGS 24

#endif /* DPU_CHARACTERISTICS_H */
