/* dpu_program.h: DPU programs as structures.
 *
 * Difference from the SDK: in the emulator struct dpu_program_t stays opaque (its program
 * is a native executable, not the SDK's ELF layout), so code that reads its fields does
 * not build; use dpu_get_symbol for symbols. dpu_get_program returns the DPU's program
 * (NULL before a load); the reference counting calls do nothing (the allocation owns its
 * programs and frees them with it); dpu_set_program is ignored (load with dpu_load);
 * dpu_load_elf_program* return DPU_ERR_INTERNAL. */
#ifndef DPU_PROGRAM_H
#define DPU_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include <dpu_elf.h>
#include <dpu_error.h>
#include <dpu_types.h>

#ifdef __cplusplus
extern "C" {
#endif

void dpu_init_program_ref(struct dpu_program_t *program);
void dpu_take_program_ref(struct dpu_program_t *program);
void dpu_free_program(struct dpu_program_t *program);
struct dpu_program_t *dpu_get_program(struct dpu_t *dpu);
void dpu_set_program(struct dpu_t *dpu, struct dpu_program_t *program);
dpu_error_t dpu_load_elf_program_from_memory(dpu_elf_file_t *elf_info, const char *path, uint8_t *buffer_start,
                                             size_t buffer_size, struct dpu_program_t *program,
                                             mram_size_t mram_size_hint);
dpu_error_t dpu_load_elf_program(dpu_elf_file_t *elf_info, const char *path, struct dpu_program_t *program,
                                 mram_size_t mram_size_hint);
/* The program every DPU of the set runs: DPU_ERR_NO_PROGRAM_LOADED or
 * DPU_ERR_DIFFERENT_DPU_PROGRAMS otherwise. */
dpu_error_t dpu_get_common_program(struct dpu_set_t *dpu_set, struct dpu_program_t **program);

#ifdef __cplusplus
}
#endif
#endif /* DPU_PROGRAM_H */
