/* dpu_log.h: reading the log (what the DPU printed) of one DPU given as a structure. */
#ifndef DPU_LOG_H
#define DPU_LOG_H

#include <stdio.h>

#include <dpu_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dpu_t;

/* Writes the same text as dpu_log_read on that DPU's set: "=== DPU#0x<id> ===", a
 * newline, then what the DPU printed during its last launch. */
dpu_error_t dpulog_read_for_dpu(struct dpu_t *dpu, FILE *stream);

#ifdef __cplusplus
}
#endif
#endif /* DPU_LOG_H */
