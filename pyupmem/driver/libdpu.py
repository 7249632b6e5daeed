"""Raw ctypes declarations of UPMEM's host library ``libdpu``.

This module is the exact C interface of UPMEM_ABI.md section 1 and nothing else: the
types and struct layouts of ``dpu.h``, the enum values, every function with its argument
and return types, and the iteration over DPUs and ranks that the C macros
``DPU_FOREACH`` and ``DPU_RANK_FOREACH`` perform (macros do not exist for ctypes).
It uses only :mod:`ctypes` and the standard library; the Pythonic layer
(:mod:`pyupmem.dpus.dpuset`) is built on it.

Names follow the C header (``dpu_set_t``, ``DPU_XFER_TO_DPU`` ...) so that code can be
read side by side with the SDK's documentation.

Example::

    lib = LibDpu.open("/usr/lib/libdpu.so")
    dpus = dpu_set_t()
    check(lib.dpu_alloc(DPU_ALLOCATE_ALL, None, ctypes.byref(dpus)))
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Iterator
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    Union,
    c_bool,
    c_char_p,
    c_double,
    c_int,
    c_size_t,
    c_uint8,
    c_uint16,
    c_uint32,
    c_uint64,
    c_void_p,
)
from pathlib import Path
from typing import Any

# --------------------------------------------------------------------------- scalar types

mram_addr_t = c_uint32
"""``mram_addr_t``: an MRAM address (``uint32_t``)."""
wram_addr_t = c_uint32
"""``wram_addr_t``: a WRAM address (``uint32_t``)."""
mram_size_t = c_uint32
"""``mram_size_t``: a size in MRAM (``uint32_t``)."""
wram_size_t = c_uint32
"""``wram_size_t``: a size in WRAM (``uint32_t``)."""
iram_addr_t = c_uint16
"""``iram_addr_t``: an IRAM address (``uint16_t``)."""
dpu_id_t = c_uint32
"""``dpu_id_t``: a DPU id (``uint32_t``)."""

# Every enum of dpu.h is 4 bytes. ``dpu_error_t`` holds DPU_ERR_ASYNC_JOBS (bit 31), so it is
# read as unsigned: a status is then a plain non-negative int.
dpu_error_t = c_uint32
"""``dpu_error_t``: a libdpu status, read as an unsigned 32-bit integer."""
dpu_set_kind_t = c_int
"""``dpu_set_kind_t``: :data:`DPU_SET_RANKS` or :data:`DPU_SET_DPU`."""
dpu_launch_policy_t = c_int
"""``dpu_launch_policy_t``: :data:`DPU_ASYNCHRONOUS` or :data:`DPU_SYNCHRONOUS`."""
dpu_xfer_t = c_int
"""``dpu_xfer_t``: :data:`DPU_XFER_TO_DPU` or :data:`DPU_XFER_FROM_DPU`."""
dpu_xfer_flags_t = c_int
"""``dpu_xfer_flags_t``: an OR of the ``DPU_XFER_*`` flags."""
dpu_callback_flags_t = c_int
"""``dpu_callback_flags_t``: an OR of the ``DPU_CALLBACK_*`` flags."""
dpu_sg_xfer_flags_t = c_int
"""``dpu_sg_xfer_flags_t``: an OR of the ``DPU_SG_XFER_*`` flags."""

# --------------------------------------------------------------------------- constants

DPU_ALLOCATE_ALL = 0xFFFFFFFF
"""``DPU_ALLOCATE_ALL`` (``UINT_MAX``): allocate every available DPU or rank."""
DPU_MRAM_HEAP_POINTER_NAME = "__sys_used_mram_end"
"""Host-side name of the first free MRAM byte (``DPU_MRAM_HEAP_POINTER`` on the DPU)."""

DPU_SET_RANKS = 0
"""``dpu_set_kind_t``: the set is a list of ranks."""
DPU_SET_DPU = 1
"""``dpu_set_kind_t``: the set is one DPU."""

DPU_ASYNCHRONOUS = 0
"""``dpu_launch_policy_t``: return at once; wait with ``dpu_sync``."""
DPU_SYNCHRONOUS = 1
"""``dpu_launch_policy_t``: return when every DPU of the set has finished."""

DPU_XFER_TO_DPU = 0
"""``dpu_xfer_t``: host to DPU."""
DPU_XFER_FROM_DPU = 1
"""``dpu_xfer_t``: DPU to host."""

DPU_XFER_DEFAULT = 0
"""``dpu_xfer_flags_t``: synchronous transfer; the prepared buffers are forgotten after it."""
DPU_XFER_NO_RESET = 1
"""``dpu_xfer_flags_t``: keep the prepared buffers after the transfer."""
DPU_XFER_ASYNC = 2
"""``dpu_xfer_flags_t``: queue the transfer; it completes by ``dpu_sync``."""
DPU_XFER_PARALLEL = 4
"""``dpu_xfer_flags_t``: transfer to WRAM while the DPU runs."""

DPU_CALLBACK_DEFAULT = 0
"""``dpu_callback_flags_t``: call once per DPU, synchronously."""
DPU_CALLBACK_ASYNC = 1
"""``dpu_callback_flags_t``: queue the callback."""
DPU_CALLBACK_NONBLOCKING = 2
"""``dpu_callback_flags_t``: do not wait for the callback (with ASYNC)."""
DPU_CALLBACK_SINGLE_CALL = 4
"""``dpu_callback_flags_t``: call once for the whole set."""
DPU_CALLBACK_PARALLEL = 8
"""``dpu_callback_flags_t``: call for several ranks at once."""

DPU_SG_XFER_DEFAULT = 0
"""``dpu_sg_xfer_flags_t``: a synchronous scatter-gather transfer whose blocks fill the length."""
DPU_SG_XFER_ASYNC = 1 << 1
"""``dpu_sg_xfer_flags_t``: queue the transfer; it completes by ``dpu_sync``."""
DPU_SG_XFER_DISABLE_LENGTH_CHECK = 1 << 2
"""``dpu_sg_xfer_flags_t``: a DPU's blocks may add up to less than the length (the rest of
the MRAM range is zero-filled on a transfer to the DPUs)."""

DPU_ERR_ASYNC_JOBS = 1 << 31
"""Flag bit of an asynchronous error: bits 16-30 carry the job type, bits 0-15 the status."""

MRAM_BASE = 0x08000000
"""Address bit (and first address) of MRAM symbols."""
IRAM_BIT = 0x80000000
"""Address bit of IRAM symbols."""
MRAM_SIZE = 64 << 20
"""Bytes of MRAM per DPU."""

# (code, name, message) of the 2024.2 / 2025.1 numbering.
ERRORS: tuple[tuple[int, str, str], ...] = (
    (0, "DPU_OK", "success"),
    (1, "DPU_ERR_INTERNAL", "internal error"),
    (2, "DPU_ERR_SYSTEM", "system error"),
    (3, "DPU_ERR_DRIVER", "driver error"),
    (4, "DPU_ERR_ALLOCATION", "dpu allocation error"),
    (5, "DPU_ERR_INVALID_DPU_SET", "invalid action for this dpu set"),
    (6, "DPU_ERR_INVALID_THREAD_ID", "invalid thread id"),
    (7, "DPU_ERR_INVALID_NOTIFY_ID", "invalid notify id"),
    (8, "DPU_ERR_INVALID_WRAM_ACCESS", "invalid wram access"),
    (9, "DPU_ERR_INVALID_IRAM_ACCESS", "invalid iram access"),
    (10, "DPU_ERR_INVALID_MRAM_ACCESS", "invalid mram access"),
    (11, "DPU_ERR_INVALID_SYMBOL_ACCESS", "invalid memory symbol access"),
    (12, "DPU_ERR_MRAM_BUSY", "mram is busy"),
    (13, "DPU_ERR_TRANSFER_ALREADY_SET", "dpu transfer is already set"),
    (
        14,
        "DPU_ERR_INVALID_PARALLEL_MEMORY_TRANSFER",
        "invalid parallel transfer (should be to/from WRAM)",
    ),
    (15, "DPU_ERR_WRAM_FIFO_FULL", "cannot push to WRAM FIFO, FIFO full"),
    (16, "DPU_ERR_NO_PROGRAM_LOADED", "no program has been loaded in the dpu set"),
    (17, "DPU_ERR_DIFFERENT_DPU_PROGRAMS", "cannot access symbol on dpus with different programs"),
    (18, "DPU_ERR_CORRUPTED_MEMORY", "corrupted memory"),
    (19, "DPU_ERR_DPU_DISABLED", "dpu is disabled"),
    (20, "DPU_ERR_DPU_ALREADY_RUNNING", "dpu is already running"),
    (21, "DPU_ERR_INVALID_MEMORY_TRANSFER", "invalid memory transfer"),
    (22, "DPU_ERR_INVALID_LAUNCH_POLICY", "invalid launch policy"),
    (23, "DPU_ERR_DPU_FAULT", "dpu is in fault"),
    (24, "DPU_ERR_ELF_INVALID_FILE", "invalid ELF file"),
    (25, "DPU_ERR_ELF_NO_SUCH_FILE", "no such ELF file"),
    (26, "DPU_ERR_ELF_NO_SUCH_SECTION", "no such ELF section"),
    (27, "DPU_ERR_TIMEOUT", "result timeout"),
    (28, "DPU_ERR_INVALID_PROFILE", "invalid profile"),
    (29, "DPU_ERR_UNKNOWN_SYMBOL", "undefined symbol"),
    (30, "DPU_ERR_LOG_FORMAT", "logging format error"),
    (31, "DPU_ERR_LOG_CONTEXT_MISSING", "logging context missing"),
    (32, "DPU_ERR_LOG_BUFFER_TOO_SMALL", "logging buffer too small"),
    (33, "DPU_ERR_VPD_INVALID_FILE", "invalid VPD file"),
    (34, "DPU_ERR_VPD_NO_REPAIR", "repairs have not been generated"),
    (35, "DPU_ERR_NO_THREAD_PER_RANK", "no thread to perform multiple-rank operation"),
    (36, "DPU_ERR_INVALID_BUFFER_SIZE", "invalid buffer size"),
    (37, "DPU_ERR_NONBLOCKING_SYNC_CALLBACK", "nonblocking and synchronous callback is invalid"),
    (
        38,
        "DPU_ERR_TOO_MANY_TASKLETS",
        "dpu program uses more tasklets than the hardware has threads",
    ),
    # The scatter/gather messages (39-42) are not part of the documented interface.
    (39, "DPU_ERR_SG_TOO_MANY_BLOCKS", "too many blocks for scatter/gather transfer"),
    (40, "DPU_ERR_SG_LENGTH_MISMATCH", "scatter/gather transfer length mismatch"),
    (41, "DPU_ERR_SG_NOT_ACTIVATED", "scatter/gather transfers not activated"),
    (42, "DPU_ERR_SG_NOT_MRAM_SYMBOL", "scatter/gather transfer on a non-MRAM symbol"),
)
"""``(code, name, message)`` of every ``dpu_error_t`` in the SDK 2024.2 / 2025.1 numbering."""

ERROR_NAMES: dict[int, str] = {code: name for code, name, _ in ERRORS}
"""Code to ``DPU_ERR_*`` name (2024+ numbering)."""
ERROR_MESSAGES: dict[int, str] = {code: message for code, _, message in ERRORS}
"""Code to ``dpu_error_to_string`` message (2024+ numbering)."""
ERROR_BY_MESSAGE: dict[str, int] = {message: code for code, _, message in ERRORS}
"""Message to code (2024+ numbering): maps another SDK version's codes by their message."""

