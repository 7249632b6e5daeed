/* stdio.h for DPU programs: printf, puts and putchar write to the DPU's log,
 * which the host reads with dpu_log_read. The rest of the C library's stdio.h
 * stays available. As the SDK's, it brings the DPU attributes (__host, __mram,
 * __mram_noinit, __dma_aligned ...). */
#ifndef _DPUSYSCORE_STDIO_H_
#define _DPUSYSCORE_STDIO_H_

#include_next <stdio.h>

#include <attributes.h>

#ifdef __cplusplus
extern "C" { /* C++ DPU programs: the runtime has C linkage */
#endif

int dpu_printf(const char *format, ...) __attribute__((format(printf, 1, 2)));
int dpu_puts(const char *text);
int dpu_putchar(int c);

#ifdef __cplusplus
}
#endif

#undef printf
#undef puts
#undef putchar
#define printf dpu_printf
#define puts dpu_puts
#define putchar dpu_putchar

/* The emulator's log buffer has a fixed size (64 KiB per launch). */
#define STDOUT_BUFFER_INIT(size) _Static_assert((size) > 0, "STDOUT_BUFFER_INIT needs a positive size")

#endif
