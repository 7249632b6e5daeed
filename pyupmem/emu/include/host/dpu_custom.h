/* dpu_custom.h: commands for the backend of a rank or a DPU (resets, hooks before and
 * after an execution, labels, events). The emulator's backend needs none of them: each
 * command of the enumeration is accepted and does nothing (DPU_OK); a NULL rank or DPU,
 * or a value outside the enumeration, gives DPU_ERR_INTERNAL. */
#ifndef DPU_CUSTOM_H
#define DPU_CUSTOM_H

#include <dpu_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dpu_rank_t;
struct dpu_t;

typedef enum _dpu_custom_command_t {
    DPU_COMMAND_DPU_SOFT_RESET,
    DPU_COMMAND_ALL_SOFT_RESET,
    DPU_COMMAND_DPU_PREEXECUTION,
    DPU_COMMAND_ALL_PREEXECUTION,
    DPU_COMMAND_DPU_POSTEXECUTION,
    DPU_COMMAND_ALL_POSTEXECUTION,
    DPU_COMMAND_CUSTOM_LABEL,
    DPU_COMMAND_POSTMORTEM,
    DPU_COMMAND_SYSTEM_REPORT,
    DPU_COMMAND_BINARY_PATH,
    DPU_COMMAND_EVENT_START,
    DPU_COMMAND_EVENT_END,
    DPU_COMMAND_SET_SLICE_INFO,
} dpu_custom_command_t;

/* A command's argument, whose type depends on the command. */
typedef void *dpu_custom_command_args_t;

dpu_error_t dpu_custom_for_rank(struct dpu_rank_t *rank, dpu_custom_command_t command,
                                dpu_custom_command_args_t args);
dpu_error_t dpu_custom_for_dpu(struct dpu_t *dpu, dpu_custom_command_t command,
                               dpu_custom_command_args_t args);

#ifdef __cplusplus
}
#endif

#endif /* DPU_CUSTOM_H */
