/* sg_xfer.c: scatter-gather transfers (dpu_push_sg_xfer) and the WRAM FIFO calls the
 * emulator does not support. A scatter-gather transfer asks the caller's get_block
 * function for every block of every DPU first, checks them all, and only then copies, so
 * a failed call moves no byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

/* One DPU's share of the transfer: its blocks are blocks[first .. first + count). */
struct sg_share {
    uint32_t first;
    uint32_t count;
};

struct sg_plan {
    struct sg_block_info *blocks;
    uint32_t nr_blocks, capacity;
    struct sg_share *shares; /* one per DPU of the range */
};

static void release_plan(struct sg_plan *plan)
{
    free(plan->blocks);
    free(plan->shares);
}

static dpu_error_t add_block(struct sg_plan *plan, struct sg_block_info block)
{
    if (plan->nr_blocks == plan->capacity) {
        uint32_t capacity = plan->capacity ? plan->capacity * 2 : 64;
        struct sg_block_info *grown = realloc(plan->blocks, capacity * sizeof(*grown));
        if (grown == NULL)
            return DPU_ERR_SYSTEM;
        plan->blocks = grown;
        plan->capacity = capacity;
    }
    plan->blocks[plan->nr_blocks++] = block;
    return DPU_OK;
}

/* Asks get_block for every DPU's blocks and checks their count and total length. */
static dpu_error_t collect(struct emu_range range, size_t length, get_block_t *get_block,
                           dpu_sg_xfer_flags_t flags, struct sg_plan *plan)
{
    uint32_t max_blocks = range.allocation->profile.sg_max_blocks;
    plan->shares = calloc(range.count, sizeof(*plan->shares));
    if (plan->shares == NULL)
        return DPU_ERR_SYSTEM;
    for (uint32_t d = 0; d < range.count; d++) {
        plan->shares[d].first = plan->nr_blocks;
        uint64_t total = 0;
        for (uint32_t b = 0;; b++) {
            struct sg_block_info block = {NULL, 0};
            if (!get_block->f(&block, d, b, get_block->args))
                break;
            if (b >= max_blocks)
                return DPU_ERR_SG_TOO_MANY_BLOCKS;
            if (block.length > 0 && block.addr == NULL)
                return DPU_ERR_INVALID_MEMORY_TRANSFER;
            total += block.length;
            if (total > length)
                return DPU_ERR_SG_LENGTH_MISMATCH; /* more than the MRAM range holds */
            dpu_error_t status = add_block(plan, block);
            if (status != DPU_OK)
                return status;
            plan->shares[d].count++;
        }
        if (total != length && !(flags & DPU_SG_XFER_DISABLE_LENGTH_CHECK))
            return DPU_ERR_SG_LENGTH_MISMATCH;
    }
    return DPU_OK;
}

static dpu_error_t check_dpus(struct emu_range range)
{
    for (uint32_t i = range.first; i < range.first + range.count; i++) {
        if (range.allocation->dpus[i].program == NULL)
            return DPU_ERR_NO_PROGRAM_LOADED;
        if (atomic_load(&emu_slot(range.allocation, i)->state) == EMU_RUNNING)
            return DPU_ERR_MRAM_BUSY;
    }
    return DPU_OK;
}

/* The checks every scatter-gather call makes before it looks at the symbol. */
static dpu_error_t check_set(struct dpu_set_t set, dpu_xfer_t xfer, get_block_t *get_block,
                             struct emu_range *range)
{
    if (xfer != DPU_XFER_TO_DPU && xfer != DPU_XFER_FROM_DPU)
        return DPU_ERR_INVALID_MEMORY_TRANSFER;
    if (set.kind == DPU_SET_DPU)
        return DPU_ERR_INTERNAL; /* the SDK supports scatter-gather on sets of ranks only */
    dpu_error_t status = emu_resolve(set, range);
    if (status != DPU_OK)
        return status;
    if (!range->allocation->profile.sg_enable)
        return DPU_ERR_SG_NOT_ACTIVATED;
    if (get_block == NULL || get_block->f == NULL)
        return DPU_ERR_INVALID_MEMORY_TRANSFER;
    return DPU_OK;
}