for _code, _name, _ in ERRORS:
    globals()[_name] = _code
del _code, _name

# Explicit names for static tools (the loop above defines them all at run time).
DPU_OK = 0
DPU_ERR_INTERNAL = 1
DPU_ERR_ALLOCATION = 4
DPU_ERR_INVALID_DPU_SET = 5
DPU_ERR_INVALID_WRAM_ACCESS = 8
DPU_ERR_INVALID_IRAM_ACCESS = 9
DPU_ERR_INVALID_MRAM_ACCESS = 10
DPU_ERR_INVALID_SYMBOL_ACCESS = 11
DPU_ERR_MRAM_BUSY = 12
DPU_ERR_NO_PROGRAM_LOADED = 16
DPU_ERR_DPU_ALREADY_RUNNING = 20
DPU_ERR_DPU_FAULT = 23
DPU_ERR_ELF_INVALID_FILE = 24
DPU_ERR_ELF_NO_SUCH_FILE = 25
DPU_ERR_TIMEOUT = 27
DPU_ERR_INVALID_PROFILE = 28
DPU_ERR_UNKNOWN_SYMBOL = 29
DPU_ERR_INVALID_BUFFER_SIZE = 36
DPU_ERR_SG_TOO_MANY_BLOCKS = 39
DPU_ERR_SG_LENGTH_MISMATCH = 40
DPU_ERR_SG_NOT_ACTIVATED = 41
DPU_ERR_SG_NOT_MRAM_SYMBOL = 42

