/* dpu.h: the host interface of UPMEM's libdpu, as implemented by the pyupmem
 * emulator. Types, layouts, enum values and error codes match the SDK
 * (2024.2 / 2025.1) so that host programs written for the SDK build unchanged. */
#ifndef DPU_H
#define DPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t mram_addr_t;
typedef uint32_t wram_addr_t;
typedef uint32_t mram_size_t;
typedef uint32_t wram_size_t;
typedef uint16_t iram_addr_t;
typedef uint32_t dpu_id_t;

#define DPU_ALLOCATE_ALL UINT_MAX
#define DPU_MRAM_HEAP_POINTER_NAME "__sys_used_mram_end"

typedef enum _dpu_error_t {
    DPU_OK = 0,
    DPU_ERR_INTERNAL = 1,
    DPU_ERR_SYSTEM = 2,
    DPU_ERR_DRIVER = 3,
    DPU_ERR_ALLOCATION = 4,
    DPU_ERR_INVALID_DPU_SET = 5,
    DPU_ERR_INVALID_THREAD_ID = 6,
    DPU_ERR_INVALID_NOTIFY_ID = 7,
    DPU_ERR_INVALID_WRAM_ACCESS = 8,
    DPU_ERR_INVALID_IRAM_ACCESS = 9,
    DPU_ERR_INVALID_MRAM_ACCESS = 10,
    DPU_ERR_INVALID_SYMBOL_ACCESS = 11,
    DPU_ERR_MRAM_BUSY = 12,
    DPU_ERR_TRANSFER_ALREADY_SET = 13,
    DPU_ERR_INVALID_PARALLEL_MEMORY_TRANSFER = 14,
    DPU_ERR_WRAM_FIFO_FULL = 15,
    DPU_ERR_NO_PROGRAM_LOADED = 16,
    DPU_ERR_DIFFERENT_DPU_PROGRAMS = 17,
    DPU_ERR_CORRUPTED_MEMORY = 18,
    DPU_ERR_DPU_DISABLED = 19,
    DPU_ERR_DPU_ALREADY_RUNNING = 20,
    DPU_ERR_INVALID_MEMORY_TRANSFER = 21,
    DPU_ERR_INVALID_LAUNCH_POLICY = 22,
    DPU_ERR_DPU_FAULT = 23,
    DPU_ERR_ELF_INVALID_FILE = 24,
    DPU_ERR_ELF_NO_SUCH_FILE = 25,
    DPU_ERR_ELF_NO_SUCH_SECTION = 26,
    DPU_ERR_TIMEOUT = 27,
    DPU_ERR_INVALID_PROFILE = 28,
    DPU_ERR_UNKNOWN_SYMBOL = 29,
    DPU_ERR_LOG_FORMAT = 30,
    DPU_ERR_LOG_CONTEXT_MISSING = 31,
    DPU_ERR_LOG_BUFFER_TOO_SMALL = 32,
    DPU_ERR_VPD_INVALID_FILE = 33,
    DPU_ERR_VPD_NO_REPAIR = 34,
    DPU_ERR_NO_THREAD_PER_RANK = 35,
    DPU_ERR_INVALID_BUFFER_SIZE = 36,
    DPU_ERR_NONBLOCKING_SYNC_CALLBACK = 37,
    DPU_ERR_TOO_MANY_TASKLETS = 38,
    DPU_ERR_SG_TOO_MANY_BLOCKS = 39,
    DPU_ERR_SG_LENGTH_MISMATCH = 40,
    DPU_ERR_SG_NOT_ACTIVATED = 41,
    DPU_ERR_SG_NOT_MRAM_SYMBOL = 42,
    DPU_ERR_ASYNC_JOBS = (int)(1u << 31),
} dpu_error_t;

typedef enum _dpu_set_kind_t { DPU_SET_RANKS = 0, DPU_SET_DPU = 1 } dpu_set_kind_t;
typedef enum _dpu_launch_policy_t { DPU_ASYNCHRONOUS = 0, DPU_SYNCHRONOUS = 1 } dpu_launch_policy_t;
typedef enum _dpu_xfer_t { DPU_XFER_TO_DPU = 0, DPU_XFER_FROM_DPU = 1 } dpu_xfer_t;
typedef enum _dpu_xfer_flags_t {
    DPU_XFER_DEFAULT = 0,
    DPU_XFER_NO_RESET = 1,
    DPU_XFER_ASYNC = 2,
    DPU_XFER_PARALLEL = 4,
} dpu_xfer_flags_t;
typedef enum _dpu_callback_flags_t {
    DPU_CALLBACK_DEFAULT = 0,
    DPU_CALLBACK_ASYNC = 1,
    DPU_CALLBACK_NONBLOCKING = 2,
    DPU_CALLBACK_SINGLE_CALL = 4,
    DPU_CALLBACK_PARALLEL = 8,
} dpu_callback_flags_t;

