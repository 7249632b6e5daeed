/* dpu_macro_utils.h: preprocessor helpers the SDK's headers (and some programs) use. */
#ifndef DPU_MACRO_UTILS_H
#define DPU_MACRO_UTILS_H

/* _CONCAT(a, b) pastes after expanding both; _STR(x) quotes after expanding. */
#define _CONCAT_X(x, y) x##y
#define _CONCAT(x, y) _CONCAT_X(x, y)
#define _XSTR(x) #x
#define _STR(x) _XSTR(x)

/* _DPU_FOREACH_VARIANT(set, a) is X, _DPU_FOREACH_VARIANT(set, a, b) is I: the suffix of the
 * FOREACH flavour without or with an index. */
#define _DPU_FOREACH_VARIANT_SEQ() I, X, WRONG_NR_OF_ARGUMENTS
#define _DPU_FOREACH_VARIANT_N(_1, _2, N, ...) N
#define _DPU_FOREACH_VARIANT_(a, ...) _DPU_FOREACH_VARIANT_N(__VA_ARGS__)
#define _DPU_FOREACH_VARIANT(...) _DPU_FOREACH_VARIANT_(__VA_ARGS__, _DPU_FOREACH_VARIANT_SEQ())

#endif /* DPU_MACRO_UTILS_H */
