/* The SDK's DPU headers that the emulator adds (buddy_alloc.h, fsb_allocator.h,
 * profiling.h, dpu_characteristics.h, dpuconst.h, dpufault.h, dpuruntime.h, macro_utils.h,
 * memmram_utils.h, soft_cache.h), one `mode` per part; each result is a number in
 * `results` that test_emu_sdk_headers.py checks. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <alloc.h>
#include <barrier.h>
#include <buddy_alloc.h>
#include <defs.h>
#include <dpu_characteristics.h>
#include <dpuconst.h>
#include <dpufault.h>
#include <dpuruntime.h>
#include <fsb_allocator.h>
#include <memmram_utils.h>
#include <mram.h>
#include <perfcounter.h>
#include <profiling.h>
#include <soft_cache.h>
#include <wramfifo.h>
#include <macro_utils.h> /* last: glibc's headers have a __CONCAT of their own */

#define NR_RESULTS 32
__host uint32_t mode;
__host uint32_t results[NR_RESULTS];
__host uint32_t per_tasklet[NR_TASKLETS];

BARRIER_INIT(everyone, NR_TASKLETS);
PROFILING_INIT(section);

static uint32_t diff(const void *a, const void *b)
{
    return (uint32_t)((const char *)a - (const char *)b);
}

static void buddy(void)
{
    uint32_t *r = results;
    errno = 0;
    r[0] = buddy_alloc(16) == NULL && errno == EINVAL; /* before buddy_init */
    buddy_init(4096);
    buddy_init(8192); /* ignored: the first call chose the heap */
    char *a = buddy_alloc(33), *b = buddy_alloc(33);
    r[1] = diff(b, a); /* two 64-byte blocks */
    r[2] = (uintptr_t)a % 8 == 0 && (uintptr_t)b % 8 == 0;
    char *c = buddy_alloc(1), *d = buddy_alloc(16);
    r[3] = diff(d, c); /* 16-byte blocks at least */
    buddy_free(a + 24); /* any address inside the block frees it */
    r[4] = buddy_alloc(64) == a;
    errno = 0;
    buddy_free(d + 16); /* a free block */
    r[5] = errno == EINVAL;
    errno = 0;
    buddy_free(d + 3); /* not 8-aligned */
    r[5] += errno == EINVAL;
    errno = 0;
    r[6] = buddy_alloc(0) == NULL && errno == EINVAL;
    errno = 0;
    r[7] = buddy_alloc(4097) == NULL && errno == EINVAL;
    errno = 0;
    r[8] = buddy_alloc(4096) == NULL && errno == ENOMEM;
    for (int i = 0; i < 64; i++)
        b[i] = (char)i;
    char *grown = buddy_realloc(b, 200);
    int kept = grown != NULL && grown != b;
    for (int i = 0; kept && i < 64; i++)
        kept = grown[i] == (char)i;
    r[9] = kept;
    r[10] = buddy_realloc(grown, 100) == grown; /* shrinks in place */
    char *x = buddy_realloc(NULL, 16);
    r[11] = x != NULL;
    r[12] = buddy_realloc(x, 0) == x; /* frees x, returns it */
    errno = 0;
    buddy_free(x);
    r[13] = errno == EINVAL; /* already free */
    buddy_reset();
    char *whole = buddy_alloc(4096);
    r[14] = whole != NULL;
    buddy_free(whole);
    static char *blocks[256];
    uint32_t got = 0;
    while (got < 256 && (blocks[got] = buddy_alloc(16)) != NULL)
        got++;
    r[15] = got;
    errno = 0;
    r[16] = buddy_alloc(16) == NULL && errno == ENOMEM;
    for (uint32_t i = 0; i < got; i += 2) /* every other block, then the rest */
        buddy_free(blocks[i]);
    errno = 0;
    r[17] = buddy_alloc(32) == NULL && errno == ENOMEM; /* no two free buddies yet */
    for (uint32_t i = 1; i < got; i += 2)
        buddy_free(blocks[i]);
    r[18] = buddy_alloc(4096) == blocks[0]; /* merged back into the whole heap */
    errno = 0;
    r[19] = buddy_alloc(8192) == NULL && errno == EINVAL; /* the heap is still 4096 */
}

static fsb_allocator_t shared;
static void *taken[NR_TASKLETS][10];

