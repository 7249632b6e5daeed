/* The CPU program the SwiftRL paper compares with, written by us in its style: tabular
 * Q-learning or SARSA from offline transitions, one learner per pthread on its block of
 * the data, the mean of the threads' tables at the end.
 *
 * The update rules are rl/reference.py's (FP32: float arithmetic, no fused multiply-add;
 * INT32: Q15.16 values, Q0.15 coefficients, saturating 32-bit integer arithmetic), on the
 * 16-byte records of rl/kernel.py (state, action, reward bits, next_state | terminal <<
 * 31). Thread t visits the records split(N, T, t) (rl/layouts.py's even split) in order,
 * epoch after epoch, with its own table; SARSA draws with a xorshift32 generator per
 * thread seeded from rl.reference.learner_seed. Tables start at 0. There is no sync
 * between threads until the end, where the tables are averaged (in double, in thread
 * order; FP32 rounded to float, INT32 rounded to the nearest integer).
 *
 * Usage: rl_threaded_baseline RECORDS N_STATES N_ACTIONS THREADS EPOCHS ALPHA GAMMA
 *                             FORMAT ALGORITHM EPSILON SEED OUT
 *   RECORDS    file of N 16-byte little-endian records
 *   FORMAT     fp32 | int32 (the reward bits are float32 or Q15.16 accordingly)
 *   ALGORITHM  qlearning | sarsa
 *   OUT        file to write the mean table to (float32 or int32, row-major)
 * Prints one line: "seconds=S updates=U" (the training alone, threads created to joined).
 *
 * Build: gcc -O2 -std=c11 -Wall -Wextra -pthread rl_threaded_baseline.c -o baseline
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TERMINAL 0x80000000u

struct record {
    uint32_t state, action, reward, next;
};

struct job {
    const struct record *data;
    size_t begin, end;
    uint32_t n_states, n_actions, epochs, eps_threshold, rng;
    int int32, sarsa;
    float alpha_f, gamma_f;
    int32_t alpha_q, gamma_q;
    void *table; /* float or int32_t, n_states * n_actions */
};

static inline uint32_t next_random(uint32_t *x)
{
    uint32_t v = *x;
    v ^= v << 13;
    v ^= v >> 17;
    v ^= v << 5;
    *x = v;
    return v;
}

static inline int32_t mul_q15(int32_t x, int32_t c)
{
    return (x >> 15) * c + (((x & 0x7FFF) * c + 0x4000) >> 15);
}

static inline int32_t sat(int64_t v)
{
    return v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

static void run_fp32(struct job *j)
{
    float *q = j->table;
    const uint32_t n_a = j->n_actions;
    uint32_t x = j->rng;
    for (uint32_t e = 0; e < j->epochs; e++) {
        for (size_t i = j->begin; i < j->end; i++) {
            const struct record *r = &j->data[i];
            float *cell = &q[r->state * n_a + r->action];
            float reward;
            memcpy(&reward, &r->reward, sizeof reward);
            float target = reward;
            if (!(r->next & TERMINAL)) {
                const float *row = &q[(r->next & ~TERMINAL) * n_a];
                float b;
                if (j->sarsa) {
                    uint32_t chosen = 0;
                    if (next_random(&x) < j->eps_threshold) {
                        chosen = next_random(&x) % n_a;
                    } else {
                        float best = row[0];
                        for (uint32_t k = 1; k < n_a; k++)
                            if (row[k] > best) {
                                best = row[k];
                                chosen = k;
                            }
                    }
                    b = row[chosen];
                } else {
                    b = row[0];
                    for (uint32_t k = 1; k < n_a; k++)
                        if (row[k] > b)
                            b = row[k];
                }
                const float discounted = j->gamma_f * b;
                target = reward + discounted;
            }
            const float difference = target - *cell;
            const float step = j->alpha_f * difference;
            *cell = *cell + step;
        }
    }
    j->rng = x;
}

static void run_int32(struct job *j)
{
    int32_t *q = j->table;
    const uint32_t n_a = j->n_actions;
    uint32_t x = j->rng;
    for (uint32_t e = 0; e < j->epochs; e++) {
        for (size_t i = j->begin; i < j->end; i++) {
            const struct record *r = &j->data[i];
            int32_t *cell = &q[r->state * n_a + r->action];
            const int32_t reward = (int32_t)r->reward;
            int32_t target = reward;
            if (!(r->next & TERMINAL)) {
                const int32_t *row = &q[(r->next & ~TERMINAL) * n_a];
                int32_t b;
                if (j->sarsa) {
                    uint32_t chosen = 0;
                    if (next_random(&x) < j->eps_threshold) {
                        chosen = next_random(&x) % n_a;
                    } else {
                        int32_t best = row[0];
                        for (uint32_t k = 1; k < n_a; k++)
                            if (row[k] > best) {
                                best = row[k];
                                chosen = k;
                            }
                    }
                    b = row[chosen];
                } else {
                    b = row[0];
                    for (uint32_t k = 1; k < n_a; k++)
                        if (row[k] > b)
                            b = row[k];
                }
                target = sat((int64_t)reward + mul_q15(b, j->gamma_q));
            }
            const int32_t d = sat((int64_t)target - *cell);
            *cell = sat((int64_t)*cell + mul_q15(d, j->alpha_q));
        }
    }
    j->rng = x;
}

static void *worker(void *arg)
{
    struct job *j = arg;
    if (j->int32)
        run_int32(j);
    else
        run_fp32(j);
    return NULL;
}

static uint32_t fmix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    return x;
}

