/* wramfifo.h: the SDK's WRAM FIFOs, through which a host feeds a running DPU and
 * collects its results (SDK 2024+). INPUT_FIFO_INIT(name, ptr_size, data_size) and
 * OUTPUT_FIFO_INIT define a FIFO of 2^ptr_size elements (ptr_size at most 10) of
 * data_size bytes (a positive multiple of 8), with its data array and a per-tasklet
 * scratch array. Read and write pointers count elements since the start and are never
 * wrapped: a FIFO is empty when they are equal, full when they differ by the FIFO's size.
 * The DPU owns an input FIFO's read pointer and an output FIFO's write pointer; the host
 * owns the other one.
 *
 * On the emulator the host side of the FIFOs (dpu_fifo.h) is not available: a host
 * fills an input FIFO and empties an output FIFO by copying the structure and its data
 * with dpu_copy_to / dpu_copy_from before and after a launch. */
#ifndef DPUSYSCORE_WRAMFIFO_H
#define DPUSYSCORE_WRAMFIFO_H

#include <attributes.h>
#include <barrier.h>
#include <defs.h>
#include <mutex.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WRAM_FIFO_SIZE(FIFO_PTR_SIZE) (1 << (FIFO_PTR_SIZE))
#define MASK_WRAM_FIFO_PTR(FIFO_PTR_SIZE, x) ((x) & ((1U << (FIFO_PTR_SIZE)) - 1))
/* (the SDK builds these names with __CONCAT, which glibc's headers redefine) */
#define __get_fifo_data_name(fifo_name) __##fifo_name##_data
#define __get_fifo_tmp_data_name(fifo_name) __##fifo_name##_tmp_data

#ifdef __cplusplus
#define __WRAM_FIFO_STATIC_ASSERT static_assert
#else
#define __WRAM_FIFO_STATIC_ASSERT _Static_assert
#endif

/* An input FIFO: from the host to the DPU. */
struct dpu_input_fifo_t {
    uint64_t read_ptr;           /* owned by the DPU */
    volatile uint64_t write_ptr; /* owned by the host */
    uint8_t *data;               /* 2^ptr_size elements */
    uint8_t *tmp_data;           /* one element per tasklet */
    const uint32_t ptr_size;     /* log2 of the number of elements */
    const uint32_t data_size;    /* bytes per element */
};

#define INPUT_FIFO_INIT(name, INPUT_FIFO_PTR_SIZE, INPUT_FIFO_DATA_SIZE)                           \
    __WRAM_FIFO_STATIC_ASSERT((INPUT_FIFO_PTR_SIZE) <= 10,                                         \
        "wram fifo error: invalid input pointer size defined, should be lower than 10");           \
    __WRAM_FIFO_STATIC_ASSERT((INPUT_FIFO_DATA_SIZE) && ((INPUT_FIFO_DATA_SIZE) & 7) == 0,         \
        "wram fifo error: invalid input data size defined, should be strictly positive and a "    \
        "multiple of 8");                                                                          \
    __host uint8_t __get_fifo_data_name(name)[(1 << (INPUT_FIFO_PTR_SIZE)) * (INPUT_FIFO_DATA_SIZE)]; \
    __dma_aligned uint8_t __get_fifo_tmp_data_name(name)[NR_TASKLETS * (INPUT_FIFO_DATA_SIZE)];    \
    __host struct dpu_input_fifo_t name = {0, 0, __get_fifo_data_name(name),                        \
        __get_fifo_tmp_data_name(name), (INPUT_FIFO_PTR_SIZE), (INPUT_FIFO_DATA_SIZE)};

/* An output FIFO: from the DPU to the host. */
struct dpu_output_fifo_t {
    volatile uint64_t read_ptr; /* owned by the host */
    uint64_t write_ptr;         /* owned by the DPU */
    uint8_t *data;
    uint8_t *tmp_data;
    const uint32_t ptr_size;
    const uint32_t data_size;
    uint32_t nb_reserved; /* elements reserved by tasklets still computing them */
};

#define OUTPUT_FIFO_INIT(name, OUTPUT_FIFO_PTR_SIZE, OUTPUT_FIFO_DATA_SIZE)                        \
    __WRAM_FIFO_STATIC_ASSERT((OUTPUT_FIFO_PTR_SIZE) <= 10,                                        \
        "wram fifo error: invalid output pointer size defined, should be lower than 10");          \
    __WRAM_FIFO_STATIC_ASSERT((OUTPUT_FIFO_DATA_SIZE) && ((OUTPUT_FIFO_DATA_SIZE) & 7) == 0,       \
        "wram fifo error: invalid output data size defined, should be strictly positive and a "   \
        "multiple of 8");                                                                          \
    __host uint8_t __get_fifo_data_name(name)[(1 << (OUTPUT_FIFO_PTR_SIZE)) * (OUTPUT_FIFO_DATA_SIZE)]; \
    __dma_aligned uint8_t __get_fifo_tmp_data_name(name)[NR_TASKLETS * (OUTPUT_FIFO_DATA_SIZE)];   \
    __host struct dpu_output_fifo_t name = {0, 0, __get_fifo_data_name(name),                       \
        __get_fifo_tmp_data_name(name), (OUTPUT_FIFO_PTR_SIZE), (OUTPUT_FIFO_DATA_SIZE), 0};

/** Whether the input FIFO holds no element. */
bool is_input_fifo_empty(struct dpu_input_fifo_t *fifo);
/** The input FIFO's first element (in place). */
uint8_t *input_fifo_peek(struct dpu_input_fifo_t *fifo);
/** Drops the input FIFO's first element. */
void input_fifo_pop(struct dpu_input_fifo_t *fifo);
/** Whether the output FIFO has no room (elements reserved by tasklets count). */
bool is_output_fifo_full(struct dpu_output_fifo_t *fifo);
/** Appends a copy of data (data_size bytes) to the output FIFO. */
void output_fifo_push(struct dpu_output_fifo_t *fifo, const uint8_t *data);

/* Every tasklet calls this: each input goes to all tasklets (process_input with ctx),
 * then tasklet 0 makes its output (reduce into the output FIFO's scratch, pushed) and
 * pops it. Loops until the input FIFO is empty while *active is 0. */
void process_inputs_all_tasklets(struct dpu_input_fifo_t *input_fifo,
    struct dpu_output_fifo_t *output_fifo, void (*process_input)(uint8_t *, void *),
    void (*reduce)(uint8_t *, uint8_t *, void *), void *ctx, barrier_t *barrier,
    volatile uint64_t *active);

/* Every tasklet calls this: each input goes to one tasklet, which writes its output with
 * process_input(input, output); outputs may come in another order than their inputs.
 * Loops until the input FIFO is empty while *active is 0. */
void process_inputs_each_tasklet(struct dpu_input_fifo_t *input_fifo,
    struct dpu_output_fifo_t *output_fifo, void (*process_input)(uint8_t *, uint8_t *),
    mutex_id_t mutex, volatile uint64_t *active);

#ifdef __cplusplus
}
#endif

#endif /* DPUSYSCORE_WRAMFIFO_H */
