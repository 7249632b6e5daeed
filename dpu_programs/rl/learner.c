/* Tabular Q-learning and SARSA from offline transitions, one independent learner per
 * tasklet. The update rules, rounding, generator, layouts and counts are those of
 * rl/reference.py (its module docstring is the specification), bit for bit.
 *
 * Variants, chosen by defines:
 *   -DALGORITHM_SARSA   SARSA (default: Q-learning)
 *   -DFORMAT_INT32      INT32 fixed point: Q15.16 values, Q0.15 coefficients, 32-bit
 *                       integer arithmetic only (default: FP32, float on the DPU)
 *   -DLAYOUT_STRIDE     tasklet t visits chunks t, t + T, t + 2T, ... of CHUNK local
 *                       transitions (default: block, tasklet t visits the contiguous
 *                       range split(n, T, t); the "random" layout is "block" on data the
 *                       host permuted)
 *   -DCHUNK=n           transitions per stride chunk, 1..128 (default 32)
 *   -DBLOCK=n           transitions per DMA in the block layout, 1..128 (default 32;
 *                       1..256 with RECORD8)
 *   -DRECORD8           8-byte records (tables with n_states * n_actions <= 65536 and
 *                       n_states <= 32768): twice as many transitions per DMA
 *   -DN_ACTIONS=n       the table's number of actions fixed at build time (the loops over
 *                       a row unroll); the host variable n_actions must then equal it
 *
 * Host interface (__host variables, all uint32):
 *   n_transitions          this DPU's share (its local transitions)
 *   n_states, n_actions    the table size (n_actions <= 256: a row is one DMA)
 *   epochs                 passes over the share in this launch
 *   segments, segment      each tasklet visits only part `segment` (0-based) of the even
 *                          split of its visit sequence into `segments` parts (the host
 *                          combines after every part; rl/reference.py); 1, 0: all of it
 *   alpha, gamma_          float bits (FP32) or Q0.15 coefficients (INT32)
 *   eps_threshold          SARSA explores when next() < eps_threshold
 *   use_wram               1: copy the tables to WRAM for the launch (the host checks
 *                          that they fit); 0: update them in MRAM
 *   tables_offset          bytes from DPU_MRAM_HEAP_POINTER to tasklet 0's tables (a
 *                          multiple of 8)
 *   reset_tables           1: every tasklet first replaces its table (values and counts)
 *                          with the one table at combined_offset (the host broadcasts a
 *                          combined table there once per DPU instead of once per
 *                          tasklet); 0: tables continue from where they are
 *   combined_offset        bytes from DPU_MRAM_HEAP_POINTER to that table (a multiple of 8)
 *   rng_state[NR_TASKLETS] each learner's xorshift32 state, read at the start of a
 *                          launch and written back at its end
 *   updates[NR_TASKLETS]   out: updates each tasklet made, added up over the launches
 *                          (modulo 2^32; the host checks the total once, at the end)
 *
 * MRAM, from DPU_MRAM_HEAP_POINTER: the share's transitions as 16-byte records
 * (state, action, reward bits, next_state | terminal << 31), or with RECORD8 as 8-byte
 * records (state * n_actions + action | next_state << 16 | terminal << 31, reward bits);
 * then, at tables_offset,
 * one table of n_states * n_actions * 8 bytes per tasklet, row-major, each entry a
 * pair (value: float32 or int32 Q15.16, update count: uint32). Tables persist in MRAM
 * across launches, so the host runs the epochs in as many launches as it likes and
 * combines in between. Update counts saturate at 2^32 - 1 (they never wrap). In MRAM an update costs three DMAs: the row of the state (which
 * also holds the entry's count), the row of the next state, and one 8-byte write.
 */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#include "fixed_point.h" /* mul_q15, sat_add, sat_sub, float_of_bits */

#ifndef CHUNK
#define CHUNK 32
#endif
#if CHUNK < 1 || CHUNK > 128
#error "CHUNK must be in 1..128 transitions (one DMA of at most 2048 bytes)"
#endif
#ifndef BLOCK
#define BLOCK 32
#endif
#ifdef RECORD8
#if BLOCK < 1 || BLOCK > 256
#error "BLOCK must be in 1..256 transitions of 8 bytes (one DMA of at most 2048 bytes)"
#endif
#elif BLOCK < 1 || BLOCK > 128
#error "BLOCK must be in 1..128 transitions (one DMA of at most 2048 bytes)"
#endif

#ifdef LAYOUT_STRIDE
#define BUFFER CHUNK
#else
#define BUFFER BLOCK
#endif

#define TERMINAL 0x80000000u
#define DMA_MAX 2048u

#ifdef FORMAT_INT32
typedef int32_t value_t;
#else
typedef float value_t;
#endif

