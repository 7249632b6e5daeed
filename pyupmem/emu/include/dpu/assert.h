/* assert.h of the DPU's C library: a failed assertion faults the DPU, with the expression,
 * the file, the line and the function in the fault message the host gets. None of these
 * strings lies in WRAM (the SDK's assert has none); the runtime finds the function. */
#undef assert
#ifdef NDEBUG
#define assert(expression) ((void)0)
#else
#include <_dpu_diag_string.h>
#ifdef __cplusplus
extern "C"
#endif
    void __assert_fail(const char *assertion, const char *file, unsigned int line, const char *function)
        __attribute__((noreturn));
#define assert(expression)                                                                         \
    ((expression) ? (void)0 : __assert_fail(__DPURT_DIAG_STRING(#expression), __DPURT_FILE, __LINE__, (const char *)0))
#endif
#if !defined(__cplusplus) && !defined(static_assert)
#define static_assert _Static_assert
#endif
