"""Moving data between the host and the DPUs: the transfer methods every group of DPUs has.

:class:`~pyupmem.dpus.group.DpuGroup` (and so every :class:`~pyupmem.dpus.dpuset.DpuSet`,
:class:`~pyupmem.dpus.views.Rank`, :class:`~pyupmem.dpus.views.Dpu` and sub-set) gets its
:meth:`~pyupmem.dpus.group.DpuGroup.write`, :meth:`~pyupmem.dpus.group.DpuGroup.broadcast`,
:meth:`~pyupmem.dpus.group.DpuGroup.scatter`, :meth:`~pyupmem.dpus.group.DpuGroup.gather`,
:meth:`~pyupmem.dpus.group.DpuGroup.scatter_blocks`,
:meth:`~pyupmem.dpus.group.DpuGroup.gather_blocks` and :meth:`~pyupmem.dpus.group.DpuGroup.read`
from this module, which holds their plumbing: the memory rules checked before any libdpu
call (alignment, bounds), the typed checks of :mod:`pyupmem.dpus.typecheck`, the buffers passed
to ``dpu_copy_to``, ``dpu_broadcast_to``, ``dpu_prepare_xfer``/``dpu_push_xfer`` and
``dpu_push_sg_xfer`` without copying, and the queueing of ``asynchronous=True`` transfers.
Use them through a set; the reference documents them on ``DpuGroup``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pyupmem.build.program import Symbol
from pyupmem.dpus.group_parts import _GroupPart
from pyupmem.dpus.queued_data import PendingArray, lock_while_queued
from pyupmem.dpus.transfer_rules import (
    address_of,
    check_access,
    check_out,
    part_shape,
    symbol_name,
    zero_padded,
)
from pyupmem.dpus.typecheck import checked_input, checked_output, read_layout
from pyupmem.driver import libdpu as C
from pyupmem.errors import make_error


class _Transfers(_GroupPart):
    """The transfer methods of :class:`~pyupmem.dpus.group.DpuGroup` (a base class of it only)."""

    # ----------------------------------------------------------------- transfers

    def write(
        self,
        symbol: str | Symbol,
        data: Any,
        offset: int = 0,
        *,
        raw: bool = False,
        asynchronous: bool = False,
    ) -> None:
        """Copy ``data`` into ``symbol`` at byte ``offset`` of every DPU of this set
        (``dpu_copy_to``). On a single :class:`Dpu` this writes that DPU only.

        Args:
            symbol: a symbol name (a ``__host`` WRAM variable, an ``__mram`` variable,
                ``DPU_MRAM_HEAP_POINTER_NAME`` ...) or a :class:`Symbol`.
            data: a numpy array or scalar, or any buffer; sent without a copy. For a symbol
                with a C type (:attr:`Symbol.dtype`) its dtype and shape must fit it
                (:mod:`pyupmem.dpus.typecheck`), and Python numbers and lists are converted.
            offset: byte offset in the symbol.
            raw: move the bytes as they are, without the type check.
            asynchronous: queue the transfer and return at once (the SDK's
                ``DPU_XFER_ASYNC``): it runs after the work queued before it, once the DPUs
                no longer run, and ``data`` is kept alive and read-only until then
                (:mod:`pyupmem.dpus.asynchrony`, :mod:`pyupmem.dpus.queued_data`); :meth:`sync`
                reports its errors.

        Raises:
            DpuAccessError: a rule on sizes and offsets is broken (checked before the call).
            DpuSymbolError: no such symbol.
            SymbolTypeError: the dtype differs from the symbol's (a ``TypeError``).
            SymbolShapeError: the shape does not fit the symbol (a ``ValueError``).
        """
        lib = self._lib(not asynchronous)
        resolved = symbol if type(symbol) is Symbol else self._resolve(symbol, "dpu_copy_to")
        info = resolved.type_info if resolved is not None and not raw else None
        if (
            type(data) is np.ndarray
            and data.flags.c_contiguous
            and (info is None or (data.dtype is info.dtype and data.shape == info.shape))
        ):
            array = data  # the per-call hot path: nothing to convert or check
        else:
            array = checked_input(resolved if not raw else None, data, offset, "write")
        length = array.nbytes
        # The full check (which raises with the rule and the fix) only when a rule is broken:
        # this is the per-call hot path.
        if (
            resolved is None
            or offset < 0
            or (offset | length) & (resolved.alignment - 1)
            or offset + length > resolved.size
        ):
            check_access(resolved, offset, length, "dpu_copy_to")
        if length == 0:
            return
        name = resolved.c_name if resolved is not None else str(symbol).encode()
        if asynchronous:
            self._enqueue(
                lambda: self._copy_to(lib, name, offset, array, length),
                f"write of {symbol_name(symbol)!r}",
                lock_while_queued((data, array)),
            )
            return
        self._copy_to(lib, name, offset, array, length)

    def _copy_to(
        self, lib: C.LibDpu, name: bytes, offset: int, array: np.ndarray, length: int
    ) -> None:
        status = lib.dpu_copy_to(self._c, name, offset, address_of(array), length)  # type: ignore[attr-defined]
        if status:
            self._check(status, "dpu_copy_to", f"symbol {name.decode()!r}")

    def broadcast(
        self,
        symbol: str | Symbol,
        data: Any,
        offset: int = 0,
        *,
        raw: bool = False,
        asynchronous: bool = False,
    ) -> None:
        """Write the same ``data`` to ``symbol`` in every DPU of this set
        (``dpu_broadcast_to``).

        Args:
            symbol: a symbol name or a :class:`Symbol`.
            data: a numpy array or scalar, or any buffer; sent without a copy. For a symbol
                with a C type its dtype and shape must fit it (:mod:`pyupmem.dpus.typecheck`).
            offset: byte offset in the symbol.
            raw: move the bytes as they are, without the type check.
            asynchronous: queue the transfer and return at once (the SDK's
                ``DPU_XFER_ASYNC``): it runs after the work queued before it, once the DPUs
                no longer run, and ``data`` is kept alive and read-only until then
                (:mod:`pyupmem.dpus.asynchrony`, :mod:`pyupmem.dpus.queued_data`); :meth:`sync`
                reports its errors.

        Raises:
            DpuAccessError: a rule on sizes and offsets is broken (checked before the call).
            DpuSymbolError: no such symbol.
            SymbolTypeError: the dtype differs from the symbol's (a ``TypeError``).
            SymbolShapeError: the shape does not fit the symbol (a ``ValueError``).
        """
        lib = self._lib(not asynchronous)
        if "dpu_broadcast_to" in lib.missing:
            self.write(symbol, data, offset, raw=raw, asynchronous=asynchronous)
            return
        resolved = self._resolve(symbol, "dpu_broadcast_to")
        array = checked_input(None if raw else resolved, data, offset, "broadcast")
        length = array.nbytes
        check_access(resolved, offset, length, "dpu_broadcast_to")
        if length == 0:
            return
        name = resolved.c_name if resolved is not None else str(symbol).encode()

        def run() -> None:
            status = lib.dpu_broadcast_to(  # type: ignore[attr-defined]
                self._c, name, offset, address_of(array), length, C.DPU_XFER_DEFAULT
            )
            if status:
                self._check(status, "dpu_broadcast_to", f"symbol {symbol_name(symbol)!r}")

        if asynchronous:
            self._enqueue(
                run, f"broadcast of {symbol_name(symbol)!r}", lock_while_queued((data, array))
            )
        else:
            run()

    def scatter(
        self,
        symbol: str | Symbol,
        data: Any,
        offset: int = 0,
        *,
        pad: bool = False,
        raw: bool = False,
        asynchronous: bool = False,
    ) -> None:
        """Write one share of ``data`` to each DPU (``dpu_prepare_xfer`` + ``dpu_push_xfer``).

        Args:
            symbol: a symbol name or a :class:`Symbol`.
            data: an array whose first axis is the DPU (``data[i]`` goes to DPU ``i``), or a
                sequence of ``len(self)`` arrays or buffers. Shares are sent without a copy.
            offset: byte offset in the symbol.
            pad: when True, shares of different sizes, or of a size that breaks the
                alignment rule, are zero-padded (copied) to a common aligned size. When
                False (default) they raise.
            raw: move the bytes as they are, without checking each share against the
                symbol's C type (:mod:`pyupmem.dpus.typecheck`).
            asynchronous: queue the transfer and return at once (the SDK's
                ``DPU_XFER_ASYNC``): it runs after the work queued before it, once the DPUs
                no longer run, and the shares are kept alive and read-only until then
                (:mod:`pyupmem.dpus.asynchrony`, :mod:`pyupmem.dpus.queued_data`); :meth:`sync`
                reports its errors.

        Raises:
            DpuAccessError: wrong number of shares or uneven shares
                (``DPU_ERR_INVALID_BUFFER_SIZE``), or an alignment or bounds rule broken.
            SymbolTypeError: the dtype differs from the symbol's (a ``TypeError``).
            SymbolShapeError: a share does not fit the symbol (a ``ValueError``).
        """
        lib = self._lib(not asynchronous)
        call = "dpu_push_xfer"
        count = self._count
        resolved = self._resolve(symbol, call)
        granule = resolved.alignment if resolved is not None and resolved.alignment else 1
        shares: list[np.ndarray]
        if isinstance(data, np.ndarray):
            if data.ndim == 0 or data.shape[0] != count:
                raise make_error(
                    C.DPU_ERR_INVALID_BUFFER_SIZE,
                    call,
                    detail=(
                        f"scatter needs one share per DPU: the first axis of the array has "
                        f"{data.shape[0] if data.ndim else 0} rows for {count} DPUs"
                    ),
                    before_call=True,
                )
            if resolved is not None and resolved.type_info is not None and not raw:
                checked_input(resolved, data, offset, "scatter", per_dpu=True)
            array = data if data.flags.c_contiguous else np.ascontiguousarray(data)
            row = array.nbytes // count if count else 0
            if pad and row % granule:
                padded = -(-row // granule) * granule
                matrix = np.zeros((count, padded), dtype=np.uint8)
                matrix[:, :row] = array.reshape(count, -1).view(np.uint8).reshape(count, row)
                array, row = matrix, padded
            base = address_of(array)
            addresses = [base + i * row for i in range(count)]
            keep: Any = array
            length = row
        else:
            if isinstance(data, str | bytes | bytearray | memoryview):
                raise TypeError(
                    "scatter takes an array whose first axis is the DPU, or a sequence of "
                    "one buffer per DPU; to write the same bytes to every DPU use broadcast()"
                )
            typed = resolved if not raw else None
            shares = [checked_input(typed, share, offset, "scatter") for share in data]
            if len(shares) != count:
                raise make_error(
                    C.DPU_ERR_INVALID_BUFFER_SIZE,
                    call,
                    detail=f"scatter needs one share per DPU: got {len(shares)} for {count} DPUs",
                    before_call=True,
                )
            sizes = {share.nbytes for share in shares}
            length = max(sizes) if sizes else 0
            if pad:
                length = -(-length // granule) * granule
                shares = [zero_padded(share, length) for share in shares]
            elif len(sizes) > 1:
                raise make_error(
                    C.DPU_ERR_INVALID_BUFFER_SIZE,
                    call,
                    detail=(
                        f"uneven shares ({min(sizes)} to {max(sizes)} bytes): every DPU gets "
                        "the same number of bytes. Fix: pass pad=True to zero-pad the shorter "
                        "shares, or split the data evenly"
                    ),
                    before_call=True,
                )
            addresses = [address_of(share) for share in shares]
            keep = shares
        check_access(resolved, offset, length, call)
        if length == 0 or count == 0:
            return
        if asynchronous:
            # The job refers to ``keep``: the shares live until it has run.
            self._enqueue(
                lambda: (
                    keep,
                    self._push(lib, C.DPU_XFER_TO_DPU, symbol, resolved, offset, length, addresses),
                ),
                f"scatter to {symbol_name(symbol)!r}",
                lock_while_queued(
                    [data, *(keep if isinstance(keep, list) else [keep])]
                    + (list(data) if isinstance(data, list | tuple) else [])
                ),
            )
            return
        self._push(lib, C.DPU_XFER_TO_DPU, symbol, resolved, offset, length, addresses)

    def gather(
        self,
        symbol: str | Symbol,
        dtype: Any = None,
        shape: int | Sequence[int] | None = None,
        offset: int = 0,
        *,
        out: np.ndarray | None = None,
        pad: bool = False,
        raw: bool = False,
        asynchronous: bool = False,
    ) -> Any:
        """Read ``symbol`` from every DPU into one new array of shape ``(len(self), *shape)``
        (``dpu_prepare_xfer`` + ``dpu_push_xfer``), with no copy after the transfer.

        Args:
            symbol: a symbol name or a :class:`Symbol`.
            dtype: the element type of the result; default: the symbol's C type
                (:attr:`Symbol.dtype`, from the debug information). A symbol without one
                needs it. Another dtype than the symbol's is refused unless ``raw``.
            shape: the shape of each DPU's part (an int is a count); default: the symbol's
                shape (``()`` for a scalar, so the result is ``(len(self),)``), or the rest
                of the symbol after ``offset`` as ``dtype`` elements.
            offset: byte offset in the symbol.
            out: an existing C-contiguous, writable array of ``len(self)`` rows to fill
                instead of a new one (``dtype`` and ``shape`` are then taken from it; its
                dtype must be the symbol's, or ``uint8`` for the bytes as they are).
            pad: when True, a part whose size breaks the alignment rule (a multiple of 8
                bytes in MRAM, 4 in WRAM) is read rounded up and trimmed (one copy); the
                counterpart of ``scatter(..., pad=True)``. When False (default) it raises.
            raw: read the bytes as ``dtype`` (or into ``out``) even where it is not the
                symbol's C type: the explicit reinterpretation.
            asynchronous: queue the transfer and return at once (the SDK's
                ``DPU_XFER_ASYNC``); it runs after the work queued before it, once the DPUs
                no longer run. The result is then a :class:`~pyupmem.PendingArray`: reading
                its data waits until the gather has run (and raises
                :class:`~pyupmem.errors.PendingResultError` if it never will), so it never
                shows unfilled memory; ``result()`` gives the ndarray
                (:mod:`pyupmem.dpus.queued_data`). An ``out=`` array is read-only until filled.

        Returns:
            The array, ``result[i]`` from DPU ``i`` (a :class:`~pyupmem.PendingArray` of it
            with ``asynchronous=True``).

        Raises:
            DpuAccessError: a rule on sizes and offsets is broken, or ``out`` does not fit.
            SymbolTypeError: no ``dtype`` given and the symbol has no C type, or a
                ``dtype`` (or ``out``) other than the symbol's without ``raw``.
        """
        lib = self._lib(not asynchronous)
        call = "dpu_push_xfer"
        if not asynchronous:
            self._refuse_unreported_fault(call)  # queued: its job checks when it runs
        count = self._count
        resolved = self._resolve(symbol, call)
        if out is not None:
            check_out(out, count, call)
            checked_output(resolved, out, "gather", raw)
            result = out
        else:
            layout = read_layout(
                resolved, dtype, shape, offset, "gather", raw, symbol_name(symbol)
            )
            if layout is None:
                dtype = np.dtype(dtype)
                shape = part_shape(shape, resolved, offset, dtype, call)
            else:
                dtype, shape = layout
            granule = resolved.alignment if resolved is not None else 0
            row = dtype.itemsize * int(np.prod(shape)) if shape else dtype.itemsize
            if pad and granule and row % granule:
                padded = -(-row // granule) * granule
                full = self.gather(
                    symbol, np.uint8, padded, offset, raw=True, asynchronous=asynchronous
                )
                if not asynchronous:
                    trimmed = np.ascontiguousarray(full[:, :row])
                    return trimmed.view(dtype).reshape((count, *shape))
                result = np.empty((count, *shape), dtype=dtype)
                rows = result.reshape(count, -1).view(np.uint8)
                pending = self._pending(result, symbol)
                # A second job, run right after the padded gather, trims into the result.
                self._enqueue(
                    lambda: np.copyto(rows, full.result()[:, :row]),
                    "trim of a padded gather",
                    pending._finished,
                )
                return pending
            result = np.empty((count, *shape), dtype=dtype)
        length = result.nbytes // count if count else 0
        check_access(resolved, offset, length, call)
        if length == 0 or count == 0:
            return result
        base = address_of(result)
        addresses = [base + i * length for i in range(count)]
        if asynchronous:
            pending = self._pending(result, symbol)
            unlock = lock_while_queued([out]) if out is not None else None

            def finish(error: BaseException | None) -> None:
                if unlock is not None:
                    unlock(error)
                pending._finished(error)

            # The job refers to ``result``: the array lives until it has been filled.
            self._enqueue(
                lambda: (
                    result,
                    self._push(
                        lib, C.DPU_XFER_FROM_DPU, symbol, resolved, offset, length, addresses
                    ),
                ),
                f"gather of {symbol_name(symbol)!r}",
                finish,
            )
            return pending
        self._push(lib, C.DPU_XFER_FROM_DPU, symbol, resolved, offset, length, addresses)
        return result

    def _pending(self, result: np.ndarray, symbol: str | Symbol) -> PendingArray:
        """``result`` behind a :class:`PendingArray` until the queued gather has filled it."""
        owner = self._owner
        return PendingArray(
            result,
            f"gather of {symbol_name(symbol)!r}",
            lambda: owner._jobs is not None and owner._jobs.in_worker(),
        )

    def _push(
        self,
        lib: C.LibDpu,
        direction: int,
        symbol: str | Symbol,
        resolved: Symbol | None,
        offset: int,
        length: int,
        addresses: list[int],
    ) -> None:
        """``dpu_prepare_xfer`` of ``addresses[i]`` for this group's DPU ``i``, then
        ``dpu_push_xfer`` on each of :meth:`_push_nodes`."""
        prepare = lib.dpu_prepare_xfer  # type: ignore[attr-defined]
        structs = self._dpu_structs()
        name = resolved.c_name if resolved is not None else str(symbol).encode()
        for node, slots in self._push_nodes():
            for slot in slots:
                status = prepare(structs[slot], addresses[slot])
                if status:
                    self._check(status, "dpu_prepare_xfer")
            status = lib.dpu_push_xfer(node, direction, name, offset, length, C.DPU_XFER_DEFAULT)  # type: ignore[attr-defined]
            if status:
                self._check(status, "dpu_push_xfer", f"symbol {symbol_name(symbol)!r}")

    def _push_nodes(self) -> list[tuple[C.dpu_set_t, Sequence[int]]]:
        """The sets a push goes to, each with the positions (in this group) of the DPUs it
        holds: the whole group at once; a sub-set pushes rank by rank."""
        return [(self._c, range(self._count))]

    def read(
        self,
        symbol: str | Symbol,
        dtype: Any = None,
        shape: int | Sequence[int] | None = None,
        offset: int = 0,
        *,
        out: Any = None,
        raw: bool = False,
    ) -> np.ndarray:
        """Read ``symbol`` from a single DPU (``dpu_copy_from``).

        Args:
            symbol: a symbol name or a :class:`Symbol`.
            dtype: the element type of the result; default: the symbol's C type (a
                symbol without one needs it). Another dtype than the symbol's is refused
                unless ``raw``.
            shape: the shape of the result (an int is a count); default: the symbol's
                shape (``()`` for a scalar), or the rest of the symbol after ``offset``.
            offset: byte offset in the symbol.
            out: a writable C-contiguous buffer (numpy array, bytearray ...) to fill
                instead of a new array; its size is the transfer's size, and its dtype the
                symbol's or ``uint8`` (a byte buffer receives the bytes as they are).
            raw: read the bytes as ``dtype`` (or into ``out``) even where it is not the
                symbol's C type.

        Returns:
            The array read (``out`` as an array when it was given).

        Raises:
            DpuSetError: the set has more than one DPU (use :meth:`gather`).
            DpuAccessError: a rule on sizes and offsets is broken.
            SymbolTypeError: a ``dtype`` (or ``out``) other than the symbol's without ``raw``.
        """
        lib = self._lib()
        self._require_single("dpu_copy_from", "read", "gather")
        self._refuse_unreported_fault("dpu_copy_from")
        resolved = self._resolve(symbol, "dpu_copy_from")
        if out is not None:
            result = out if isinstance(out, np.ndarray) else np.asarray(memoryview(out))
            if not (result.flags.c_contiguous and result.flags.writeable):
                raise make_error(
                    C.DPU_ERR_INVALID_BUFFER_SIZE,
                    "dpu_copy_from",
                    detail="out must be a writable, C-contiguous buffer",
                    before_call=True,
                )
            checked_output(resolved, result, "read", raw)
        else:
            layout = read_layout(
                resolved, dtype, shape, offset, "read", raw, symbol_name(symbol)
            )
            if layout is None:
                dtype = np.dtype(dtype)
                shape = part_shape(shape, resolved, offset, dtype, "dpu_copy_from")
            else:
                dtype, shape = layout
            result = np.empty(shape, dtype=dtype)
        length = result.nbytes
        check_access(resolved, offset, length, "dpu_copy_from")
        if length == 0:
            return result
        target = self._c if self._key[0] == "dpu" else self._dpu_structs()[0]
        name = resolved.c_name if resolved is not None else str(symbol).encode()
        status = lib.dpu_copy_from(target, name, offset, address_of(result), length)  # type: ignore[attr-defined]
        if status:
            self._check(status, "dpu_copy_from", f"symbol {symbol_name(symbol)!r}")
        return result
