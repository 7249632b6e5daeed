/* management.c: ranks, DPUs and programs as structures (dpu_management.h, dpu_runner.h,
 * dpu_program.h, dpu_description.h): thin views over the allocation that dpu_alloc made. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include <dpu_description.h>
#include <dpu_management.h>
#include <dpu_program.h>
#include <dpu_runner.h>

const char *dpu_slice_target_names[NR_OF_DPU_SLICE_TARGETS] = {
    "DPU_SLICE_TARGET_NONE", "DPU_SLICE_TARGET_DPU", "DPU_SLICE_TARGET_ALL", "DPU_SLICE_TARGET_GROUP"};

/* ------------------------------------------------------------------ descriptions */

/* Library-owned descriptions never reach a zero count, whatever callers release. */
#define OWNED_REFCOUNT (UINT32_MAX / 2)

static void describe(struct _dpu_description_t *description, uint32_t clock_mhz,
                     const struct emu_chip *chip)
{
    memset(description, 0, sizeof(*description));
    struct dpu_hw_description_t *hw = &description->hw;
    hw->signature.chip_id = vD_asic8_v1_4;
    hw->timings.fck_frequency_in_mhz = clock_mhz;
    hw->timings.clock_division = 2;
    hw->topology.nr_of_control_interfaces = DPU_MAX_NR_CIS;
    hw->topology.nr_of_dpus_per_control_interface = DPU_MAX_NR_DPUS_PER_CI;
    hw->topology.ci_mask = 0xff;
    hw->memories.mram_size = EMU_MRAM_SIZE;
    hw->memories.wram_size = chip->wram_size / 4;
    hw->memories.iram_size = chip->iram_instructions;
    hw->dpu.nr_of_threads = chip->max_tasklets;
    hw->dpu.nr_of_atomic_bits = 256;
    hw->dpu.nr_of_notify_bits = 40;
    hw->dpu.nr_of_work_registers_per_thread = 24;
    description->type = FUNCTIONAL_SIMULATOR;
}

/* One description per clock and chip, kept for the process's life (allocations differ
 * only in them). */
struct owned_description {
    struct _dpu_description_t description;
    struct owned_description *next;
};
static struct owned_description *owned_descriptions;
static pthread_mutex_t descriptions_lock = PTHREAD_MUTEX_INITIALIZER;

dpu_description_t dpu_get_description(struct dpu_rank_t *rank)
{
    if (rank == NULL)
        return NULL;
    uint32_t clock_mhz = rank->allocation->profile.clock_mhz;
    const struct emu_chip *chip = rank->allocation->profile.chip;
    pthread_mutex_lock(&descriptions_lock);
    struct owned_description *found = owned_descriptions;
    while (found != NULL && (found->description.hw.timings.fck_frequency_in_mhz != clock_mhz ||
                             found->description.hw.dpu.nr_of_threads != chip->max_tasklets))
        found = found->next;
    if (found == NULL && (found = malloc(sizeof(*found))) != NULL) {
        describe(&found->description, clock_mhz, chip);
        found->description.refcount = OWNED_REFCOUNT;
        found->next = owned_descriptions;
        owned_descriptions = found;
    }
    pthread_mutex_unlock(&descriptions_lock);
    return found ? &found->description : NULL;
}

dpu_error_t dpu_get_profile_description(const char *profile, dpu_description_t *description)
{
    struct emu_profile parsed;
    dpu_error_t status = emu_parse_profile(profile, &parsed);
    if (status != DPU_OK)
        return status;
    dpu_description_t made = malloc(sizeof(*made));
    if (made == NULL)
        return DPU_ERR_SYSTEM;
    describe(made, parsed.clock_mhz, parsed.chip);
    made->refcount = 1;
    *description = made;
    return DPU_OK;
}

void dpu_acquire_description(dpu_description_t description)
{
    if (description != NULL)
        __atomic_add_fetch(&description->refcount, 1, __ATOMIC_RELAXED);
}

void dpu_free_description(dpu_description_t description)
{
    if (description != NULL && __atomic_sub_fetch(&description->refcount, 1, __ATOMIC_ACQ_REL) == 0) {
        if (description->_internals.free != NULL)
            description->_internals.free(description->_internals.data);
        free(description);
    }
}

/* ------------------------------------------------------------------ ranks and DPUs */

dpu_error_t dpu_get_rank_of_type(const char *profile, struct dpu_rank_t **rank)
{
    struct dpu_set_t set;
    dpu_error_t status = dpu_alloc_ranks(1, profile, &set);
    if (status == DPU_OK)
        *rank = set.list.ranks[0];
    return status;
}

