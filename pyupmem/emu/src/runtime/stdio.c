/* stdio.c: printf and friends write to the DPU's log in the control slot. */
#include <stdarg.h>
#include <stdio.h>
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

int dpu_printf(const char *format, ...)
{
    char small[512];
    va_list args;
    va_start(args, format);
    int length = vsnprintf(small, sizeof(small), format, args);
    va_end(args);
    if (length < 0)
        return length;
    if ((size_t)length < sizeof(small)) {
        __dpurt_log_append(small, (size_t)length);
        return length;
    }
    char big[EMU_LOG_SIZE];
    va_start(args, format);
    vsnprintf(big, sizeof(big), format, args);
    va_end(args);
    __dpurt_log_append(big, strnlen(big, sizeof(big)));
    return length;
}

int dpu_puts(const char *text)
{
    __dpurt_log_append(text, strlen(text));
    __dpurt_log_append("\n", 1);
    return 1;
}

int dpu_putchar(int c)
{
    char byte = (char)c;
    __dpurt_log_append(&byte, 1);
    return (unsigned char)c;
}
