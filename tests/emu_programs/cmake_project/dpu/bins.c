#include "bins.h"

uint32_t bin_of(uint32_t value)
{
    return value >> 28;
}
