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
    return (struct print_work){instructions, flushes};
}

static bool is_letter(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* A conversion as both passes read it, from the character after its '%': 'l', 'L' and 'z'
 * modify it, the first other letter ends it. */
struct conversion {
    const char *letter; /* its last character, or the format's NUL */
    uint32_t copied;    /* its characters the skeleton copies: all but 'L' and 'z' */
    bool wide;          /* 'l' or 'L': a 64-bit argument */
};

static struct conversion read_conversion(const char *at, struct tally *t)
{
    struct conversion c = {at, 0, false};
    for (; *c.letter != '\0'; c.letter++) {
        char ch = *c.letter;
        bool modifier = ch == 'l' || ch == 'L' || ch == 'z';
        t->spec++;
        c.wide |= ch == 'l' || ch == 'L';
        c.copied += ch != 'L' && ch != 'z'; /* 'i' copied as 'd' */
        if (is_letter(ch) && !modifier)
            break;
    }
    return c;
}

/* The first pass: the skeleton. A conversion's characters, its '%' first; each run of
 * literal text, "%%" included, is "%s". */
static void skeleton(const char *format, struct tally *t)
{
    bool text_pending = true;
    for (const char *at = format; *at != '\0'; at++) {
        t->walked++;
        if (at[0] == '%' && at[1] != '%') {
            if (at[1] == '\0')
                break;
            struct conversion c = read_conversion(at + 1, t);
            t->bytes += 1 + c.copied;
            if (*c.letter == '\0')
                break;
            text_pending = true;
            at = c.letter;
            continue;
        }
        at += at[0] == '%'; /* "%%" */
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
        if (at[0] == '%' && at[1] != '%') {
            if (at[1] == '\0')
                break;
            if (text_open) {
                t->bytes++;
                text_open = false;
            }
            struct conversion c = read_conversion(at + 1, t);
            if (*c.letter == '\0')
                break;
            char letter = *c.letter;
            uint32_t copied = letter == 's'                       ? 0
                              : strchr("feEgG", letter) != NULL ? 8
                              : letter == 'c'                   ? 1
                              : c.wide                          ? 8
                                                                : 4;
            t->conversions++;
            t->copied += copied;
            t->bytes += copied;
            at = c.letter;
            continue;
        }
        at += at[0] == '%'; /* "%%": one '%' */
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
    /* "%s", NUL, the text, "\n", NUL */
    struct tally t = {.copied = length, .bytes = 3 + length + 2};
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
    for (uint32_t flushed = 0; flushed < work.flushes; flushed++)
        __dpurt_dma(DMA_WRITE_LATENCY, CACHE_BYTES);
    mutex_unlock(&print_lock);
}
