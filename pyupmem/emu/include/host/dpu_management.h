/* dpu_management.h: ranks and DPUs as structures (struct dpu_rank_t *, struct dpu_t *),
 * below the dpu_set_t interface of dpu.h. In the emulator a DPU's id is
 * rank << 16 | CI << 8 | member, the number dpu_log_read prints. */
#ifndef DPU_MANAGEMENT_H
#define DPU_MANAGEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include <dpu_description.h>
#include <dpu_error.h>
#include <dpu_macro_utils.h>
#include <dpu_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The description of the ranks a profile would allocate (DPU_ERR_INVALID_PROFILE if bad).
 * Release it with dpu_free_description. */
dpu_error_t dpu_get_profile_description(const char *profile, dpu_description_t *description);
/* Allocates one rank; free it with dpu_free_rank. */
dpu_error_t dpu_get_rank_of_type(const char *profile, struct dpu_rank_t **rank);
/* Frees a rank from dpu_get_rank_of_type (or the only rank of a dpu_alloc_ranks(1) set). */
dpu_error_t dpu_free_rank(struct dpu_rank_t *rank);

void dpu_lock_rank(struct dpu_rank_t *rank);
int dpu_trylock_rank(struct dpu_rank_t *rank); /* 0 when taken */
void dpu_unlock_rank(struct dpu_rank_t *rank);

/* The DPU at (CI, member) of the rank, NULL if there is none. */
struct dpu_t *dpu_get(struct dpu_rank_t *rank, dpu_slice_id_t slice_id, dpu_member_id_t dpu_id);
dpu_id_t dpu_get_id(struct dpu_t *dpu);
dpu_id_t dpu_get_rank_id(struct dpu_rank_t *rank);
int dpu_get_rank_numa_node(struct dpu_rank_t *rank); /* 0: the emulator has one node */
struct dpu_rank_t *dpu_get_rank(struct dpu_t *dpu);
dpu_slice_id_t dpu_get_slice_id(struct dpu_t *dpu);
dpu_member_id_t dpu_get_member_id(struct dpu_t *dpu);
bool dpu_is_enabled(struct dpu_t *dpu); /* always true: no emulated DPU is disabled */
/* The rank's description (owned by the library: do not free it). */
dpu_description_t dpu_get_description(struct dpu_rank_t *rank);

struct dpu_set_t dpu_set_from_rank(struct dpu_rank_t **rank);
struct dpu_set_t dpu_set_from_dpu(struct dpu_t *dpu);
struct dpu_rank_t *dpu_rank_from_set(struct dpu_set_t set); /* NULL unless one rank */
struct dpu_t *dpu_from_set(struct dpu_set_t set);          /* NULL unless one DPU */

/* STRUCT_DPU_FOREACH(rank, dpu) or STRUCT_DPU_FOREACH(rank, dpu, index): each struct dpu_t *
 * of a rank. */
struct dpu_iterator_t {
    struct dpu_rank_t *rank;
    uint32_t count;
    uint32_t next_idx;
    bool has_next;
    struct dpu_t *next;
};
struct dpu_iterator_t dpu_iterator_from(struct dpu_rank_t *rank);
void dpu_iterator_next(struct dpu_iterator_t *iterator);

#define _STRUCT_DPU_FOREACH_X(rank, dpu)                                                          \
    for (struct dpu_iterator_t __dpu_it = dpu_iterator_from(rank);                                 \
         __dpu_it.has_next && (((dpu) = __dpu_it.next), 1); dpu_iterator_next(&__dpu_it))
#define _STRUCT_DPU_FOREACH_I(rank, dpu, i)                                                       \
    for (struct dpu_iterator_t __dpu_it = dpu_iterator_from(rank);                                 \
         __dpu_it.has_next && (((dpu) = __dpu_it.next), ((i) = __dpu_it.count), 1);              \
         dpu_iterator_next(&__dpu_it))
#define _STRUCT_DPU_PICK(_1, _2, _3, NAME, ...) NAME
#define STRUCT_DPU_FOREACH(...)                                                                    \
    _STRUCT_DPU_PICK(__VA_ARGS__, _STRUCT_DPU_FOREACH_I, _STRUCT_DPU_FOREACH_X, _)(__VA_ARGS__)

#ifdef __cplusplus
}
#endif
#endif /* DPU_MANAGEMENT_H */
