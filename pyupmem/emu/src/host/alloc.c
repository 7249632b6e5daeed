/* alloc.c: allocating and freeing DPUs, sets and their iterators. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host.h"

/* Ranks in use by this process; the emulated system is private to each process. */
static pthread_mutex_t ranks_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t ranks_in_use;

int emu_memfd(const char *name, uint64_t size)
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    /* Keep it above the descriptors 3..6 that a zygote receives (see load.c). */
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    close(fd);
    if (high < 0 || ftruncate(high, (off_t)size) != 0) {
        if (high >= 0)
            close(high);
        return -1;
    }
    return high;
}

/* Source lines already warned about by the DPU runtime, for the whole process: each new
 * allocation starts from them, so a warning is printed once per line per process. */
static uint64_t warned_lines[EMU_WARNED_SLOTS];

static void remember_warnings(const struct emu_control *control)
{
    pthread_mutex_lock(&ranks_lock);
    for (uint32_t i = 0; i < EMU_WARNED_SLOTS; i++) {
        uint64_t key = atomic_load(&control->warned[i]);
        for (uint32_t probe = 0; key != 0 && probe < EMU_WARNED_SLOTS; probe++) {
            uint64_t *entry = &warned_lines[(key + probe) % EMU_WARNED_SLOTS];
            if (*entry == 0 || *entry == key) {
                *entry = key;
                break;
            }
        }
    }
    pthread_mutex_unlock(&ranks_lock);
}

static void destroy(struct emu_allocation *allocation)
{
    if (allocation->control != NULL && allocation->control != MAP_FAILED)
        remember_warnings(allocation->control);
    if (allocation->mram != NULL && allocation->mram != MAP_FAILED)
        munmap(allocation->mram, (size_t)allocation->nr_dpus * EMU_MRAM_SIZE);
    if (allocation->control != NULL && allocation->control != MAP_FAILED)
        munmap(allocation->control, allocation->control_size);
    if (allocation->mram_fd >= 0)
        close(allocation->mram_fd);
    if (allocation->control_fd >= 0)
        close(allocation->control_fd);
    free(allocation->ranks);
    free(allocation->rank_list);
    free(allocation->dpus);
    free(allocation);
}

static dpu_error_t allocate(uint32_t nr_dpus, uint32_t nr_ranks, const struct emu_profile *profile,
                           struct dpu_set_t *set)
{
    struct emu_allocation *allocation = calloc(1, sizeof(*allocation));
    if (allocation == NULL)
        return DPU_ERR_SYSTEM;
    allocation->profile = *profile;
    allocation->control_fd = allocation->mram_fd = -1;
    allocation->nr_dpus = nr_dpus;
    allocation->nr_ranks = nr_ranks;
    allocation->ranks = calloc(nr_ranks, sizeof(struct dpu_rank_t));
    allocation->rank_list = calloc(nr_ranks, sizeof(struct dpu_rank_t *));
    allocation->dpus = calloc(nr_dpus, sizeof(struct dpu_t));
    allocation->control_size = emu_control_size(nr_dpus);
    allocation->control_fd = emu_memfd("pyupmem-control", allocation->control_size);
    allocation->mram_fd = emu_memfd("pyupmem-mram", (uint64_t)nr_dpus * EMU_MRAM_SIZE);
    if (!allocation->ranks || !allocation->rank_list || !allocation->dpus ||
        allocation->control_fd < 0 || allocation->mram_fd < 0) {
        destroy(allocation);
        return DPU_ERR_SYSTEM;
    }
    allocation->control = mmap(NULL, allocation->control_size, PROT_READ | PROT_WRITE, MAP_SHARED,
                               allocation->control_fd, 0);
    allocation->mram = mmap(NULL, (size_t)nr_dpus * EMU_MRAM_SIZE, PROT_READ | PROT_WRITE,
                            MAP_SHARED | MAP_NORESERVE, allocation->mram_fd, 0);
    if (allocation->control == MAP_FAILED || allocation->mram == MAP_FAILED) {
        destroy(allocation);
        return DPU_ERR_SYSTEM;
    }
    allocation->control->nr_dpus = nr_dpus;
    allocation->control->strict = profile->strict;
    allocation->control->wram_size = profile->chip->wram_size;
    allocation->control->shuffle = profile->shuffle;
    allocation->control->shuffle_seed = profile->shuffle_seed;
    allocation->control->print_faults = profile->print_faults;
    pthread_mutex_lock(&ranks_lock);
    for (uint32_t i = 0; i < EMU_WARNED_SLOTS; i++)
        atomic_store(&allocation->control->warned[i], warned_lines[i]);
    pthread_mutex_unlock(&ranks_lock);

