/* dpu_config.h: resetting a DPU or a rank. On the emulator a DPU is reset by loading its
 * program again (dpu_load): dpu_reset_rank and dpu_reset_dpu return DPU_ERR_INTERNAL and
 * say so on stderr. */
#ifndef DPU_CONFIG_H
#define DPU_CONFIG_H

#include <dpu_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dpu_rank_t;
struct dpu_t;

dpu_error_t dpu_reset_rank(struct dpu_rank_t *rank);
dpu_error_t dpu_reset_dpu(struct dpu_t *dpu);

#ifdef __cplusplus
}
#endif

#endif /* DPU_CONFIG_H */
