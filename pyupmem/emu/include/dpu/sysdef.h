/* sysdef.h: system types (sysname_t, thread_id_t), as some kernels include them directly. */
#ifndef _DPUSYSCORE_SYSDEF_H_
#define _DPUSYSCORE_SYSDEF_H_
#include <defs.h>
#endif
