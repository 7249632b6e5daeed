/* print_cost.c: what printing costs a DPU. The SDK's printf (its stdio.c) formats nothing
 * on the DPU: under one lock (an atomic bit) held for the whole print, it walks the format
 * twice and writes, a byte at a time through an 8-byte WRAM cache that an 8-byte DMA
 * flushes to the log buffer in MRAM, first a skeleton of the format (each conversion's
 * spec, "%s" for each run of literal text, a NUL), then the literal text and each
 * argument's bytes, which the host formats when it reads the log. puts and putchar write
 * "%s" or "%c" and their text the same way. The bytes and the DMAs follow from the format
 * exactly; the instructions of each step are counted from that code (its calls, loads,
 * compares and stores). The emulator prints as before, between the lock's two ends. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <mutex.h>

#include "runtime.h"

/* DPU instructions of the SDK's print routine, by step. */
enum {
    /* __write_byte_and_flush_if_needed: the call and the caller's move of the byte, the
     * cache index's load, the byte's store, the index's increment and store, the compare
     * with the cache's size, the return */
    WRITE_BYTE = 8,
    /* __transfer_cache_to_mram around its sdma: the call, the write pointer's load, its
     * increment, the compare with the buffer's size, its store, the MRAM address, the
     * return */
    FLUSH = 10,
    /* a pass's step over a format character: its load, the tests for NUL and '%', the
     * flag's test, the step and the jump back */
    FORMAT_CHARACTER = 5,
    /* the further tests on a conversion's characters (l, L, z, i, a letter) */
    SPEC_CHARACTER = 4,
    /* the second pass's switch on a conversion and its va_arg */
    CONVERSION = 6,
    /* the copy loop over an argument's or a string's bytes: the byte's load, the step,
     * the test */
    COPIED_BYTE = 3,
    /* the call and its frame, va_start, opening the sequence (the acquire, three stores),
     * finalising it (the overflow checks), closing it (the release) */
    FIXED = 30,
};

#define CACHE_BYTES 8u /* the SDK's STDOUT_CACHE_BUFFER_SIZE */

static uint8_t print_lock; /* the SDK's __stdout_buffer_lock */

struct tally {
    uint32_t walked;      /* format characters stepped over, both passes */
    uint32_t spec;        /* of them, in conversions */
    uint32_t conversions; /* in the second pass */
    uint32_t copied;      /* argument and string bytes copied */
    uint32_t bytes;       /* written to the cache */
};

/* The instructions of a print that wrote t's bytes: each byte's write, a flush of each full
 * cache and of the last one (its rest zeroed by memset, a byte an instruction). */
static struct print_work work_of(const struct tally *t)
{
    uint32_t flushes = t->bytes / CACHE_BYTES + 1;
    uint32_t zeroed = CACHE_BYTES - t->bytes % CACHE_BYTES;
    uint32_t instructions = FIXED + FORMAT_CHARACTER * t->walked + SPEC_CHARACTER * t->spec +
                            CONVERSION * t->conversions + COPIED_BYTE * t->copied +
                            WRITE_BYTE * t->bytes + FLUSH * flushes + zeroed;
    return (struct print_work){instructions, t->bytes};
}

static bool is_letter(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* The first pass: the skeleton. A conversion's characters up to its letter are copied
 * ('l' too, 'L' and 'z' not, 'i' as 'd'); each run of literal text, "%%" included, is
 * "%s". */
static void skeleton(const char *format, struct tally *t)
{
    bool text_pending = true;
    for (const char *at = format; *at != '\0'; at++) {
        t->walked++;
        if (*at == '%' && at[1] != '%') {
            if (*++at == '\0')
                break;
            t->bytes++; /* its '%' */
            for (; *at != '\0'; at++) {
                t->spec++;
                if (*at == 'L' || *at == 'z')
                    continue;
                t->bytes++;
                if (*at != 'l' && is_letter(*at)) /* 'i' written as 'd' */
                    break;
            }
            text_pending = true;
            if (*at == '\0')
                break;
            continue;
        }
        if (*at == '%')
            at++; /* "%%" */
        if (text_pending) {
            t->bytes += 2; /* "%s" */
            text_pending = false;
        }
    }
    t->bytes++; /* its NUL */
}

/* The second pass: the literal text (a NUL ends each run) and each argument's bytes; a
 * string's bytes are those the formatting read (`string_bytes`, each one's NUL too). */
static void payload(const char *format, uint32_t string_bytes, struct tally *t)
{
    bool text_open = false;
    for (const char *at = format; *at != '\0'; at++) {
        t->walked++;
        if (*at == '%' && at[1] != '%') {
            if (*++at == '\0')
                break;
            if (text_open) {
                t->bytes++;
                text_open = false;
            }
            bool wide = false;
            for (; *at != '\0' && !is_letter(*at); at++)
                t->spec++;
            for (; *at == 'l' || *at == 'L' || *at == 'z'; at++) {
                t->spec++;
                wide |= *at != 'z';
            }
            if (*at == '\0')
                break;
            t->spec++;
            t->conversions++;
            uint32_t copied = *at == 's'                       ? 0
                              : strchr("feEgG", *at) != NULL ? 8
                              : *at == 'c'                   ? 1
                              : wide                         ? 8
                                                             : 4;
            t->copied += copied;
            t->bytes += copied;
            continue;
        }
        if (*at == '%')
            at++; /* "%%": one '%' */
        t->bytes++;
        text_open = true;
    }
    if (text_open)
        t->bytes++;
    t->copied += string_bytes;
    t->bytes += string_bytes;
}

struct print_work __dpurt_printf_work(const char *format, uint32_t string_bytes)
{
    struct tally t = {0};
    skeleton(format, &t);
    payload(format, string_bytes, &t);
    return work_of(&t);
}

struct print_work __dpurt_puts_work(const char *text)
{
    uint32_t length = (uint32_t)strlen(text);
    struct tally t = {.copied = length, .bytes = 3 + length + 2}; /* "%s", NUL, the text, "\n", NUL */
    return work_of(&t);
}

struct print_work __dpurt_putchar_work(void)
{
    struct tally t = {.copied = 1, .bytes = 4}; /* "%c", NUL, the character */
    return work_of(&t);
}

void __dpurt_print_begin(void)
{
    mutex_lock(&print_lock);
}

void __dpurt_print_end(struct print_work work)
{
    __dpurt_charge(work.instructions);
    for (uint32_t flushed = 0; flushed <= work.bytes / CACHE_BYTES; flushed++)
        __dpurt_dma(DMA_WRITE_LATENCY, CACHE_BYTES);
    mutex_unlock(&print_lock);
}