dpu_error_t dpu_free_rank(struct dpu_rank_t *rank)
{
    if (rank == NULL || rank->allocation->nr_ranks != 1)
        return DPU_ERR_INVALID_DPU_SET; /* a rank of a larger set: free that set */
    struct dpu_set_t set = {.kind = DPU_SET_RANKS};
    set.list.nr_ranks = 1;
    set.list.ranks = rank->allocation->rank_list;
    return dpu_free(set);
}

void dpu_lock_rank(struct dpu_rank_t *rank)
{
    pthread_mutex_lock(&rank->lock);
}

int dpu_trylock_rank(struct dpu_rank_t *rank)
{
    return pthread_mutex_trylock(&rank->lock);
}

void dpu_unlock_rank(struct dpu_rank_t *rank)
{
    pthread_mutex_unlock(&rank->lock);
}

struct dpu_t *dpu_get(struct dpu_rank_t *rank, dpu_slice_id_t slice_id, dpu_member_id_t dpu_id)
{
    uint32_t member = (uint32_t)slice_id * DPU_MAX_NR_DPUS_PER_CI + dpu_id;
    if (rank == NULL || dpu_id >= DPU_MAX_NR_DPUS_PER_CI || member >= rank->nr_dpus)
        return NULL;
    return &rank->allocation->dpus[rank->first_dpu + member];
}

dpu_id_t dpu_get_id(struct dpu_t *dpu)
{
    return emu_slot(dpu->allocation, dpu->index)->dpu_id;
}

dpu_id_t dpu_get_rank_id(struct dpu_rank_t *rank)
{
    return rank->id;
}

int dpu_get_rank_numa_node(struct dpu_rank_t *rank)
{
    (void)rank;
    return 0;
}

struct dpu_rank_t *dpu_get_rank(struct dpu_t *dpu)
{
    return dpu->rank;
}

dpu_slice_id_t dpu_get_slice_id(struct dpu_t *dpu)
{
    return (dpu_slice_id_t)(dpu->member / DPU_MAX_NR_DPUS_PER_CI);
}

dpu_member_id_t dpu_get_member_id(struct dpu_t *dpu)
{
    return (dpu_member_id_t)(dpu->member % DPU_MAX_NR_DPUS_PER_CI);
}

bool dpu_is_enabled(struct dpu_t *dpu)
{
    return dpu != NULL;
}

struct dpu_set_t dpu_set_from_rank(struct dpu_rank_t **rank)
{
    struct dpu_set_t set = {.kind = DPU_SET_RANKS};
    set.list.nr_ranks = 1;
    set.list.ranks = rank;
    return set;
}

struct dpu_set_t dpu_set_from_dpu(struct dpu_t *dpu)
{
    struct dpu_set_t set = {.kind = DPU_SET_DPU};
    set.dpu = dpu;
    return set;
}

struct dpu_rank_t *dpu_rank_from_set(struct dpu_set_t set)
{
    if (set.kind != DPU_SET_RANKS || set.list.nr_ranks != 1 || set.list.ranks == NULL)
        return NULL;
    return set.list.ranks[0];
}

struct dpu_t *dpu_from_set(struct dpu_set_t set)
{
    return set.kind == DPU_SET_DPU ? set.dpu : NULL;
}

struct dpu_iterator_t dpu_iterator_from(struct dpu_rank_t *rank)
{
    struct dpu_iterator_t it = {.rank = rank};
    if (rank != NULL && rank->nr_dpus > 0) {
        it.has_next = true;
        it.next = &rank->allocation->dpus[rank->first_dpu];
        it.next_idx = 1;
    }
    return it;
}

void dpu_iterator_next(struct dpu_iterator_t *it)
{
    if (!it->has_next)
        return;
    if (it->next_idx >= it->rank->nr_dpus) {
        it->has_next = false;
        return;
    }
    it->next = &it->rank->allocation->dpus[it->rank->first_dpu + it->next_idx];
    it->next_idx++;
    it->count++;
}

/* ------------------------------------------------------------------ programs */

dpu_error_t emu_common_program(struct emu_range range, struct dpu_program_t **program)
{
    struct dpu_program_t *first = range.allocation->dpus[range.first].program;
    for (uint32_t i = range.first; i < range.first + range.count; i++) {
        struct dpu_program_t *other = range.allocation->dpus[i].program;
        if (other == NULL)
            return DPU_ERR_NO_PROGRAM_LOADED;
        if (other != first)
            return DPU_ERR_DIFFERENT_DPU_PROGRAMS;
    }
    *program = first;
    return DPU_OK;
}

dpu_error_t dpu_get_common_program(struct dpu_set_t *dpu_set, struct dpu_program_t **program)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve(*dpu_set, &range);
    return status != DPU_OK ? status : emu_common_program(range, program);
}

