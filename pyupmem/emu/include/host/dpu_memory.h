/* dpu_memory.h: raw access to one DPU's (or one rank's) memories, by address rather than
 * by symbol.
 *
 * In the emulator: MRAM calls move bytes at an MRAM offset (0 .. 64 MiB) and work with or
 * without a program; WRAM calls move 32-bit words at a word offset and need a loaded
 * program (the WRAM is the program's image); IRAM calls return DPU_ERR_INVALID_IRAM_ACCESS
 * (DPU code runs natively, there is no IRAM to write); the FIFO calls return
 * DPU_ERR_INTERNAL. A DPU that runs gives DPU_ERR_MRAM_BUSY (MRAM) or
 * DPU_ERR_DPU_ALREADY_RUNNING (WRAM). The *_matrix and *_mrams calls take the buffer of
 * each DPU from matrix->ptr[member], with matrix->offset and matrix->size in bytes. */
#ifndef DPU_MEMORY_H
#define DPU_MEMORY_H

#include <stdint.h>

#include <dpu_error.h>
#include <dpu_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dpu_fifo_rank_t;
struct dpu_transfer_matrix;

dpu_error_t dpu_copy_to_iram_for_rank(struct dpu_rank_t *rank, iram_addr_t iram_instruction_index,
                                      const dpuinstruction_t *source, iram_size_t nb_of_instructions);
dpu_error_t dpu_copy_to_iram_for_dpu(struct dpu_t *dpu, iram_addr_t iram_instruction_index,
                                     const dpuinstruction_t *source, iram_size_t nb_of_instructions);
dpu_error_t dpu_copy_from_iram_for_dpu(struct dpu_t *dpu, dpuinstruction_t *destination,
                                       iram_addr_t iram_instruction_index, iram_size_t nb_of_instructions);
dpu_error_t dpu_copy_to_iram_for_matrix(struct dpu_rank_t *rank, struct dpu_transfer_matrix *matrix);
dpu_error_t dpu_copy_from_iram_for_matrix(struct dpu_rank_t *rank, struct dpu_transfer_matrix *matrix);

dpu_error_t dpu_copy_to_wram_for_rank(struct dpu_rank_t *rank, wram_addr_t wram_word_offset,
                                      const dpuword_t *source, wram_size_t nb_of_words);
dpu_error_t dpu_copy_to_wram_for_dpu(struct dpu_t *dpu, wram_addr_t wram_word_offset,
                                     const dpuword_t *source, wram_size_t nb_of_words);
dpu_error_t dpu_copy_to_wram_for_matrix(struct dpu_rank_t *rank, struct dpu_transfer_matrix *transfer_matrix);
dpu_error_t dpu_copy_from_wram_for_dpu(struct dpu_t *dpu, dpuword_t *destination,
                                       wram_addr_t wram_word_offset, wram_size_t nb_of_words);
dpu_error_t dpu_copy_from_wram_for_matrix(struct dpu_rank_t *rank,
                                          struct dpu_transfer_matrix *transfer_matrix);

dpu_error_t dpu_copy_to_wram_fifo(struct dpu_rank_t *rank, struct dpu_fifo_rank_t *fifo,
                                  struct dpu_transfer_matrix *transfer_matrix);
dpu_error_t dpu_copy_from_wram_fifo(struct dpu_rank_t *rank, struct dpu_fifo_rank_t *fifo,
                                    struct dpu_transfer_matrix *transfer_matrix);

dpu_error_t dpu_copy_to_mram(struct dpu_t *dpu, mram_addr_t mram_byte_offset, const uint8_t *source,
                             mram_size_t nb_of_bytes);
dpu_error_t dpu_copy_from_mram(struct dpu_t *dpu, uint8_t *destination, mram_addr_t mram_byte_offset,
                               mram_size_t nb_of_bytes);
dpu_error_t dpu_copy_to_mrams(struct dpu_rank_t *rank, struct dpu_transfer_matrix *transfer_matrix);
dpu_error_t dpu_copy_from_mrams(struct dpu_rank_t *rank, struct dpu_transfer_matrix *transfer_matrix);

#ifdef __cplusplus
}
#endif
#endif /* DPU_MEMORY_H */