# --------------------------------------------------------------------------- structs


class dpu_set_list_t(Structure):
    """The ``list`` member of ``struct dpu_set_t``: ``{uint32_t nr_ranks; dpu_rank_t **ranks;}``."""

    _fields_ = [("nr_ranks", c_uint32), ("ranks", POINTER(c_void_p))]


class dpu_set_union_t(Union):
    """The anonymous union of ``struct dpu_set_t``: ``list`` (ranks) or ``dpu`` (one DPU)."""

    _fields_ = [("list", dpu_set_list_t), ("dpu", c_void_p)]


class dpu_set_t(Structure):
    """``struct dpu_set_t`` (24 bytes): ``kind`` then a union of ``list`` and ``dpu``.

    The union is anonymous in C and here: ``s.list.nr_ranks`` and ``s.dpu`` work directly.
    """

    _anonymous_ = ("u",)
    _fields_ = [("kind", dpu_set_kind_t), ("u", dpu_set_union_t)]


class dpu_symbol_t(Structure):
    """``struct dpu_symbol_t``: the ``address`` and ``size`` of a DPU program's symbol."""

    _fields_ = [("address", c_uint32), ("size", c_uint32)]


class dpu_incbin_t(Structure):
    """``struct dpu_incbin_t``: a DPU program embedded in memory (``DPU_INCBIN``)."""

    _fields_ = [("buffer", POINTER(c_uint8)), ("size", c_size_t), ("path", c_char_p)]


