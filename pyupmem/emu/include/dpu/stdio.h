/* stdio.h of the DPU's C library: printf, puts and putchar write to the DPU's log, which
 * the host reads with dpu_log_read (64 KiB per launch in the emulator). There are no files.
 * It brings the DPU attributes, as the SDK's does. */
#ifndef _DPUSYSCORE_STDIO_H_
#define _DPUSYSCORE_STDIO_H_

#include <stdarg.h>
#include <stddef.h>
#include <attributes.h>

#ifdef __cplusplus
extern "C" {
#endif

int printf(const char *format, ...) __attribute__((format(printf, 1, 2)));
int vprintf(const char *format, va_list arguments) __attribute__((format(printf, 1, 0)));
int puts(const char *text);
int putchar(int c);

#define STDOUT_BUFFER_INIT(size) _Static_assert((size) > 0, "STDOUT_BUFFER_INIT needs a positive size")

#ifdef __cplusplus
}
#endif

#endif
