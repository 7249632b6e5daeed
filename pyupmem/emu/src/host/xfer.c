/* xfer.c: host <-> DPU transfers. Every DPU's MRAM and WRAM are mapped in the host,
 * so a transfer is a checked memcpy per DPU. */
#include <string.h>

#include "host.h"

enum memory { WRAM, MRAM };

struct access {
    enum memory memory;
    uint32_t address; /* symbol address + offset */
};

/* The rules, in the order the SDK applies them: the memory's own (alignment, bounds),
 * then the symbol's size. */
static dpu_error_t check_access(struct dpu_symbol_t symbol, uint32_t offset, size_t length,
                                struct access *access)
{
    if (symbol.address & 0x80000000u)
        return DPU_ERR_INVALID_IRAM_ACCESS;
    uint64_t start = (uint64_t)symbol.address + offset;
    if (symbol.address & EMU_MRAM_BASE) {
        if (offset % 8 != 0 || length % 8 != 0 || start % 8 != 0)
            return DPU_ERR_INVALID_MRAM_ACCESS;
        if (start + length > (uint64_t)EMU_MRAM_BASE + EMU_MRAM_SIZE)
            return DPU_ERR_INVALID_MRAM_ACCESS;
        access->memory = MRAM;
    } else {
        if (offset % 4 != 0 || length % 4 != 0 || start % 4 != 0)
            return DPU_ERR_INVALID_WRAM_ACCESS;
        access->memory = WRAM;
    }
    if ((uint64_t)offset + length > symbol.size)
        return DPU_ERR_INVALID_SYMBOL_ACCESS;
    access->address = (uint32_t)start;
    return DPU_OK;
}

static uint8_t *locate(struct emu_allocation *allocation, uint32_t index, struct access access,
                       size_t length)
{
    if (access.memory == MRAM)
        return allocation->mram + (uint64_t)index * EMU_MRAM_SIZE + (access.address - EMU_MRAM_BASE);
    struct dpu_program_t *program = allocation->dpus[index].program;
    if (program == NULL || access.address + length > program->wram_stride)
        return NULL;
    return program->wram + (uint64_t)(index - program->first) * program->wram_stride + access.address;
}

static dpu_error_t check_idle(struct emu_range range, struct access access)
{
    for (uint32_t i = range.first; i < range.first + range.count; i++) {
        if (range.allocation->dpus[i].program == NULL)
            return DPU_ERR_NO_PROGRAM_LOADED;
        if (atomic_load(&emu_slot(range.allocation, i)->state) == EMU_RUNNING)
            return access.memory == MRAM ? DPU_ERR_MRAM_BUSY : DPU_ERR_DPU_ALREADY_RUNNING;
    }
    return DPU_OK;
}

/* Looks a symbol up by name in the program of every DPU of the range. */
static dpu_error_t find_symbol(struct emu_range range, const char *name, struct dpu_symbol_t *symbol)
{
    struct dpu_program_t *program = range.allocation->dpus[range.first].program;
    if (program == NULL)
        return DPU_ERR_NO_PROGRAM_LOADED;
    for (uint32_t i = range.first + 1; i < range.first + range.count; i++) {
        struct dpu_program_t *other = range.allocation->dpus[i].program;
        if (other == NULL)
            return DPU_ERR_NO_PROGRAM_LOADED;
        if (other != program)
            return DPU_ERR_DIFFERENT_DPU_PROGRAMS;
    }
    return name == NULL ? DPU_ERR_UNKNOWN_SYMBOL : dpu_get_symbol(program, name, symbol);
}

/* The transfer-kind flag of the access's memory (the hardware reads WRAM through the
 * control interfaces, MRAM through the DDR path). */
static enum emu_transfer in_wram(struct access access)
{
    return access.memory == WRAM ? EMU_XFER_WRAM : 0;
}

static dpu_error_t prepare(struct dpu_set_t set, struct dpu_symbol_t symbol, uint32_t offset,
                           size_t length, struct emu_range *range, struct access *access)
{
    dpu_error_t status = emu_resolve(set, range);
    if (status == DPU_OK)
        status = check_access(symbol, offset, length, access);
    if (status == DPU_OK)
        status = check_idle(*range, *access);
    /* DPUs may run different programs (loaded one by one): check each one's WRAM. */
    for (uint32_t i = range->first; status == DPU_OK && access->memory == WRAM &&
                                    i < range->first + range->count; i++)
        if (locate(range->allocation, i, *access, length) == NULL)
            status = DPU_ERR_INVALID_WRAM_ACCESS;
    return status;
}

dpu_error_t dpu_copy_to_symbol(struct dpu_set_t dpu_set, struct dpu_symbol_t symbol,
                               uint32_t symbol_offset, const void *src, size_t length)
{
    struct emu_range range;
    struct access access;
    double started = emu_now_ns();
    dpu_error_t status = prepare(dpu_set, symbol, symbol_offset, length, &range, &access);
    if (status != DPU_OK || length == 0)
        return status;
    for (uint32_t i = range.first; i < range.first + range.count; i++)
        memcpy(locate(range.allocation, i, access, length), src, length);
    /* the same bytes to several DPUs are a broadcast (dpu_broadcast_to comes here too) */
    emu_account_transfer(range, (range.count > 1 ? EMU_XFER_BROADCAST : EMU_XFER_SERIAL_TO) | in_wram(access),
                         length, false, started);
    return DPU_OK;
}

