/* Workloads in the style of the PrIM benchmarks, written from their published
 * descriptions, each exercising one mechanism of the emulator's time model. WORKLOAD
 * selects one (compile with -DWORKLOAD_...):
 *   GEMV       y = A x over uint32 values in MRAM, rows of `cols` <= 256 values (PrIM
 *              GEMV's scheme at its 64 columns; the multiply's cost): each tasklet takes its
 *              own range of `rows`, two rows at a time; for each row it reads a whole 1 KiB
 *              block from the row's start and x's first 1 KiB, multiply-adds the row's
 *              values into its pair's result in WRAM through a pointer (a loop of run-time
 *              length), and writes each pair's 8 bytes
 *   HISTOGRAM  a histogram of 4,096 bins in WRAM shared by all tasklets, one mutex taken
 *              for every element (HST-L's scheme; the mutex's contention)
 *   HISTOGRAM_PRIVATE  a histogram of `bins` bins per tasklet in WRAM, no mutex, each
 *              12-bit pixel's bin found by a multiply by the bin count (HST-S's scheme;
 *              the multiply's cost by the smaller operand); then each tasklet sums its
 *              share of the bins over the tasklets' histograms, and tasklet 0 writes the
 *              sums to `merged`
 *   REDUCE     the int64 sum of an MRAM array, 1 KiB blocks per tasklet in turn, then a
 *              tree over the tasklets (the DMA engine and the pipeline together);
 *              -DDMA_ONLY reads the same blocks and adds nothing
 *   VECTOR_ADD c = a + b over int32 MRAM arrays (VA's scheme): each tasklet reads 1 KiB
 *              blocks of a and b in turn, adds a's into b's in a loop whose length is the
 *              block's element count, known at run time, and writes b's to c
 *   SEARCH     binary searches of `rows` int64 queries (`rows` / NR_TASKLETS a tasklet) in a
 *              sorted int64 MRAM array of `elements` (BS's scheme): a query's DMA, the
 *              array's first and last 256-byte blocks, then a 256-byte probe at each
 *              midpoint, scanned for the value when its first value is not above it;
 *              -DPRINT_FOUND prints each value found, as PrIM's BS does
 *   SCAN       the inclusive prefix sum of an int64 MRAM array in two launches
 *              (SCAN-SSA's scheme): with `kernel` 0 each tasklet scans its 1 KiB blocks in
 *              turn (an unrolled loop), the blocks' totals pass from tasklet to tasklet by
 *              handshakes, a barrier ends each round, and each block gets the sums before
 *              it and is written to `sums`; the DPU's total goes to `total`. With `kernel`
 *              1 each element of `sums` gets `offset` (the totals of the DPUs before).
 *              Every tasklet must have as many blocks as the others.
 *   TRANSPOSE  an in-place transposition of a `rows` x `cols` matrix of 64-byte tiles in
 *              MRAM by following the permutation's cycles (TRNS step 3's scheme): a flag
 *              per tile in MRAM, one mutex; a tasklet claims a tile by reading and
 *              setting its flag and reading the tile, all under the mutex, then writes
 *              the tile it carries in its place (a mutex held across DMAs)
 *   TRANSPOSE_STEPS  steps 2 and 3 of a three-step in-place transposition (TRNS's scheme)
 *              of a matrix of `rows` x `cols` tiles of `tile_rows` int64 values each: with
 *              `kernel` 0 each tasklet transposes whole tiles of `tile_rows` x `cols` in
 *              WRAM (an index by a division and two multiplies), with `kernel` 1 the
 *              tasklets take start tiles from a counter under one mutex and follow the
 *              permutation's cycles, reading each tile before they claim it by its bit in
 *              an 8-byte MRAM word under another mutex (the tile's DMAs outside it). Only
 *              the host sets the counter (`next_start`), as only a load sets TRNS's.
 *   EQUAL      the same compute loop in every tasklet, each reading the performance
 *              counter at its end (perfcounter at 16 tasklets)
 *   EMPTY      nothing (the launch's own cost)
 * `elements` and `rows`/`cols` come from the host; tasklet 0 records the modelled cycles
 * between two barriers around the work in `cycles`. */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <mutex.h>