class dpu_set_rank_iterator_t(Structure):
    """``struct dpu_set_rank_iterator_t`` (48 bytes), the state of ``DPU_RANK_FOREACH``."""

    _fields_ = [
        ("set", POINTER(dpu_set_t)),
        ("count", c_uint32),
        ("next_idx", c_uint32),
        ("has_next", c_bool),
        ("next", dpu_set_t),
    ]


class dpu_set_dpu_iterator_t(Structure):
    """``struct dpu_set_dpu_iterator_t`` (88 bytes), the state of ``DPU_FOREACH``."""

    _fields_ = [
        ("rank_iterator", dpu_set_rank_iterator_t),
        ("count", c_uint32),
        ("next_idx", c_uint32),
        ("has_next", c_bool),
        ("next", dpu_set_t),
    ]


class sg_block_info(Structure):
    """``struct sg_block_info``: one host block of a scatter-gather transfer
    (``uint8_t *addr; uint32_t length;``), filled by the ``get_block`` function."""

    _fields_ = [("addr", c_void_p), ("length", c_uint32)]


get_block_func_t = CFUNCTYPE(c_bool, POINTER(sg_block_info), c_uint32, c_uint32, c_void_p)
"""``bool (*)(struct sg_block_info *out, uint32_t dpu_index, uint32_t block_index, void *args)``:
fills ``out`` with block ``block_index`` of DPU ``dpu_index`` and returns True, or returns
False when that DPU has no more blocks."""


