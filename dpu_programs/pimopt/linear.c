/* Linear models (logistic regression, linear SVM) trained with mini-batch SGD on one DPU:
 * one launch is one step of GA-SGD, MA-SGD or ADMM for this DPU. The arithmetic, the
 * orders of every sum and the Q-formats are those of pimopt/reference.py (its module
 * docstring is the specification), bit for bit.
 *
 * Variants, chosen by defines:
 *   -DFORMAT_INT32   INT32 fixed point, 32-bit integer arithmetic only (default: FP32):
 *                    features Q3.12 (|raw| <= 32767), weights, z, u, errors and steps
 *                    Q15.16, dot products and gradient sums Q18.13, coefficients a
 *                    Q0.15 value c with a right shift s (x * c / 2^(15 + s))
 *   -DMODEL_SVM      linear SVM, hinge loss (default: logistic regression); labels are
 *                    -1/+1 for the SVM, 0/1 for logistic regression
 *
 * Host interface (__host variables, all 32-bit):
 *   n_samples        this DPU's samples
 *   n_features       F, the padded feature count (even: rows are 8-byte multiples)
 *   mode             0 gradient (GA-SGD: the sum of the step's gradients into OUT),
 *                    1 local SGD (MA-SGD), 2 ADMM (local SGD on the augmented Lagrangian)
 *   batch            samples per local mini-batch step
 *   first_step       index within the epoch of this launch's first step: step k takes the
 *                    local samples [k * batch, min((k + 1) * batch, n_samples))
 *   nr_steps         steps in this launch (mode 0: always 1)
 *   update_u         ADMM: first u += w - z (z the host's consensus)
 *   use_wram         1: the vectors live in WRAM for the launch; 0: in MRAM
 *   lr, lam, rho     FP32: float bits; INT32: Q0.15 coefficients, with lr_shift ...
 *   labels_offset    bytes from DPU_MRAM_HEAP_POINTER to the labels (int32)
 *   vectors_offset   bytes from DPU_MRAM_HEAP_POINTER to the vectors W, Z, U, OUT, then
 *                    one gradient accumulator per tasklet, F values each
 *   sigmoid_table    SIG_POINTS values of the sigmoid at -8, -7.75, ..., 8 (float bits or
 *                    Q15.16), interpolated linearly (logistic regression)
 *
 * MRAM, from DPU_MRAM_HEAP_POINTER: the samples, row-major, F values each (float or Q3.12),
 * tasklet by tasklet: first every sample tasklet 0 takes in the steps of an epoch, in
 * step order, then tasklet 1's ... (pimopt/kernel.py, sample_order: the host reorders
 * each DPU's share so), so that a tasklet's samples over consecutive steps are
 * consecutive rows; the labels at labels_offset, in the same order; the vectors at
 * vectors_offset. OUT holds, after a launch,
 * the gradient sum (mode 0), the model w (mode 1) or w + u (mode 2).
 *
 * Tasklets split each step's samples in contiguous ranges; every tasklet sums its
 * samples' gradients in order into its own accumulator; then tasklet t reduces chunks
 * t, t + T, ... of the accumulators in tasklet order (0, 1, ..., T - 1) and updates those
 * chunks of the model. Every sum has a fixed order, so results are reproducible.
 *
 * Fetching: a tasklet reads its samples in blocks of consecutive rows, one DMA of up to
 * BLOCK_BYTES (2,048 bytes, the largest DMA), and their labels in blocks of up to
 * LABEL_BLOCK, when a row fits the block buffer (the four chunk buffers, contiguous, when
 * the vectors live in WRAM, where the reductions and updates need no buffer; the x
 * buffer alone otherwise); longer rows are read chunk by chunk. Blocks span steps (the
 * sample order above), so with one or a few samples a tasklet a step, one DMA serves
 * several steps: each DMA is a switch point of the emulator and costs DMA time on a DPU.
 * Only the fetching changes with the block: every value enters the same operations in
 * the same order.
 */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#include "fixed_point.h" /* mul_q15_near_one, sat_add, sat_sub, mul_scaled, float_of_bits */

#define CH 128 /* features per chunk: one DMA of 512 bytes */
#define BLOCK_BYTES 2048 /* the buffers x, b1, b2, b3 together: the largest DMA */
#define BLOCK_ROWS 32    /* at most this many rows in one block */
#define LABEL_BLOCK 32   /* labels per DMA (from an even row: 8-byte aligned) */
#define SIG_POINTS 65
#define MODE_GRADIENT 0
#define MODE_LOCAL 1
#define MODE_ADMM 2
#define VW 0
#define VZ 1
#define VU 2
#define VOUT 3
#define VACC 4