#include <perfcounter.h>
#include <stdint.h>

#define BLOCK 1024
#define MAX_ELEMENTS (1u << 23) /* 32 MiB of uint32: PrIM's sizes on one DPU */

__host uint32_t elements;
__host uint32_t rows, cols;
__host uint64_t cycles;
__host uint64_t result;
__host uint64_t seen[NR_TASKLETS];
BARRIER_INIT(start, NR_TASKLETS);
BARRIER_INIT(stop, NR_TASKLETS);

#if defined(WORKLOAD_GEMV)
__mram_noinit uint32_t matrix[MAX_ELEMENTS];
__mram_noinit uint32_t vector[BLOCK / 4];
__mram_noinit uint32_t output[MAX_ELEMENTS / 64];
__dma_aligned uint32_t row_block[NR_TASKLETS][BLOCK / 4], x_block[NR_TASKLETS][BLOCK / 4];
__dma_aligned uint32_t pair[NR_TASKLETS][2];

/* Not inlined: the result goes through memory, as through pointers the compiler cannot tell
 * apart (PrIM's WRAM buffers come from mem_alloc). */
static __attribute__((noinline)) void multiply_add(uint32_t *into, const uint32_t *row,
                                                  const uint32_t *x, uint32_t count)
{
    for (uint32_t j = 0; j < count; j++)
        *into += row[j] * x[j];
}

static void run(void)
{
    uint32_t id = me(), per = rows / NR_TASKLETS, first = id * per;
    for (uint32_t r = first; r < first + per; r += 2) {
        pair[id][0] = pair[id][1] = 0;
        for (uint32_t at = 0; at < 2; at++) {
            mram_read(&matrix[(r + at) * cols], row_block[id], BLOCK);
            mram_read(vector, x_block[id], BLOCK);
            multiply_add(&pair[id][at], row_block[id], x_block[id], cols);
        }
        mram_write(pair[id], &output[r], 8);
    }
}
#elif defined(WORKLOAD_HISTOGRAM)
#define BINS 4096
__mram_noinit uint32_t input[MAX_ELEMENTS];
__dma_aligned uint32_t block[NR_TASKLETS][BLOCK / 4];
uint32_t histogram[BINS];
MUTEX_INIT(histogram_lock);

static void run(void)
{
    uint32_t id = me(), per_block = BLOCK / 4;
    for (uint32_t at = id * per_block; at < elements; at += NR_TASKLETS * per_block) {
        mram_read(&input[at], block[id], BLOCK);
        for (uint32_t k = 0; k < per_block; k++) {
            uint32_t bin = (block[id][k] * BINS) >> 12;
            mutex_lock(histogram_lock);
            histogram[bin]++;
            mutex_unlock(histogram_lock);
        }
    }
}
#elif defined(WORKLOAD_HISTOGRAM_PRIVATE)
#define MAX_BINS 256
__host uint32_t bins;
__mram_noinit uint32_t input[MAX_ELEMENTS];
__mram_noinit uint32_t merged[MAX_BINS];
__dma_aligned uint32_t block[NR_TASKLETS][BLOCK / 4];
__dma_aligned uint32_t histograms[NR_TASKLETS][MAX_BINS];
BARRIER_INIT(counted, NR_TASKLETS);

static void run(void)
{
    uint32_t id = me(), per_block = BLOCK / 4, count = bins;
    uint32_t *histogram = histograms[id];
    for (uint32_t i = 0; i < count; i++)
        histogram[i] = 0;
    for (uint32_t at = id * per_block; at < elements; at += NR_TASKLETS * per_block) {
        mram_read(&input[at], block[id], BLOCK);
        for (uint32_t k = 0; k < per_block; k++)
            histogram[(block[id][k] * count) >> 12]++;
    }
    barrier_wait(&counted);
    for (uint32_t i = id; i < count; i += NR_TASKLETS) { /* each tasklet merges its bins */
        uint32_t sum = 0;
        for (uint32_t t = 0; t < NR_TASKLETS; t++)
            sum += histograms[t][i];
        histograms[0][i] = sum;
    }
    barrier_wait(&counted);
    if (id == 0)
        mram_write(histograms[0], merged, count * 4);
}
#elif defined(WORKLOAD_REDUCE)
__mram_noinit int64_t input[MAX_ELEMENTS / 2];
__dma_aligned int64_t block[NR_TASKLETS][BLOCK / 8];
int64_t partial[NR_TASKLETS];
BARRIER_INIT(summed, NR_TASKLETS);

