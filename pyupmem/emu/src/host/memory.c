/* memory.c: raw MRAM and WRAM access by address (dpu_memory.h), transfer matrices
 * (dpu_transfer_matrix.h) and checkpoints of a DPU's memories (dpu_checkpoint.h). */
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include <dpu_memory.h>
#include <dpu_transfer_matrix.h>

static bool running(const struct dpu_t *dpu)
{
    return atomic_load(&emu_slot(dpu->allocation, dpu->index)->state) == EMU_RUNNING;
}

static uint8_t *mram_of(const struct dpu_t *dpu)
{
    return dpu->allocation->mram + (uint64_t)dpu->index * EMU_MRAM_SIZE;
}

/* The DPU's WRAM image (its program's writable segment) and its size; NULL without one. */
static uint8_t *wram_of(const struct dpu_t *dpu, uint64_t *size)
{
    const struct dpu_program_t *program = dpu->program;
    if (program == NULL)
        return NULL;
    *size = program->wram_stride;
    return program->wram + (uint64_t)(dpu->index - program->first) * program->wram_stride;
}

static dpu_error_t mram_access(struct dpu_t *dpu, uint64_t offset, uint64_t length, uint8_t **where)
{
    if (dpu == NULL)
        return DPU_ERR_INVALID_DPU_SET;
    if (offset + length > EMU_MRAM_SIZE)
        return DPU_ERR_INVALID_MRAM_ACCESS;
    if (running(dpu))
        return DPU_ERR_MRAM_BUSY;
    *where = mram_of(dpu) + offset;
    return DPU_OK;
}

static dpu_error_t wram_access(struct dpu_t *dpu, uint64_t word, uint64_t words, uint8_t **where)
{
    if (dpu == NULL)
        return DPU_ERR_INVALID_DPU_SET;
    uint64_t size = 0;
    uint8_t *wram = wram_of(dpu, &size);
    if (wram == NULL)
        return DPU_ERR_NO_PROGRAM_LOADED;
    if ((word + words) * 4 > size)
        return DPU_ERR_INVALID_WRAM_ACCESS;
    if (running(dpu))
        return DPU_ERR_DPU_ALREADY_RUNNING;
    *where = wram + word * 4;
    return DPU_OK;
}

dpu_error_t dpu_copy_to_mram(struct dpu_t *dpu, mram_addr_t mram_byte_offset, const uint8_t *source,
                             mram_size_t nb_of_bytes)
{
    uint8_t *where;
    dpu_error_t status = mram_access(dpu, mram_byte_offset, nb_of_bytes, &where);
    if (status == DPU_OK && nb_of_bytes > 0)
        memcpy(where, source, nb_of_bytes);
    return status;
}

dpu_error_t dpu_copy_from_mram(struct dpu_t *dpu, uint8_t *destination, mram_addr_t mram_byte_offset,
                               mram_size_t nb_of_bytes)
{
    uint8_t *where;
    dpu_error_t status = mram_access(dpu, mram_byte_offset, nb_of_bytes, &where);
    if (status == DPU_OK && nb_of_bytes > 0)
        memcpy(destination, where, nb_of_bytes);
    return status;
}

dpu_error_t dpu_copy_to_wram_for_dpu(struct dpu_t *dpu, wram_addr_t wram_word_offset,
                                     const dpuword_t *source, wram_size_t nb_of_words)
{
    uint8_t *where;
    dpu_error_t status = wram_access(dpu, wram_word_offset, nb_of_words, &where);
    if (status == DPU_OK && nb_of_words > 0)
        memcpy(where, source, (size_t)nb_of_words * 4);
    return status;
}

dpu_error_t dpu_copy_from_wram_for_dpu(struct dpu_t *dpu, dpuword_t *destination,
                                       wram_addr_t wram_word_offset, wram_size_t nb_of_words)
{
    uint8_t *where;
    dpu_error_t status = wram_access(dpu, wram_word_offset, nb_of_words, &where);
    if (status == DPU_OK && nb_of_words > 0)
        memcpy(destination, where, (size_t)nb_of_words * 4);
    return status;
}

