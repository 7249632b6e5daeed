/* built_ins.h: DPU built-ins that programs sometimes call directly. */
#ifndef _DPUSYSCORE_BUILT_INS_H_
#define _DPUSYSCORE_BUILT_INS_H_
#include <defs.h>
#endif
