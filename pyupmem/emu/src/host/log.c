/* log.c: the DPU's printf log, and error messages. */
#define _GNU_SOURCE
#include <string.h>

#include "host.h"

dpu_error_t dpu_log_read(struct dpu_set_t set, FILE *stream)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve(set, &range);
    if (status != DPU_OK)
        return status;
    if (range.count != 1)
        return DPU_ERR_INVALID_DPU_SET;
    if (range.allocation->dpus[range.first].program == NULL)
        return DPU_ERR_NO_PROGRAM_LOADED;
    if (stream == NULL)
        return DPU_ERR_LOG_CONTEXT_MISSING;
    struct emu_slot *slot = emu_slot(range.allocation, range.first);
    fprintf(stream, "=== DPU#0x%x ===\n", slot->dpu_id);
    fwrite(slot->log, 1, slot->log_len, stream);
    if (slot->log_truncated)
        fprintf(stream, "\n[log truncated: the DPU printed more than %u bytes]\n", EMU_LOG_SIZE);
    fflush(stream);
    return DPU_OK;
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
