/* log.c: the DPU's printf log (dpu_log_read, dpu_log.h, dpu_log_internals.h), and error
 * messages. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <string.h>

#include "host.h"
#include <dpu_log.h>
#include <dpu_log_internals.h>

/* Calls print(arg, "%.*s", ...) over the log in pieces, since a log may hold NUL bytes
 * and print functions take C strings. */
static dpu_error_t print_text(const char *text, size_t length, dpu_log_print_fct_t print, void *arg)
{
    while (length > 0) {
        size_t piece = strnlen(text, length);
        if (piece > 0) {
            dpu_error_t status = print(arg, "%.*s", (int)piece, text);
            if (status != DPU_OK)
                return status;
        }
        if (piece < length)
            piece++; /* skip the NUL */
        text += piece;
        length -= piece;
    }
    return DPU_OK;
}

dpu_error_t dpulog_read_for_dpu_(struct dpu_t *dpu, dpu_log_print_fct_t print_fct, void *arg)
{
    if (dpu == NULL || print_fct == NULL)
        return DPU_ERR_LOG_CONTEXT_MISSING;
    if (dpu->program == NULL)
        return DPU_ERR_NO_PROGRAM_LOADED;
    struct emu_slot *slot = emu_slot(dpu->allocation, dpu->index);
    dpu_error_t status = print_text(slot->log, slot->log_len, print_fct, arg);
    if (status == DPU_OK && slot->log_truncated)
        status = print_fct(arg, "\n[log truncated: the DPU printed more than %u bytes]\n", EMU_LOG_SIZE);
    return status;
}

dpu_error_t dpulog_c_print_fct(void *arg, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int written = vfprintf((FILE *)arg, fmt, ap);
    va_end(ap);
    return written < 0 ? DPU_ERR_SYSTEM : DPU_OK;
}

dpu_error_t dpulog_read_and_display_contents_of(void *input, size_t input_size, dpu_log_print_fct_t print_fct,
                                                void *print_fct_arg)
{
    if (print_fct == NULL || (input == NULL && input_size > 0))
        return DPU_ERR_LOG_CONTEXT_MISSING;
    return print_text(input, input_size, print_fct, print_fct_arg);
}

dpu_error_t dpulog_read_for_dpu(struct dpu_t *dpu, FILE *stream)
{
    if (dpu == NULL || stream == NULL)
        return DPU_ERR_LOG_CONTEXT_MISSING;
    if (dpu->program == NULL)
        return DPU_ERR_NO_PROGRAM_LOADED;
    fprintf(stream, DPU_LOG_FORMAT_HEADER, emu_slot(dpu->allocation, dpu->index)->dpu_id);
    dpu_error_t status = dpulog_read_for_dpu_(dpu, dpulog_c_print_fct, stream);
    fflush(stream);
    return status;
}

dpu_error_t dpu_log_read(struct dpu_set_t set, FILE *stream)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve_one(set, &range);
    if (status != DPU_OK)
        return status;
    if (range.allocation->dpus[range.first].program == NULL)
        return DPU_ERR_NO_PROGRAM_LOADED;
    if (stream == NULL)
        return DPU_ERR_LOG_CONTEXT_MISSING;
    return dpulog_read_for_dpu(&range.allocation->dpus[range.first], stream);
}

static const char *const messages[] = {
    "success",
    "internal error",
    "system error",
    "driver error",
    "dpu allocation error",
    "invalid action for this dpu set",
    "invalid thread id",
    "invalid notify id",
    "invalid wram access",
    "invalid iram access",
    "invalid mram access",
    "invalid memory symbol access",
    "mram is busy",
    "dpu transfer is already set",
    "invalid parallel transfer (should be to/from WRAM)",
    "cannot push to WRAM FIFO, FIFO full",
    "no program has been loaded in the dpu set",
    "cannot access symbol on dpus with different programs",
    "corrupted memory",
    "dpu is disabled",
    "dpu is already running",
    "invalid memory transfer",
    "invalid launch policy",
    "dpu is in fault",
    "invalid ELF file",
    "no such ELF file",
    "no such ELF section",
    "result timeout",
    "invalid profile",
    "undefined symbol",
    "logging format error",
    "logging context missing",
    "logging buffer too small",
    "invalid VPD file",
    "repairs have not been generated",
    "no thread to perform multiple-rank operation",
    "invalid buffer size",
    "nonblocking and synchronous callback is invalid",
    "dpu program uses more tasklets than the hardware has threads",
    "too many blocks for scatter/gather transfer",
    "scatter/gather transfer length mismatch",
    "scatter/gather transfers not activated",
    "scatter/gather transfer on a non-MRAM symbol",
};

char *dpu_error_to_string(dpu_error_t status)
{
    uint32_t code = (uint32_t)status;
    if (code & DPU_ERR_ASYNC_JOBS)
        code &= 0xffffu;
    if (code < sizeof(messages) / sizeof(messages[0]))
        return strdup(messages[code]);
    return strdup("unknown error");
}