dpu_error_t dpu_push_sg_xfer_symbol(struct dpu_set_t dpu_set, dpu_xfer_t xfer, struct dpu_symbol_t symbol,
                                    uint32_t symbol_offset, size_t length, get_block_t *get_block_info,
                                    dpu_sg_xfer_flags_t flags)
{
    struct emu_range range;
    double started = emu_now_ns();
    dpu_error_t status = check_set(dpu_set, xfer, get_block_info, &range);
    if (status != DPU_OK)
        return status;
    uint64_t start = (uint64_t)symbol.address + symbol_offset;
    if ((symbol.address & 0x80000000u) || !(start & EMU_MRAM_BASE))
        return DPU_ERR_SG_NOT_MRAM_SYMBOL;
    if (symbol_offset % 8 != 0 || length % 8 != 0 || start % 8 != 0 ||
        start + length > (uint64_t)EMU_MRAM_BASE + EMU_MRAM_SIZE)
        return DPU_ERR_INVALID_MRAM_ACCESS;
    if ((uint64_t)symbol_offset + length > symbol.size)
        return DPU_ERR_INVALID_SYMBOL_ACCESS;
    status = check_dpus(range);
    if (status != DPU_OK)
        return status;

    struct sg_plan plan = {0};
    status = collect(range, length, get_block_info, flags, &plan);
    for (uint32_t d = 0; status == DPU_OK && d < range.count; d++) {
        uint8_t *mram = range.allocation->mram + (uint64_t)(range.first + d) * EMU_MRAM_SIZE +
                        (start - EMU_MRAM_BASE);
        size_t done = 0;
        for (uint32_t b = 0; b < plan.shares[d].count; b++) {
            struct sg_block_info block = plan.blocks[plan.shares[d].first + b];
            if (xfer == DPU_XFER_TO_DPU)
                memcpy(mram + done, block.addr, block.length);
            else
                memcpy(block.addr, mram + done, block.length);
            done += block.length;
        }
        if (xfer == DPU_XFER_TO_DPU && done < length)
            memset(mram + done, 0, length - done); /* DISABLE_LENGTH_CHECK: zero the rest */
    }
    release_plan(&plan);
    if (status == DPU_OK)
        emu_account_transfer(range, xfer == DPU_XFER_TO_DPU ? EMU_XFER_PARALLEL_TO : EMU_XFER_PARALLEL_FROM,
                             length, false, started);
    return status;
}

dpu_error_t dpu_push_sg_xfer(struct dpu_set_t dpu_set, dpu_xfer_t xfer, const char *symbol_name,
                             uint32_t symbol_offset, size_t length, get_block_t *get_block_info,
                             dpu_sg_xfer_flags_t flags)
{
    struct emu_range range;
    dpu_error_t status = check_set(dpu_set, xfer, get_block_info, &range);
    if (status != DPU_OK)
        return status;
    struct dpu_program_t *program;
    status = emu_common_program(range, &program);
    if (status != DPU_OK)
        return status;
    if (symbol_name == NULL)
        return DPU_ERR_UNKNOWN_SYMBOL;
    struct dpu_symbol_t symbol;
    status = dpu_get_symbol(program, symbol_name, &symbol);
    if (status != DPU_OK)
        return status;
    return dpu_push_sg_xfer_symbol(dpu_set, xfer, symbol, symbol_offset, length, get_block_info, flags);
}

/* ------------------------------------------------------------------ WRAM FIFOs */

dpu_error_t dpu_fifo_prepare_xfer(struct dpu_set_t dpu_set, struct dpu_fifo_link_t *fifo_link, void *buffer)
{
    (void)dpu_set, (void)fifo_link, (void)buffer;
    return emu_unsupported("dpu_fifo_prepare_xfer",
                           "the emulator has no DPU-side WRAM FIFOs; move the data with "
                           "dpu_prepare_xfer and dpu_push_xfer to a WRAM or MRAM buffer");
}

dpu_error_t dpu_fifo_push_xfer(struct dpu_set_t dpu_set, struct dpu_fifo_link_t *fifo_link,
                               dpu_xfer_flags_t flags)
{
    (void)dpu_set, (void)fifo_link, (void)flags;
    return emu_unsupported("dpu_fifo_push_xfer",
                           "the emulator has no DPU-side WRAM FIFOs; move the data with "
                           "dpu_prepare_xfer and dpu_push_xfer to a WRAM or MRAM buffer");
}

static dpu_error_t no_fifo(const char *function)
{
    return emu_unsupported(function, "the emulator has no DPU-side WRAM FIFOs; move the data "
                                     "with dpu_prepare_xfer and dpu_push_xfer instead");
}

dpu_error_t dpu_link_input_fifo(struct dpu_set_t dpu_set, struct dpu_fifo_link_t *link, char *fifo_name)
{
    (void)dpu_set, (void)link, (void)fifo_name;
    return no_fifo("dpu_link_input_fifo");
}

