/* buddy_alloc.c: the buddy allocator of buddy_alloc.h. The heap is 2^n bytes cut into
 * blocks of 2^k bytes (k >= 4); a tag byte per 16-byte unit records, at each block's first
 * unit, 1 + log2 of the block's units and whether it is allocated (0 inside a block). As
 * in the SDK, the blocks carry no header, so any address inside a block names it. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <alloc.h>
#include <buddy_alloc.h>
#include <mutex.h>

#define UNIT_LOG2 4u /* the smallest block: 16 bytes */
#define ALLOCATED 0x80u

static uint8_t buddy_lock; /* any byte is a mutex */
static uint8_t *heap;
static uint8_t *tags;
static uint32_t heap_size; /* bytes; 0 until buddy_init */
static uint32_t nr_units;

static uint32_t order_of(uint8_t tag) /* log2 of the block's units */
{
    return (tag & ~ALLOCATED) - 1u;
}

static uint32_t units_of(uint8_t tag)
{
    return 1u << order_of(tag);
}

static void reset_locked(void)
{
    memset(tags, 0, nr_units);
    uint32_t order = 0;
    while ((1u << order) < nr_units)
        order++;
    tags[0] = (uint8_t)(1u + order);
}

void buddy_init(size_t size_of_heap)
{
    mutex_lock(&buddy_lock);
    if (heap_size == 0) {
        uint32_t log2 = UNIT_LOG2;
        while (log2 < 31u && ((uint64_t)1 << (log2 + 1)) <= size_of_heap)
            log2++;
        uint32_t size = 1u << log2;
        nr_units = size >> UNIT_LOG2;
        heap = mem_alloc((size_t)size + nr_units); /* the tags follow the heap */
        tags = heap + size;
        heap_size = size;
        reset_locked();
    }
    mutex_unlock(&buddy_lock);
}

void buddy_reset(void)
{
    mutex_lock(&buddy_lock);
    if (heap_size != 0)
        reset_locked();
    mutex_unlock(&buddy_lock);
}

/* The order (log2 of units) of the smallest block that holds `size` bytes. */
static uint32_t order_for(size_t size)
{
    uint32_t order = 0;
    while (((uint64_t)1 << (order + UNIT_LOG2)) < size)
        order++;
    return order;
}

static void *alloc_locked(size_t size)
{
    if (size == 0 || size > heap_size) {
        errno = EINVAL;
        return NULL;
    }
    uint32_t wanted = order_for(size);
    uint32_t best = UINT32_MAX, at = 0;
    for (uint32_t unit = 0; unit < nr_units; unit += units_of(tags[unit])) {
        uint32_t order = order_of(tags[unit]);
        if (!(tags[unit] & ALLOCATED) && order >= wanted && order < best) {
            best = order, at = unit;
            if (order == wanted)
                break;
        }
    }
    if (best == UINT32_MAX) {
        errno = ENOMEM;
        return NULL;
    }
    while (best > wanted) { /* halve; the upper halves stay free */
        best--;
        tags[at + (1u << best)] = (uint8_t)(1u + best);
    }
    tags[at] = (uint8_t)((1u + wanted) | ALLOCATED);
    return heap + ((size_t)at << UNIT_LOG2);
}

/* The first unit of the allocated block that holds `pointer`, or -1 (errno EINVAL). */
static int64_t find_locked(const void *pointer)
{
    uintptr_t address = (uintptr_t)pointer, start = (uintptr_t)heap;
    if (heap_size == 0 || address % 8 != 0 || address < start || address - start >= heap_size) {
        errno = EINVAL;
        return -1;
    }
    uint32_t target = (uint32_t)((address - start) >> UNIT_LOG2), unit = 0;
    while (unit + units_of(tags[unit]) <= target)
        unit += units_of(tags[unit]);
    if (!(tags[unit] & ALLOCATED)) {
        errno = EINVAL;
        return -1;
    }
    return unit;
}

static void free_locked(uint32_t unit)
{
    uint32_t order = order_of(tags[unit]);
    tags[unit] = (uint8_t)(1u + order);
    while ((1u << order) < nr_units) { /* merge with a free buddy of the same size */
        uint32_t buddy = unit ^ (1u << order);
        if (tags[buddy] != 1u + order)
            break;
        tags[unit > buddy ? unit : buddy] = 0;
        unit = unit < buddy ? unit : buddy;
        order++;
        tags[unit] = (uint8_t)(1u + order);
    }
}

void *buddy_alloc(size_t size)
{
    mutex_lock(&buddy_lock);
    void *result = alloc_locked(size);
    mutex_unlock(&buddy_lock);
    return result;
}

void buddy_free(void *pointer)
{
    if (pointer == NULL)
        return;
    mutex_lock(&buddy_lock);
    int64_t unit = find_locked(pointer);
    if (unit >= 0)
        free_locked((uint32_t)unit);
    mutex_unlock(&buddy_lock);
}

void *buddy_realloc(void *ptr, size_t size)
{
    if (ptr == NULL)
        return buddy_alloc(size);
    if (size == 0) {
        buddy_free(ptr);
        return ptr;
    }
    mutex_lock(&buddy_lock);
    void *result = NULL;
    int64_t found = find_locked(ptr);
    if (found < 0) {
        /* errno is EINVAL */
    } else if (size > heap_size) {
        errno = EINVAL;
    } else {
        uint32_t unit = (uint32_t)found, order = order_of(tags[unit]), wanted = order_for(size);
        if (wanted <= order) { /* in place; a smaller size frees the upper halves */
            while (order > wanted) {
                order--;
                tags[unit + (1u << order)] = (uint8_t)(1u + order);
            }
            tags[unit] = (uint8_t)((1u + wanted) | ALLOCATED);
            result = heap + ((size_t)unit << UNIT_LOG2);
        } else if ((result = alloc_locked(size)) != NULL) {
            memcpy(result, heap + ((size_t)unit << UNIT_LOG2), (size_t)1 << (order + UNIT_LOG2));
            free_locked(unit);
        }
    }
    mutex_unlock(&buddy_lock);
    return result;
}