static int32_t coefficient(double v)
{
    double c = nearbyint(v * 32768.0);
    return c < 0 ? 0 : c > 32767 ? 32767 : (int32_t)c;
}

int main(int argc, char **argv)
{
    if (argc != 13) {
        fprintf(stderr, "usage: %s RECORDS N_STATES N_ACTIONS THREADS EPOCHS ALPHA GAMMA "
                        "FORMAT ALGORITHM EPSILON SEED OUT\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    size_t n = (size_t)bytes / sizeof(struct record);
    struct record *data = malloc(n * sizeof *data + 1);
    if (!data || fread(data, sizeof *data, n, f) != n) {
        fprintf(stderr, "%s: cannot read %zu records\n", argv[1], n);
        return 2;
    }
    fclose(f);
    const uint32_t n_s = (uint32_t)strtoul(argv[2], NULL, 10);
    const uint32_t n_a = (uint32_t)strtoul(argv[3], NULL, 10);
    const uint32_t threads = (uint32_t)strtoul(argv[4], NULL, 10);
    const uint32_t epochs = (uint32_t)strtoul(argv[5], NULL, 10);
    const double alpha = atof(argv[6]), gamma = atof(argv[7]);
    const int int32 = strcmp(argv[8], "int32") == 0;
    const int sarsa = strcmp(argv[9], "sarsa") == 0;
    const double epsilon = atof(argv[10]);
    const uint32_t seed = (uint32_t)strtoul(argv[11], NULL, 10);
    if (threads < 1 || n_s < 1 || n_a < 1) {
        fprintf(stderr, "THREADS, N_STATES and N_ACTIONS must be at least 1\n");
        return 2;
    }
    const double thr = floor(epsilon * 4294967296.0);
    const size_t entries = (size_t)n_s * n_a;
    struct job *jobs = calloc(threads, sizeof *jobs);
    pthread_t *ids = calloc(threads, sizeof *ids);
    for (uint32_t t = 0; t < threads; t++) {
        struct job *j = &jobs[t];
        size_t base = n / threads, extra = n % threads;
        j->data = data;
        j->begin = t * base + (t < extra ? t : extra);
        j->end = j->begin + base + (t < extra ? 1 : 0);
        j->n_states = n_s;
        j->n_actions = n_a;
        j->epochs = epochs;
        j->eps_threshold = thr >= 4294967295.0 ? 0xFFFFFFFFu : (uint32_t)thr;
        uint32_t x = fmix32(seed * 0x9E3779B9u + (t + 1) * 0x85EBCA6Bu);
        j->rng = x ? x : 0x6D2B79F5u;
        j->int32 = int32;
        j->sarsa = sarsa;
        j->alpha_f = (float)alpha;
        j->gamma_f = (float)gamma;
        j->alpha_q = coefficient(alpha);
        j->gamma_q = coefficient(gamma);
        j->table = calloc(entries, 4);
    }
    struct timespec start, stop;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (uint32_t t = 0; t < threads; t++)
        pthread_create(&ids[t], NULL, worker, &jobs[t]);
    for (uint32_t t = 0; t < threads; t++)
        pthread_join(ids[t], NULL);
    double *sum = calloc(entries, sizeof *sum);
    for (uint32_t t = 0; t < threads; t++)
        for (size_t e = 0; e < entries; e++)
            sum[e] += int32 ? (double)((int32_t *)jobs[t].table)[e]
                            : (double)((float *)jobs[t].table)[e];
    clock_gettime(CLOCK_MONOTONIC, &stop);
    FILE *out = fopen(argv[12], "wb");
    if (!out) {
        perror(argv[12]);
        return 2;
    }
    for (size_t e = 0; e < entries; e++) {
        double m = sum[e] / threads;
        if (int32) {
            int32_t v = sat((int64_t)nearbyint(m));
            fwrite(&v, 4, 1, out);
        } else {
            float v = (float)m;
            fwrite(&v, 4, 1, out);
        }
    }
    fclose(out);
    double seconds = (double)(stop.tv_sec - start.tv_sec) + 1e-9 * (stop.tv_nsec - start.tv_nsec);
    printf("seconds=%.6f updates=%.0f\n", seconds, (double)epochs * (double)n);
    return 0;
}