    pthread_mutex_lock(&ranks_lock);
    allocation->first_rank_id = ranks_in_use;
    ranks_in_use += nr_ranks;
    pthread_mutex_unlock(&ranks_lock);

    for (uint32_t r = 0; r < nr_ranks; r++) {
        struct dpu_rank_t *rank = &allocation->ranks[r];
        rank->allocation = allocation;
        rank->id = allocation->first_rank_id + r;
        rank->first_dpu = r * EMU_DPUS_PER_RANK;
        rank->nr_dpus = nr_dpus - rank->first_dpu < EMU_DPUS_PER_RANK ? nr_dpus - rank->first_dpu
                                                                       : EMU_DPUS_PER_RANK;
        allocation->rank_list[r] = rank;
        for (uint32_t m = 0; m < rank->nr_dpus; m++) {
            struct dpu_t *dpu = &allocation->dpus[rank->first_dpu + m];
            dpu->allocation = allocation;
            dpu->rank = rank;
            dpu->index = rank->first_dpu + m;
            dpu->member = m;
            allocation->control->slots[dpu->index].dpu_id = rank->id << 16 | (m / 8) << 8 | (m % 8);
        }
    }
    set->kind = DPU_SET_RANKS;
    set->list.nr_ranks = nr_ranks;
    set->list.ranks = allocation->rank_list;
    return DPU_OK;
}

static uint32_t free_ranks(uint32_t system_ranks)
{
    pthread_mutex_lock(&ranks_lock);
    uint32_t free_count = system_ranks > ranks_in_use ? system_ranks - ranks_in_use : 0;
    pthread_mutex_unlock(&ranks_lock);
    return free_count;
}

dpu_error_t dpu_alloc(uint32_t nr_dpus, const char *profile, struct dpu_set_t *dpu_set)
{
    struct emu_profile parsed;
    dpu_error_t status = emu_parse_profile(profile, &parsed);
    if (status != DPU_OK)
        return status;
    uint32_t available = free_ranks(parsed.nr_ranks);
    if (nr_dpus == DPU_ALLOCATE_ALL)
        nr_dpus = available * EMU_DPUS_PER_RANK;
    if (nr_dpus == 0)
        return DPU_ERR_ALLOCATION;
    uint32_t nr_ranks = (nr_dpus + EMU_DPUS_PER_RANK - 1) / EMU_DPUS_PER_RANK;
    if (nr_ranks > available)
        return DPU_ERR_ALLOCATION;
    return allocate(nr_dpus, nr_ranks, &parsed, dpu_set);
}

dpu_error_t dpu_alloc_ranks(uint32_t nr_ranks, const char *profile, struct dpu_set_t *dpu_set)
{
    struct emu_profile parsed;
    dpu_error_t status = emu_parse_profile(profile, &parsed);
    if (status != DPU_OK)
        return status;
    uint32_t available = free_ranks(parsed.nr_ranks);
    if (nr_ranks == DPU_ALLOCATE_ALL)
        nr_ranks = available;
    if (nr_ranks == 0 || nr_ranks > available)
        return DPU_ERR_ALLOCATION;
    return allocate(nr_ranks * EMU_DPUS_PER_RANK, nr_ranks, &parsed, dpu_set);
}

dpu_error_t dpu_free(struct dpu_set_t dpu_set)
{
    if (dpu_set.kind != DPU_SET_RANKS || dpu_set.list.nr_ranks == 0 || dpu_set.list.ranks == NULL)
        return DPU_ERR_INVALID_DPU_SET;
    struct emu_allocation *allocation = dpu_set.list.ranks[0]->allocation;
    if (dpu_set.list.ranks != allocation->rank_list || dpu_set.list.nr_ranks != allocation->nr_ranks)
        return DPU_ERR_INVALID_DPU_SET; /* only the set dpu_alloc gave */
    for (struct dpu_program_t *program = allocation->programs; program; program = program->next)
        if (program->zygote > 0)
            kill(program->zygote, SIGTERM);
    emu_reap_zygotes(allocation, true);
    while (allocation->programs != NULL) {
        struct dpu_program_t *next = allocation->programs->next;
        emu_release_program(allocation->programs);
        allocation->programs = next;
    }
    pthread_mutex_lock(&ranks_lock);
    ranks_in_use -= allocation->nr_ranks;
    pthread_mutex_unlock(&ranks_lock);
    destroy(allocation);
    return DPU_OK;
}