class get_block_t(Structure):
    """``get_block_t``: the ``get_block`` function of a scatter-gather transfer, its ``args``
    and their size (``args_size``, which the SDK copies for asynchronous transfers)."""

    _fields_ = [("f", get_block_func_t), ("args", c_void_p), ("args_size", c_size_t)]


STRUCTS: tuple[type[Structure], ...] = (
    dpu_set_t,
    dpu_symbol_t,
    dpu_incbin_t,
    dpu_set_rank_iterator_t,
    dpu_set_dpu_iterator_t,
    sg_block_info,
    get_block_t,
)
"""The public structs of ``dpu.h`` (their C names are the class names)."""

dpu_program_p = c_void_p
"""``struct dpu_program_t *``: an opaque program handle."""

dpu_callback_fn = CFUNCTYPE(dpu_error_t, dpu_set_t, c_uint32, c_void_p)
"""``dpu_error_t (*)(struct dpu_set_t, uint32_t, void *)``, the callback of ``dpu_callback``."""

_FILE_p = c_void_p  # FILE *

# --------------------------------------------------------------------------- functions

FUNCTIONS: dict[str, tuple[Any, tuple[Any, ...]]] = {
    "dpu_alloc": (dpu_error_t, (c_uint32, c_char_p, POINTER(dpu_set_t))),
    "dpu_alloc_ranks": (dpu_error_t, (c_uint32, c_char_p, POINTER(dpu_set_t))),
    "dpu_free": (dpu_error_t, (dpu_set_t,)),
    "dpu_get_nr_ranks": (dpu_error_t, (dpu_set_t, POINTER(c_uint32))),
    "dpu_get_nr_dpus": (dpu_error_t, (dpu_set_t, POINTER(c_uint32))),
    "dpu_set_rank_iterator_from": (dpu_set_rank_iterator_t, (POINTER(dpu_set_t),)),
    "dpu_set_rank_iterator_next": (None, (POINTER(dpu_set_rank_iterator_t),)),
    "dpu_set_dpu_iterator_from": (dpu_set_dpu_iterator_t, (POINTER(dpu_set_t),)),
    "dpu_set_dpu_iterator_next": (None, (POINTER(dpu_set_dpu_iterator_t),)),
    "dpu_load": (dpu_error_t, (dpu_set_t, c_char_p, POINTER(dpu_program_p))),
    "dpu_load_from_memory": (
        dpu_error_t,
        (dpu_set_t, c_void_p, c_size_t, POINTER(dpu_program_p)),
    ),
    "dpu_load_from_incbin": (
        dpu_error_t,
        (dpu_set_t, POINTER(dpu_incbin_t), POINTER(dpu_program_p)),
    ),
    "dpu_get_symbol": (dpu_error_t, (dpu_program_p, c_char_p, POINTER(dpu_symbol_t))),
    "dpu_launch": (dpu_error_t, (dpu_set_t, dpu_launch_policy_t)),
    "dpu_status": (dpu_error_t, (dpu_set_t, POINTER(c_bool), POINTER(c_bool))),
    "dpu_sync": (dpu_error_t, (dpu_set_t,)),
    "dpu_copy_to": (dpu_error_t, (dpu_set_t, c_char_p, c_uint32, c_void_p, c_size_t)),
    "dpu_copy_from": (dpu_error_t, (dpu_set_t, c_char_p, c_uint32, c_void_p, c_size_t)),
    "dpu_copy_to_symbol": (
        dpu_error_t,
        (dpu_set_t, dpu_symbol_t, c_uint32, c_void_p, c_size_t),
    ),
    "dpu_copy_from_symbol": (
        dpu_error_t,
        (dpu_set_t, dpu_symbol_t, c_uint32, c_void_p, c_size_t),
    ),
    "dpu_prepare_xfer": (dpu_error_t, (dpu_set_t, c_void_p)),
    "dpu_push_xfer": (
        dpu_error_t,
        (dpu_set_t, dpu_xfer_t, c_char_p, c_uint32, c_size_t, dpu_xfer_flags_t),
    ),
    "dpu_push_xfer_symbol": (
        dpu_error_t,
        (dpu_set_t, dpu_xfer_t, dpu_symbol_t, c_uint32, c_size_t, dpu_xfer_flags_t),
    ),
    "dpu_broadcast_to": (
        dpu_error_t,
        (dpu_set_t, c_char_p, c_uint32, c_void_p, c_size_t, dpu_xfer_flags_t),
    ),
    "dpu_broadcast_to_symbol": (
        dpu_error_t,
        (dpu_set_t, dpu_symbol_t, c_uint32, c_void_p, c_size_t, dpu_xfer_flags_t),
    ),
    "dpu_callback": (
        dpu_error_t,
        (dpu_set_t, dpu_callback_fn, c_void_p, dpu_callback_flags_t),
    ),
    "dpu_push_sg_xfer": (
        dpu_error_t,
        (
            dpu_set_t,
            dpu_xfer_t,
            c_char_p,
            c_uint32,
            c_size_t,
            POINTER(get_block_t),
            dpu_sg_xfer_flags_t,
        ),
    ),
    "dpu_push_sg_xfer_symbol": (
        dpu_error_t,
        (
            dpu_set_t,
            dpu_xfer_t,
            dpu_symbol_t,
            c_uint32,
            c_size_t,
            POINTER(get_block_t),
            dpu_sg_xfer_flags_t,
        ),
    ),
    # struct dpu_fifo_link_t * is passed as an address: pyupmem does not build FIFO links.
    "dpu_fifo_prepare_xfer": (dpu_error_t, (dpu_set_t, c_void_p, c_void_p)),
    "dpu_fifo_push_xfer": (dpu_error_t, (dpu_set_t, c_void_p, dpu_xfer_flags_t)),
    "dpu_log_read": (dpu_error_t, (dpu_set_t, _FILE_p)),
    # const char * (2020.x) or char * (2024.2, 2025.1): read as an address, never as c_char_p,
    # so that ctypes does not lose the pointer the caller may have to free.
    "dpu_error_to_string": (c_void_p, (dpu_error_t,)),
}
"""Every function of UPMEM_ABI.md section 1, and the scatter-gather and FIFO transfers of
SDK 2024+ (section 4): name to ``(restype, argtypes)``. A library without the latter (SDK
2020.x, 2023.x) lists them in :attr:`LibDpu.missing`."""

