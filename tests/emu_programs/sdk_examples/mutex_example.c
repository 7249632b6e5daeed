/* The SDK's mutex example (test/3_mutex; "Mutexes" in the SDK documentation): every
 * tasklet takes the same mutex; the first one in finds shared_variable undefined and
 * sets it to 1 << me(); every tasklet then returns the value it saw set.
 *
 * So that the host sees what the tasklets saw, each one also keeps the value it
 * returns in returned[] and logs, inside the critical section, the value it found. */
#include <defs.h>
#include <mutex.h>
#include <stdint.h>
#include <stdio.h>

#define UNDEFINED_VAL (-1)

__host int shared_variable = UNDEFINED_VAL;
__host int returned[NR_TASKLETS];
__host uint32_t nr_writers;

MUTEX_INIT(my_mutex);

int main(void)
{
    mutex_lock(my_mutex);
    printf("tasklet %u: found %d\n", me(), shared_variable);
    /* Tasklet 0 would set shared_variable to 1, tasklet 1 to 2, and so on. */
    if (shared_variable == UNDEFINED_VAL) {
        shared_variable = 1 << me();
        nr_writers++;
    }
    mutex_unlock(my_mutex);

    returned[me()] = shared_variable;
    return shared_variable;
}
