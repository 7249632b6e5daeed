/* unsupported.c: the SDK functions the emulator has no meaning for. They exist so that
 * programs naming them link; they return DPU_ERR_INTERNAL (or do nothing) and say once on
 * stderr which function it was and what to use instead. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include <dpu_elf.h>

#define MAX_WARNED 64

static const char *warned[MAX_WARNED];
static unsigned nr_warned;
static pthread_mutex_t warned_lock = PTHREAD_MUTEX_INITIALIZER;

dpu_error_t emu_unsupported(const char *function, const char *instead)
{
    bool first = true;
    pthread_mutex_lock(&warned_lock);
    for (unsigned i = 0; i < nr_warned; i++)
        first &= strcmp(warned[i], function) != 0;
    if (first && nr_warned < MAX_WARNED)
        warned[nr_warned++] = function;
    pthread_mutex_unlock(&warned_lock);
    const char *quiet = getenv("PYUPMEM_EMU_QUIET");
    if (first && (quiet == NULL || *quiet == '\0' || strcmp(quiet, "0") == 0))
        fprintf(stderr, "pyupmem emulator: %s is not supported: %s\n", function,
                instead);
    return DPU_ERR_INTERNAL;
}

/* ------------------------------------------------------------------ dpu_elf.h */

#define NO_ELF "the emulator's DPU programs are host executables: use dpu_load and dpu_get_symbol"

dpu_error_t dpu_elf_open(const char *path, dpu_elf_file_t *file)
{
    (void)path, (void)file;
    emu_unsupported("dpu_elf_open", NO_ELF);
    return DPU_ERR_ELF_INVALID_FILE;
}

dpu_error_t dpu_elf_map(uint8_t *memory, unsigned int size, dpu_elf_file_t *file, const char *filename_or_null)
{
    (void)memory, (void)size, (void)file, (void)filename_or_null;
    emu_unsupported("dpu_elf_map", NO_ELF);
    return DPU_ERR_ELF_INVALID_FILE;
}

void dpu_elf_close(dpu_elf_file_t file)
{
    (void)file;
}

dpu_error_t dpu_elf_load_section(dpu_elf_file_t file, const char *name, unsigned int *size, uint8_t **buffer)
{
    (void)file, (void)name, (void)size, (void)buffer;
    return emu_unsupported("dpu_elf_load_section", NO_ELF);
}

dpu_error_t dpu_elf_load_symbols(dpu_elf_file_t file, const char *name, dpu_elf_symbols_t **symbols)
{
    (void)file, (void)name, (void)symbols;
    return emu_unsupported("dpu_elf_load_symbols", NO_ELF);
}

void dpu_elf_free_symbols(dpu_elf_symbols_t *symbols)
{
    (void)symbols;
}

dpu_error_t dpu_elf_get_sections(dpu_elf_file_t file, unsigned int *nr_sections, char ***sections)
{
    (void)file, (void)nr_sections, (void)sections;
    return emu_unsupported("dpu_elf_get_sections", NO_ELF);
}

void dpu_elf_get_runtime_info(dpu_elf_file_t file, dpu_elf_runtime_info_t *runtime_info)
{
    (void)file;
    if (runtime_info != NULL)
        memset(runtime_info, 0, sizeof(*runtime_info)); /* every item: exists = false */
}

void free_runtime_info(dpu_elf_runtime_info_t *runtime_info)
{
    (void)runtime_info;
}

dpu_error_t dpu_elf_create_core_dump(const char *exe_path, const char *core_file_path, uint8_t *wram,
                                     uint8_t *mram, uint8_t *iram, uint8_t *context, uint32_t wram_size,
                                     uint32_t mram_size, uint32_t iram_size, uint32_t context_size)
{
    (void)exe_path, (void)core_file_path, (void)wram, (void)mram, (void)iram, (void)context;
    (void)wram_size, (void)mram_size, (void)iram_size, (void)context_size;
    return emu_unsupported("dpu_elf_create_core_dump", "debug the DPU program as a host process (gdb)");
}

/* ------------------------------------------------------------------ dpu_bank_interface_pmc.h */

#define NO_PMC "the emulator has no bank interface to count on; use perfcounter.h on the DPU"

dpu_error_t dpu_bank_interface_pmc_enable(struct dpu_set_t set, bank_interface_pmc_config_t configuration)
{
    (void)set, (void)configuration;
    return emu_unsupported("dpu_bank_interface_pmc_enable", NO_PMC);
}

dpu_error_t dpu_bank_interface_pmc_disable(struct dpu_set_t set)
{
    (void)set;
    return emu_unsupported("dpu_bank_interface_pmc_disable", NO_PMC);
}

dpu_error_t dpu_bank_interface_pmc_stop_counters(struct dpu_set_t set)
{
    (void)set;
    return emu_unsupported("dpu_bank_interface_pmc_stop_counters", NO_PMC);
}

dpu_error_t dpu_bank_interface_pmc_read_counters(struct dpu_set_t set, bank_interface_pmc_result_t *result)
{
    (void)set, (void)result;
    return emu_unsupported("dpu_bank_interface_pmc_read_counters", NO_PMC);
}
