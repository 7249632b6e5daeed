/* dpu_target_macros.h: the target (hardware, simulator ...) encoded in the top bits of a
 * rank id, as the SDK lays it out. On the emulator the target bits are 0, so
 * `dpu_get_rank_id(rank) & DPU_TARGET_MASK` is the rank's number. */
#ifndef __DPU_TARGET_MACROS_H
#define __DPU_TARGET_MACROS_H

#include <limits.h>

#include <dpu_target.h>
#include <dpu_types.h>

#define DPU_TARGET_LOG2_SIZE (4)
#define DPU_TARGET_SHIFT (CHAR_BIT * sizeof(dpu_rank_id_t) - DPU_TARGET_LOG2_SIZE)
#define DPU_TARGET_MASK ((1 << DPU_TARGET_SHIFT) - 1)

#endif /* __DPU_TARGET_MACROS_H */
