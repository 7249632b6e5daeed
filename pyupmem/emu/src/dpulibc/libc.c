/* libc.c: the DPU's C library, built as DPU code (x32). What needs the emulator goes
 * through the imports (runtime/imports.def): the log, faults (abort), the end of a tasklet. The
 * string functions without pointers to pointers are the host's own (LEAF imports).
 * strerror is apart (strerror.c): a program gets its table of messages only when it calls it. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <defs.h>

/* The emulator's functions behind the C library (imports.def). */
int __dpurt_vprintf(const char *format, va_list *arguments);
int dpu_puts(const char *text);
int dpu_putchar(int c);

int __dpurt_errno;

int vprintf(const char *format, va_list arguments)
{
    va_list copy;
    va_copy(copy, arguments);
    int length = __dpurt_vprintf(format, &copy);
    va_end(copy);
    return length;
}

int printf(const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    int length = __dpurt_vprintf(format, &arguments);
    va_end(arguments);
    return length;
}

int puts(const char *text)
{
    return dpu_puts(text);
}

int putchar(int c)
{
    return dpu_putchar(c);
}

void exit(int status)
{
    (void)status;
    halt();
}

/* A decimal integer, clamped to [low, high] with errno ERANGE, as the SDK's atoi and atol. */
static long long parse_integer(const char *text, long long low, long long high)
{
    while (*text == ' ' || (unsigned)*text - '\t' < 5u)
        text++;
    int negative = *text == '-';
    if (*text == '-' || *text == '+')
        text++;
    unsigned long long limit = negative ? 0u - (unsigned long long)low : (unsigned long long)high;
    unsigned long long value = 0;
    for (; (unsigned)*text - '0' < 10u; text++) {
        unsigned digit = (unsigned)*text - '0';
        if (value > (limit - digit) / 10) {
            errno = ERANGE;
            return negative ? low : high;
        }
        value = value * 10 + digit;
    }
    return negative ? (long long)(0u - value) : (long long)value;
}

int atoi(const char *nptr)
{
    return (int)parse_integer(nptr, INT_MIN, INT_MAX);
}

long atol(const char *nptr)
{
    return parse_integer(nptr, LONG_MIN, LONG_MAX);
}

char *strlwr(char *string)
{
    for (char *c = string; *c; c++)
        if ((unsigned)*c - 'A' < 26u)
            *c |= 32;
    return string;
}

char *strupr(char *string)
{
    for (char *c = string; *c; c++)
        if ((unsigned)*c - 'a' < 26u)
            *c &= 0x5f;
    return string;
}

char *strrev(char *string)
{
    size_t length = strlen(string);
    for (size_t i = 0; i < length / 2; i++) {
        char c = string[i];
        string[i] = string[length - 1 - i];
        string[length - 1 - i] = c;
    }
    return string;
}

char *strtok_r(char *string, const char *delimiters, char **saveptr)
{
    if (string == NULL)
        string = *saveptr;
    string += strspn(string, delimiters);
    if (*string == '\0') {
        *saveptr = string;
        return NULL;
    }
    char *end = string + strcspn(string, delimiters);
    if (*end != '\0')
        *end++ = '\0';
    *saveptr = end;
    return string;
}

char *strsep(char **string, const char *delimiters)
{
    char *start = *string;
    if (start == NULL)
        return NULL;
    char *end = start + strcspn(start, delimiters);
    if (*end != '\0') {
        *end = '\0';
        *string = end + 1;
    } else {
        *string = NULL;
    }
    return start;
}

/* The compiler's helpers (libgcc) that x86-64 code may call: there is no x32 libgcc. DPU
 * programs are built with -mpopcnt (the DPU counts bits in one instruction, `cao`), so
 * these are for code built without it. */
int __popcountsi2(unsigned int x);
int __popcountdi2(unsigned long long x);

int __popcountsi2(unsigned int x)
{
    return __builtin_popcount(x);
}

int __popcountdi2(unsigned long long x)
{
    return __builtin_popcountll(x);
}
