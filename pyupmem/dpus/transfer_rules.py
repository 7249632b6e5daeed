"""The memory rules a host transfer must keep, checked before any libdpu call, and the
host buffers handed to libdpu without copying.

MRAM symbols take offsets and sizes in multiples of 8 bytes, WRAM symbols in multiples of 4,
and ``offset + size`` must lie within the symbol (UPMEM_ABI.md); each broken rule raises the
libdpu error the call would have returned, with ``before_call`` set.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

import numpy as np

from pyupmem.build.program import Symbol
from pyupmem.dpus.queued_data import queued_for_transfer
from pyupmem.driver import libdpu as C
from pyupmem.errors import make_error

_addressof = ctypes.addressof
_c_char_from_buffer = ctypes.c_char.from_buffer


def address_of(array: np.ndarray) -> int:
    """The address of a non-empty C-contiguous array's first byte (fast for writable ones)."""
    try:
        return _addressof(_c_char_from_buffer(array))
    except (TypeError, ValueError):  # read-only, or empty
        return array.ctypes.data


def symbol_name(symbol: str | Symbol) -> str:
    return symbol.name if isinstance(symbol, Symbol) else str(symbol)


def zero_padded(share: np.ndarray, length: int) -> np.ndarray:
    if share.nbytes == length:
        return share
    padded = np.zeros(length, dtype=np.uint8)
    padded[: share.nbytes] = share.reshape(-1).view(np.uint8)
    return padded


def part_shape(
    shape: int | Sequence[int] | None,
    symbol: Symbol | None,
    offset: int,
    dtype: np.dtype,
    call: str,
) -> tuple[int, ...]:
    if shape is None:
        if symbol is None:
            raise make_error(
                C.DPU_ERR_INVALID_BUFFER_SIZE,
                call,
                detail="give shape= (the symbol's size is unknown: no program loaded here)",
                before_call=True,
            )
        return (max(symbol.size - offset, 0) // dtype.itemsize,)
    if isinstance(shape, int | np.integer):
        return (int(shape),)
    return tuple(int(n) for n in shape)


def check_out(out: np.ndarray, count: int, call: str) -> None:
    if isinstance(out, np.ndarray) and queued_for_transfer(out):
        raise make_error(
            C.DPU_ERR_INVALID_BUFFER_SIZE,
            call,
            detail="out is still queued for an asynchronous transfer (read-only until it has "
            "run): sync() first, or gather into another array",
            before_call=True,
        )
    if not isinstance(out, np.ndarray) or not out.flags.c_contiguous or not out.flags.writeable:
        raise make_error(
            C.DPU_ERR_INVALID_BUFFER_SIZE,
            call,
            detail="out must be a writable, C-contiguous numpy array",
            before_call=True,
        )
    if out.ndim == 0 or out.shape[0] != count:
        raise make_error(
            C.DPU_ERR_INVALID_BUFFER_SIZE,
            call,
            detail=f"out needs one row per DPU ({count}), got shape {out.shape}",
            before_call=True,
        )


def check_access(symbol: Symbol | None, offset: int, length: int, call: str) -> None:
    if offset < 0 or length < 0:
        raise make_error(
            C.DPU_ERR_INVALID_SYMBOL_ACCESS,
            call,
            detail=f"negative offset or size (offset={offset}, size={length})",
            before_call=True,
        )
    if symbol is None:
        return
    granule = symbol.alignment
    if granule == 0:
        raise make_error(
            C.DPU_ERR_INVALID_IRAM_ACCESS,
            call,
            detail=f"symbol {symbol.name!r} is in IRAM, which the host cannot transfer to",
            before_call=True,
        )
    if (offset | length) & (granule - 1):
        code = C.DPU_ERR_INVALID_MRAM_ACCESS if granule == 8 else C.DPU_ERR_INVALID_WRAM_ACCESS
        raise make_error(
            code,
            call,
            detail=(
                f"{symbol.memory} transfers need offset and size multiples of {granule} "
                f"bytes; got offset={offset}, size={length} for {symbol.name!r}. "
                f"Fix: pad the data to a multiple of {granule} bytes"
                + (" (scatter(..., pad=True) does it)" if call.endswith("xfer") else "")
                + f" and use an offset that is a multiple of {granule}"
            ),
            before_call=True,
        )
    if offset + length > symbol.size:
        raise make_error(
            C.DPU_ERR_INVALID_SYMBOL_ACCESS,
            call,
            detail=(
                f"offset {offset} + size {length} = {offset + length} exceeds the "
                f"{symbol.size} bytes of {symbol.name!r} ({symbol.memory}). "
                "Fix: transfer less, or enlarge the symbol in the DPU program"
            ),
            before_call=True,
        )
