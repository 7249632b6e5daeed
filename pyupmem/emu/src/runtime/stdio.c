/* stdio.c: printf and friends write to the DPU's log in the control slot. */
#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "runtime.h"

void __dpurt_log_append(const char *text, size_t length)
{
    struct emu_slot *slot = __dpurt.slot;
    size_t room = EMU_LOG_SIZE - slot->log_len;
    if (length > room) {
        length = room;
        slot->log_truncated = 1;
    }
    memcpy(slot->log + slot->log_len, text, length);
    slot->log_len += (uint32_t)length;
}

/* The x32 va_list of the program's printf (the x86-64 layout with 32-bit pointers): the
 * arguments in the register save area (6 general registers of 8 bytes, then 8 vector
 * registers of 16), then on the stack, 8 bytes each. */
struct x32_va_list {
    uint32_t gp_offset;
    uint32_t fp_offset;
    uint32_t overflow_arg_area;
    uint32_t reg_save_area;
};

static uint64_t next_integer(struct x32_va_list *arguments)
{
    uint64_t value;
    if (arguments->gp_offset < 48) {
        memcpy(&value, (const char *)(uintptr_t)(arguments->reg_save_area + arguments->gp_offset), 8);
        arguments->gp_offset += 8;
    } else {
        memcpy(&value, (const char *)(uintptr_t)arguments->overflow_arg_area, 8);
        arguments->overflow_arg_area += 8;
    }
    return value;
}

static double next_double(struct x32_va_list *arguments)
{
    double value;
    if (arguments->fp_offset < 176) {
        memcpy(&value, (const char *)(uintptr_t)(arguments->reg_save_area + arguments->fp_offset), 8);
        arguments->fp_offset += 16;
    } else {
        memcpy(&value, (const char *)(uintptr_t)arguments->overflow_arg_area, 8);
        arguments->overflow_arg_area += 8;
    }
    return value;
}

/* Text for the log, gathered before it is appended. */
struct output {
    char text[1024];
    size_t used;
    int total;
};

static void emit(struct output *out, const char *text, size_t length)
{
    out->total += (int)length;
    while (length > 0) {
        if (out->used == sizeof(out->text)) {
            __dpurt_log_append(out->text, out->used);
            out->used = 0;
        }
        size_t room = sizeof(out->text) - out->used, part = length < room ? length : room;
        memcpy(out->text + out->used, text, part);
        out->used += part;
        text += part;
        length -= part;
    }
}

/* printf of the DPU's C library, with the DPU's types: `size_t` and pointers are 32 bits,
 * `long` and `long long` 64. Each conversion is formatted by the host's snprintf with the
 * same flags, width and precision, from the argument read at the DPU's width. */