static void run(void)
{
    uint32_t id = me(), per_block = BLOCK / 8;
    int64_t sum = 0;
    for (uint32_t at = id * per_block; at < elements; at += NR_TASKLETS * per_block) {
        mram_read(&input[at], block[id], BLOCK);
#if !defined(DMA_ONLY)
        for (uint32_t k = 0; k < per_block; k++)
            sum += block[id][k];
#endif
    }
    partial[id] = sum;
    barrier_wait(&summed);
    if (id == 0) {
        for (uint32_t t = 1; t < NR_TASKLETS; t++)
            sum += partial[t];
        result = (uint64_t)sum;
    }
}
#elif defined(WORKLOAD_VECTOR_ADD)
__mram_noinit int32_t a[MAX_ELEMENTS / 4], b[MAX_ELEMENTS / 4], c[MAX_ELEMENTS / 4];
__dma_aligned int32_t a_block[NR_TASKLETS][BLOCK / 4], b_block[NR_TASKLETS][BLOCK / 4];

static void add_block(int32_t *into, const int32_t *from, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        into[i] += from[i];
}

static void run(void)
{
    uint32_t id = me(), bytes = elements * 4;
    for (uint32_t at = id * BLOCK; at < bytes; at += NR_TASKLETS * BLOCK) {
        uint32_t size = at + BLOCK >= bytes ? bytes - at : BLOCK;
        mram_read((__mram_ptr uint8_t *)a + at, a_block[id], size);
        mram_read((__mram_ptr uint8_t *)b + at, b_block[id], size);
        add_block(b_block[id], a_block[id], size / 4);
        mram_write(b_block[id], (__mram_ptr uint8_t *)c + at, size);
    }
}
#elif defined(WORKLOAD_SEARCH)
#define PROBE 256 /* bytes a probe reads: 32 values */
#if defined(PRINT_FOUND)
#include <stdio.h>
#endif
__mram_noinit int64_t sorted[MAX_ELEMENTS / 8];
__mram_noinit int64_t queries[MAX_ELEMENTS / 8];
__dma_aligned int64_t probe[NR_TASKLETS][PROBE / 8], ends[NR_TASKLETS][2][PROBE / 8];
__dma_aligned int64_t wanted[NR_TASKLETS];

/* Where `value` is in a probe: its index; -2 if the probe starts above it, -1 if not. */
static int32_t scan(const int64_t *values, int64_t value)
{
    if (values[0] > value)
        return -2;
    for (uint32_t i = 0; i < PROBE / 8; i++)
        if (values[i] == value)
            return (int32_t)i;
    return -1;
}

static void run(void)
{
    uint32_t id = me(), per = rows / NR_TASKLETS, last = elements * 8 - PROBE;
    int64_t hits = 0;
    for (uint32_t q = id * per; q < (id + 1) * per; q++) {
        mram_read(&queries[q], &wanted[id], 8);
        mram_read(sorted, ends[id][0], PROBE);
        mram_read((__mram_ptr uint8_t *)sorted + last, ends[id][1], PROBE);
        uint32_t low = 0, high = elements * 8, at = (low + high) / 2 & ~7u;
        for (;;) {
            at = at > last ? last : at;
            mram_read((__mram_ptr uint8_t *)sorted + at, probe[id], PROBE);
            int32_t found = scan(probe[id], wanted[id]);
            if (found >= 0) {
                hits += at / 8 + (uint32_t)found;
#if defined(PRINT_FOUND)
                printf("Tasklet %u has found %lld\n", id, (long long)(at / 8 + (uint32_t)found));
#endif
                break;
            }
            if (found == -2)
                high = at;
            else
                low = at;
            uint32_t next = (low + high) / 2 & ~7u;
            if (next == at)
                break; /* not there */
            at = next;
        }
    }
    seen[id] = (uint64_t)hits;
}
#elif defined(WORKLOAD_SCAN)
#include <handshake.h>
#define VALUES (BLOCK / 8)
__host uint32_t kernel;
__host int64_t offset, total;
__mram_noinit int64_t values[MAX_ELEMENTS / 4], sums[MAX_ELEMENTS / 4];
__dma_aligned int64_t in_block[NR_TASKLETS][VALUES], out_block[NR_TASKLETS][VALUES];
int64_t passed[NR_TASKLETS]; /* the blocks' sums before each tasklet's, this round */
int64_t rounds_before;        /* the sum of the rounds before this one */
BARRIER_INIT(round_end, NR_TASKLETS);