struct dpu_rank_t;
struct dpu_t;
struct dpu_program_t;

struct dpu_set_t {
    dpu_set_kind_t kind;
    union {
        struct {
            uint32_t nr_ranks;
            struct dpu_rank_t **ranks;
        } list;
        struct dpu_t *dpu;
    };
};

struct dpu_symbol_t {
    uint32_t address;
    uint32_t size;
};

struct dpu_incbin_t {
    uint8_t *buffer;
    size_t size;
    const char *path;
};

struct dpu_set_rank_iterator_t {
    struct dpu_set_t *set;
    uint32_t count;
    uint32_t next_idx;
    bool has_next;
    struct dpu_set_t next;
};

struct dpu_set_dpu_iterator_t {
    struct dpu_set_rank_iterator_t rank_iterator;
    uint32_t count;
    uint32_t next_idx;
    bool has_next;
    struct dpu_set_t next;
};

dpu_error_t dpu_alloc(uint32_t nr_dpus, const char *profile, struct dpu_set_t *dpu_set);
dpu_error_t dpu_alloc_ranks(uint32_t nr_ranks, const char *profile, struct dpu_set_t *dpu_set);
dpu_error_t dpu_free(struct dpu_set_t dpu_set);
dpu_error_t dpu_get_nr_ranks(struct dpu_set_t dpu_set, uint32_t *nr_ranks);
dpu_error_t dpu_get_nr_dpus(struct dpu_set_t dpu_set, uint32_t *nr_dpus);

struct dpu_set_rank_iterator_t dpu_set_rank_iterator_from(struct dpu_set_t *set);
void dpu_set_rank_iterator_next(struct dpu_set_rank_iterator_t *iterator);
struct dpu_set_dpu_iterator_t dpu_set_dpu_iterator_from(struct dpu_set_t *set);
void dpu_set_dpu_iterator_next(struct dpu_set_dpu_iterator_t *iterator);

dpu_error_t dpu_load(struct dpu_set_t dpu_set, const char *binary_path, struct dpu_program_t **program);
dpu_error_t dpu_load_from_memory(struct dpu_set_t dpu_set, uint8_t *buffer, size_t buffer_size,
                                 struct dpu_program_t **program);
dpu_error_t dpu_load_from_incbin(struct dpu_set_t dpu_set, struct dpu_incbin_t *incbin,
                                 struct dpu_program_t **program);
dpu_error_t dpu_get_symbol(struct dpu_program_t *program, const char *symbol_name,
                           struct dpu_symbol_t *symbol);

dpu_error_t dpu_launch(struct dpu_set_t dpu_set, dpu_launch_policy_t policy);
dpu_error_t dpu_status(struct dpu_set_t dpu_set, bool *done, bool *fault);
dpu_error_t dpu_sync(struct dpu_set_t dpu_set);

dpu_error_t dpu_copy_to(struct dpu_set_t dpu_set, const char *symbol_name, uint32_t symbol_offset,
                        const void *src, size_t length);
dpu_error_t dpu_copy_from(struct dpu_set_t dpu_set, const char *symbol_name, uint32_t symbol_offset,
                          void *dst, size_t length);
dpu_error_t dpu_copy_to_symbol(struct dpu_set_t dpu_set, struct dpu_symbol_t symbol,
                               uint32_t symbol_offset, const void *src, size_t length);
dpu_error_t dpu_copy_from_symbol(struct dpu_set_t dpu_set, struct dpu_symbol_t symbol,
                                 uint32_t symbol_offset, void *dst, size_t length);
dpu_error_t dpu_prepare_xfer(struct dpu_set_t dpu_set, void *buffer);
dpu_error_t dpu_push_xfer(struct dpu_set_t dpu_set, dpu_xfer_t xfer, const char *symbol_name,
                          uint32_t symbol_offset, size_t length, dpu_xfer_flags_t flags);
dpu_error_t dpu_push_xfer_symbol(struct dpu_set_t dpu_set, dpu_xfer_t xfer, struct dpu_symbol_t symbol,
                                 uint32_t symbol_offset, size_t length, dpu_xfer_flags_t flags);
dpu_error_t dpu_broadcast_to(struct dpu_set_t dpu_set, const char *symbol_name, uint32_t symbol_offset,
                             const void *src, size_t length, dpu_xfer_flags_t flags);