struct dpu_program_t *dpu_get_program(struct dpu_t *dpu)
{
    return dpu->program;
}

/* The allocation owns its programs and frees them with itself. */
void dpu_init_program_ref(struct dpu_program_t *program)
{
    (void)program;
}

void dpu_take_program_ref(struct dpu_program_t *program)
{
    (void)program;
}

void dpu_free_program(struct dpu_program_t *program)
{
    (void)program;
}

void dpu_set_program(struct dpu_t *dpu, struct dpu_program_t *program)
{
    (void)dpu, (void)program; /* a DPU runs only what dpu_load gave it */
}

dpu_error_t dpu_load_elf_program_from_memory(dpu_elf_file_t *elf_info, const char *path, uint8_t *buffer_start,
                                             size_t buffer_size, struct dpu_program_t *program,
                                             mram_size_t mram_size_hint)
{
    (void)elf_info, (void)path, (void)buffer_start, (void)buffer_size, (void)program, (void)mram_size_hint;
    return emu_unsupported("dpu_load_elf_program_from_memory", "load with dpu_load_from_memory");
}

dpu_error_t dpu_load_elf_program(dpu_elf_file_t *elf_info, const char *path, struct dpu_program_t *program,
                                 mram_size_t mram_size_hint)
{
    (void)elf_info, (void)path, (void)program, (void)mram_size_hint;
    return emu_unsupported("dpu_load_elf_program", "load with dpu_load");
}

/* ------------------------------------------------------------------ running */

static dpu_error_t boot(struct dpu_set_t set, dpu_thread_t thread, bool should_resume)
{
    if (thread != DPU_BOOT_THREAD || should_resume)
        return DPU_ERR_INVALID_THREAD_ID;
    return dpu_launch(set, DPU_ASYNCHRONOUS);
}

dpu_error_t dpu_launch_thread_on_rank(struct dpu_rank_t *rank, dpu_thread_t thread, bool should_resume)
{
    return boot(dpu_set_from_rank(&rank), thread, should_resume);
}

dpu_error_t dpu_launch_thread_on_dpu(struct dpu_t *dpu, dpu_thread_t thread, bool should_resume)
{
    return boot(dpu_set_from_dpu(dpu), thread, should_resume);
}

dpu_error_t dpu_boot_rank(struct dpu_rank_t *rank)
{
    return dpu_launch(dpu_set_from_rank(&rank), DPU_ASYNCHRONOUS);
}

dpu_error_t dpu_boot_dpu(struct dpu_t *dpu)
{
    return dpu_launch(dpu_set_from_dpu(dpu), DPU_ASYNCHRONOUS);
}

dpu_error_t dpu_status_rank(struct dpu_rank_t *rank, bool *done, bool *fault)
{
    return dpu_status(dpu_set_from_rank(&rank), done, fault);
}

dpu_error_t dpu_status_dpu(struct dpu_t *dpu, bool *done, bool *fault)
{
    return dpu_status(dpu_set_from_dpu(dpu), done, fault);
}

dpu_error_t dpu_poll_dpu(struct dpu_t *dpu, bool *dpu_is_running, bool *dpu_is_in_fault)
{
    bool done;
    dpu_error_t status = dpu_status(dpu_set_from_dpu(dpu), &done, dpu_is_in_fault);
    if (status == DPU_OK)
        *dpu_is_running = !done;
    return status;
}

/* Filled from the slots' states by dpu_get_run_context; one per thread, so that it stays
 * valid until that thread asks again. */
static _Thread_local struct _dpu_run_context_t run_context;

dpu_run_context_t dpu_get_run_context(struct dpu_rank_t *rank)
{
    memset(&run_context, 0, sizeof(run_context));
    for (uint32_t m = 0; rank != NULL && m < rank->nr_dpus; m++) {
        uint32_t state = atomic_load(&emu_slot(rank->allocation, rank->first_dpu + m)->state);
        dpu_bitfield_t bit = (dpu_bitfield_t)(1u << (m % DPU_MAX_NR_DPUS_PER_CI));
        if (state == EMU_RUNNING) {
            run_context.dpu_running[m / DPU_MAX_NR_DPUS_PER_CI] |= bit;
            run_context.nb_dpu_running++;
        } else if (state == EMU_FAULT) {
            run_context.dpu_in_fault[m / DPU_MAX_NR_DPUS_PER_CI] |= bit;
        }
    }
    return &run_context;
}

dpu_error_t dpu_poll_rank(struct dpu_rank_t *rank)
{
    return rank == NULL ? DPU_ERR_INVALID_DPU_SET : DPU_OK; /* states are read when asked */
}