static void add_to_block(int64_t *block, int64_t value)
{
#pragma unroll
    for (uint32_t i = 0; i < VALUES; i++)
        block[i] += value;
}

static void run(void)
{
    uint32_t id = me(), bytes = elements * 8;
    __mram_ptr uint8_t *from = (__mram_ptr uint8_t *)values, *to = (__mram_ptr uint8_t *)sums;
    if (kernel == 1) {
        for (uint32_t at = id * BLOCK; at < bytes; at += NR_TASKLETS * BLOCK) {
            mram_read(to + at, in_block[id], BLOCK);
            add_to_block(in_block[id], offset);
            mram_write(in_block[id], to + at, BLOCK);
        }
        return;
    }
    rounds_before = 0; /* every tasklet writes it before the first round's barrier */
    for (uint32_t at = id * BLOCK; at < bytes; at += NR_TASKLETS * BLOCK) {
        int64_t *in = in_block[id], *out = out_block[id], before = 0;
        mram_read(from + at, in, BLOCK);
        out[0] = in[0];
#pragma unroll
        for (uint32_t i = 1; i < VALUES; i++)
            out[i] = out[i - 1] + in[i];
        if (id > 0) {
            handshake_wait_for(id - 1);
            before = passed[id];
        }
        if (id < NR_TASKLETS - 1) {
            passed[id + 1] = before + out[VALUES - 1];
            handshake_notify();
        }
        barrier_wait(&round_end);
        int64_t base = rounds_before + before;
        add_to_block(out, base);
        mram_write(out, to + at, BLOCK);
        if (id == NR_TASKLETS - 1) /* the others read rounds_before before their DMA */
            rounds_before = total = out[VALUES - 1];
    }
}
#elif defined(WORKLOAD_TRANSPOSE)
#define TILE_WORDS 8 /* 64 bytes */
__mram_noinit uint64_t tiles[MAX_ELEMENTS / 8];
__mram_noinit uint64_t done[MAX_ELEMENTS / 64]; /* a flag byte per tile */
__dma_aligned uint64_t buffers[NR_TASKLETS][2][TILE_WORDS];
__dma_aligned uint64_t flags[NR_TASKLETS];
MUTEX_INIT(done_lock);

/* Claims `tile`: sets its flag and reads it into `into` unless someone did already. Its
 * old content is read before anyone can write the tile carried into it. */
static int claim(uint32_t tile, uint32_t id, uint64_t *into)
{
    uint8_t *flag = (uint8_t *)&flags[id] + tile % 8;
    int claimed = 0;
    mutex_lock(done_lock);
    mram_read(&done[tile / 8], &flags[id], 8);
    if (*flag == 0) {
        *flag = 1;
        mram_write(&flags[id], &done[tile / 8], 8);
        mram_read(&tiles[tile * TILE_WORDS], into, 8 * TILE_WORDS);
        claimed = 1;
    }
    mutex_unlock(done_lock);
    return claimed;
}

