"""The SDK's ``dpu.ffi``: ctypes declarations of ``dpu.h``, under the SDK's names.

The types are pyupmem's (:mod:`pyupmem._libdpu`), which match the SDK's layouts:
``struct_dpu_set_t``, ``struct_dpu_symbol_t`` ... and every ``DPU_*`` constant. A function
(``dpu_alloc``, ``dpu_push_xfer`` ..., and the Python helpers ``Py_dpu_log_read``,
``Py_dpu_prepare_xfers``, ``Py_dpu_get_symbol_names``) is the one of the active backend's
libdpu, typed, looked up on first use.
"""

from __future__ import annotations

import ctypes
from ctypes import POINTER, Structure, c_size_t, py_object
from typing import Any

from pyupmem import _libdpu as C

dpu_error_t = C.dpu_error_t
struct_dpu_set_t = C.dpu_set_t
struct_dpu_symbol_t = C.dpu_symbol_t
struct_dpu_incbin_t = C.dpu_incbin_t
struct_dpu_set_rank_iterator_t = C.dpu_set_rank_iterator_t
struct_dpu_set_dpu_iterator_t = C.dpu_set_dpu_iterator_t
dpu_set_rank_iterator_t = C.dpu_set_rank_iterator_t
dpu_set_dpu_iterator_t = C.dpu_set_dpu_iterator_t


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
    from pyupmem.backend import find_backend

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
