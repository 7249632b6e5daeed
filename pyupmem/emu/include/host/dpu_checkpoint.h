/* dpu_checkpoint.h: saving and restoring a DPU's state (debuggers). dpu.h includes it.
 *
 * In the emulator, dpu_checkpoint_save copies a single DPU's whole MRAM (DPU_CHECKPOINT_MRAM,
 * 64 MiB) and whole WRAM (DPU_CHECKPOINT_WRAM, info.wram_size words: 16,384 on a v1A chip;
 * the program's variables from address 0, zeros where a DPU keeps stacks and heap) into
 * newly allocated buffers of the context, and dpu_checkpoint_restore writes them back; the
 * DPU must have a program loaded and be idle. Its registers and IRAM are native host state:
 * DPU_CHECKPOINT_INTERNAL or DPU_CHECKPOINT_IRAM (and so DPU_CHECKPOINT_ALL) make both calls
 * fail with DPU_ERR_INTERNAL and a message. Serialising a context is not supported
 * (DPU_ERR_INTERNAL). */
#ifndef DPU_CHECKPOINT_H
#define DPU_CHECKPOINT_H

#include <dpu_error.h>
#include <dpu_types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum _dpu_checkpoint_flags_t {
    DPU_CHECKPOINT_NONE = 0x0,
    DPU_CHECKPOINT_INTERNAL = 0x1,
    DPU_CHECKPOINT_IRAM = 0x2,
    DPU_CHECKPOINT_MRAM = 0x8,
    DPU_CHECKPOINT_WRAM = 0x10,
} dpu_checkpoint_flags_t;

#define DPU_CHECKPOINT_ALL                                                                         \
    (DPU_CHECKPOINT_INTERNAL | DPU_CHECKPOINT_IRAM | DPU_CHECKPOINT_MRAM | DPU_CHECKPOINT_WRAM)

dpu_error_t dpu_checkpoint_save(struct dpu_set_t set, dpu_checkpoint_flags_t flags,
                                struct dpu_context_t *context);
dpu_error_t dpu_checkpoint_restore(struct dpu_set_t set, dpu_checkpoint_flags_t flags,
                                   struct dpu_context_t *context);
uint32_t dpu_checkpoint_get_serialized_context_size(struct dpu_context_t *context);
dpu_error_t dpu_checkpoint_serialize(struct dpu_context_t *context, uint8_t **serialized_context,
                                     uint32_t *serialized_context_size);
dpu_error_t dpu_checkpoint_deserialize(const uint8_t *serialized_context,
                                       uint32_t serialized_context_size,
                                       struct dpu_context_t *context);
dpu_error_t dpu_checkpoint_free(struct dpu_context_t *context);

#ifdef __cplusplus
}
#endif
#endif /* DPU_CHECKPOINT_H */
