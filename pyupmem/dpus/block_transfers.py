"""Scatter-gather transfers: several host blocks per DPU in one ``dpu_push_sg_xfer``.

:class:`~pyupmem.dpus.group.DpuGroup` gets :meth:`~pyupmem.dpus.group.DpuGroup.scatter_blocks`
and :meth:`~pyupmem.dpus.group.DpuGroup.gather_blocks` from this module (SDK 2024+ and the
emulator; the set is allocated with ``scatter_gather=True``).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

import numpy as np

from pyupmem.build.program import Symbol
from pyupmem.dpus.group_parts import _GroupPart
from pyupmem.dpus.transfer_rules import address_of, check_access, symbol_name
from pyupmem.dpus.typecheck import as_input_array as _as_input_array
from pyupmem.driver import libdpu as C
from pyupmem.errors import make_error


class _BlockTransfers(_GroupPart):
    """The scatter-gather methods of :class:`~pyupmem.dpus.group.DpuGroup` (its base only)."""

    def scatter_blocks(
        self,
        symbol: str | Symbol,
        blocks: Sequence[Sequence[Any]],
        offset: int = 0,
        *,
        length: int | None = None,
        check_length: bool = True,
    ) -> None:
        """Write several host blocks per DPU to consecutive MRAM bytes of ``symbol``, with one
        scatter-gather transfer (``dpu_push_sg_xfer``, SDK 2024+), without copying them.

        The set must be allocated with ``DpuSet(..., scatter_gather=True)`` (the profile key
        ``sgXferEnable=true``), and be a :class:`DpuSet` or a :class:`Rank` (the SDK has no
        scatter-gather to a single DPU).

        Args:
            symbol: an MRAM symbol (an ``__mram`` variable or ``DPU_MRAM_HEAP_POINTER_NAME``).
            blocks: one sequence per DPU of numpy arrays or buffers; DPU ``i`` receives
                ``blocks[i][0]``, then ``blocks[i][1]`` right after it, and so on.
            offset: byte offset in the symbol (a multiple of 8).
            length: bytes of MRAM each DPU receives (a multiple of 8); default: the largest
                total of a DPU's blocks.
            check_length: when True (default) every DPU's blocks must add up to
                ``length``; when False a shorter DPU gets zeros after its blocks
                (``DPU_SG_XFER_DISABLE_LENGTH_CHECK``).

        Raises:
            DpuSetError: scatter-gather was not enabled (``DPU_ERR_SG_NOT_ACTIVATED``), or
                this is a single :class:`Dpu`.
            DpuAccessError: not one sequence per DPU, blocks that do not add up
                (``DPU_ERR_SG_LENGTH_MISMATCH``), more blocks than allowed
                (``DPU_ERR_SG_TOO_MANY_BLOCKS``), a symbol outside MRAM
                (``DPU_ERR_SG_NOT_MRAM_SYMBOL``), or an alignment or bounds rule broken.
        """
        shares = [[_as_input_array(block) for block in share] for share in blocks]
        self._scatter_gather(C.DPU_XFER_TO_DPU, symbol, shares, offset, length, check_length)

    def gather_blocks(
        self,
        symbol: str | Symbol,
        blocks: Sequence[Sequence[Any]],
        offset: int = 0,
        *,
        length: int | None = None,
        check_length: bool = True,
    ) -> None:
        """Fill several writable host blocks per DPU from consecutive MRAM bytes of
        ``symbol``, with one scatter-gather transfer (``dpu_push_sg_xfer``), in place.

        Args:
            symbol: an MRAM symbol.
            blocks: one sequence per DPU of writable C-contiguous numpy arrays or buffers
                (bytearray, memoryview ...); ``blocks[i][0]`` receives the first bytes of
                DPU ``i``'s range, ``blocks[i][1]`` the next ones, and so on.
            offset: byte offset in the symbol (a multiple of 8).
            length: bytes of MRAM read per DPU; default: the largest total of a DPU's blocks.
            check_length: when False, a DPU's blocks may add up to less than ``length``.

        Raises:
            DpuSetError: scatter-gather was not enabled, or this is a single :class:`Dpu`.
            DpuAccessError: as for :meth:`scatter_blocks`, or a block that is not writable
                and C-contiguous.
        """
        shares = []
        for share in blocks:
            arrays = []
            for block in share:
                array = block if isinstance(block, np.ndarray) else np.asarray(memoryview(block))
                if not (array.flags.c_contiguous and array.flags.writeable):
                    raise make_error(
                        C.DPU_ERR_INVALID_BUFFER_SIZE,
                        "dpu_push_sg_xfer",
                        detail="gather_blocks needs writable, C-contiguous blocks to fill",
                        before_call=True,
                    )
                arrays.append(array)
            shares.append(arrays)
        self._scatter_gather(C.DPU_XFER_FROM_DPU, symbol, shares, offset, length, check_length)

    def _scatter_gather(
        self,
        direction: int,
        symbol: str | Symbol,
        shares: list[list[np.ndarray]],
        offset: int,
        length: int | None,
        check_length: bool,
    ) -> None:
        call = "dpu_push_sg_xfer"
        lib = self._lib()
        if direction == C.DPU_XFER_FROM_DPU:
            self._refuse_unreported_fault(call)
        if call in lib.missing:
            raise make_error(
                C.DPU_ERR_SG_NOT_ACTIVATED,
                call,
                detail=f"this libdpu ({lib.path}) has no scatter-gather transfers (SDK 2024+)",
                before_call=True,
            )
        if self._key[0] == "dpu":
            raise make_error(
                C.DPU_ERR_INVALID_DPU_SET,
                call,
                detail="scatter-gather works on a DpuSet or a Rank, not on a single Dpu (as in "
                "the SDK); use write() for one DPU",
                before_call=True,
            )
        if len(shares) != self._count:
            raise make_error(
                C.DPU_ERR_INVALID_BUFFER_SIZE,
                call,
                detail=f"need one sequence of blocks per DPU: got {len(shares)} for {self._count}",
                before_call=True,
            )
        totals = [sum(block.nbytes for block in share) for share in shares]
        if length is None:
            length = max(totals, default=0)
        if any(total > length or (check_length and total != length) for total in totals):
            raise make_error(
                C.DPU_ERR_SG_LENGTH_MISMATCH,
                call,
                detail=(
                    f"each DPU's blocks must add up to the length ({length} bytes); they add "
                    f"up to {min(totals)} to {max(totals)}. Fix: pass check_length=False to "
                    "allow shorter shares, or make the blocks even"
                ),
                before_call=True,
            )
        resolved = self._resolve(symbol, call)
        if resolved is not None and resolved.memory != "MRAM":
            raise make_error(
                C.DPU_ERR_SG_NOT_MRAM_SYMBOL,
                call,
                detail=f"{resolved.name!r} is in {resolved.memory}; scatter-gather moves MRAM only",
                before_call=True,
            )
        check_access(resolved, offset, length, call)
        table = [
            [(address_of(block), block.nbytes) for block in share if block.nbytes]
            for share in shares
        ]

        def get_block(out: Any, dpu_index: int, block_index: int, _args: Any) -> bool:
            share = table[dpu_index]
            if block_index >= len(share):
                return False
            out[0].addr, out[0].length = share[block_index]
            return True

        callback = C.get_block_func_t(get_block)
        get_block_info = C.get_block_t(callback, None, 0)
        flags = C.DPU_SG_XFER_DEFAULT if check_length else C.DPU_SG_XFER_DISABLE_LENGTH_CHECK
        name = resolved.c_name if resolved is not None else str(symbol).encode()
        status = lib.dpu_push_sg_xfer(  # type: ignore[attr-defined]
            self._c, direction, name, offset, length, ctypes.byref(get_block_info), flags
        )
        del shares  # the blocks stay alive until here
        if status:
            detail = f"symbol {symbol_name(symbol)!r}"
            if status == C.DPU_ERR_SG_NOT_ACTIVATED:
                detail += (
                    "; allocate the set with DpuSet(..., scatter_gather=True) "
                    "(the profile key sgXferEnable=true)"
                )
            self._check(status, call, detail)
