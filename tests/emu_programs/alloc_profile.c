/* Allocates one DPU with the profile argv[1] and prints the status: a C host program sees
 * why a profile is refused on stderr, as a Python user sees it in the exception. */
#include <dpu.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    struct dpu_set_t set;
    dpu_error_t status = dpu_alloc(1, argc > 1 ? argv[1] : NULL, &set);
    printf("status=%d\n", (int)status);
    if (status == DPU_OK)
        dpu_free(set);
    return 0;
}