#ifdef FORMAT_INT32
typedef int32_t val_t;
#else
typedef float val_t;
#endif
_Static_assert(4 * CH * sizeof(val_t) == BLOCK_BYTES, "the four buffers make one block");

__host uint32_t n_samples;
__host uint32_t n_features;
__host uint32_t mode;
__host uint32_t batch;
__host uint32_t first_step;
__host uint32_t nr_steps;
__host uint32_t update_u;
__host uint32_t use_wram;
__host uint32_t lr, lr_shift, lam, lam_shift, rho, rho_shift;
__host uint32_t labels_offset;
__host uint32_t vectors_offset;
__host val_t sigmoid_table[SIG_POINTS + 1];

BARRIER_INIT(sync_all, NR_TASKLETS);

static val_t *wram_vectors; /* (4 + NR_TASKLETS) * F values in WRAM when use_wram */

static inline uintptr_t heap(void)
{
    return (uintptr_t)DPU_MRAM_HEAP_POINTER;
}

static inline uintptr_t vector_address(uint32_t id, uint32_t c)
{
    return heap() + vectors_offset + ((uintptr_t)id * n_features + c * CH) * sizeof(val_t);
}

/* Chunk c (n values) of vector id: a pointer into WRAM, or read from MRAM into buf. */
static inline val_t *get(uint32_t id, uint32_t c, val_t *buf, uint32_t n)
{
    if (use_wram)
        return wram_vectors + id * n_features + c * CH;
    mram_read((__mram_ptr void *)vector_address(id, c), buf, n * sizeof(val_t));
    return buf;
}

/* Writes chunk c back (MRAM placement only; in WRAM p already is the vector). */
static inline void put(uint32_t id, uint32_t c, val_t *p, uint32_t n)
{
    if (!use_wram)
        mram_write(p, (__mram_ptr void *)vector_address(id, c), n * sizeof(val_t));
}

static inline uint32_t chunk_len(uint32_t c)
{
    return n_features - c * CH < CH ? n_features - c * CH : CH;
}

/* The loss's derivative in the dot product (the error), for one sample. */
#ifdef FORMAT_INT32
static inline int32_t error_of(int32_t dot, int32_t y)
{
#ifdef MODEL_SVM
    const int inside = y > 0 ? dot < (1 << 13) : dot > -(1 << 13);
    return inside ? -y * 65536 : 0;
#else
    int32_t p;
    if (dot <= -(8 << 13)) {
        p = sigmoid_table[0];
    } else if (dot >= (8 << 13)) {
        p = sigmoid_table[SIG_POINTS - 1];
    } else {
        const int32_t t = dot + (8 << 13);
        const int32_t k = t >> 11, f = t & 2047;
        p = sigmoid_table[k] + (((sigmoid_table[k + 1] - sigmoid_table[k]) * f) >> 11);
    }
    return p - y * 65536;
#endif
}
#else
static inline float error_of(float dot, int32_t y)
{
    const float yf = (float)y;
#ifdef MODEL_SVM
    const float margin = yf * dot;
    return margin < 1.0f ? -yf : 0.0f;
#else
    float p;
    if (dot <= -8.0f) {
        p = sigmoid_table[0];
    } else if (dot >= 8.0f) {
        p = sigmoid_table[SIG_POINTS - 1];
    } else {
        const float shifted = dot + 8.0f;
        const float t = shifted * 4.0f;
        int32_t k = (int32_t)t;
        if (k > SIG_POINTS - 2)
            k = SIG_POINTS - 2;
        const float f = t - (float)k;
        const float rise = sigmoid_table[k + 1] - sigmoid_table[k];
        const float part = f * rise;
        p = sigmoid_table[k] + part;
    }
    return p - yf;
#endif
}
#endif

struct buffers {
    val_t *x, *b1, *b2, *b3;
};

/* Rows of one block: as many consecutive rows as the block buffer holds (BLOCK_BYTES with
 * the vectors in WRAM, one chunk buffer in MRAM placement), at most BLOCK_ROWS; 0 when a
 * row does not fit (then it is read chunk by chunk). */
