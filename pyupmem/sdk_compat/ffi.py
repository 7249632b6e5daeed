"""The SDK's ``dpu.ffi``: ctypes declarations of ``dpu.h``, under the SDK's names.

The types are pyupmem's (:mod:`pyupmem.driver.libdpu`), which match the SDK's layouts:
``struct_dpu_set_t``, ``struct_dpu_symbol_t`` ... and every ``DPU_*`` constant. A function
(``dpu_alloc``, ``dpu_push_xfer`` ..., and the Python helpers ``Py_dpu_log_read``,
``Py_dpu_prepare_xfers``, ``Py_dpu_get_symbol_names``) is the one of the active backend's
libdpu, typed, looked up on first use.
"""

from __future__ import annotations

import ctypes
from ctypes import POINTER, Structure, c_size_t, py_object
from typing import Any

from pyupmem.driver import libdpu as C

# What this module defines; the struct and constant names are pyupmem.driver.libdpu's, under the
# SDK's names (documented there), and the functions are the backend's.
__all__ = ["PYTHON_HELPERS", "struct_dpu_program_t"]

dpu_error_t = C.dpu_error_t
"""``dpu_error_t``: a libdpu status (``DPU_OK``, ``DPU_ERR_*``)."""
struct_dpu_set_t = C.dpu_set_t
"""``struct dpu_set_t``: a set of DPUs, a rank or one DPU."""
struct_dpu_symbol_t = C.dpu_symbol_t
"""``struct dpu_symbol_t``: a symbol's address and size."""
struct_dpu_incbin_t = C.dpu_incbin_t
"""``struct dpu_incbin_t``: a DPU program held in memory."""
struct_dpu_set_rank_iterator_t = C.dpu_set_rank_iterator_t
"""``struct dpu_set_rank_iterator_t``: the state of an iteration over a set's ranks."""
struct_dpu_set_dpu_iterator_t = C.dpu_set_dpu_iterator_t
"""``struct dpu_set_dpu_iterator_t``: the state of an iteration over a set's DPUs."""
dpu_set_rank_iterator_t = C.dpu_set_rank_iterator_t
"""The typedef of ``struct dpu_set_rank_iterator_t``."""
dpu_set_dpu_iterator_t = C.dpu_set_dpu_iterator_t
"""The typedef of ``struct dpu_set_dpu_iterator_t``."""


class struct_dpu_program_t(Structure):
    """The opaque ``struct dpu_program_t`` (use a ``POINTER`` to it)."""


# The SDK module's declarations of the helpers its libdpu exports for it (not in dpu.h).
PYTHON_HELPERS: dict[str, tuple[Any, list[Any]]] = {
    "Py_dpu_log_read": (dpu_error_t, [struct_dpu_set_t, py_object]),
    "Py_dpu_prepare_xfers": (dpu_error_t, [struct_dpu_set_t, py_object, POINTER(c_size_t)]),
    "Py_dpu_get_symbol_names": (py_object, [ctypes.c_void_p]),
}
"""Each helper's ``(restype, argtypes)``."""

globals().update({name: getattr(C, name) for name in dir(C) if name.startswith("DPU_")})


def __getattr__(name: str) -> Any:
    # Functions come from the active backend's library, found on first use.
    from pyupmem.driver.backend import find_backend

    lib = find_backend().lib
    if name in PYTHON_HELPERS:
        function = getattr(lib.cdll, name)
        function.restype, function.argtypes = PYTHON_HELPERS[name]
    elif name in C.FUNCTIONS or name in C.EXTENSIONS:
        function = getattr(lib, name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = function
    return function