static void fsb(void)
{
    uint32_t *r = results;
    if (me() == 0) {
        fsb_allocator_t allocator = fsb_alloc(12, 5); /* 16-byte blocks */
        char *block[6];
        for (int i = 0; i < 6; i++)
            block[i] = fsb_get(allocator);
        r[0] = block[0] && block[1] && block[2] && block[3] && block[4];
        r[1] = block[5] == NULL;
        r[2] = diff(block[1], block[0]);
        r[3] = 1;
        for (int i = 0; i < 5; i++)
            r[3] &= (uintptr_t)block[i] % 8 == 0;
        fsb_free(allocator, block[2]);
        fsb_free(allocator, block[4]);
        r[4] = fsb_get(allocator) == block[4] && fsb_get(allocator) == block[2];
        fsb_allocator_t small = fsb_alloc(0, 2); /* 8-byte blocks */
        char *first = fsb_get(small), *second = fsb_get(small);
        r[5] = diff(second, first);
        char *before = mem_alloc(8);
        fsb_alloc(24, 3);
        char *after = mem_alloc(8);
        r[6] = diff(after, before); /* 8 + the blocks and the free-list head, rounded to 8 */
        shared = fsb_alloc(8, 10);
    }
    barrier_wait(&everyone);
    uint32_t mine = 0;
    void *block;
    while ((block = fsb_get(shared)) != NULL)
        taken[me()][mine++] = block;
    per_tasklet[me()] = mine;
    barrier_wait(&everyone);
    if (me() == 0) {
        uint32_t total = 0, distinct = 1;
        for (int t = 0; t < NR_TASKLETS; t++)
            for (uint32_t i = 0; i < per_tasklet[t]; i++, total++)
                for (int u = 0; u < NR_TASKLETS; u++)
                    for (uint32_t j = 0; j < per_tasklet[u]; j++)
                        distinct &= (t == u && i == j) || taken[t][i] != taken[u][j];
        r[7] = total;
        r[8] = distinct;
    }
}

static void busy(uint32_t rounds)
{
    volatile uint32_t sink = 0;
    for (uint32_t i = 0; i < rounds; i++)
        sink += i * i;
}

static void profile(void)
{
    profiling_start(&section);
    busy(20000);
    profiling_stop(&section);
    uint32_t once = section.count[me()];
    profiling_start(&section);
    busy(20000);
    profiling_stop(&section);
    per_tasklet[me()] = section.count[me()] > once || once == 0;
}

#define BIT(i) | (1u << (i))
#define CONCATENATED __CONCAT(t, NR_TASKLETS)

static void constants(void)
{
    uint32_t *r = results;
    r[0] = DPU_NR_THREADS;
    r[1] = DPU_NR_ATOMIC_BITS;
    r[2] = DPU_NR_WORK_REGS;
    r[3] = __DPU_NUMBER_OF_THREADS;
    r[4] = __DPU_MRAM_SIZE_LOG2;
    r[5] = __FAULT_ALLOC_HEAP_FULL__;
    r[6] = __FAULT_DIVISION_BY_ZERO__;
    r[7] = __FAULT_ASSERT_FAILED__;
    r[8] = __FAULT_HALT__;
    r[9] = __FAULT_PRINTF_OVERFLOW__;
    r[10] = __FAULT_ALREADY_PROFILING__;
    r[11] = __FAULT_NOT_PROFILING__;
    r[12] = DMA_ALIGNED(13);
    r[13] = MIN(9, 3);
    r[14] = ALIGN(17, 16);
    r[15] = MRAM_CACHE_SIZE;
    r[16] = (uint32_t)count_leading_zeros(1u);
    r[17] = (uint32_t)count_population(0xF0F0u);
    r[18] = sizeof(thread_stack_t);
    r[19] = likely(r[0] == 24) + unlikely(r[0] != 24);
    r[20] = __EMPTY_WAIT_QUEUE;
    r[21] = 0 __FOR_EACH_THREAD(BIT);
    r[22] = strcmp(__STR(CONCATENATED), "t" __STR(NR_TASKLETS)) == 0;
    r[23] = PROFILING_RESET_VALUE;
    r[24] = sizeof(struct dpu_input_fifo_t) == 24 + 2 * sizeof(void *);
    r[25] = sizeof(dpu_profiling_t);
    r[26] = WRAM_FIFO_SIZE(4);
    r[27] = MASK_WRAM_FIFO_PTR(4, 37);
    r[28] = sizeof(fsb_allocator_t) == sizeof(void *);
    __mram_ptr uint64_t *mram = (__mram_ptr uint64_t *)DPU_MRAM_HEAP_POINTER; /* soft_cache.h */
    r[29] = mram != NULL;
}

int main(void)
{
    switch (mode) {
    case 0:
        if (me() == 0)
            buddy();
        break;
    case 1:
        fsb();
        break;
    case 2:
        profile();
        break;
    case 3:
        if (me() == 0)
            constants();
        break;
    case 4: /* a fault: started twice */
        profiling_start(&section);
        profiling_start(&section);
        break;
    case 5: /* a fault: stopped without a start */
        profiling_stop(&section);
        break;
    case 6: /* a fault: the blocks do not fit in WRAM */
        fsb_alloc(1024, 100);
        break;
    }
    return 0;
}