static inline uint32_t rows_per_block(void)
{
    const uint32_t room = use_wram ? BLOCK_BYTES : CH * sizeof(val_t);
    const uint32_t rows = room / (n_features * sizeof(val_t));
    return rows < BLOCK_ROWS ? rows : BLOCK_ROWS;
}

/* Where tasklet me() starts in a step of `count` samples, and how many it takes: the
 * contiguous split of the step over the tasklets, the first count % T one more. */
static inline uint32_t part_start(uint32_t count, uint32_t id)
{
    const uint32_t share = count / NR_TASKLETS, extra = count % NR_TASKLETS;
    return id * share + (id < extra ? id : extra);
}
static inline uint32_t part_len(uint32_t count, uint32_t id)
{
    return count / NR_TASKLETS + (id < count % NR_TASKLETS ? 1 : 0);
}

/* The MRAM row (in the host's sample order) of tasklet id's first sample of step k: the
 * rows of the tasklets before it in an epoch, then its own of steps 0 .. k - 1. Every
 * step but the last with samples holds `batch`; the last `n_samples % batch`. */
static uint32_t tasklet_row(uint32_t id, uint32_t k)
{
    const uint32_t full = n_samples / batch, rest = n_samples % batch;
    const uint32_t done = k < full ? k : full;
    return full * part_start(batch, id) + part_start(rest, id) + done * part_len(batch, id) +
           (k > full ? part_len(rest, id) : 0);
}

/* A tasklet's samples of one launch, consecutive rows [next, end), and the blocks of
 * rows and labels it holds (kept across the steps). */
struct stream {
    uint32_t next, end;
    uint32_t rows_first, rows_count;     /* rows in the block buffer */
    uint32_t labels_first, labels_count; /* labels in lab */
    int32_t lab[LABEL_BLOCK + 2] __attribute__((aligned(8)));
};

/* A chunk of this tasklet's accumulator to overwrite: in WRAM, or buf for MRAM. */
static inline val_t *acc_slot(uint32_t c, val_t *buf)
{
    return use_wram ? wram_vectors + (VACC + me()) * n_features + c * CH : buf;
}

/* Adds the gradient of one sample (label y) to this tasklet's accumulator, or, for its
 * first sample of the step, sets the accumulator to 0 + that gradient (the same
 * operations as zeroing it first, without the pass): its row in WRAM at xr (a block),
 * or, with xr null, read chunk by chunk from MRAM at row. */
static void add_sample(const val_t *xr, uintptr_t row, int32_t y, int first,
                       const struct buffers *bf)
{
    const uint32_t id = me(), nch = (n_features + CH - 1) / CH;
    val_t dot = 0;
    for (uint32_t c = 0; c < nch; c++) {
        const uint32_t n = chunk_len(c);
        const val_t *x = xr ? xr + c * CH : bf->x;
        if (!xr)
            mram_read((__mram_ptr void *)(row + c * CH * sizeof(val_t)), bf->x,
                      n * sizeof(val_t));
        const val_t *w = get(VW, c, bf->b1, n);
        for (uint32_t j = 0; j < n; j++) {
#ifdef FORMAT_INT32
            dot = sat_add(dot, mul_q15_near_one(w[j], x[j]));
#else
            const float p = w[j] * x[j];
            dot = dot + p;
#endif
        }
    }
    const val_t g = error_of(dot, y);
    for (uint32_t c = 0; c < nch; c++) {
        const uint32_t n = chunk_len(c);
        const val_t *x = xr ? xr + c * CH : bf->x;
        if (!xr && nch > 1)
            mram_read((__mram_ptr void *)(row + c * CH * sizeof(val_t)), bf->x,
                      n * sizeof(val_t));
        val_t *a = first ? acc_slot(c, bf->b2) : get(VACC + id, c, bf->b2, n);
        if (first) {
            for (uint32_t j = 0; j < n; j++) {
#ifdef FORMAT_INT32
                a[j] = mul_q15_near_one(g, x[j]); /* sat_add(0, v) is v */
#else
                const float zero = 0.0f, p = g * x[j];
                a[j] = zero + p; /* not p: 0 + -0 is +0 */
#endif
            }
        } else {
            for (uint32_t j = 0; j < n; j++) {
#ifdef FORMAT_INT32
                a[j] = sat_add(a[j], mul_q15_near_one(g, x[j]));
#else
                const float p = g * x[j];
                a[j] = a[j] + p;
#endif
            }
        }
        put(VACC + id, c, a, n);
    }
}

