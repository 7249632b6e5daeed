/* dpu_transfer_matrix.h: the per-rank table of host buffers behind dpu_prepare_xfer, used
 * by the rank-level calls of dpu_memory.h. */
#ifndef DPU_TRANSFER_MATRIX_H
#define DPU_TRANSFER_MATRIX_H

#include <stdint.h>

#include <dpu_error.h>
#include <dpu_types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MAX_NR_DPUS_PER_RANK 64
#define struct_dpu_transfer_matrix_t

struct dpu_transfer_matrix {
    union {
        void *ptr[MAX_NR_DPUS_PER_RANK];                     /* indexed by the DPU's member */
        struct sg_xfer_buffer *sg_ptr[MAX_NR_DPUS_PER_RANK]; /* for DPU_SG_XFER_MATRIX */
    };
    uint32_t offset; /* bytes */
    uint32_t size;   /* bytes */
    dpu_transfer_matrix_type_t type;
};

void dpu_transfer_matrix_add_dpu(struct dpu_t *dpu, struct dpu_transfer_matrix *transfer_matrix,
                                 void *buffer);
/* Scatter-gather matrices are not supported by the emulator: DPU_ERR_INTERNAL. */
dpu_error_t dpu_transfer_matrix_add_dpu_block(struct dpu_t *dpu,
                                              struct dpu_transfer_matrix *transfer_matrix,
                                              void *buffer, uint32_t length);
void dpu_transfer_matrix_set_all(struct dpu_rank_t *rank, struct dpu_transfer_matrix *transfer_matrix,
                                 void *buffer);
void dpu_transfer_matrix_clear_dpu(struct dpu_t *dpu, struct dpu_transfer_matrix *transfer_matrix);
void dpu_transfer_matrix_clear_all(struct dpu_rank_t *rank,
                                   struct dpu_transfer_matrix *transfer_matrix);
void dpu_transfer_matrix_copy(struct dpu_transfer_matrix *dst, struct dpu_transfer_matrix *src);
void *dpu_transfer_matrix_get_ptr(struct dpu_t *dpu, struct dpu_transfer_matrix *transfer_matrix);

#ifdef __cplusplus
}
#endif
#endif /* DPU_TRANSFER_MATRIX_H */
