/* atomic_bit.h: named atomic bits (tasklets never run at once in the emulator). */
#ifndef _DPUSYSCORE_ATOMIC_BIT_H_
#define _DPUSYSCORE_ATOMIC_BIT_H_

#include <stdint.h>

#define ATOMIC_BIT_INIT(_name) uint8_t __atomic_bit_##_name = 0
#define ATOMIC_BIT_GET(_name) (__atomic_bit_##_name)
#define ATOMIC_BIT_EXTERN(_name) extern uint8_t __atomic_bit_##_name

#endif