/* Adds the gradients of this tasklet's next m samples of st to its accumulator (zeroes
 * it when m is 0), reading rows into block (per rows at a time; 0: chunk by chunk). */
static void accumulate(struct stream *st, uint32_t m, const struct buffers *bf, val_t *block,
                       uint32_t per)
{
    const uint32_t id = me(), nch = (n_features + CH - 1) / CH;
    const uintptr_t labels = heap() + labels_offset;
    const uint32_t row_bytes = n_features * sizeof(val_t);
    if (m == 0) {
        for (uint32_t c = 0; c < nch; c++) { /* zero the accumulator */
            const uint32_t n = chunk_len(c);
            val_t *a = acc_slot(c, bf->b2);
            for (uint32_t j = 0; j < n; j++)
                a[j] = 0;
            put(VACC + id, c, a, n);
        }
        return;
    }
    for (uint32_t r = 0; r < m; r++) {
        const uint32_t i = st->next++;
        if (i - st->labels_first >= st->labels_count) { /* unsigned: also i < first */
            const uint32_t first = i & ~1u;
            const uint32_t stop = first + LABEL_BLOCK < st->end ? first + LABEL_BLOCK : st->end;
            const uint32_t last = (stop + 1) & ~1u; /* labels, even bounds */
            mram_read((__mram_ptr void *)(labels + (uintptr_t)first * 4), st->lab,
                      (last - first) * 4);
            st->labels_first = first;
            st->labels_count = last - first;
        }
        const uintptr_t row = heap() + (uintptr_t)i * row_bytes;
        const val_t *xr = 0;
        if (per) {
            if (i - st->rows_first >= st->rows_count) {
                const uint32_t k = st->end - i < per ? st->end - i : per;
                mram_read((__mram_ptr void *)row, block, k * row_bytes);
                st->rows_first = i;
                st->rows_count = k;
            }
            xr = block + (i - st->rows_first) * n_features;
        }
        add_sample(xr, row, st->lab[i - st->labels_first], r == 0, bf);
    }
}

/* Chunk c of the tasklets' accumulators summed in tasklet order, into sum (the OUT vector
 * in WRAM placement, bf->b1 in MRAM placement). */
static void reduce(uint32_t c, uint32_t n, val_t *sum, const struct buffers *bf)
{
    const val_t *a0 = get(VACC, c, bf->b2, n);
    for (uint32_t j = 0; j < n; j++)
        sum[j] = a0[j];
    for (uint32_t t = 1; t < NR_TASKLETS; t++) {
        const val_t *a = get(VACC + t, c, bf->b2, n);
        for (uint32_t j = 0; j < n; j++) {
#ifdef FORMAT_INT32
            sum[j] = sat_add(sum[j], a[j]);
#else
            sum[j] = sum[j] + a[j];
#endif
        }
    }
}

/* One SGD step on chunk c of the model from the gradient sum in sum over count samples. */
static void update(uint32_t c, uint32_t n, uint32_t count, const val_t *sum,
                   const struct buffers *bf)
{
    val_t *w = get(VW, c, bf->b2, n);
    const val_t *z = 0, *u = 0;
    if (mode == MODE_ADMM) {
        z = get(VZ, c, bf->b3, n);
        u = get(VU, c, bf->x, n);
    }
#ifdef FORMAT_INT32
    for (uint32_t j = 0; j < n; j++) {
        const int32_t mean = sum[j] / (int32_t)count * 8;
        int32_t g = sat_add(mean, mul_scaled(w[j], lam, lam_shift));
        if (mode == MODE_ADMM)
            g = sat_add(g, mul_scaled(sat_add(sat_sub(w[j], z[j]), u[j]), rho, rho_shift));
        w[j] = sat_sub(w[j], mul_scaled(g, lr, lr_shift));
    }
#else
    const float inv = 1.0f / (float)count;
    const float lr_f = float_of_bits(lr), lam_f = float_of_bits(lam), rho_f = float_of_bits(rho);
    for (uint32_t j = 0; j < n; j++) {
        const float mean = sum[j] * inv;
        const float decay = lam_f * w[j];
        float g = mean + decay;
        if (mode == MODE_ADMM) {
            const float d = w[j] - z[j];
            const float e = d + u[j];
            const float pull = rho_f * e;
            g = g + pull;
        }
        const float step = lr_f * g;
        w[j] = w[j] - step;
    }
#endif
    put(VW, c, w, n);
}