EXTENSIONS: dict[str, tuple[Any, tuple[Any, ...]]] = {
    # pyupmem's emulator: dpu_sync with a time limit in milliseconds (0: none), returning
    # DPU_ERR_TIMEOUT while the DPUs still run, so that a waiting caller can be interrupted.
    "dpu_emu_sync_timeout": (dpu_error_t, (dpu_set_t, c_uint32)),
    # the time model's cycles of each DPU's last launch, and whether its program counted
    # its instructions (one entry per DPU of the set); the modelled clock in MHz
    "dpu_emu_launch_cycles": (dpu_error_t, (dpu_set_t, POINTER(c_uint64), POINTER(c_bool))),
    "dpu_emu_clock_mhz": (dpu_error_t, (dpu_set_t, POINTER(c_uint32))),
    # stop the running DPUs of a set; they need dpu_load again before the next launch
    "dpu_emu_stop": (dpu_error_t, (dpu_set_t,)),
    # the time model of the whole run: emulated and estimated seconds of the set's
    # allocation per PrIM phase (4 doubles each: CPU-DPU, DPU kernel, Inter-DPU, DPU-CPU);
    # the estimate of one host transfer (kind: 0 parallel to the DPUs, 1 parallel from
    # them, 2 broadcast, 3 to one DPU, 4 from one DPU; DPUs of the busiest rank; ranks)
    "dpu_emu_phase_seconds": (dpu_error_t, (dpu_set_t, POINTER(c_double), POINTER(c_double))),
    "dpu_emu_transfer_seconds": (c_double, (c_uint32, c_uint64, c_uint32, c_uint32)),
    # the set's last launch on hardware: seconds in all, and of them the launch's own cost
    "dpu_emu_kernel_seconds": (dpu_error_t, (dpu_set_t, POINTER(c_double), POINTER(c_double))),
    "dpu_emu_launch_overhead_seconds": (c_double, (c_uint32,)),
    # each DPU's last launch per tasklet (EMU_MAX_TASKLETS entries per DPU, see
    # emu_tasklet_times); whether the next launches record a timeline; one DPU's timeline
    "dpu_emu_tasklet_times": (dpu_error_t, (dpu_set_t, POINTER(c_uint32), c_void_p)),
    "dpu_emu_trace": (dpu_error_t, (dpu_set_t, c_bool)),
    "dpu_emu_trace_events": (
        dpu_error_t,
        (dpu_set_t, c_void_p, c_uint32, POINTER(c_uint32), POINTER(c_uint32)),
    ),
    # why this thread's last allocation refused its profile (names the setting, the value
    # and what is accepted); whether the library also prints that to stderr
    "dpu_emu_profile_error": (c_char_p, ()),
    "dpu_emu_report_profile_errors": (None, (c_bool,)),
}
"""Functions a library may add to the SDK's interface; bound only where exported."""