dpu_error_t dpu_broadcast_to_symbol(struct dpu_set_t dpu_set, struct dpu_symbol_t symbol,
                                    uint32_t symbol_offset, const void *src, size_t length,
                                    dpu_xfer_flags_t flags);
dpu_error_t dpu_callback(struct dpu_set_t dpu_set,
                         dpu_error_t (*callback)(struct dpu_set_t, uint32_t, void *), void *args,
                         dpu_callback_flags_t flags);
dpu_error_t dpu_log_read(struct dpu_set_t set, FILE *stream);
/* Returns a string allocated with malloc: the caller may free() it (SDK 2025.1). */
char *dpu_error_to_string(dpu_error_t status);

/* pyupmem's emulator defines PYUPMEM_EMULATOR and one extension: dpu_sync with a time
 * limit in milliseconds (0: none); DPU_ERR_TIMEOUT when the DPUs still run. */
#define PYUPMEM_EMULATOR 1
dpu_error_t dpu_emu_sync_timeout(struct dpu_set_t dpu_set, uint32_t timeout_ms);

/* Iteration: DPU_FOREACH(set, dpu) or DPU_FOREACH(set, dpu, index). */
#define _DPU_FOREACH_2(set, dpu)                                                                   \
    for (struct dpu_set_dpu_iterator_t __dpu_it = dpu_set_dpu_iterator_from(&(set));             \
         __dpu_it.has_next && (((dpu) = __dpu_it.next), 1); dpu_set_dpu_iterator_next(&__dpu_it))
#define _DPU_FOREACH_3(set, dpu, i)                                                                \
    for (struct dpu_set_dpu_iterator_t __dpu_it = dpu_set_dpu_iterator_from(&(set));             \
         __dpu_it.has_next && (((dpu) = __dpu_it.next), ((i) = __dpu_it.count), 1);              \
         dpu_set_dpu_iterator_next(&__dpu_it))
#define _DPU_RANK_FOREACH_2(set, rank)                                                             \
    for (struct dpu_set_rank_iterator_t __rank_it = dpu_set_rank_iterator_from(&(set));          \
         __rank_it.has_next && (((rank) = __rank_it.next), 1);                                     \
         dpu_set_rank_iterator_next(&__rank_it))
#define _DPU_RANK_FOREACH_3(set, rank, i)                                                          \
    for (struct dpu_set_rank_iterator_t __rank_it = dpu_set_rank_iterator_from(&(set));          \
         __rank_it.has_next && (((rank) = __rank_it.next), ((i) = __rank_it.count), 1);          \
         dpu_set_rank_iterator_next(&__rank_it))
#define _DPU_PICK(_1, _2, _3, NAME, ...) NAME
#define DPU_FOREACH(...) _DPU_PICK(__VA_ARGS__, _DPU_FOREACH_3, _DPU_FOREACH_2, _)(__VA_ARGS__)
#define DPU_RANK_FOREACH(...)                                                                      \
    _DPU_PICK(__VA_ARGS__, _DPU_RANK_FOREACH_3, _DPU_RANK_FOREACH_2, _)(__VA_ARGS__)

#define DPU_CHECK(statement, on_error)                                                            \
    do {                                                                                           \
        dpu_error_t __dpu_error = (statement);                                                     \
        if (__dpu_error != DPU_OK) {                                                               \
            char *__dpu_msg = dpu_error_to_string(__dpu_error);                                    \
            fprintf(stderr, "%s:%d(%s): DPU Error (%s)\n", __FILE__, __LINE__, __func__, __dpu_msg); \
            free(__dpu_msg);                                                                       \
            on_error;                                                                              \
        }                                                                                          \
    } while (0)
#define DPU_ASSERT(statement) DPU_CHECK(statement, exit(EXIT_FAILURE))

/* DPU_INCBIN(name, "path"): embeds a DPU program in the host executable. */
#define DPU_INCBIN(name, file)                                                                     \
    __asm__(".section .rodata\n"                                                                   \
            ".global " #name "_start\n"                                                            \
            ".balign 8\n" #name "_start:\n"                                                        \
            ".incbin \"" file "\"\n"                                                               \
            ".global " #name "_end\n" #name "_end:\n"                                              \
            ".byte 0\n"                                                                            \
            ".previous\n");                                                                        \
    extern uint8_t name##_start[], name##_end[];                                                   \
    static struct dpu_incbin_t name = {name##_start, 0, file};                                     \
    __attribute__((constructor)) static void name##_init(void)                                   \
    {                                                                                              \
        name.size = (size_t)(name##_end - name##_start);                                           \
    }

#ifdef __cplusplus
}
#endif
#endif /* DPU_H */
