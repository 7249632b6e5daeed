/* The SDK's first example (test/1_helloworld, "Hello World! Example" in the SDK
 * documentation): one DPU, one tasklet, one line in the DPU log. */
#include <stdio.h>

int main(void)
{
    printf("Hello World!\n");
    return 0;
}