/* Copies vector id between MRAM and its WRAM copy, chunks c = me(), me() + T, ... */
static void copy_vector(uint32_t id, int to_wram)
{
    const uint32_t nch = (n_features + CH - 1) / CH;
    for (uint32_t c = me(); c < nch; c += NR_TASKLETS) {
        const uint32_t n = chunk_len(c);
        val_t *p = wram_vectors + id * n_features + c * CH;
        if (to_wram)
            mram_read((__mram_ptr void *)vector_address(id, c), p, n * sizeof(val_t));
        else
            mram_write(p, (__mram_ptr void *)vector_address(id, c), n * sizeof(val_t));
    }
}

int main(void)
{
    const uint32_t id = me();
    if (id == 0) {
        mem_reset();
        wram_vectors =
            use_wram ? mem_alloc((VACC + NR_TASKLETS) * n_features * sizeof(val_t)) : 0;
    }
    barrier_wait(&sync_all);
    val_t *space = mem_alloc(BLOCK_BYTES); /* x, b1, b2, b3: contiguous, one block */
    struct buffers bf = {space, space + CH, space + 2 * CH, space + 3 * CH};
    const uint32_t nch = (n_features + CH - 1) / CH;
    if (use_wram) {
        copy_vector(VW, 1);
        if (mode == MODE_ADMM) {
            copy_vector(VZ, 1);
            copy_vector(VU, 1);
        }
        barrier_wait(&sync_all);
    }
    if (mode == MODE_ADMM && update_u) { /* u += w - z, chunk by chunk */
        for (uint32_t c = id; c < nch; c += NR_TASKLETS) {
            const uint32_t n = chunk_len(c);
            const val_t *w = get(VW, c, bf.b1, n);
            const val_t *z = get(VZ, c, bf.b2, n);
            val_t *u = get(VU, c, bf.b3, n);
            for (uint32_t j = 0; j < n; j++) {
#ifdef FORMAT_INT32
                u[j] = sat_add(u[j], sat_sub(w[j], z[j]));
#else
                const float d = w[j] - z[j];
                u[j] = u[j] + d;
#endif
            }
            put(VU, c, u, n);
        }
        barrier_wait(&sync_all);
    }
    struct stream st = {.next = tasklet_row(id, first_step),
                        .end = tasklet_row(id, first_step + nr_steps)};
    val_t *block = use_wram ? space : bf.x;
    const uint32_t per = rows_per_block();
    for (uint32_t s = 0; s < nr_steps; s++) {
        const uint32_t lo = (first_step + s) * batch;
        const uint32_t hi = lo + batch < n_samples ? lo + batch : n_samples;
        const uint32_t count = lo < n_samples ? hi - lo : 0;
        if (!use_wram)
            st.rows_count = 0; /* x is the updates' scratch in MRAM placement */
        accumulate(&st, part_len(count, id), &bf, block, per);
        barrier_wait(&sync_all);
        for (uint32_t c = id; c < nch; c += NR_TASKLETS) {
            const uint32_t n = chunk_len(c);
            val_t *sum = use_wram ? wram_vectors + VOUT * n_features + c * CH : bf.b1;
            reduce(c, n, sum, &bf);
            if (mode == MODE_GRADIENT)
                put(VOUT, c, sum, n);
            else if (count)
                update(c, n, count, sum, &bf);
        }
        barrier_wait(&sync_all);
    }
    if (mode != MODE_GRADIENT) { /* OUT = w (MA-SGD) or w + u (ADMM) */
        for (uint32_t c = id; c < nch; c += NR_TASKLETS) {
            const uint32_t n = chunk_len(c);
            const val_t *w = get(VW, c, bf.b1, n);
            const val_t *u = mode == MODE_ADMM ? get(VU, c, bf.b2, n) : 0;
            val_t *out = get(VOUT, c, bf.b3, n);
            for (uint32_t j = 0; j < n; j++) {
#ifdef FORMAT_INT32
                out[j] = u ? sat_add(w[j], u[j]) : w[j];
#else
                out[j] = u ? w[j] + u[j] : w[j];
#endif
            }
            put(VOUT, c, out, n);
        }
    }
    if (use_wram) {
        barrier_wait(&sync_all);
        copy_vector(VOUT, 0);
        if (mode != MODE_GRADIENT)
            copy_vector(VW, 0);
        if (mode == MODE_ADMM)
            copy_vector(VU, 0);
    }
    return 0;
}
