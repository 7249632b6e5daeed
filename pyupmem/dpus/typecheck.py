"""Checking that transferred data fits the C type of its symbol.

A symbol whose program carries debug information knows its dtype and shape
(:attr:`pyupmem.Symbol.dtype`, :attr:`~pyupmem.Symbol.shape`). The transfers of
:class:`~pyupmem.DpuSet` then:

- refuse data of another dtype (:class:`~pyupmem.errors.SymbolTypeError`, a
  ``TypeError``): a ``float32`` array is never reinterpreted as ``uint32_t``;
- refuse data of a shape that does not fit (:class:`~pyupmem.errors.SymbolShapeError`, a
  ``ValueError``). Data fits a symbol of shape ``S`` when its shape is ``S``, or when it
  is a leading part of it: a flat array of at most as many elements, or ``(k, *S[1:])``
  with ``k <= S[0]`` (written from ``offset``);
- accept Python numbers and lists, converted to the symbol's dtype (``broadcast("n", 5)``);
- take any array data into a raw-storage array (``uint8_t buf[N]``, ``unsigned char
  buf[N]``, ``char buf[N]``): C programs use those as untyped bytes. An ``int8_t x[N]``
  (or ``signed char``) array holds numbers: it takes byte data (1-byte integers, ``bytes``)
  of any shape, and refuses data of another dtype (``float64`` into ``int8_t x[64]``)
  like any other mismatch;
- give :meth:`~pyupmem.DpuSet.gather` and :meth:`~pyupmem.DpuSet.read` the symbol's dtype
  and shape (a scalar gathers as shape ``(n_dpus,)``), and refuse an explicit ``dtype=``
  (or an ``out=`` array of a dtype) other than the symbol's: ``gather("x", np.float32)`` on
  an ``int32_t x`` raises :class:`~pyupmem.errors.SymbolTypeError`, as the scatter of
  ``float32`` data into it does. An ``out=`` byte buffer (``uint8``) receives the bytes as
  they are, and a raw-storage array reads as any dtype.

``raw=True``, on a write or a read, moves the bytes as they are: the explicit way to
reinterpret them. Without debug information the caller names the dtype of a read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pyupmem.build.debuginfo import CType
from pyupmem.build.program import Symbol
from pyupmem.errors import ArgumentTypeError, SymbolShapeError, SymbolTypeError

__all__ = ["as_input_array", "checked_input", "checked_output", "read_layout"]

_PY_SCALARS = (int, float, bool, complex)


def as_input_array(
    data: Any, why: str = "the symbol has no C type (no debug information)"
) -> np.ndarray:
    """A C-contiguous ndarray sharing ``data``'s memory (copied only if not contiguous);
    ``why`` says, for the message, why there is no symbol type to convert a number to.

    Raises:
        ArgumentTypeError: a Python number (its C type is ambiguous without a typed
            symbol), or an object without the buffer protocol.
    """
    if type(data) is np.ndarray:
        array = data
    elif isinstance(data, np.ndarray | np.generic):
        array = np.asarray(data)
    elif isinstance(data, _PY_SCALARS):
        raise ArgumentTypeError(
            f"cannot transfer a Python {type(data).__name__}: its C type is ambiguous ({why}); "
            "pass a numpy scalar (np.uint32(5)) or an array"
        )
    else:
        try:
            array = np.asarray(memoryview(data))
        except TypeError as error:
            raise ArgumentTypeError(
                f"cannot transfer {type(data).__name__}: pass a numpy array or an object "
                "with the buffer protocol (bytes, bytearray, memoryview, array.array)"
            ) from error
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    return array


def _fix(symbol: Symbol) -> str:
    shape = symbol.shape or ()
    if not shape:
        fits = "a single value"
    else:
        count = int(np.prod(shape))
        fits = f"shape {shape}" + (
            f", (k, {', '.join(map(str, shape[1:]))})" if len(shape) > 1 else ""
        )
        fits += f" or a flat array of at most {count} elements"
    return f"the symbol takes {fits}"


def checked_input(
    symbol: Symbol | None, data: Any, offset: int, call: str, *, per_dpu: bool = False
) -> np.ndarray:
    """``data`` as a C-contiguous array, checked against ``symbol``'s C type.

    Args:
        symbol: the resolved symbol (None, or without a type: no check).
        data: what the caller passed (for a scatter: one DPU's share).
        offset: the byte offset of the transfer.
        call: the method, for messages (``"broadcast"``, ``"scatter"`` ...).
        per_dpu: ``data`` is a scatter's whole array whose first axis is the DPU.

    Raises:
        SymbolTypeError: the dtype differs from the symbol's.
        SymbolShapeError: the shape does not fit the symbol.
    """
    info = symbol.type_info if symbol is not None else None
    if info is None:
        why = (
            f"{symbol.name!r} has no C type (no debug information)"
            if symbol is not None
            else "no symbol type to convert it to: raw=True, or no one program here"
        )
        return as_input_array(data, why)
    assert symbol is not None
    if isinstance(data, (*_PY_SCALARS, list, tuple)):
        array = _converted(symbol, data, call)
    else:
        array = as_input_array(data)
        if info.shape and _is_storage(info):
            return array  # raw storage: any data, of any shape, moves as bytes
        if _is_bytes(info.dtype) and info.shape and _is_bytes(array.dtype):
            return array  # byte data into a byte array: any shape
    if array.dtype is not info.dtype and array.dtype != info.dtype:
        convert = (
            f"build the data with dtype=dpus.symbol({symbol.name!r}).dtype (a structured dtype)"
            if info.dtype.names
            else f"convert with .astype(np.{info.dtype})"
        )
        raise SymbolTypeError(
            f"{call}: {array.dtype} data into {symbol.describe()}: the dtypes differ and the "
            f"bytes would be reinterpreted. Fix: {convert}, or pass raw=True to move the "
            "bytes as they are"
        )
    shape = array.shape[1:] if per_dpu else array.shape
    row = array.nbytes // array.shape[0] if per_dpu and array.shape[0] else array.nbytes
    if offset + row > symbol.size:
        return array  # out of bounds: the access check says so, with the rule and the fix
    if shape != info.shape and not _fits(shape, info.shape, offset // info.dtype.itemsize):
        what = "each DPU's share of shape" if per_dpu else "data of shape"
        raise SymbolShapeError(
            f"{call}: {what} {shape} does not fit {symbol.describe()}: {_fix(symbol)}. "
            "Fix: reshape the data, or pass raw=True to move the bytes as they are"
        )
    return array


def _is_bytes(dtype: np.dtype) -> bool:
    return dtype.itemsize == 1 and dtype.kind in "iu"


def _is_storage(info: CType) -> bool:
    """``uint8_t buf[N]``, ``unsigned char buf[N]``, ``char buf[N]``: the C idiom for raw
    storage. ``int8_t x[N]`` and ``signed char x[N]`` hold numbers, and are typed."""
    base = info.name.split("[", 1)[0].strip()
    return info.dtype.itemsize == 1 and (info.dtype.kind == "u" or base == "char")


def _untyped(info: CType) -> bool:
    """A raw-storage array, read as any dtype as it is written from any."""
    return bool(info.shape) and _is_storage(info)


def _refuse_read_as(symbol: Symbol, dtype: np.dtype, call: str, how: str) -> None:
    info = symbol.type_info
    assert info is not None
    raise SymbolTypeError(
        f"{call}: {how} {dtype} from {symbol.describe()}: the dtypes differ and the bytes "
        f"would be reinterpreted. Fix: leave dtype= out (the symbol's own {info.dtype} is "
        "used) and convert the result with .astype(), or pass raw=True to read the bytes "
        f"as {dtype}"
    )


def checked_output(symbol: Symbol | None, out: np.ndarray, call: str, raw: bool) -> None:
    """Refuse an ``out=`` array whose dtype is not the symbol's (a byte buffer is raw bytes).

    Raises:
        SymbolTypeError: the dtypes differ and neither ``raw`` nor a byte buffer says so.
    """
    info = symbol.type_info if symbol is not None and not raw else None
    if info is None or out.dtype in (info.dtype, np.uint8) or _untyped(info):
        return
    assert symbol is not None
    _refuse_read_as(symbol, out.dtype, call, "out= of dtype")


def _converted(symbol: Symbol, data: Any, call: str) -> np.ndarray:
    """Python numbers or lists as the symbol's dtype, refusing values that change."""
    dtype = symbol.dtype
    assert dtype is not None
    problem = ""
    try:
        original = np.asarray(data)
        if dtype.kind in "iub" and original.dtype.kind == "f":
            if not np.all(original == np.trunc(original)):
                problem = "a fraction would be lost"
        if dtype.kind in "iu" and original.dtype.kind in "iu" and original.size:
            limits = np.iinfo(dtype)
            if original.min() < limits.min or original.max() > limits.max:
                problem = f"out of the range of {dtype} ({limits.min}..{limits.max})"
        if not problem:
            return np.ascontiguousarray(np.asarray(data, dtype=dtype))
    except (OverflowError, ValueError, TypeError) as error:
        problem = str(error)
    raise SymbolTypeError(
        f"{call}: {data!r} does not convert to {symbol.describe()}: {problem}. Fix: pass "
        f"values that fit {dtype}, or a numpy array of that dtype"
    )


def _fits(shape: tuple[int, ...], target: tuple[int, ...], first: int) -> bool:
    count = int(np.prod(shape)) if shape else 1
    total = int(np.prod(target)) if target else 1
    if count + first > total:
        return False
    if not target:
        return shape in ((), (1,))
    if len(shape) <= 1:
        return True
    return len(shape) <= len(target) and shape[1:] == target[len(target) - len(shape) + 1 :]


def read_layout(
    symbol: Symbol | None,
    dtype: Any,
    shape: int | Sequence[int] | None,
    offset: int,
    call: str,
    raw: bool = False,
    name: str = "",
) -> tuple[np.dtype, tuple[int, ...]] | None:
    """The dtype and per-DPU shape of a read, or None when the caller's arguments decide
    and the byte size must come from the symbol (no type to take them from); ``name``
    names the symbol in messages when it is not resolved.

    Raises:
        SymbolTypeError: no ``dtype`` was given and the symbol has no C type, or a
            ``dtype`` other than the symbol's was given without ``raw``.
    """
    info = symbol.type_info if symbol is not None else None
    if dtype is None:
        if info is None:
            name = symbol.name if symbol is not None else name
            why = (
                "it has no C type: the program was built without debug information (-g), or "
                "it is a linker symbol"
                if symbol is not None
                else "no one program is loaded here to tell its type"
            )
            raise SymbolTypeError(
                f"{call}({name!r}) needs dtype=: {why}. Fix: pass dtype= (and shape=), for "
                "instance dtype=np.uint32"
            )
        dtype = info.dtype
    else:
        dtype = np.dtype(dtype)
        if info is not None and not raw and dtype != info.dtype and not _untyped(info):
            assert symbol is not None
            _refuse_read_as(symbol, dtype, call, "reading")
    if shape is not None:
        return dtype, (int(shape),) if isinstance(shape, int | np.integer) else tuple(
            int(n) for n in shape
        )
    if info is not None and dtype == info.dtype:
        if offset == 0:
            return dtype, info.shape
        return dtype, (max(symbol.size - offset, 0) // dtype.itemsize,)  # type: ignore[union-attr]
    return None