#ifdef RECORD8
struct transition {
    uint32_t key;    /* state * n_actions + action | next state << 16 | TERMINAL */
    uint32_t reward; /* float bits (FP32) or Q15.16 (INT32) */
};
#else
struct transition {
    uint32_t state;
    uint32_t action;
    uint32_t reward; /* float bits (FP32) or Q15.16 (INT32) */
    uint32_t next;   /* next state | TERMINAL */
};
#endif

__host uint32_t n_transitions;
__host uint32_t n_states;
__host uint32_t n_actions;
__host uint32_t epochs;
__host uint32_t segments = 1;
__host uint32_t segment;
__host uint32_t alpha;
__host uint32_t gamma_;
__host uint32_t eps_threshold;
__host uint32_t use_wram;
__host uint32_t tables_offset;
__host uint32_t reset_tables;
__host uint32_t combined_offset;
__host uint32_t rng_state[NR_TASKLETS];
__host uint32_t updates[NR_TASKLETS];

BARRIER_INIT(start, NR_TASKLETS);

static inline uint32_t next_random(uint32_t *x)
{
    uint32_t v = *x;
    v ^= v << 13;
    v ^= v >> 17;
    v ^= v << 5;
    *x = v;
    return v;
}

/* One entry of a learner's table: its value and its update count, side by side, so
 * that one 8-byte DMA writes both and a row is one aligned DMA of 8 * n_actions bytes. */
struct entry {
    value_t q;
    uint32_t n;
};

/* One learner: its table in WRAM (a pointer) or in MRAM (an address + a DMA window). */
struct learner {
    struct entry *wram_table;
    uintptr_t mram_table;
    struct entry *window; /* WRAM scratch of one row, 8 * n_actions bytes */
    uint32_t rng;
    uint32_t n_actions;
    uint32_t eps;        /* eps_threshold, alpha and gamma_ held here, not re-read from */
    value_t alpha, gamma; /* the __host variables at every update */
};

/* The row of state s: a pointer into WRAM, or read from MRAM into the window. */
static inline __attribute__((always_inline)) const struct entry *
row_of(struct learner *l, uint32_t s, const int wram)
{
    if (wram)
        return l->wram_table + s * l->n_actions;
    mram_read((__mram_ptr void *)(l->mram_table + (uintptr_t)s * l->n_actions * 8), l->window,
              l->n_actions * 8);
    return l->window;
}

/* One update (reference.py: all reads precede the write). */
static inline __attribute__((always_inline)) void
learn(struct learner *l, const struct transition *tr, const int wram)
{
    const uint32_t n_a = l->n_actions;
#ifdef RECORD8
    const uint32_t index = tr->key & 0xFFFFu, next = (tr->key >> 16) & 0x7FFFu;
    const uint32_t terminal = tr->key & TERMINAL;
#else
    const uint32_t index = tr->state * n_a + tr->action, next = tr->next & ~TERMINAL;
    const uint32_t terminal = tr->next & TERMINAL;
#endif
    struct entry current;
    if (wram) {
        current = l->wram_table[index];
    } else {
        const uint32_t s = index / n_a;
        current = row_of(l, s, 0)[index - s * n_a];
    }
    const value_t q = current.q;
#ifdef FORMAT_INT32
    const int32_t r = (int32_t)tr->reward;
#else
    const float r = float_of_bits(tr->reward);
#endif
    value_t target = r;
    if (!terminal) {
        const struct entry *row = row_of(l, next, wram);
        value_t b;
#ifdef ALGORITHM_SARSA
        uint32_t chosen = 0;
        if (next_random(&l->rng) < l->eps) {
            chosen = next_random(&l->rng) % n_a;
        } else {
            value_t best = row[0].q;
            for (uint32_t j = 1; j < n_a; j++)
                if (row[j].q > best) {
                    best = row[j].q;
                    chosen = j;
                }
        }
        b = row[chosen].q;
#else
        b = row[0].q;
        for (uint32_t j = 1; j < n_a; j++)
            if (row[j].q > b)
                b = row[j].q;
#endif
#ifdef FORMAT_INT32
        target = sat_add(r, mul_q15(b, l->gamma));
#else
        const float discounted = l->gamma * b;
        target = r + discounted;
#endif
    }
#ifdef FORMAT_INT32
    const value_t updated = sat_add(q, mul_q15(sat_sub(target, q), l->alpha));
#else
    const float difference = target - q;
    const float step = l->alpha * difference;
    const value_t updated = q + step;
#endif
    const uint32_t count = current.n + (current.n != 0xFFFFFFFFu); /* saturating */
    if (wram) {
        l->wram_table[index].q = updated;
        l->wram_table[index].n = count;
    } else {
        l->window[0].q = updated;
        l->window[0].n = count;
        mram_write(l->window, (__mram_ptr void *)(l->mram_table + (uintptr_t)index * 8), 8);
    }
}

/* One epoch (or one segment of it) over this tasklet's transitions; returns the number
 * of updates. Positions 0 .. m - 1 number the tasklet's visit sequence; the segment is
 * positions split(m, segments, segment). */