int __dpurt_vprintf(const char *format, struct x32_va_list *arguments)
{
    const char *whole = format;
    uint32_t string_bytes = 0; /* what the DPU's printf copies of its %s arguments */
    __dpurt_print_begin();
    struct output out = {.used = 0, .total = 0};
    while (*format != '\0') {
        const char *percent = strchr(format, '%');
        if (percent == NULL) {
            emit(&out, format, strlen(format));
            break;
        }
        emit(&out, format, (size_t)(percent - format));
        const char *at = percent + 1;
        char spec[64] = "%";
        size_t used = 1;
        while (*at != '\0' && strchr("-+ #0'", *at) != NULL && used < 16)
            spec[used++] = *at++;
        for (int part = 0; part < 2; part++) {
            if (part == 1) {
                if (*at != '.')
                    break;
                spec[used++] = *at++;
            }
            if (*at == '*') {
                /* The argument's value goes into the spec: a negative width is the '-'
                 * flag, a negative precision none at all (C's rules for '*'). */
                int value = (int)(int32_t)next_integer(arguments);
                at++;
                if (part == 1 && value < 0)
                    used--; /* the '.' */
                else
                    used += (size_t)snprintf(spec + used, sizeof(spec) - used, "%d", value);
            } else {
                while (*at >= '0' && *at <= '9' && used < 40)
                    spec[used++] = *at++;
            }
        }
        bool wide = false; /* l, ll, j, q, L: 64 bits (the DPU's long and long long) */
        char small = 0; /* h or hh */
        for (;; at++) {
            if (*at == 'l' || *at == 'j' || *at == 'q' || *at == 'L')
                wide = true;
            else if (*at == 'h')
                small = small ? 'H' : 'h';
            else if (*at != 'z' && *at != 't')
                break;
        }
        char conversion = *at;
        if (conversion == '\0') {
            emit(&out, percent, strlen(percent));
            break;
        }
        format = at + 1;
        char piece[512];
        int length = -1;
        if (conversion == '%') {
            emit(&out, "%", 1);
            continue;
        }
        if (conversion == 'n') {
            uint32_t where = (uint32_t)next_integer(arguments);
            if (where != 0)
                memcpy((void *)(uintptr_t)where, &out.total, sizeof(int));
            continue;
        }
        if (strchr("diouxXc", conversion) != NULL) {
            uint64_t raw = next_integer(arguments);
            long long value;
            bool is_signed = conversion == 'd' || conversion == 'i';
            if (wide)
                value = (long long)raw;
            else if (small == 'H')
                value = is_signed ? (long long)(int8_t)raw : (long long)(uint8_t)raw;
            else if (small == 'h')
                value = is_signed ? (long long)(int16_t)raw : (long long)(uint16_t)raw;
            else
                value = is_signed ? (long long)(int32_t)raw : (long long)(uint32_t)raw;
            if (conversion == 'c') {
                spec[used++] = 'c';
            } else {
                spec[used++] = 'l';
                spec[used++] = 'l';
                spec[used++] = conversion;
            }
            spec[used] = '\0';
            length = conversion == 'c' ? snprintf(piece, sizeof(piece), spec, (int)value)
                                       : snprintf(piece, sizeof(piece), spec, value);
        } else if (strchr("eEfFgGaA", conversion) != NULL) {
            double value = next_double(arguments);
            spec[used++] = conversion;
            spec[used] = '\0';
            length = snprintf(piece, sizeof(piece), spec, value);
        } else if (conversion == 's' || conversion == 'p') {
            uint32_t address = (uint32_t)next_integer(arguments);
            spec[used++] = conversion;
            spec[used] = '\0';
            if (conversion == 's') {
                const char *text = address != 0 ? (const char *)(uintptr_t)address : "(null)";
                string_bytes += (address != 0 ? (uint32_t)strlen(text) : 0) + 1;
                /* A string longer than a piece goes out whole, unformatted. */
                if (used == 2) {
                    emit(&out, text, strlen(text));
                    continue;
                }
                length = snprintf(piece, sizeof(piece), spec, text);
            } else {
                length = snprintf(piece, sizeof(piece), spec, (void *)(uintptr_t)address);
            }
        } else {
            emit(&out, percent, (size_t)(format - percent)); /* not a conversion: as written */
            continue;
        }
        if (length > 0)
            emit(&out, piece, (size_t)length < sizeof(piece) ? (size_t)length : sizeof(piece) - 1);
    }
    if (out.used > 0)
        __dpurt_log_append(out.text, out.used);
    __dpurt_print_end(__dpurt_printf_work(whole, string_bytes));
    return out.total;
}

int dpu_puts(const char *text)
{
    __dpurt_print_begin();
    __dpurt_log_append(text, strlen(text));
    __dpurt_log_append("\n", 1);
    __dpurt_print_end(__dpurt_puts_work(text));
    return 1;
}

int dpu_putchar(int c)
{
    __dpurt_print_begin();
    char byte = (char)c;
    __dpurt_log_append(&byte, 1);
    __dpurt_print_end(__dpurt_putchar_work());
    return (unsigned char)c;
}
