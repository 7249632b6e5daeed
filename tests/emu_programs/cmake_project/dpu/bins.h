#ifndef BINS_H
#define BINS_H
#include <stdint.h>

#define NR_BINS 16

/* The bin of a value: its top four bits. */
uint32_t bin_of(uint32_t value);

#endif