dpu_error_t dpu_copy_to_wram_for_rank(struct dpu_rank_t *rank, wram_addr_t wram_word_offset,
                                      const dpuword_t *source, wram_size_t nb_of_words)
{
    if (rank == NULL)
        return DPU_ERR_INVALID_DPU_SET;
    for (uint32_t m = 0; m < rank->nr_dpus; m++) {
        struct dpu_t *dpu = &rank->allocation->dpus[rank->first_dpu + m];
        dpu_error_t status = dpu_copy_to_wram_for_dpu(dpu, wram_word_offset, source, nb_of_words);
        if (status != DPU_OK)
            return status;
    }
    return DPU_OK;
}

/* Moves matrix->size bytes at byte matrix->offset for each DPU of the rank with a buffer. */
static dpu_error_t for_matrix(struct dpu_rank_t *rank, struct dpu_transfer_matrix *matrix, bool to_dpu,
                              bool wram)
{
    if (rank == NULL || matrix == NULL)
        return DPU_ERR_INVALID_DPU_SET;
    if (matrix->type != DPU_DEFAULT_XFER_MATRIX)
        return emu_unsupported("scatter-gather transfer matrices", "use dpu_push_sg_xfer");
    if (wram && (matrix->offset % 4 != 0 || matrix->size % 4 != 0))
        return DPU_ERR_INVALID_WRAM_ACCESS;
    for (uint32_t m = 0; m < rank->nr_dpus && m < MAX_NR_DPUS_PER_RANK; m++) {
        uint8_t *buffer = matrix->ptr[m];
        if (buffer == NULL)
            continue;
        struct dpu_t *dpu = &rank->allocation->dpus[rank->first_dpu + m];
        uint8_t *where;
        dpu_error_t status = wram ? wram_access(dpu, matrix->offset / 4, matrix->size / 4, &where)
                                  : mram_access(dpu, matrix->offset, matrix->size, &where);
        if (status != DPU_OK)
            return status;
        if (to_dpu)
            memcpy(where, buffer, matrix->size);
        else
            memcpy(buffer, where, matrix->size);
    }
    return DPU_OK;
}

dpu_error_t dpu_copy_to_mrams(struct dpu_rank_t *rank, struct dpu_transfer_matrix *transfer_matrix)
{
    return for_matrix(rank, transfer_matrix, true, false);
}

dpu_error_t dpu_copy_from_mrams(struct dpu_rank_t *rank, struct dpu_transfer_matrix *transfer_matrix)
{
    return for_matrix(rank, transfer_matrix, false, false);
}

dpu_error_t dpu_copy_to_wram_for_matrix(struct dpu_rank_t *rank, struct dpu_transfer_matrix *transfer_matrix)
{
    return for_matrix(rank, transfer_matrix, true, true);
}

dpu_error_t dpu_copy_from_wram_for_matrix(struct dpu_rank_t *rank, struct dpu_transfer_matrix *transfer_matrix)
{
    return for_matrix(rank, transfer_matrix, false, true);
}

/* DPU code runs natively: there is no IRAM to read or write. */
dpu_error_t dpu_copy_to_iram_for_rank(struct dpu_rank_t *rank, iram_addr_t iram_instruction_index,
                                      const dpuinstruction_t *source, iram_size_t nb_of_instructions)
{
    (void)rank, (void)iram_instruction_index, (void)source, (void)nb_of_instructions;
    return DPU_ERR_INVALID_IRAM_ACCESS;
}

dpu_error_t dpu_copy_to_iram_for_dpu(struct dpu_t *dpu, iram_addr_t iram_instruction_index,
                                     const dpuinstruction_t *source, iram_size_t nb_of_instructions)
{
    (void)dpu, (void)iram_instruction_index, (void)source, (void)nb_of_instructions;
    return DPU_ERR_INVALID_IRAM_ACCESS;
}

dpu_error_t dpu_copy_from_iram_for_dpu(struct dpu_t *dpu, dpuinstruction_t *destination,
                                       iram_addr_t iram_instruction_index, iram_size_t nb_of_instructions)
{
    (void)dpu, (void)destination, (void)iram_instruction_index, (void)nb_of_instructions;
    return DPU_ERR_INVALID_IRAM_ACCESS;
}