dpu_error_t dpu_copy_from_symbol(struct dpu_set_t dpu_set, struct dpu_symbol_t symbol,
                                 uint32_t symbol_offset, void *dst, size_t length)
{
    struct emu_range range;
    double started = emu_now_ns();
    dpu_error_t status = emu_resolve_one(dpu_set, &range);
    if (status != DPU_OK)
        return status;
    struct access access;
    status = prepare(dpu_set, symbol, symbol_offset, length, &range, &access);
    if (status != DPU_OK || length == 0)
        return status;
    memcpy(dst, locate(range.allocation, range.first, access, length), length);
    emu_account_transfer(range, EMU_XFER_SERIAL_FROM | in_wram(access), length, false, started);
    return DPU_OK;
}

dpu_error_t dpu_copy_to(struct dpu_set_t dpu_set, const char *symbol_name, uint32_t symbol_offset,
                        const void *src, size_t length)
{
    struct emu_range range;
    struct dpu_symbol_t symbol;
    dpu_error_t status = emu_resolve(dpu_set, &range);
    if (status == DPU_OK)
        status = find_symbol(range, symbol_name, &symbol);
    return status != DPU_OK ? status : dpu_copy_to_symbol(dpu_set, symbol, symbol_offset, src, length);
}

dpu_error_t dpu_copy_from(struct dpu_set_t dpu_set, const char *symbol_name, uint32_t symbol_offset,
                          void *dst, size_t length)
{
    struct emu_range range;
    struct dpu_symbol_t symbol;
    dpu_error_t status = emu_resolve_one(dpu_set, &range);
    if (status == DPU_OK)
        status = find_symbol(range, symbol_name, &symbol);
    return status != DPU_OK ? status : dpu_copy_from_symbol(dpu_set, symbol, symbol_offset, dst, length);
}

dpu_error_t dpu_broadcast_to_symbol(struct dpu_set_t dpu_set, struct dpu_symbol_t symbol,
                                    uint32_t symbol_offset, const void *src, size_t length,
                                    dpu_xfer_flags_t flags)
{
    (void)flags; /* transfers complete before the call returns */
    return dpu_copy_to_symbol(dpu_set, symbol, symbol_offset, src, length);
}

dpu_error_t dpu_broadcast_to(struct dpu_set_t dpu_set, const char *symbol_name, uint32_t symbol_offset,
                             const void *src, size_t length, dpu_xfer_flags_t flags)
{
    struct emu_range range;
    struct dpu_symbol_t symbol;
    dpu_error_t status = emu_resolve(dpu_set, &range);
    if (status == DPU_OK)
        status = find_symbol(range, symbol_name, &symbol);
    return status != DPU_OK ? status
                            : dpu_broadcast_to_symbol(dpu_set, symbol, symbol_offset, src, length, flags);
}

dpu_error_t dpu_prepare_xfer(struct dpu_set_t dpu_set, void *buffer)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve(dpu_set, &range);
    if (status != DPU_OK)
        return status;
    for (uint32_t i = range.first; i < range.first + range.count; i++)
        range.allocation->dpus[i].xfer_buffer = buffer;
    return DPU_OK;
}

static void clear_buffers(struct emu_range range)
{
    for (uint32_t i = range.first; i < range.first + range.count; i++)
        range.allocation->dpus[i].xfer_buffer = NULL;
}

dpu_error_t dpu_push_xfer_symbol(struct dpu_set_t dpu_set, dpu_xfer_t xfer, struct dpu_symbol_t symbol,
                                 uint32_t symbol_offset, size_t length, dpu_xfer_flags_t flags)
{
    if (xfer != DPU_XFER_TO_DPU && xfer != DPU_XFER_FROM_DPU)
        return DPU_ERR_INVALID_MEMORY_TRANSFER;
    struct emu_range range;
    struct access access;
    double started = emu_now_ns();
    dpu_error_t status = prepare(dpu_set, symbol, symbol_offset, length, &range, &access);
    if (status == DPU_OK && length > 0) {
        const uint8_t *first = NULL;
        bool one_buffer = true;
        for (uint32_t i = range.first; i < range.first + range.count; i++) {
            uint8_t *buffer = range.allocation->dpus[i].xfer_buffer;
            if (buffer == NULL)
                continue;
            one_buffer = one_buffer && (first == NULL || buffer == first);
            first = buffer;
            uint8_t *dpu = locate(range.allocation, i, access, length);
            if (xfer == DPU_XFER_TO_DPU)
                memcpy(dpu, buffer, length);
            else
                memcpy(buffer, dpu, length);
        }
        /* libdpu broadcasts to MRAM by pushing a matrix whose every entry is the one host
         * buffer (its thread job COPY_MRAM_TO_RANK: dpu_transfer_matrix_set_all, then
         * dpu_copy_to_mrams, as a push): hardware runs such a push as a broadcast. */
        enum emu_transfer kind = xfer == DPU_XFER_FROM_DPU ? EMU_XFER_PARALLEL_FROM
                                 : one_buffer && access.memory == MRAM ? EMU_XFER_BROADCAST
                                                              : EMU_XFER_PARALLEL_TO;
        emu_account_transfer(range, kind | in_wram(access), length, true, started);
    }
    if (!(flags & DPU_XFER_NO_RESET) && status != DPU_ERR_INVALID_DPU_SET)
        clear_buffers(range);
    return status;
}

dpu_error_t dpu_push_xfer(struct dpu_set_t dpu_set, dpu_xfer_t xfer, const char *symbol_name,
                          uint32_t symbol_offset, size_t length, dpu_xfer_flags_t flags)
{
    struct emu_range range;
    struct dpu_symbol_t symbol;
    dpu_error_t status = emu_resolve(dpu_set, &range);
    if (status == DPU_OK)
        status = find_symbol(range, symbol_name, &symbol);
    if (status != DPU_OK) {
        if (range.allocation != NULL && !(flags & DPU_XFER_NO_RESET))
            clear_buffers(range);
        return status;
    }
    return dpu_push_xfer_symbol(dpu_set, xfer, symbol, symbol_offset, length, flags);
}
