/* The native C loop pimopt_speed.py compares the emulated DPUs with: the same local SGD
 * steps (logistic regression, table sigmoid, mini-batches of B, L2) as one DPU of
 * dpu_programs/pimopt/linear.c in mode 1, on one core, FP32 or INT32 (-DFORMAT_INT32).
 * Usage: pimopt_native DATA EPOCHS BATCH; DATA holds n, F (uint32), the n * F features
 * (float or Q3.12 int32) and the n labels (int32). Prints the seconds of the training. */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fixed_point.h" /* the DPU programs' mul_q15, sat_add: dpu_programs/common */

#ifdef FORMAT_INT32
typedef int32_t val_t;
#else
typedef float val_t;
#endif

static val_t table[66];

static val_t error_of(val_t dot, int32_t y)
{
#ifdef FORMAT_INT32
    int32_t p;
    if (dot <= -(8 << 13))
        p = table[0];
    else if (dot >= (8 << 13))
        p = table[64];
    else {
        const int32_t t = dot + (8 << 13), k = t >> 11, f = t & 2047;
        p = table[k] + (((table[k + 1] - table[k]) * f) >> 11);
    }
    return p - y * 65536;
#else
    float p;
    if (dot <= -8.0f)
        p = table[0];
    else if (dot >= 8.0f)
        p = table[64];
    else {
        const float t = (dot + 8.0f) * 4.0f;
        int32_t k = (int32_t)t;
        if (k > 63)
            k = 63;
        p = table[k] + (t - (float)k) * (table[k + 1] - table[k]);
    }
    return p - (float)y;
#endif
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s DATA EPOCHS BATCH\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    uint32_t hdr[2];
    if (!f || fread(hdr, 4, 2, f) != 2)
        return 2;
    const uint32_t n = hdr[0], nf = hdr[1], epochs = atoi(argv[2]), batch = atoi(argv[3]);
    val_t *x = malloc((size_t)n * nf * sizeof(val_t)), *w = calloc(nf, sizeof(val_t));
    val_t *acc = malloc(nf * sizeof(val_t));
    int32_t *y = malloc(n * 4);
    if (fread(x, sizeof(val_t), (size_t)n * nf, f) != (size_t)n * nf || fread(y, 4, n, f) != n
        || fread(table, sizeof(val_t), 66, f) != 66)
        return 2;
    fclose(f);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint32_t e = 0; e < epochs; e++) {
        for (uint32_t lo = 0; lo < n; lo += batch) {
            const uint32_t hi = lo + batch < n ? lo + batch : n;
            for (uint32_t j = 0; j < nf; j++)
                acc[j] = 0;
            for (uint32_t i = lo; i < hi; i++) {
                const val_t *row = x + (size_t)i * nf;
                val_t dot = 0;
                for (uint32_t j = 0; j < nf; j++)
#ifdef FORMAT_INT32
                    dot = sat_add(dot, mul_q15(w[j], row[j]));
#else
                    dot += w[j] * row[j];
#endif
                const val_t g = error_of(dot, y[i]);
                for (uint32_t j = 0; j < nf; j++)
#ifdef FORMAT_INT32
                    acc[j] = sat_add(acc[j], mul_q15(g, row[j]));
#else
                    acc[j] += g * row[j];
#endif
            }
            for (uint32_t j = 0; j < nf; j++) /* lr 0.1, lam 1e-3 (INT32: shifts) */
#ifdef FORMAT_INT32
                w[j] -= mul_q15(acc[j] / (int32_t)(hi - lo) * 8 + (mul_q15(w[j], 16777) >> 9),
                              26214) >> 3;
#else
                w[j] -= 0.1f * (acc[j] / (float)(hi - lo) + 1e-3f * w[j]);
#endif
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double check = 0;
    for (uint32_t j = 0; j < nf; j++)
        check += (double)w[j];
    printf("%.9f %g\n", (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec), check);
    return 0;
}