dpu_error_t dpu_copy_to_iram_for_matrix(struct dpu_rank_t *rank, struct dpu_transfer_matrix *matrix)
{
    (void)rank, (void)matrix;
    return DPU_ERR_INVALID_IRAM_ACCESS;
}

dpu_error_t dpu_copy_from_iram_for_matrix(struct dpu_rank_t *rank, struct dpu_transfer_matrix *matrix)
{
    (void)rank, (void)matrix;
    return DPU_ERR_INVALID_IRAM_ACCESS;
}

/* ------------------------------------------------------------------ transfer matrices */

void dpu_transfer_matrix_add_dpu(struct dpu_t *dpu, struct dpu_transfer_matrix *transfer_matrix, void *buffer)
{
    transfer_matrix->ptr[dpu->member] = buffer;
}

dpu_error_t dpu_transfer_matrix_add_dpu_block(struct dpu_t *dpu, struct dpu_transfer_matrix *transfer_matrix,
                                              void *buffer, uint32_t length)
{
    (void)dpu, (void)transfer_matrix, (void)buffer, (void)length;
    return emu_unsupported("dpu_transfer_matrix_add_dpu_block", "use dpu_push_sg_xfer");
}

void dpu_transfer_matrix_set_all(struct dpu_rank_t *rank, struct dpu_transfer_matrix *transfer_matrix,
                                 void *buffer)
{
    for (uint32_t m = 0; m < rank->nr_dpus && m < MAX_NR_DPUS_PER_RANK; m++)
        transfer_matrix->ptr[m] = buffer;
}

void dpu_transfer_matrix_clear_dpu(struct dpu_t *dpu, struct dpu_transfer_matrix *transfer_matrix)
{
    transfer_matrix->ptr[dpu->member] = NULL;
}

void dpu_transfer_matrix_clear_all(struct dpu_rank_t *rank, struct dpu_transfer_matrix *transfer_matrix)
{
    (void)rank;
    memset(transfer_matrix->ptr, 0, sizeof(transfer_matrix->ptr));
}

void dpu_transfer_matrix_copy(struct dpu_transfer_matrix *dst, struct dpu_transfer_matrix *src)
{
    memcpy(dst, src, sizeof(*dst));
}

void *dpu_transfer_matrix_get_ptr(struct dpu_t *dpu, struct dpu_transfer_matrix *transfer_matrix)
{
    return transfer_matrix->ptr[dpu->member];
}

/* ------------------------------------------------------------------ checkpoints */

static dpu_error_t checkpoint_dpu(struct dpu_set_t set, struct dpu_t **dpu)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve_one(set, &range);
    if (status != DPU_OK)
        return status;
    *dpu = &range.allocation->dpus[range.first];
    if ((*dpu)->program == NULL)
        return DPU_ERR_NO_PROGRAM_LOADED;
    return running(*dpu) ? DPU_ERR_DPU_ALREADY_RUNNING : DPU_OK;
}

/* What the emulator cannot save: a DPU's registers, PCs and IRAM are native host state. */
#define NO_REGISTERS                                                                               \
    "the emulator runs DPU code natively, with no DPU registers or IRAM to save: checkpoint "    \
    "DPU_CHECKPOINT_MRAM | DPU_CHECKPOINT_WRAM (the whole 64 MiB MRAM and the whole WRAM)"

