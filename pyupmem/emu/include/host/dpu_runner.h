/* dpu_runner.h: booting and polling DPUs as structures.
 *
 * In the emulator, launching thread DPU_BOOT_THREAD (0) without resuming boots the DPU or
 * rank as dpu_launch(..., DPU_ASYNCHRONOUS) does; any other thread, or resuming, gives
 * DPU_ERR_INVALID_THREAD_ID (the tasklets are native threads the runtime starts itself). */
#ifndef DPU_RUNNER_H
#define DPU_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include <dpu_error.h>
#include <dpu_types.h>

#ifdef __cplusplus
extern "C" {
#endif

dpu_error_t dpu_launch_thread_on_rank(struct dpu_rank_t *rank, dpu_thread_t thread, bool should_resume);
dpu_error_t dpu_launch_thread_on_dpu(struct dpu_t *dpu, dpu_thread_t thread, bool should_resume);
dpu_error_t dpu_poll_rank(struct dpu_rank_t *rank);
dpu_error_t dpu_poll_dpu(struct dpu_t *dpu, bool *dpu_is_running, bool *dpu_is_in_fault);

typedef struct _dpu_run_context_t {
    dpu_bitfield_t dpu_running[DPU_MAX_NR_CIS];
    dpu_bitfield_t dpu_in_fault[DPU_MAX_NR_CIS];
    dpu_error_t poll_status;
    uint8_t nb_dpu_running;
} *dpu_run_context_t;

/* The rank's run context as of its last dpu_poll_rank (owned by the library). */
dpu_run_context_t dpu_get_run_context(struct dpu_rank_t *rank);
dpu_error_t dpu_boot_dpu(struct dpu_t *dpu);
dpu_error_t dpu_boot_rank(struct dpu_rank_t *rank);
dpu_error_t dpu_status_rank(struct dpu_rank_t *rank, bool *done, bool *fault);
dpu_error_t dpu_status_dpu(struct dpu_t *dpu, bool *done, bool *fault);

#ifdef __cplusplus
}
#endif
#endif /* DPU_RUNNER_H */
