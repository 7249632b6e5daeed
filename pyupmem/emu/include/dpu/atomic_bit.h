/* atomic_bit.h: named atomic bits. On a DPU they live in a separate 256-bit atomic
 * memory and their "address" is a bit index; here each is a byte of its own, and the
 * runtime keeps the lock state of a mutex beside it, never in it. As in the SDK,
 * ATOMIC_BIT_INIT has no initialiser, so `ATOMIC_BIT_INIT(x)[N];` declares N bits. */
#ifndef _DPUSYSCORE_ATOMIC_BIT_H_
#define _DPUSYSCORE_ATOMIC_BIT_H_

#include <attributes.h>
#include <stdint.h>

#define ATOMIC_BIT_GET(_name) __atomic_bit_##_name
#define ATOMIC_BIT_INIT(_name) uint8_t __atomic_bit ATOMIC_BIT_GET(_name)
#define ATOMIC_BIT_EXTERN(_name) extern ATOMIC_BIT_INIT(_name)
/** The index of an atomic bit, as the hardware numbers them (here: its low 8 address bits). */
#define ATOMIC_BIT_INDEX(_name) ((uint8_t)(uintptr_t)&ATOMIC_BIT_GET(_name))

#endif
