/* The native C loops pimopt_speed.py compares the emulated DPUs with, on one core, FP32
 * or INT32 (-DFORMAT_INT32):
 *
 * - TASKLETS 0: plain mini-batch SGD (logistic regression, table sigmoid, batches of B,
 *   L2, lr 0.1, lam 1e-3), the loop a programmer writes for one core;
 * - TASKLETS T > 0: the same steps as one DPU of dpu_programs/pimopt/linear.c in mode 1
 *   with T tasklets, natively: each step's samples split over T accumulators as the
 *   tasklets split them, summed in tasklet order, the model updated with the kernel's
 *   coefficients and operations. It gives the DPU's model bit for bit, and its time is
 *   the emulator's own cost without the emulation.
 *
 * Usage: pimopt_native DATA EPOCHS BATCH TASKLETS LR LR_SHIFT LAM LAM_SHIFT [OUT]; DATA
 * holds n, F (uint32), the n * F features (float or Q3.12 int32), the n labels (int32)
 * and the 66 sigmoid table values; LR and LAM are the kernel's coefficient variables
 * (float bits, or Q0.15 values with their shifts). Prints the seconds of the training;
 * writes the model's F values to OUT if given. */
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

/* The plain loop: one accumulator, the mean gradient, lr 0.1 and lam 1e-3. */
static void train_plain(const val_t *x, const int32_t *y, val_t *w, val_t *acc, uint32_t n,
                        uint32_t nf, uint32_t epochs, uint32_t batch)
{
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
}

/* Where tasklet t starts in a step of `count` samples, and how many it takes (the
 * kernel's part_start and part_len). */
static uint32_t part_start(uint32_t count, uint32_t tasklets, uint32_t t)
{
    const uint32_t share = count / tasklets, extra = count % tasklets;
    return t * share + (t < extra ? t : extra);
}
static uint32_t part_len(uint32_t count, uint32_t tasklets, uint32_t t)
{
    return count / tasklets + (t < count % tasklets ? 1 : 0);
}

struct coefficients {
    uint32_t lr, lr_shift, lam, lam_shift;
};

/* The kernel's steps (linear.c, mode 1), one tasklet after another: accumulators
 * acc[t * nf ...], the reduction into sum in tasklet order, the kernel's update. */
static void train_like_the_kernel(const val_t *x, const int32_t *y, val_t *w, val_t *acc,
                                  val_t *sum, uint32_t n, uint32_t nf, uint32_t epochs,
                                  uint32_t batch, uint32_t tasklets, struct coefficients k)
{
    for (uint32_t e = 0; e < epochs; e++) {
        for (uint32_t lo = 0; lo < n; lo += batch) {
            const uint32_t count = lo + batch < n ? batch : n - lo;
            for (uint32_t t = 0; t < tasklets; t++) {
                val_t *a = acc + (size_t)t * nf;
                const uint32_t first = lo + part_start(count, tasklets, t);
                const uint32_t m = part_len(count, tasklets, t);
                if (m == 0)
                    for (uint32_t j = 0; j < nf; j++)
                        a[j] = 0;
                for (uint32_t i = first; i < first + m; i++) {
                    const val_t *row = x + (size_t)i * nf;
                    val_t dot = 0;
                    for (uint32_t j = 0; j < nf; j++) {
#ifdef FORMAT_INT32
                        dot = sat_add(dot, mul_q15_near_one(w[j], row[j]));
#else
                        const float p = w[j] * row[j];
                        dot = dot + p;
#endif
                    }
                    const val_t g = error_of(dot, y[i]);
                    for (uint32_t j = 0; j < nf; j++) {
#ifdef FORMAT_INT32
                        const int32_t p = mul_q15_near_one(g, row[j]);
                        a[j] = i == first ? p : sat_add(a[j], p);
#else
                        const float zero = 0.0f, p = g * row[j];
                        a[j] = i == first ? zero + p : a[j] + p;
#endif
                    }
                }
            }
            for (uint32_t j = 0; j < nf; j++)
                sum[j] = acc[j];
            for (uint32_t t = 1; t < tasklets; t++)
                for (uint32_t j = 0; j < nf; j++)
#ifdef FORMAT_INT32
                    sum[j] = sat_add(sum[j], acc[(size_t)t * nf + j]);
#else
                    sum[j] = sum[j] + acc[(size_t)t * nf + j];
#endif
#ifdef FORMAT_INT32
            for (uint32_t j = 0; j < nf; j++) {
                const int32_t mean = sum[j] / (int32_t)count * 8;
                const int32_t g = sat_add(mean, mul_scaled(w[j], k.lam, k.lam_shift));
                w[j] = sat_sub(w[j], mul_scaled(g, k.lr, k.lr_shift));
            }
#else
            const float inv = 1.0f / (float)count;
            const float lr = float_of_bits(k.lr), lam = float_of_bits(k.lam);
            for (uint32_t j = 0; j < nf; j++) {
                const float mean = sum[j] * inv;
                const float decay = lam * w[j];
                const float g = mean + decay;
                const float step = lr * g;
                w[j] = w[j] - step;
            }
#endif
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 9 && argc != 10) {
        fprintf(stderr, "usage: %s DATA EPOCHS BATCH TASKLETS LR LR_SHIFT LAM LAM_SHIFT [OUT]\n",
                argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    uint32_t hdr[2];
    if (!f || fread(hdr, 4, 2, f) != 2)
        return 2;
    const uint32_t n = hdr[0], nf = hdr[1], epochs = atoi(argv[2]), batch = atoi(argv[3]);
    const uint32_t tasklets = atoi(argv[4]);
    const struct coefficients k = {strtoul(argv[5], NULL, 0), strtoul(argv[6], NULL, 0),
                                   strtoul(argv[7], NULL, 0), strtoul(argv[8], NULL, 0)};
    const size_t accumulators = tasklets ? tasklets : 1;
    val_t *x = malloc((size_t)n * nf * sizeof(val_t)), *w = calloc(nf, sizeof(val_t));
    val_t *acc = malloc(accumulators * nf * sizeof(val_t)), *sum = malloc(nf * sizeof(val_t));
    int32_t *y = malloc(n * 4);
    if (fread(x, sizeof(val_t), (size_t)n * nf, f) != (size_t)n * nf || fread(y, 4, n, f) != n
        || fread(table, sizeof(val_t), 66, f) != 66)
        return 2;
    fclose(f);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (tasklets == 0)
        train_plain(x, y, w, acc, n, nf, epochs, batch);
    else
        train_like_the_kernel(x, y, w, acc, sum, n, nf, epochs, batch, tasklets, k);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (argc == 10) {
        FILE *out = fopen(argv[9], "wb");
        if (!out || fwrite(w, sizeof(val_t), nf, out) != nf || fclose(out) != 0)
            return 2;
    }
    printf("%.9f\n", (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
    return 0;
}