EMU_MAX_TASKLETS = 24
"""Entries per DPU in ``dpu_emu_tasklet_times`` (the emulator's ``EMU_MAX_TASKLETS``)."""


class emu_tasklet_times(Structure):
    """One tasklet's modelled cycles of a launch by activity, and its instructions."""

    _fields_ = [("cycles", c_uint64 * 3), ("instructions", c_uint64)]


class emu_trace_event(Structure):
    """One stretch of a tasklet's modelled time (cycles from the launch's start); activity
    0 compute, 1 DMA, 2 waiting for another tasklet."""

    _fields_ = [
        ("start", c_uint64),
        ("end", c_uint64),
        ("tasklet", c_uint32),
        ("activity", c_uint32),
    ]


class LibDpu:
    """A loaded ``libdpu`` with every function of :data:`FUNCTIONS` typed.

    Each function is an attribute of the same name (``lib.dpu_alloc(...)``) with its
    ``restype`` and ``argtypes`` set. A function the library lacks (an older SDK) is
    listed in :attr:`missing` and calling it raises :class:`AttributeError`.

    Attributes:
        path: the path (or name) the library was opened from.
        cdll: the underlying :class:`ctypes.CDLL`.
        missing: names of functions of :data:`FUNCTIONS` the library does not export.
        extensions: names of functions of :data:`EXTENSIONS` the library exports.
        frees_error_strings: whether :meth:`error_string` frees what
            ``dpu_error_to_string`` returns (right for the emulator and SDK 2025.1+).
    """

    def __init__(self, cdll: ctypes.CDLL, path: str, *, frees_error_strings: bool = False):
        self.cdll = cdll
        self.path = path
        self.frees_error_strings = frees_error_strings
        self.missing: list[str] = []
        self._error_strings: dict[int, str] = {}
        self.extensions: list[str] = []
        for name, (restype, argtypes) in (FUNCTIONS | EXTENSIONS).items():
            try:
                function = getattr(cdll, name)
            except AttributeError:
                if name in FUNCTIONS:
                    self.missing.append(name)
                continue
            function.restype = restype
            function.argtypes = argtypes
            setattr(self, name, function)
            if name in EXTENSIONS:
                self.extensions.append(name)

    @classmethod
    def open(cls, path: str | Path, *, frees_error_strings: bool = False) -> LibDpu:
        """Load the library at ``path`` (a file path or a name the dynamic loader finds).

        Raises:
            OSError: the dynamic loader could not load it.
        """
        return cls(ctypes.CDLL(str(path)), str(path), frees_error_strings=frees_error_strings)

    def error_string(self, status: int) -> str:
        """``dpu_error_to_string(status)`` as text, without leaking or double-freeing.

        The result is cached per status, so an SDK that allocates the string and expects
        no ``free`` (2024.2) leaks at most one string per distinct status; the string is
        freed with libc ``free`` only when :attr:`frees_error_strings` is set.
        """
        cached = self._error_strings.get(status)
        if cached is not None:
            return cached
        address = self.dpu_error_to_string(status)  # type: ignore[attr-defined]
        if not address:
            text = f"unknown error {status}"
        else:
            text = ctypes.string_at(address).decode("utf-8", "replace")
            if self.frees_error_strings:
                libc_free(address)
        self._error_strings[status] = text
        return text