dpu_error_t emu_resolve(struct dpu_set_t set, struct emu_range *range)
{
    if (set.kind == DPU_SET_DPU) {
        if (set.dpu == NULL)
            return DPU_ERR_INVALID_DPU_SET;
        *range = (struct emu_range){set.dpu->allocation, set.dpu->index, 1};
        return DPU_OK;
    }
    if (set.kind != DPU_SET_RANKS || set.list.nr_ranks == 0 || set.list.ranks == NULL)
        return DPU_ERR_INVALID_DPU_SET;
    struct dpu_rank_t *first = set.list.ranks[0];
    uint32_t count = 0;
    for (uint32_t r = 0; r < set.list.nr_ranks; r++) {
        if (set.list.ranks[r] != first + r)
            return DPU_ERR_INVALID_DPU_SET;
        count += set.list.ranks[r]->nr_dpus;
    }
    *range = (struct emu_range){first->allocation, first->first_dpu, count};
    return DPU_OK;
}

dpu_error_t emu_resolve_one(struct dpu_set_t set, struct emu_range *range)
{
    dpu_error_t status = emu_resolve(set, range);
    return status == DPU_OK && range->count != 1 ? DPU_ERR_INVALID_DPU_SET : status;
}

struct emu_slot *emu_slot(struct emu_allocation *allocation, uint32_t index)
{
    return &allocation->control->slots[index];
}

dpu_error_t dpu_get_nr_ranks(struct dpu_set_t dpu_set, uint32_t *nr_ranks)
{
    if (dpu_set.kind == DPU_SET_DPU) {
        *nr_ranks = 1;
        return dpu_set.dpu ? DPU_OK : DPU_ERR_INVALID_DPU_SET;
    }
    if (dpu_set.kind != DPU_SET_RANKS)
        return DPU_ERR_INVALID_DPU_SET;
    *nr_ranks = dpu_set.list.nr_ranks;
    return DPU_OK;
}

dpu_error_t dpu_get_nr_dpus(struct dpu_set_t dpu_set, uint32_t *nr_dpus)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve(dpu_set, &range);
    if (status == DPU_OK)
        *nr_dpus = range.count;
    return status;
}

struct dpu_set_rank_iterator_t dpu_set_rank_iterator_from(struct dpu_set_t *set)
{
    struct dpu_set_rank_iterator_t it;
    memset(&it, 0, sizeof(it));
    it.set = set;
    if (set->kind == DPU_SET_DPU) {
        it.has_next = set->dpu != NULL;
        it.next = *set;
        it.next_idx = 1;
    } else if (set->list.nr_ranks > 0) {
        it.has_next = true;
        it.next.kind = DPU_SET_RANKS;
        it.next.list.nr_ranks = 1;
        it.next.list.ranks = &set->list.ranks[0];
        it.next_idx = 1;
    }
    return it;
}

void dpu_set_rank_iterator_next(struct dpu_set_rank_iterator_t *it)
{
    if (!it->has_next)
        return;
    if (it->set->kind == DPU_SET_DPU || it->next_idx >= it->set->list.nr_ranks) {
        it->has_next = false;
        return;
    }
    it->count = it->next_idx;
    it->next.list.ranks = &it->set->list.ranks[it->next_idx];
    it->next_idx++;
}

static struct dpu_t *first_dpu_of(struct dpu_set_t rank_set)
{
    struct dpu_rank_t *rank = rank_set.list.ranks[0];
    return &rank->allocation->dpus[rank->first_dpu];
}

struct dpu_set_dpu_iterator_t dpu_set_dpu_iterator_from(struct dpu_set_t *set)
{
    struct dpu_set_dpu_iterator_t it;
    memset(&it, 0, sizeof(it));
    it.rank_iterator = dpu_set_rank_iterator_from(set);
    if (!it.rank_iterator.has_next)
        return it;
    it.has_next = true;
    it.next_idx = 1;
    if (set->kind == DPU_SET_DPU) {
        it.next = *set;
    } else {
        it.next.kind = DPU_SET_DPU;
        it.next.dpu = first_dpu_of(it.rank_iterator.next);
    }
    return it;
}

void dpu_set_dpu_iterator_next(struct dpu_set_dpu_iterator_t *it)
{
    if (!it->has_next)
        return;
    struct dpu_set_rank_iterator_t *ranks = &it->rank_iterator;
    if (ranks->set->kind == DPU_SET_DPU) {
        it->has_next = false;
        return;
    }
    struct dpu_rank_t *rank = ranks->next.list.ranks[0];
    if (it->next_idx < rank->nr_dpus) {
        it->next.dpu = &rank->allocation->dpus[rank->first_dpu + it->next_idx];
        it->next_idx++;
        it->count++;
        return;
    }
    dpu_set_rank_iterator_next(ranks);
    if (!ranks->has_next) {
        it->has_next = false;
        return;
    }
    it->next.dpu = first_dpu_of(ranks->next);
    it->next_idx = 1;
    it->count++;
}
