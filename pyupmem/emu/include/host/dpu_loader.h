/* dpu_loader.h: the SDK's ELF loader interface. dpu_loader_fill_dpu_context and
 * dpu_loader_fill_rank_context set a loader context up (no patch functions, nothing
 * loaded yet, the target); dpu_elf_load returns DPU_ERR_ELF_INVALID_FILE and says so on
 * stderr: the emulator's DPU programs are host executables, loaded with dpu_load. */
#ifndef DPU_LOADER_H
#define DPU_LOADER_H

#include <stdbool.h>
#include <stdint.h>

#include <dpu_elf.h>
#include <dpu_error.h>
#include <dpu_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dpu_rank_t;
struct dpu_t;

typedef enum _dpu_loader_target_t {
    DPU_LOADER_TARGET_RANK,
    DPU_LOADER_TARGET_DPU
} dpu_loader_target_t;

typedef struct _dpu_loader_env_t {
    dpu_loader_target_t target;
    union {
        struct dpu_rank_t *rank; /* DPU_LOADER_TARGET_RANK */
        struct dpu_t *dpu;       /* DPU_LOADER_TARGET_DPU */
    };
} *dpu_loader_env_t;

/* Called before content is written to a memory, to change it. */
typedef dpu_error_t (*mem_patch_function_t)(dpu_loader_env_t env, void *content,
                                            dpu_mem_max_addr_t address, dpu_mem_max_size_t size,
                                            bool init);

typedef struct _dpu_loader_context_t {
    mem_patch_function_t patch_iram;
    mem_patch_function_t patch_wram;
    mem_patch_function_t patch_mram;
    uint32_t nr_of_instructions; /* loaded so far */
    uint32_t nr_of_wram_words;
    uint32_t nr_of_mram_bytes;
    uint32_t dummy;
    struct _dpu_loader_env_t env;
} *dpu_loader_context_t;

void dpu_loader_fill_dpu_context(dpu_loader_context_t context, struct dpu_t *dpu);
void dpu_loader_fill_rank_context(dpu_loader_context_t context, struct dpu_rank_t *rank);
dpu_error_t dpu_elf_load(dpu_elf_file_t file, dpu_loader_context_t context);

#ifdef __cplusplus
}
#endif

#endif /* DPU_LOADER_H */
