/* The SDK's tasklet example (test/2_tasklet_stack_check; "Tasklet management and
 * synchronization" in the SDK documentation): every tasklet logs the stack it has
 * left. The documentation builds it with
 *   -DNR_TASKLETS=3 -DSTACK_SIZE_DEFAULT=256 -DSTACK_SIZE_TASKLET_1=2048
 * so tasklets 0 and 2 get 256 bytes of stack and tasklet 1 gets 2048. */
#include <defs.h>
#include <stdio.h>

int main(void)
{
    printf("tasklet %u: stack = %u\n", me(), check_stack());
    return 0;
}
