/* seqread.h: sequential readers of MRAM through a WRAM cache, as the SDK's. */
#ifndef _DPUSYSCORE_SEQREAD_H_
#define _DPUSYSCORE_SEQREAD_H_

#include <_dpu_diag_string.h>
#include <alloc.h>
#include <attributes.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* C++ DPU programs: the runtime has C linkage */
#endif

#ifndef SEQREAD_CACHE_SIZE
#define SEQREAD_CACHE_SIZE 256
#endif
#if SEQREAD_CACHE_SIZE < 32 || SEQREAD_CACHE_SIZE > 1024 || (SEQREAD_CACHE_SIZE & (SEQREAD_CACHE_SIZE - 1))
#error "SEQREAD_CACHE_SIZE must be a power of two in 32..1024"
#endif

typedef uintptr_t seqreader_buffer_t;
typedef struct {
    seqreader_buffer_t wram_cache;
    uintptr_t mram_addr; /* the MRAM address of the cache's first byte */
} seqreader_t;

void __dpurt_mram_read(const void *from, void *to, unsigned int nb_of_bytes, const char *file, int line);

/* As the SDK's: a cache of two SEQREAD_CACHE_SIZE pages, filled by DMA; a pointer it gives
 * stays valid for SEQREAD_CACHE_SIZE bytes, and crossing into the second page slides the
 * window one page on (one DMA of both pages). */
#define seqread_alloc() ((seqreader_buffer_t)mem_alloc(2 * SEQREAD_CACHE_SIZE))
#define seqread_init(cache, mram_addr, reader)                                                     \
    __dpurt_seqread_init((cache), (__UINTPTR_TYPE__)(mram_addr), (reader), __DPURT_FILE, __LINE__)
#define seqread_seek(mram_addr, reader)                                                            \
    __dpurt_seqread_init((reader)->wram_cache, (__UINTPTR_TYPE__)(mram_addr), (reader), __DPURT_FILE, \
                         __LINE__)

static inline void *__dpurt_seqread_init(seqreader_buffer_t cache, uintptr_t mram_addr,
                                         seqreader_t *reader, const char *file, int line)
{
    reader->wram_cache = cache;
    reader->mram_addr = mram_addr & ~(uintptr_t)7;
    __dpurt_mram_read((const void *)reader->mram_addr, (void *)cache, 2 * SEQREAD_CACHE_SIZE, file,
                      line);
    return (char *)cache + (mram_addr - reader->mram_addr);
}
static inline void *seqread_get(void *ptr, uint32_t inc, seqreader_t *reader)
{
    char *next = (char *)ptr + inc;
    char *cache = (char *)reader->wram_cache;
    if (next >= cache + SEQREAD_CACHE_SIZE) {
        uintptr_t pages = (uintptr_t)(next - cache) / SEQREAD_CACHE_SIZE;
        reader->mram_addr += pages * SEQREAD_CACHE_SIZE;
        __dpurt_mram_read((const void *)reader->mram_addr, cache, 2 * SEQREAD_CACHE_SIZE, __DPURT_FILE,
                          __LINE__);
        next -= pages * SEQREAD_CACHE_SIZE;
    }
    return next;
}
static inline __mram_ptr void *seqread_tell(void *ptr, seqreader_t *reader)
{
    return (__mram_ptr void *)(reader->mram_addr + (uintptr_t)((char *)ptr - (char *)reader->wram_cache));
}

#ifdef __cplusplus
}
#endif

#endif