static inline __attribute__((always_inline)) uint32_t
epoch(struct learner *l, struct transition *buffer, uintptr_t data, const int wram)
{
    const uint32_t id = me();
#ifdef LAYOUT_STRIDE
    const uint32_t nr_chunks = (n_transitions + CHUNK - 1) / CHUNK;
    uint32_t m = 0;
    if (id < nr_chunks) {
        m = (nr_chunks - id + NR_TASKLETS - 1) / NR_TASKLETS * CHUNK;
        if ((nr_chunks - 1) % NR_TASKLETS == id) /* the short last chunk is ours */
            m -= nr_chunks * CHUNK - n_transitions;
    }
#else
    const uint32_t share = n_transitions / NR_TASKLETS, extra = n_transitions % NR_TASKLETS;
    const uint32_t begin = id * share + (id < extra ? id : extra);
    const uint32_t m = share + (id < extra ? 1 : 0);
#endif
    const uint32_t part = m / segments, rest = m % segments;
    const uint32_t lo = segment * part + (segment < rest ? segment : rest);
    const uint32_t hi = lo + part + (segment < rest ? 1 : 0);
    for (uint32_t p = lo; p < hi;) {
#ifdef LAYOUT_STRIDE
        const uint32_t offset = p % CHUNK;
        const uint32_t first = (id + p / CHUNK * NR_TASKLETS) * CHUNK + offset;
        const uint32_t n = hi - p < CHUNK - offset ? hi - p : CHUNK - offset;
#else
        const uint32_t first = begin + p;
        const uint32_t n = hi - p < BLOCK ? hi - p : BLOCK;
#endif
        mram_read((__mram_ptr void *)(data + (uintptr_t)first * sizeof(struct transition)),
                  buffer, n * sizeof(struct transition));
        for (uint32_t i = 0; i < n; i++)
            learn(l, &buffer[i], wram);
        p += n;
    }
    return hi - lo;
}

/* Moves bytes between MRAM and WRAM in DMAs of at most 2048 bytes (8-aligned sizes). */
static void copy(void *wram, uintptr_t mram, uint32_t bytes, int to_wram)
{
    for (uint32_t done = 0; done < bytes; done += DMA_MAX) {
        uint32_t size = bytes - done < DMA_MAX ? bytes - done : DMA_MAX;
        if (to_wram)
            mram_read((__mram_ptr void *)(mram + done), (char *)wram + done, size);
        else
            mram_write((char *)wram + done, (__mram_ptr void *)(mram + done), size);
    }
}

/* Copies bytes from MRAM to MRAM through a WRAM buffer of `size` bytes (a multiple of 8). */
static void mram_copy(uintptr_t to, uintptr_t from, uint32_t bytes, void *buffer, uint32_t size)
{
    for (uint32_t done = 0; done < bytes; done += size) {
        uint32_t n = bytes - done < size ? bytes - done : size;
        mram_read((__mram_ptr void *)(from + done), buffer, n);
        mram_write(buffer, (__mram_ptr void *)(to + done), n);
    }
}

int main(void)
{
    const uint32_t id = me();
    if (id == 0)
        mem_reset();
    barrier_wait(&start);

    const uint32_t table_bytes = n_states * n_actions * 8;
    const uintptr_t heap = (uintptr_t)DPU_MRAM_HEAP_POINTER;
    struct learner l;
#ifdef N_ACTIONS
    l.n_actions = N_ACTIONS;
#else
    l.n_actions = n_actions;
#endif
    l.mram_table = heap + tables_offset + (uintptr_t)id * table_bytes;
    l.window = mem_alloc(n_actions * 8);
    l.rng = rng_state[id];
    l.eps = eps_threshold;
#ifdef FORMAT_INT32
    l.alpha = (int32_t)alpha;
    l.gamma = (int32_t)gamma_;
#else
    l.alpha = float_of_bits(alpha);
    l.gamma = float_of_bits(gamma_);
#endif
    struct transition *buffer = mem_alloc(BUFFER * sizeof(struct transition));
    uint32_t count = 0;

    const uintptr_t combined = heap + combined_offset;
    if (use_wram) {
        l.wram_table = mem_alloc(table_bytes);
        copy(l.wram_table, reset_tables ? combined : l.mram_table, table_bytes, 1);
        for (uint32_t e = 0; e < epochs; e++)
            count += epoch(&l, buffer, heap, 1);
        copy(l.wram_table, l.mram_table, table_bytes, 0);
    } else {
        l.wram_table = 0;
        if (reset_tables)
            mram_copy(l.mram_table, combined, table_bytes, buffer,
                      BUFFER * sizeof(struct transition));
        for (uint32_t e = 0; e < epochs; e++)
            count += epoch(&l, buffer, heap, 0);
    }
    rng_state[id] = l.rng;
    updates[id] += count;
    return 0;
}
