/* wramfifo.c: the DPU side of the WRAM FIFOs of wramfifo.h. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <barrier.h>
#include <defs.h>
#include <mutex.h>
#include <wramfifo.h>

bool is_input_fifo_empty(struct dpu_input_fifo_t *fifo)
{
    return fifo->read_ptr == fifo->write_ptr;
}

uint8_t *input_fifo_peek(struct dpu_input_fifo_t *fifo)
{
    return &fifo->data[MASK_WRAM_FIFO_PTR(fifo->ptr_size, fifo->read_ptr) * fifo->data_size];
}

void input_fifo_pop(struct dpu_input_fifo_t *fifo)
{
    fifo->read_ptr++;
}

bool is_output_fifo_full(struct dpu_output_fifo_t *fifo)
{
    /* the host may move the read pointer meanwhile: read it once */
    uint64_t read = fifo->read_ptr;
    uint64_t write = fifo->write_ptr + fifo->nb_reserved;
    __asm__ volatile("" ::: "memory");
    return read != write
        && MASK_WRAM_FIFO_PTR(fifo->ptr_size, read) == MASK_WRAM_FIFO_PTR(fifo->ptr_size, write);
}

void output_fifo_push(struct dpu_output_fifo_t *fifo, const uint8_t *data)
{
    memcpy(&fifo->data[MASK_WRAM_FIFO_PTR(fifo->ptr_size, fifo->write_ptr) * fifo->data_size], data,
           fifo->data_size);
    /* the host sees the element before the pointer that covers it */
    __asm__ volatile("" ::: "memory");
    fifo->write_ptr++;
}

void process_inputs_all_tasklets(struct dpu_input_fifo_t *input_fifo,
    struct dpu_output_fifo_t *output_fifo, void (*process_input)(uint8_t *, void *),
    void (*reduce)(uint8_t *, uint8_t *, void *), void *ctx, barrier_t *barrier,
    volatile uint64_t *active)
{
    for (;;) {
        if (!is_input_fifo_empty(input_fifo)) {
            if (is_output_fifo_full(output_fifo))
                continue;
            barrier_wait(barrier); /* every tasklet sees the same first input */
            uint8_t *input = input_fifo_peek(input_fifo);
            process_input(input, ctx);
            barrier_wait(barrier);
            if (me() == 0) {
                reduce(input, output_fifo->tmp_data, ctx);
                output_fifo_push(output_fifo, output_fifo->tmp_data);
                input_fifo_pop(input_fifo);
            }
            barrier_wait(barrier);
        } else if (!*active) {
            break;
        }
    }
}

void process_inputs_each_tasklet(struct dpu_input_fifo_t *input_fifo,
    struct dpu_output_fifo_t *output_fifo, void (*process_input)(uint8_t *, uint8_t *),
    mutex_id_t mutex, volatile uint64_t *active)
{
    for (;;) {
        if (!is_input_fifo_empty(input_fifo)) {
            if (is_output_fifo_full(output_fifo))
                continue;
            mutex_lock(mutex);
            if (is_input_fifo_empty(input_fifo) || is_output_fifo_full(output_fifo)) {
                mutex_unlock(mutex);
                continue;
            }
            uint8_t *input = &input_fifo->tmp_data[me() * input_fifo->data_size];
            uint8_t *output = &output_fifo->tmp_data[me() * output_fifo->data_size];
            memcpy(input, input_fifo_peek(input_fifo), input_fifo->data_size);
            input_fifo_pop(input_fifo);
            output_fifo->nb_reserved++; /* room for this tasklet's output */
            mutex_unlock(mutex);

            process_input(input, output);

            mutex_lock(mutex);
            output_fifo_push(output_fifo, output);
            output_fifo->nb_reserved--;
            mutex_unlock(mutex);
        } else if (!*active) {
            break;
        }
    }
}