# --------------------------------------------------------------------------- libc helpers

_libc: ctypes.CDLL | None = None


def libc() -> ctypes.CDLL:
    """The C library of this process, with ``free``, ``open_memstream``, ``fclose`` typed."""
    global _libc
    if _libc is None:
        lib = ctypes.CDLL(ctypes.util.find_library("c") or None)
        lib.free.argtypes = (c_void_p,)
        lib.free.restype = None
        lib.open_memstream.argtypes = (POINTER(c_void_p), POINTER(c_size_t))
        lib.open_memstream.restype = c_void_p
        lib.fclose.argtypes = (c_void_p,)
        lib.fclose.restype = c_int
        lib.fflush.argtypes = (c_void_p,)
        lib.fflush.restype = c_int
        _libc = lib
    return _libc


def libc_free(address: int) -> None:
    """``free(address)`` with the process's C library."""
    libc().free(address)


def read_log(lib: LibDpu, dpu: dpu_set_t) -> tuple[int, bytes]:
    """Call ``dpu_log_read(dpu, stream)`` into an ``open_memstream`` stream.

    Returns:
        ``(status, bytes written)``; the bytes are empty when the status is not ``DPU_OK``.
    """
    c = libc()
    buffer = c_void_p()
    size = c_size_t()
    stream = c.open_memstream(ctypes.byref(buffer), ctypes.byref(size))
    if not stream:
        raise OSError(ctypes.get_errno(), "open_memstream failed")
    try:
        status = lib.dpu_log_read(dpu, stream)  # type: ignore[attr-defined]
    finally:
        c.fclose(stream)
        data = ctypes.string_at(buffer.value, size.value) if buffer.value else b""
        if buffer.value:
            c.free(buffer.value)
    return status, data if status == DPU_OK else b""


# --------------------------------------------------------------------------- iteration


def iter_dpus(lib: LibDpu, dpu_set: dpu_set_t) -> Iterator[dpu_set_t]:
    """Yield each DPU of ``dpu_set`` as a ``DPU_SET_DPU`` set, as ``DPU_FOREACH`` does.

    Each yielded struct is a copy, safe to keep after the iteration advances.
    """
    iterator = lib.dpu_set_dpu_iterator_from(ctypes.byref(dpu_set))  # type: ignore[attr-defined]
    advance = lib.dpu_set_dpu_iterator_next  # type: ignore[attr-defined]
    while iterator.has_next:
        yield dpu_set_t.from_buffer_copy(iterator.next)
        advance(ctypes.byref(iterator))


def iter_ranks(lib: LibDpu, dpu_set: dpu_set_t) -> Iterator[dpu_set_t]:
    """Yield each rank of ``dpu_set`` as a one-rank set, as ``DPU_RANK_FOREACH`` does."""
    iterator = lib.dpu_set_rank_iterator_from(ctypes.byref(dpu_set))  # type: ignore[attr-defined]
    advance = lib.dpu_set_rank_iterator_next  # type: ignore[attr-defined]
    while iterator.has_next:
        yield dpu_set_t.from_buffer_copy(iterator.next)
        advance(ctypes.byref(iterator))


def memory_of(address: int) -> str:
    """The memory a symbol address lies in: ``"IRAM"``, ``"MRAM"`` or ``"WRAM"``."""
    if address & IRAM_BIT:
        return "IRAM"
    if address & MRAM_BASE:
        return "MRAM"
    return "WRAM"
