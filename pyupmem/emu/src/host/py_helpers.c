/* py_helpers.c: the Py_dpu_* functions the SDK's Python module `dpu` calls through ctypes
 * (see py_helpers.h). libdpu is not linked with Python: the few functions of Python's C
 * API used here are looked up in the running process, where the interpreter that called
 * us through ctypes has them; a C host program that calls these gets an error instead.
 * ctypes releases the GIL around the call (CDLL), so each function takes it back before
 * touching a Python object. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "host.h"
#include "py_helpers.h"
#include <dpu_log_internals.h>

typedef ssize_t Py_ssize_t;

/* Python's Py_buffer: its layout is part of the stable ABI (3.3 and later). */
typedef struct {
    void *buf;
    PyObject *obj;
    Py_ssize_t len;
    Py_ssize_t itemsize;
    int readonly;
    int ndim;
    char *format;
    Py_ssize_t *shape;
    Py_ssize_t *strides;
    Py_ssize_t *suboffsets;
    void *internal;
} py_buffer;

enum { PY_BUF_WRITABLE = 0x0001, PY_PRINT_RAW = 1 };

/* The parts of Python's C API used here, resolved once. */
static struct {
    bool found;
    int (*gil_ensure)(void);
    void (*gil_release)(int);
    void (*incref)(PyObject *);
    void (*decref)(PyObject *);
    void (*err_clear)(void);
    void (*err_write_unraisable)(PyObject *);
    PyObject *none;
    PyObject *list_type;
    int (*is_instance)(PyObject *, PyObject *);
    PyObject *(*list_new)(Py_ssize_t);
    Py_ssize_t (*list_size)(PyObject *);
    PyObject *(*list_get_item)(PyObject *, Py_ssize_t);
    int (*list_set_item)(PyObject *, Py_ssize_t, PyObject *);
    PyObject *(*decode_utf8)(const char *, Py_ssize_t, const char *);
    int (*get_buffer)(PyObject *, py_buffer *, int);
    void (*release_buffer)(py_buffer *);
    int (*file_write_object)(PyObject *, PyObject *, int);
} py;

static pthread_once_t py_once = PTHREAD_ONCE_INIT;

static void *lookup(const char *name, bool *found)
{
    void *address = dlsym(RTLD_DEFAULT, name);
    if (address == NULL)
        *found = false;
    return address;
}

static void resolve_python(void)
{
    bool found = true;
    /* Casting dlsym's void * to a function pointer is what POSIX prescribes for dlsym. */
#define RESOLVE(field, name) *(void **)&py.field = lookup(name, &found)
    RESOLVE(gil_ensure, "PyGILState_Ensure");
    RESOLVE(gil_release, "PyGILState_Release");
    RESOLVE(incref, "Py_IncRef");
    RESOLVE(decref, "Py_DecRef");
    RESOLVE(err_clear, "PyErr_Clear");
    RESOLVE(err_write_unraisable, "PyErr_WriteUnraisable");
    RESOLVE(none, "_Py_NoneStruct");
    RESOLVE(list_type, "PyList_Type");
    RESOLVE(is_instance, "PyObject_IsInstance");
    RESOLVE(list_new, "PyList_New");
    RESOLVE(list_size, "PyList_Size");
    RESOLVE(list_get_item, "PyList_GetItem");
    RESOLVE(list_set_item, "PyList_SetItem");
    RESOLVE(decode_utf8, "PyUnicode_DecodeUTF8");
    RESOLVE(get_buffer, "PyObject_GetBuffer");
    RESOLVE(release_buffer, "PyBuffer_Release");
    RESOLVE(file_write_object, "PyFile_WriteObject");
#undef RESOLVE
    py.found = found;
}

/* Whether Python's C API is there; says once on stderr when it is not. */
static bool have_python(const char *function)
{
    pthread_once(&py_once, resolve_python);
    static bool told;
    if (!py.found && !told) {
        told = true;
        fprintf(stderr,
                "libdpu (pyupmem emulator): %s is for the SDK's Python module `dpu` and needs a "
                "Python interpreter in the process; from C, use dpu_log_read, dpu_prepare_xfer "
                "and dpu_get_symbol instead\n",
                function);
    }
    return py.found;
}

/* ------------------------------------------------------------------ Py_dpu_log_read */

struct text {
    char *data;
    size_t length, capacity;
};

/* A dpu_log_print_fct_t that appends to a struct text (the log is written in one piece). */
static dpu_error_t append(void *arg, const char *format, ...)
{
    struct text *text = arg;
    va_list ap;
    va_start(ap, format);
    va_list again;
    va_copy(again, ap);
    int needed = vsnprintf(NULL, 0, format, ap);
    va_end(ap);
    dpu_error_t status = DPU_OK;
    if (needed < 0) {
        status = DPU_ERR_LOG_FORMAT;
    } else {
        size_t want = text->length + (size_t)needed + 1;
        if (want > text->capacity) {
            size_t capacity = text->capacity ? text->capacity : 256;
            while (capacity < want)
                capacity *= 2;
            char *grown = realloc(text->data, capacity);
            if (grown == NULL) {
                status = DPU_ERR_SYSTEM;
            } else {
                text->data = grown;
                text->capacity = capacity;
            }
        }
        if (status == DPU_OK) {
            vsnprintf(text->data + text->length, (size_t)needed + 1, format, again);
            text->length += (size_t)needed;
        }
    }
    va_end(again);
    return status;
}

