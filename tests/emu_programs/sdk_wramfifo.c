/* wramfifo.h on the DPU side: the host fills the input FIFO (its data and write pointer)
 * before the launch, `active` is 0 so that the tasklets stop once it is empty, and the
 * host reads the output FIFO after. mode 0: process_inputs_each_tasklet (x -> x * x + 1);
 * mode 1: process_inputs_all_tasklets (every tasklet adds x * (me() + 1), tasklet 0 sums);
 * mode 2: tasklet 0 alone with the element functions, into a four-element FIFO. */
#include <stdint.h>

#include <barrier.h>
#include <defs.h>
#include <mutex.h>
#include <wramfifo.h>

INPUT_FIFO_INIT(input, 4, 8)
OUTPUT_FIFO_INIT(output, 4, 8)
OUTPUT_FIFO_INIT(small, 2, 8)

__host uint32_t mode;
__host volatile uint64_t active;
__host uint32_t full_after[8]; /* mode 2: is_output_fifo_full after each push */
__host uint32_t empty_before;  /* mode 2: is_input_fifo_empty before the first pop */
__host uint32_t tasklets_seen; /* bits of the tasklets that processed an input (mode 0) */
BARRIER_INIT(everyone, NR_TASKLETS);
MUTEX_INIT(fifo_lock);
MUTEX_INIT(seen_lock);

static void square(uint8_t *in, uint8_t *out)
{
    uint64_t x = *(uint64_t *)in;
    *(uint64_t *)out = x * x + 1;
    mutex_lock(seen_lock);
    tasklets_seen |= 1u << me();
    mutex_unlock(seen_lock);
}

static uint64_t partial[NR_TASKLETS];

static void share(uint8_t *in, void *ctx)
{
    ((uint64_t *)ctx)[me()] = *(uint64_t *)in * (me() + 1);
}

static void sum(uint8_t *in, uint8_t *out, void *ctx)
{
    (void)in;
    uint64_t total = 0;
    for (int i = 0; i < NR_TASKLETS; i++)
        total += ((uint64_t *)ctx)[i];
    *(uint64_t *)out = total;
}

int main(void)
{
    if (mode == 0) {
        process_inputs_each_tasklet(&input, &output, square, fifo_lock, &active);
    } else if (mode == 1) {
        process_inputs_all_tasklets(&input, &output, share, sum, partial, &everyone, &active);
    } else if (me() == 0) {
        empty_before = is_input_fifo_empty(&input);
        for (int i = 0; i < 8 && !is_input_fifo_empty(&input); i++) {
            uint64_t value = *(uint64_t *)input_fifo_peek(&input) + 100;
            input_fifo_pop(&input);
            if (is_output_fifo_full(&small))
                break;
            output_fifo_push(&small, (const uint8_t *)&value);
            full_after[i] = 1 + is_output_fifo_full(&small);
        }
    }
    return 0;
}
