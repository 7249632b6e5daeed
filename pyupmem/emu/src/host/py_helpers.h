/* py_helpers.h: the functions the UPMEM SDK's libdpu exports for its Python module `dpu`
 * (declared there through ctypes in dpu/ffi.py, not in dpu.h). The module calls them with
 * Python objects: `PyObject` stays opaque here, so that libdpu needs no Python headers
 * and C host programs that never call them need no Python at all. */
#ifndef PYUPMEM_PY_HELPERS_H
#define PYUPMEM_PY_HELPERS_H

#include <stddef.h>

#include "dpu.h"

typedef struct _object PyObject;

/* Writes the log of a one-DPU set (the header "=== DPU#0x... ===" and what the DPU
 * printed) with `stream.write(text)`. DPU_ERR_INVALID_DPU_SET for a set of several DPUs. */
dpu_error_t Py_dpu_log_read(struct dpu_set_t set, PyObject *stream);

/* Prepares one transfer buffer per DPU of the set from the Python list `buffers` (writable
 * buffers such as bytearray, or None to leave a DPU out) and stores their common length in
 * `*buffer_size` (UINT32_MAX when every item is None). DPU_ERR_INVALID_MEMORY_TRANSFER for
 * anything but a list of one writable buffer or None per DPU, all of one length. */
dpu_error_t Py_dpu_prepare_xfers(struct dpu_set_t set, PyObject *buffers, size_t *buffer_size);

/* A new Python list of the names (str) of the program's symbols, sorted by name; empty for
 * a NULL program. NULL only without a Python interpreter in the process. */
PyObject *Py_dpu_get_symbol_names(struct dpu_program_t *program);

#endif
