#ifndef PYUPMEM_DPU_DIAG_STRING_H
#define PYUPMEM_DPU_DIAG_STRING_H
/* A string only the runtime's messages use (a source file's name, an assertion's text),
 * kept outside WRAM: on a DPU such strings do not exist, and in WRAM they would move the
 * program's variables by the length of the path its source lies at. C++ wraps it in a
 * lambda (a constexpr function may hold an assert, but no static variable of its own);
 * before C++17, which has no lambdas in constexpr functions, it stays in WRAM. */
#if !defined(__cplusplus)
#define __DPURT_DIAG_STRING(text)                                                                  \
    (__extension__({                                                                               \
        static const char __dpurt_diag[] __attribute__((section(".dpurt_diag"))) = text;           \
        __dpurt_diag;                                                                              \
    }))
#elif __cplusplus >= 201703L
#define __DPURT_DIAG_STRING(text)                                                                  \
    ([]() -> const char * {                                                                        \
        static const char __dpurt_diag[] __attribute__((section(".dpurt_diag"))) = text;           \
        return __dpurt_diag;                                                                       \
    }())
#else
#define __DPURT_DIAG_STRING(text) (text)
#endif
#define __DPURT_FILE __DPURT_DIAG_STRING(__FILE__)
#endif
