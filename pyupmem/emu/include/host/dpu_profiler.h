/* dpu_profiler.h: the host side of the SDK's DPU profilers (dpu-profiling: mcount,
 * sampled statistics and PCs, sections). The emulator's profiling method is always
 * DPU_PROFILING_NOP: dpu_get_profiling_context gives a context that says so, filling,
 * patching and setting the magic number succeed and do nothing, the collect and dump
 * functions do nothing. The DPU side (profiling.h) works: read a section's counts with
 * dpu_copy_from. */
#ifndef DPU_PROFILER_H
#define DPU_PROFILER_H

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

enum dpu_profiling_type_e {
    DPU_PROFILING_NOP,      /* no profiling */
    DPU_PROFILING_MCOUNT,
    DPU_PROFILING_STATS,    /* WRAM samples of the current function */
    DPU_PROFILING_SAMPLES,  /* PC samples */
    DPU_PROFILING_SECTIONS, /* sections, with DPU counters */
};

typedef struct _dpu_profiling_context_t {
    enum dpu_profiling_type_e enable_profiling;
    struct dpu_t *dpu;
    uint64_t *sample_stats; /* per IRAM address */
    uint16_t nr_of_mcount_stats;
    struct {
        iram_addr_t address;
        uint64_t count;
    } **mcount_stats;
    iram_addr_t mcount_address;
    iram_addr_t ret_mcount_address;
    wram_addr_t thread_profiling_address;
    dpu_elf_symbols_t *profiling_symbols;
    wram_addr_t perfcounter_end_value_address;
} *dpu_profiling_context_t;

dpu_error_t dpu_fill_profiling_info(struct dpu_rank_t *rank, iram_addr_t mcount_address,
                                    iram_addr_t ret_mcount_address,
                                    wram_addr_t thread_profiling_address,
                                    wram_addr_t perfcounter_end_value_address,
                                    dpu_elf_symbols_t *profiling_symbols);
dpu_error_t dpu_patch_profiling_for_dpu(struct dpu_t *dpu, dpuinstruction_t *source,
                                        uint32_t address, uint32_t size, bool init);
void dpu_collect_statistics_profiling(struct dpu_t *dpu, uint8_t nr_threads,
                                      const uint32_t *profiled_address);
void dpu_collect_samples_profiling(struct dpu_t *dpu, iram_addr_t profiled_address);
void dpu_dump_statistics_profiling(struct dpu_t *dpu, uint8_t nr_threads);
void dpu_dump_samples_profiling(struct dpu_t *dpu);
dpu_error_t dpu_set_magic_profiling_for_dpu(struct dpu_t *dpu);
void dpu_dump_section_profiling(struct dpu_t *dpu, uint8_t nr_threads, const char *section_name,
                                const dpuword_t *section_info, uint32_t perfcounter_end_value);
dpu_profiling_context_t dpu_get_profiling_context(struct dpu_rank_t *rank);

#ifdef __cplusplus
}
#endif

#endif /* DPU_PROFILER_H */
