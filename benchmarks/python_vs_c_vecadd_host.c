/* python_vs_c_vecadd_host.c: the C side of benchmarks/python_vs_c_vecadd.py.
 *
 * The same vector addition as the Python side (docs/examples/vecadd.c on the DPUs), in
 * plain libdpu C, timed in the same phases. Build it with the toolchain of the backend:
 *     cc -O2 python_vs_c_vecadd_host.c $(dpu-pkg-config --cflags --libs dpu)
 * Usage: host DPU_BINARY NR_DPUS BYTES_PER_VECTOR REPETITIONS WARMUP CALLS
 * Prints one JSON object with the mean time of each phase and of an 8-byte dpu_copy_to.
 */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: %s DPU_BINARY NR_DPUS BYTES REPS WARMUP CALLS\n", argv[0]);
        return 2;
    }
    const char *binary = argv[1];
    uint32_t nr_dpus = (uint32_t)atoi(argv[2]);
    uint32_t nr_bytes = (uint32_t)strtoul(argv[3], NULL, 10);
    int reps = atoi(argv[4]), warmup = atoi(argv[5]);
    long calls = atol(argv[6]);
    size_t per_dpu = nr_bytes / sizeof(int32_t);

    struct dpu_set_t set, dpu;
    uint32_t i;
    DPU_ASSERT(dpu_alloc(nr_dpus, NULL, &set));
    DPU_ASSERT(dpu_load(set, binary, NULL));

    int32_t *a = malloc((size_t)nr_dpus * nr_bytes);
    int32_t *b = malloc((size_t)nr_dpus * nr_bytes);
    int32_t *c = malloc((size_t)nr_dpus * nr_bytes);
    for (size_t k = 0; k < (size_t)nr_dpus * per_dpu; k++) {
        a[k] = (int32_t)(k * 2654435761u) >> 2;
        b[k] = (int32_t)(k * 40503u) >> 2;
    }
    memset(c, 0, (size_t)nr_dpus * nr_bytes);

    double cpu_dpu = 0, kernel = 0, dpu_cpu = 0;
    for (int rep = -warmup; rep < reps; rep++) {
        double t0 = now();
        DPU_ASSERT(dpu_broadcast_to(set, "nr_bytes", 0, &nr_bytes, sizeof(nr_bytes), DPU_XFER_DEFAULT));
        DPU_FOREACH(set, dpu, i) { DPU_ASSERT(dpu_prepare_xfer(dpu, a + (size_t)i * per_dpu)); }
        DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0, nr_bytes, DPU_XFER_DEFAULT));
        DPU_FOREACH(set, dpu, i) { DPU_ASSERT(dpu_prepare_xfer(dpu, b + (size_t)i * per_dpu)); }
        DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, nr_bytes, nr_bytes, DPU_XFER_DEFAULT));
        double t1 = now();
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        double t2 = now();
        DPU_FOREACH(set, dpu, i) { DPU_ASSERT(dpu_prepare_xfer(dpu, c + (size_t)i * per_dpu)); }
        DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME, 2 * nr_bytes, nr_bytes, DPU_XFER_DEFAULT));
        double t3 = now();
        if (rep >= 0) {
            cpu_dpu += t1 - t0;
            kernel += t2 - t1;
            dpu_cpu += t3 - t2;
        }
    }
    for (size_t k = 0; k < (size_t)nr_dpus * per_dpu; k++) {
        if (c[k] != a[k] + b[k]) {
            fprintf(stderr, "wrong result at %zu\n", k);
            return 1;
        }
    }

    /* Per-call overhead: an 8-byte dpu_copy_to to one DPU's MRAM. */
    struct dpu_set_t first = set;
    DPU_FOREACH(set, dpu) { first = dpu; break; }
    uint64_t value = 42;
    for (long k = 0; k < calls / 10; k++)
        DPU_ASSERT(dpu_copy_to(first, DPU_MRAM_HEAP_POINTER_NAME, 0, &value, sizeof(value)));
    double t0 = now();
    for (long k = 0; k < calls; k++)
        DPU_ASSERT(dpu_copy_to(first, DPU_MRAM_HEAP_POINTER_NAME, 0, &value, sizeof(value)));
    double copy8 = (now() - t0) / (double)calls;

    printf("{\"cpu_dpu\": %.9f, \"kernel\": %.9f, \"dpu_cpu\": %.9f, \"copy8\": %.12f}\n",
           cpu_dpu / reps, kernel / reps, dpu_cpu / reps, copy8);
    DPU_ASSERT(dpu_free(set));
    free(a);
    free(b);
    free(c);
    return 0;
}