dpu_error_t dpu_checkpoint_save(struct dpu_set_t set, dpu_checkpoint_flags_t flags, struct dpu_context_t *context)
{
    struct dpu_t *dpu;
    dpu_error_t status = checkpoint_dpu(set, &dpu);
    if (status != DPU_OK)
        return status;
    if (flags & (DPU_CHECKPOINT_INTERNAL | DPU_CHECKPOINT_IRAM))
        return emu_unsupported("dpu_checkpoint_save of DPU_CHECKPOINT_INTERNAL or _IRAM", NO_REGISTERS);
    uint64_t program_wram = 0;
    uint8_t *wram = wram_of(dpu, &program_wram);
    /* The whole WRAM, as the SDK saves it (wram_size words): the program's part from
     * address 0, then zeros where a DPU keeps the stacks and the heap (the emulator keeps
     * them in the DPU's worker). */
    uint32_t wram_bytes = dpu->allocation->profile.chip->wram_size;
    if (program_wram > wram_bytes)
        program_wram = wram_bytes;
    memset(context, 0, sizeof(*context)); /* free the buffers with dpu_checkpoint_free */
    context->info.nr_threads = EMU_MAX_TASKLETS;
    context->info.nr_registers = 24;
    context->info.nr_atomic_bits = 256;
    context->info.iram_size = 0; /* native code: no IRAM */
    context->info.mram_size = EMU_MRAM_SIZE;
    context->info.wram_size = (wram_size_t)(wram_bytes / 4);
    if (flags & DPU_CHECKPOINT_MRAM) {
        if ((context->mram = malloc(EMU_MRAM_SIZE)) == NULL) /* the caller's fields may be unset */
            return DPU_ERR_SYSTEM;
        memcpy(context->mram, mram_of(dpu), EMU_MRAM_SIZE);
    }
    if (flags & DPU_CHECKPOINT_WRAM) {
        if ((context->wram = calloc(wram_bytes / 4, 4)) == NULL)
            return DPU_ERR_SYSTEM;
        memcpy(context->wram, wram, program_wram);
    }
    return DPU_OK;
}

dpu_error_t dpu_checkpoint_restore(struct dpu_set_t set, dpu_checkpoint_flags_t flags,
                                   struct dpu_context_t *context)
{
    struct dpu_t *dpu;
    dpu_error_t status = checkpoint_dpu(set, &dpu);
    if (status != DPU_OK)
        return status;
    if (flags & (DPU_CHECKPOINT_INTERNAL | DPU_CHECKPOINT_IRAM))
        return emu_unsupported("dpu_checkpoint_restore of DPU_CHECKPOINT_INTERNAL or _IRAM",
                               NO_REGISTERS);
    uint64_t program_wram = 0;
    uint8_t *wram = wram_of(dpu, &program_wram);
    if ((flags & DPU_CHECKPOINT_WRAM) && context->wram != NULL) {
        if ((uint64_t)context->info.wram_size * 4 < program_wram)
            return DPU_ERR_INVALID_WRAM_ACCESS; /* not a whole WRAM */
        memcpy(wram, context->wram, program_wram);
    }
    if ((flags & DPU_CHECKPOINT_MRAM) && context->mram != NULL)
        memcpy(mram_of(dpu), context->mram, EMU_MRAM_SIZE);
    return DPU_OK;
}

dpu_error_t dpu_checkpoint_free(struct dpu_context_t *context)
{
    free(context->iram);
    free(context->mram);
    free(context->wram);
    free(context->registers);
    free(context->pcs);
    free(context->atomic_register);
    free(context->zero_flags);
    free(context->carry_flags);
    free(context->scheduling);
    context->iram = NULL, context->mram = NULL, context->wram = NULL, context->registers = NULL;
    context->pcs = NULL, context->atomic_register = NULL, context->zero_flags = NULL;
    context->carry_flags = NULL, context->scheduling = NULL;
    return DPU_OK;
}

uint32_t dpu_checkpoint_get_serialized_context_size(struct dpu_context_t *context)
{
    (void)context;
    return 0;
}

dpu_error_t dpu_checkpoint_serialize(struct dpu_context_t *context, uint8_t **serialized_context,
                                     uint32_t *serialized_context_size)
{
    (void)context, (void)serialized_context, (void)serialized_context_size;
    return emu_unsupported("dpu_checkpoint_serialize", "keep the dpu_context_t itself");
}

dpu_error_t dpu_checkpoint_deserialize(const uint8_t *serialized_context, uint32_t serialized_context_size,
                                       struct dpu_context_t *context)
{
    (void)serialized_context, (void)serialized_context_size, (void)context;
    return emu_unsupported("dpu_checkpoint_deserialize", "keep the dpu_context_t itself");
}
