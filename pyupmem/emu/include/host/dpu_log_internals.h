/* dpu_log_internals.h: the log reader with a print function of the caller's (dpu.hpp and
 * debuggers use it). */
#ifndef DPU_LOG_INTERNALS_H
#define DPU_LOG_INTERNALS_H

#include <stddef.h>

#include <dpu_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dpu_t;

/* The header line before each DPU's log; its argument is the DPU's id (dpu_get_id). */
#define DPU_LOG_FORMAT_HEADER ("=== DPU#0x%x ===\n")

typedef dpu_error_t (*dpu_log_print_fct_t)(void *arg, const char *format, ...);

/* Outputs what the DPU printed (without the header line) through print_fct. */
dpu_error_t dpulog_read_for_dpu_(struct dpu_t *dpu, dpu_log_print_fct_t print_fct, void *arg);
/* Outputs a raw log buffer. The emulator's log is plain text: it is printed as it is. */
dpu_error_t dpulog_read_and_display_contents_of(void *input, size_t input_size, dpu_log_print_fct_t print_fct,
                                                void *print_fct_arg);
/* A dpu_log_print_fct_t that writes to the FILE * given as arg. */
dpu_error_t dpulog_c_print_fct(void *arg, const char *fmt, ...);

#ifdef __cplusplus
}
#endif
#endif /* DPU_LOG_INTERNALS_H */