/* stream.write(text), as str; bytes that are not UTF-8 become U+FFFD, as a DPU's printf
 * may print anything. */
static dpu_error_t write_to_stream(PyObject *stream, const struct text *text)
{
    int gil = py.gil_ensure();
    dpu_error_t status = DPU_OK;
    PyObject *string = py.decode_utf8(text->data ? text->data : "", (Py_ssize_t)text->length, "replace");
    if (string == NULL || py.file_write_object(string, stream, PY_PRINT_RAW) != 0) {
        /* ctypes does not look for a Python exception after a CDLL call: show it here. */
        py.err_write_unraisable(stream);
        status = DPU_ERR_SYSTEM;
    }
    if (string != NULL)
        py.decref(string);
    py.gil_release(gil);
    return status;
}

dpu_error_t Py_dpu_log_read(struct dpu_set_t set, PyObject *stream)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve_one(set, &range);
    if (status != DPU_OK)
        return status;
    struct dpu_t *dpu = &range.allocation->dpus[range.first];
    if (dpu->program == NULL)
        return DPU_ERR_NO_PROGRAM_LOADED;
    if (stream == NULL)
        return DPU_ERR_LOG_CONTEXT_MISSING;
    if (!have_python("Py_dpu_log_read"))
        return DPU_ERR_SYSTEM;
    struct text text = {0};
    status = append(&text, DPU_LOG_FORMAT_HEADER, emu_slot(dpu->allocation, dpu->index)->dpu_id);
    if (status == DPU_OK)
        status = dpulog_read_for_dpu_(dpu, append, &text);
    if (status == DPU_OK)
        status = write_to_stream(stream, &text);
    free(text.data);
    return status;
}

/* ------------------------------------------------------------------ Py_dpu_prepare_xfers */

/* The address and length of a writable buffer, or NULL for None; false for anything else. */
static bool host_buffer(PyObject *item, void **address, size_t *length)
{
    if (item == py.none) {
        *address = NULL;
        return true;
    }
    py_buffer view;
    if (py.get_buffer(item, &view, PY_BUF_WRITABLE) != 0) {
        py.err_clear(); /* the status code says it; ctypes would not see the exception */
        return false;
    }
    *address = view.buf;
    *length = (size_t)view.len;
    /* The list keeps the buffer alive until the transfer that follows, as with the SDK. */
    py.release_buffer(&view);
    return true;
}

dpu_error_t Py_dpu_prepare_xfers(struct dpu_set_t set, PyObject *buffers, size_t *buffer_size)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve(set, &range);
    if (status != DPU_OK)
        return status;
    if (buffers == NULL || buffer_size == NULL)
        return DPU_ERR_INVALID_MEMORY_TRANSFER;
    if (!have_python("Py_dpu_prepare_xfers"))
        return DPU_ERR_SYSTEM;
    void **addresses = calloc(range.count, sizeof(void *));
    if (addresses == NULL)
        return DPU_ERR_SYSTEM;
    int gil = py.gil_ensure();
    size_t common = SIZE_MAX; /* no buffer seen yet */
    if (py.is_instance(buffers, py.list_type) != 1 || py.list_size(buffers) != (Py_ssize_t)range.count) {
        py.err_clear();
        status = DPU_ERR_INVALID_MEMORY_TRANSFER;
    }
    /* Check every item before preparing any, so that a refused list changes nothing. */
    for (uint32_t i = 0; status == DPU_OK && i < range.count; i++) {
        size_t length = 0;
        if (!host_buffer(py.list_get_item(buffers, i), &addresses[i], &length))
            status = DPU_ERR_INVALID_MEMORY_TRANSFER;
        else if (addresses[i] != NULL && common != SIZE_MAX && length != common)
            status = DPU_ERR_INVALID_MEMORY_TRANSFER; /* one transfer moves one length */
        else if (addresses[i] != NULL)
            common = length;
    }
    py.gil_release(gil);
    if (status == DPU_OK) {
        /* A NULL buffer leaves that DPU out of the next dpu_push_xfer. */
        for (uint32_t i = 0; i < range.count; i++)
            range.allocation->dpus[range.first + i].xfer_buffer = addresses[i];
        *buffer_size = common == SIZE_MAX ? UINT32_MAX : common;
    }
    free(addresses);
    return status;
}

/* ------------------------------------------------------------------ Py_dpu_get_symbol_names */

PyObject *Py_dpu_get_symbol_names(struct dpu_program_t *program)
{
    if (!have_python("Py_dpu_get_symbol_names"))
        return NULL;
    int gil = py.gil_ensure();
    uint32_t count = program ? program->nr_symbols : 0;
    PyObject *names = py.list_new((Py_ssize_t)count);
    for (uint32_t i = 0; names != NULL && i < count; i++) {
        const char *name = program->symbols[i].name;
        PyObject *string = py.decode_utf8(name, (Py_ssize_t)strlen(name), "replace");
        if (string == NULL || py.list_set_item(names, i, string) != 0) {
            py.decref(names);
            names = NULL;
        }
    }
    if (names == NULL) {
        /* Out of memory. ctypes crashes on a NULL py_object result (it decrefs it), so
         * the caller gets None and the MemoryError is printed. */
        py.err_write_unraisable(NULL);
        py.incref(py.none);
        names = py.none;
    }
    py.gil_release(gil);
    return names;
}
