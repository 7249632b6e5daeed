/* ctype.h of the DPU's C library: the "C" locale's classes (the DPU has no locales). */
#ifndef _DPUSYSCORE_CTYPE_H_
#define _DPUSYSCORE_CTYPE_H_

static inline int isdigit(int c) { return (unsigned)c - '0' < 10u; }
static inline int isupper(int c) { return (unsigned)c - 'A' < 26u; }
static inline int islower(int c) { return (unsigned)c - 'a' < 26u; }
static inline int isalpha(int c) { return isupper(c) || islower(c); }
static inline int isalnum(int c) { return isalpha(c) || isdigit(c); }
static inline int isxdigit(int c) { return isdigit(c) || (unsigned)(c | 32) - 'a' < 6u; }
static inline int isspace(int c) { return c == ' ' || (unsigned)c - '\t' < 5u; }
static inline int isblank(int c) { return c == ' ' || c == '\t'; }
static inline int iscntrl(int c) { return (unsigned)c < 32u || c == 127; }
static inline int isprint(int c) { return (unsigned)c - 32u < 95u; }
static inline int isgraph(int c) { return (unsigned)c - 33u < 94u; }
static inline int ispunct(int c) { return isgraph(c) && !isalnum(c); }
static inline int tolower(int c) { return isupper(c) ? c | 32 : c; }
static inline int toupper(int c) { return islower(c) ? c & 0x5f : c; }

#endif
