/* The SDK's barrier example (test/7_barrier; "Barriers" in the SDK documentation):
 * tasklet 0 fills a 128-byte table of coefficients (coefficients[i] = i) and joins
 * the barrier, which releases the other tasklets; each tasklet then sums its 32
 * coefficients (tasklet t: coefficients[32 t .. 32 t + 31]) and logs the sum. Built
 * with NR_TASKLETS=4, so the four sums cover the table. */
#include <barrier.h>
#include <defs.h>
#include <stdint.h>
#include <stdio.h>

BARRIER_INIT(my_barrier, NR_TASKLETS);

uint8_t coefficients[128];
__host int checksums[NR_TASKLETS];

/* The sum of the coefficients of the calling tasklet's range. */
static int compute_checksum(void)
{
    int checksum = 0;
    for (int i = 0; i < 32; i++)
        checksum += coefficients[(me() << 5) + i];
    return checksum;
}

static void setup_coefficients(void)
{
    for (int i = 0; i < 128; i++)
        coefficients[i] = (uint8_t)i;
}

/* Tasklet 0 initializes the table, then joins the barrier to wake up the others. */
static int master(void)
{
    setup_coefficients();
    barrier_wait(&my_barrier);
    int result = compute_checksum();
    printf("tasklet[%u]: %d\n", me(), result);
    return result;
}

/* The other tasklets wait for the table, then compute their checksum. */
static int slave(void)
{
    barrier_wait(&my_barrier);
    int result = compute_checksum();
    printf("tasklet[%u]: %d\n", me(), result);
    return result;
}

int main(void)
{
    int result = me() == 0 ? master() : slave();
    checksums[me()] = result;
    return result;
}