dpu_error_t dpu_link_output_fifo(struct dpu_set_t dpu_set, struct dpu_fifo_link_t *link, char *fifo_name)
{
    (void)dpu_set, (void)link, (void)fifo_name;
    return no_fifo("dpu_link_output_fifo");
}

dpu_error_t dpu_fifo_link_free(struct dpu_fifo_link_t *fifo_link)
{
    (void)fifo_link;
    return DPU_OK; /* no link was ever made */
}

dpu_error_t dpu_copy_to_wram_fifo(struct dpu_rank_t *rank, struct dpu_fifo_rank_t *fifo,
                                  struct dpu_transfer_matrix *transfer_matrix)
{
    (void)rank, (void)fifo, (void)transfer_matrix;
    return no_fifo("dpu_copy_to_wram_fifo");
}

dpu_error_t dpu_copy_from_wram_fifo(struct dpu_rank_t *rank, struct dpu_fifo_rank_t *fifo,
                                    struct dpu_transfer_matrix *transfer_matrix)
{
    (void)rank, (void)fifo, (void)transfer_matrix;
    return no_fifo("dpu_copy_from_wram_fifo");
}

/* Helpers over links that cannot exist: neutral values. */
uint16_t get_fifo_size(struct dpu_fifo_link_t *fifo_link, struct dpu_set_t dpu)
{
    (void)fifo_link, (void)dpu;
    return 0;
}

uint8_t get_fifo_elem_index(struct dpu_fifo_link_t *fifo_link, struct dpu_set_t dpu, uint8_t i)
{
    (void)fifo_link, (void)dpu;
    return i;
}

uint8_t *get_fifo_elem(struct dpu_fifo_link_t *fifo_link, struct dpu_set_t dpu, uint8_t *fifo_data, uint8_t i)
{
    (void)fifo_link, (void)dpu, (void)fifo_data, (void)i;
    return NULL;
}

uint16_t get_fifo_max_size(struct dpu_rank_t *rank, struct dpu_fifo_rank_t *fifo)
{
    (void)rank, (void)fifo;
    return 0;
}

struct dpu_fifo_rank_t *get_rank_fifo(struct dpu_fifo_link_t *fifo_link, struct dpu_rank_t *rank)
{
    (void)fifo_link, (void)rank;
    return NULL;
}

void dpu_fifo_set_push_max_retries(struct dpu_fifo_link_t *fifo_link, struct dpu_set_t dpu_set,
                                   uint32_t max_retries)
{
    (void)fifo_link, (void)dpu_set, (void)max_retries;
}

void dpu_fifo_set_time_for_push_retries(struct dpu_fifo_link_t *fifo_link, struct dpu_set_t dpu_set,
                                        uint32_t time_us)
{
    (void)fifo_link, (void)dpu_set, (void)time_us;
}

uint8_t get_fifo_rd_ptr(struct dpu_fifo_rank_t *fifo, struct dpu_t *dpu)
{
    (void)fifo, (void)dpu;
    return 0;
}

uint8_t get_fifo_wr_ptr(struct dpu_fifo_rank_t *fifo, struct dpu_t *dpu)
{
    (void)fifo, (void)dpu;
    return 0;
}

uint64_t get_fifo_abs_rd_ptr(struct dpu_fifo_rank_t *fifo, struct dpu_t *dpu)
{
    (void)fifo, (void)dpu;
    return 0;
}

uint64_t get_fifo_abs_wr_ptr(struct dpu_fifo_rank_t *fifo, struct dpu_t *dpu)
{
    (void)fifo, (void)dpu;
    return 0;
}

void set_fifo_rd_ptr(struct dpu_fifo_rank_t *fifo, struct dpu_t *dpu, uint8_t val)
{
    (void)fifo, (void)dpu, (void)val;
}

void set_fifo_wr_ptr(struct dpu_fifo_rank_t *fifo, struct dpu_t *dpu, uint8_t val)
{
    (void)fifo, (void)dpu, (void)val;
}

void swap_fifo_rd_wr_ptr(struct dpu_fifo_rank_t *fifo)
{
    (void)fifo;
}

void incr_fifo_wr_ptr(struct dpu_fifo_rank_t *fifo)
{
    (void)fifo;
}

bool is_fifo_full(struct dpu_fifo_rank_t *fifo, struct dpu_t *dpu)
{
    (void)fifo, (void)dpu;
    return false;
}

bool is_fifo_empty(struct dpu_fifo_rank_t *fifo, struct dpu_t *dpu)
{
    (void)fifo, (void)dpu;
    return true;
}
