/* stdlib.h of the DPU's C library: the SDK's subset (no malloc: WRAM is allocated with
 * mem_alloc, buddy_alloc or fsb_alloc, alloc.h). It brings the DPU attributes, as the
 * SDK's does. */
#ifndef _DPUSYSCORE_STDLIB_H_
#define _DPUSYSCORE_STDLIB_H_

#include <stddef.h>
#include <attributes.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EXIT_FAILURE 1
#define EXIT_SUCCESS 0

/** Faults the DPU. */
void abort(void) __attribute__((noreturn));
/** Ends the calling tasklet (its status is not kept). */
void exit(int status) __attribute__((noreturn));
int atoi(const char *nptr);
long atol(const char *nptr);

/** There is no environment on a DPU. */
static inline char *getenv(const char *name)
{
    (void)name;
    return NULL;
}

static inline int abs(int x) { return x < 0 ? -x : x; }
static inline long int labs(long int x) { return x < 0 ? -x : x; }
static inline long long int llabs(long long int x) { return x < 0 ? -x : x; }

typedef struct {
    int quot;
    int rem;
} div_t;
typedef struct {
    long int quot;
    long int rem;
} ldiv_t;
typedef struct {
    long long int quot;
    long long int rem;
} lldiv_t;

static inline div_t div(int numer, int denom)
{
    div_t result = {numer / denom, numer % denom};
    return result;
}
static inline ldiv_t ldiv(long int numer, long int denom)
{
    ldiv_t result = {numer / denom, numer % denom};
    return result;
}
static inline lldiv_t lldiv(long long int numer, long long int denom)
{
    lldiv_t result = {numer / denom, numer % denom};
    return result;
}

#ifdef __cplusplus
}
#endif

#endif