static void run(void)
{
    uint32_t id = me(), last = rows * cols - 1; /* tiles 0 and `last` stay */
    for (uint32_t start = 1 + id; start < last; start += NR_TASKLETS) {
        uint32_t carried = 0;
        if (!claim(start, id, buffers[id][carried]))
            continue;
        for (uint32_t at = start;;) {
            uint32_t to = at * rows % last; /* tile (r, c) goes to (c, r) */
            int claimed = claim(to, id, buffers[id][1 - carried]);
            mram_write(buffers[id][carried], &tiles[to * TILE_WORDS], 8 * TILE_WORDS);
            if (!claimed)
                break;
            carried = 1 - carried;
            at = to;
        }
    }
}
#elif defined(WORKLOAD_TRANSPOSE_STEPS)
#define MAX_TILE_VALUES 64
__host uint32_t kernel, tile_rows;
__host uint32_t next_start; /* step 3's next start tile */
__mram_noinit int64_t matrix[MAX_ELEMENTS / 8];
__mram_noinit uint64_t done_bits[MAX_ELEMENTS / 64];
__dma_aligned int64_t data[NR_TASKLETS][MAX_TILE_VALUES], copy[NR_TASKLETS][MAX_TILE_VALUES];
__dma_aligned uint64_t bits[NR_TASKLETS];
MUTEX_INIT(start_lock);
MUTEX_INIT(done_lock);

static void transpose_tiles(uint32_t id) /* step 2: tile_rows x cols -> cols x tile_rows */
{
    uint32_t m = tile_rows, n = cols, values = m * n;
    for (uint32_t tile = id; tile < rows; tile += NR_TASKLETS) {
        mram_read(&matrix[tile * values], data[id], values * 8);
        for (uint32_t i = 0; i < values; i++)
            copy[id][i * m - (values - 1) * (i / n)] = data[id][i];
        mram_write(copy[id], &matrix[tile * values], values * 8);
    }
}

static uint32_t take_start(void)
{
    mutex_lock(start_lock);
    uint32_t tile = next_start++;
    mutex_unlock(start_lock);
    return tile;
}

/* Whether `tile` was moved already; with `set`, marks it moved. */
static int moved(uint32_t tile, uint32_t id, int set)
{
    mutex_lock(done_lock);
    mram_read(&done_bits[tile / 8], &bits[id], 8);
    int was = (int)((bits[id] >> (tile % 8)) & 1);
    if (set) {
        bits[id] |= 1ull << (tile % 8);
        mram_write(&bits[id], &done_bits[tile / 8], 8);
    }
    mutex_unlock(done_lock);
    return was;
}

static void follow_cycles(uint32_t id) /* step 3: tile (r, c) of rows x cols goes to (c, r) */
{
    uint32_t m = tile_rows, last = rows * cols - 1, bytes = m * 8;
    for (uint32_t tile = take_start(); tile < last; tile = take_start()) {
        uint32_t next = tile * rows - last * (tile / cols);
        if (next == tile)
            continue;
        mram_read(&matrix[tile * m], data[id], bytes);
        for (int done = moved(tile, id, 0); !done; next = next * rows - last * (next / cols)) {
            mram_read(&matrix[next * m], copy[id], bytes);
            done = moved(next, id, 1);
            if (!done)
                mram_write(data[id], &matrix[next * m], bytes);
            for (uint32_t i = 0; i < m; i++)
                data[id][i] = copy[id][i];
        }
    }
}

static void run(void)
{
    if (kernel == 0)
        transpose_tiles(me());
    else
        follow_cycles(me());
}
#elif defined(WORKLOAD_EQUAL)
static void run(void)
{
    volatile uint32_t seed = me() + 1;
    uint32_t x = seed;
    for (uint32_t i = 0; i < elements; i++)
        x = (x ^ (x << 7)) + (x >> 3);
    seen[me()] = perfcounter_get();
    result += x;
}
#else
static void run(void)
{
}
#endif

int main(void)
{
    if (me() == 0)
        perfcounter_config(COUNT_CYCLES, true);
    barrier_wait(&start);
    uint64_t begin = perfcounter_get();
    run();
    barrier_wait(&stop);
    if (me() == 0)
        cycles = perfcounter_get() - begin;
    return 0;
}
