/* Emulator benchmarks, each against a native baseline measured in the same run:
 *   bench bandwidth EMPTY_DPU           push_xfer to/from 64 DPUs vs memcpy, 1..32 MiB each
 *   bench latency EMPTY1 EMPTY16        synchronous launch of an empty program vs DPU count
 *   bench compute COMPUTE_DPU ITERS     64 DPUs x 16 tasklets vs the native loop on all cores
 *   bench hold PROGRAM NR_DPUS          allocate, load, launch; print "ready"; free on a line
 * Prints one `key value` line per figure. */
#define _GNU_SOURCE
#include <dpu.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "work.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void bandwidth(const char *program)
{
    enum { DPUS = 64, REPS = 3 };
    struct dpu_set_t set, dpu;
    uint32_t i;
    DPU_ASSERT(dpu_alloc(DPUS, NULL, &set));
    DPU_ASSERT(dpu_load(set, program, NULL));
    size_t max = 32u << 20;
    uint8_t *host[DPUS], *copy[DPUS];
    for (i = 0; i < DPUS; i++) {
        host[i] = malloc(max);
        copy[i] = malloc(max);
        memset(host[i], (int)i, max);
        memset(copy[i], 0, max);
    }
    for (size_t size = 1u << 20; size <= max; size <<= 1) {
        double best_to = 1e9, best_from = 1e9, best_memcpy = 1e9;
        for (int rep = 0; rep <= REPS; rep++) { /* rep 0 warms up (first-touch page faults) */
            double start = now();
            DPU_FOREACH(set, dpu, i) DPU_ASSERT(dpu_prepare_xfer(dpu, host[i]));
            DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0, size, DPU_XFER_DEFAULT));
            double to = now() - start;
            start = now();
            DPU_FOREACH(set, dpu, i) DPU_ASSERT(dpu_prepare_xfer(dpu, host[i]));
            DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0, size, DPU_XFER_DEFAULT));
            double from = now() - start;
            start = now();
            for (i = 0; i < DPUS; i++)
                memcpy(copy[i], host[i], size);
            double baseline = now() - start;
            if (rep > 0) {
                best_to = to < best_to ? to : best_to;
                best_from = from < best_from ? from : best_from;
                best_memcpy = baseline < best_memcpy ? baseline : best_memcpy;
            }
        }
        double gib = (double)size * DPUS / (1u << 30);
        printf("bandwidth_mib %zu to_gibs %.2f from_gibs %.2f memcpy_gibs %.2f\n", size >> 20,
               gib / best_to, gib / best_from, gib / best_memcpy);
    }
    DPU_ASSERT(dpu_free(set));
}

static void latency(const char *program1, const char *program16)
{
    const uint32_t counts[] = {1, 64, 256, 2560};
    const char *programs[] = {program1, program16};
    const int tasklets[] = {1, 16};
    for (int p = 0; p < 2; p++) {
        for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
            struct dpu_set_t set;
            DPU_ASSERT(dpu_alloc(counts[c], NULL, &set));
            DPU_ASSERT(dpu_load(set, programs[p], NULL));
            enum { RUNS = 50 };
            double times[RUNS];
            for (int run = -5; run < RUNS; run++) {
                double start = now();
                DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
                if (run >= 0)
                    times[run] = now() - start;
            }
            qsort(times, RUNS, sizeof(double), by_value);
            printf("latency_dpus %u tasklets %d median_ms %.3f p90_ms %.3f\n", counts[c], tasklets[p],
                   times[RUNS / 2] * 1e3, times[RUNS * 9 / 10] * 1e3);
            DPU_ASSERT(dpu_free(set));
        }
    }
}

struct share {
    uint32_t first, count, iterations;
    uint32_t *results;
};

static void *native_worker(void *arg)
{
    struct share *share = arg;
    for (uint32_t item = share->first; item < share->first + share->count; item++)
        share->results[item] = work(seed_of(item), share->iterations);
    return NULL;
}

static void compute(const char *program, uint32_t iterations)
{
    enum { DPUS = 64, TASKLETS = 16, ITEMS = DPUS * TASKLETS };
    static uint32_t emulated[ITEMS], native[ITEMS];
    struct dpu_set_t set, dpu;
    uint32_t i;
    DPU_ASSERT(dpu_alloc(DPUS, NULL, &set));
    DPU_ASSERT(dpu_load(set, program, NULL));
    DPU_ASSERT(dpu_broadcast_to(set, "iterations", 0, &iterations, 4, DPU_XFER_DEFAULT));
    DPU_FOREACH(set, dpu, i) {
        uint32_t first = i * TASKLETS;
        DPU_ASSERT(dpu_copy_to(dpu, "first_item", 0, &first, 4));
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    pthread_t threads[256];
    struct share shares[256];
    double emulator_time = 1e9, native_time = 1e9;
    for (int rep = 0; rep < 3; rep++) { /* alternate, keep the best of each */
        double start = now();
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        double elapsed = now() - start;
        emulator_time = elapsed < emulator_time ? elapsed : emulator_time;
        start = now();
        for (long t = 0; t < cores && t < 256; t++) {
            shares[t].first = (uint32_t)(ITEMS * t / cores);
            shares[t].count = (uint32_t)(ITEMS * (t + 1) / cores) - shares[t].first;
            shares[t].iterations = iterations;
            shares[t].results = native;
            pthread_create(&threads[t], NULL, native_worker, &shares[t]);
        }
        for (long t = 0; t < cores && t < 256; t++)
            pthread_join(threads[t], NULL);
        elapsed = now() - start;
        native_time = elapsed < native_time ? elapsed : native_time;
    }
    DPU_FOREACH(set, dpu, i) DPU_ASSERT(dpu_prepare_xfer(dpu, &emulated[i * TASKLETS]));
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "results", 0, TASKLETS * 4, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_free(set));
    printf("compute_cores %ld emulator_s %.3f native_s %.3f same_results %d\n", cores, emulator_time,
           native_time, memcmp(emulated, native, sizeof(native)) == 0);
}

static void hold(const char *program, uint32_t nr_dpus)
{
    struct dpu_set_t set;
    double start = now();
    DPU_ASSERT(dpu_alloc(nr_dpus, NULL, &set));
    DPU_ASSERT(dpu_load(set, program, NULL));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    printf("ready %d setup_s %.3f\n", (int)getpid(), now() - start);
    fflush(stdout);
    char line[8];
    if (fgets(line, sizeof(line), stdin) == NULL)
        return;
    start = now();
    DPU_ASSERT(dpu_free(set));
    printf("freed_s %.3f\n", now() - start);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "bandwidth") == 0)
        bandwidth(argv[2]);
    else if (argc == 4 && strcmp(argv[1], "latency") == 0)
        latency(argv[2], argv[3]);
    else if (argc == 4 && strcmp(argv[1], "compute") == 0)
        compute(argv[2], (uint32_t)atoi(argv[3]));
    else if (argc == 4 && strcmp(argv[1], "hold") == 0)
        hold(argv[2], (uint32_t)atoi(argv[3]));
    else {
        fprintf(stderr, "usage: see the comment at the top of bench.c\n");
        return 2;
    }
    return 0;
}
