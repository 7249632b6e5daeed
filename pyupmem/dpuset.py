"""The Pythonic layer: sets of DPUs, their programs, transfers, launches and logs.

A :class:`DpuSet` owns DPUs allocated from libdpu and frees them when it is closed (it is
a context manager). It is a sequence of :class:`Dpu`; :attr:`DpuSet.ranks` gives its
:class:`Rank` objects; slices, lists of positions and masks give :class:`DpuSubset`
objects. DPUs, ranks and sub-sets are views on the set: they offer the same operations
(those of :class:`DpuGroup`, the class they share), restricted to themselves, and become
unusable once the set is freed.

Transfers take numpy arrays or any object with the buffer protocol and pass their memory
to libdpu without copying (a non-contiguous input array is first made contiguous).
Sizes and offsets are checked against the memory rules before any libdpu call:

- MRAM symbols: offset and size multiples of 8 bytes (``DPU_ERR_INVALID_MRAM_ACCESS``);
- WRAM symbols: offset and size multiples of 4 bytes (``DPU_ERR_INVALID_WRAM_ACCESS``);
- ``offset + size`` within the symbol (``DPU_ERR_INVALID_SYMBOL_ACCESS``);
- a scatter needs one equal share per DPU (``DPU_ERR_INVALID_BUFFER_SIZE``) unless it is
  asked to pad them.

Each of these raises :class:`~pyupmem.errors.DpuAccessError` with the code named and
``before_call`` set; the set stays usable.

Example::

    import numpy as np
    from pyupmem import DpuSet, build_program

    program = build_program("vecadd.c", nr_tasklets=16)
    with DpuSet(64) as dpus:
        dpus.load(program)
        dpus.broadcast("n", np.uint32(1024))
        dpus.scatter("A", a.reshape(64, -1))
        dpus.launch()
        c = dpus.gather("C", np.int32, 1024)   # shape (64, 1024)
"""

from __future__ import annotations

import ctypes
import os
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from pyupmem import _libdpu as C
from pyupmem.asynchrony import JobQueue, QueuedWorkCancelled
from pyupmem.backend import Backend, find_backend
from pyupmem.debuginfo import CType, read_types, read_types_from_bytes
from pyupmem.errors import (
    ArgumentTypeError,
    ArgumentValueError,
    BackendError,
    DpuError,
    DpuFaultError,
    DpuIndexError,
    DpuTimeoutError,
    PyUpmemError,
    UnsupportedError,
    make_error,
)
from pyupmem.estimate import KernelEstimate, transfer_seconds
from pyupmem.program import Program, Symbol
from pyupmem.typecheck import as_input_array as _as_input_array
from pyupmem.typecheck import checked_input, read_layout

__all__ = [
    "DpuSet",
    "DpuGroup",
    "Rank",
    "Dpu",
    "DpuSubset",
    "DpuStatus",
    "LoadedProgram",
    "ALL",
    "FAULT_PREFIX",
]

ALL = C.DPU_ALLOCATE_ALL
"""Allocate every available DPU (or rank): ``DpuSet(ALL)``, the same as ``DpuSet()``."""

_FALLBACK = object()  # a view without a program of its own uses its set's

FAULT_PREFIX = "DPU fault: "
"""The emulator starts the log line that explains a fault with this text."""


class DpuStatus(NamedTuple):
    """The result of :meth:`DpuSet.status`: whether the DPUs are done and whether any faulted."""

    done: bool
    fault: bool


def _profile_text(profile: str | Mapping[str, object] | None) -> str:
    if profile is None:
        return ""
    if isinstance(profile, str):
        return profile
    return ",".join(
        f"{key}={str(value).lower() if isinstance(value, bool) else value}"
        for key, value in profile.items()
    )


_addressof = ctypes.addressof
_c_char_from_buffer = ctypes.c_char.from_buffer


def _address(array: np.ndarray) -> int:
    """The address of a non-empty C-contiguous array's first byte (fast for writable ones)."""
    try:
        return _addressof(_c_char_from_buffer(array))
    except (TypeError, ValueError):  # read-only, or empty
        return array.ctypes.data


class LoadedProgram(Mapping[str, Symbol]):
    """A program loaded into a set: the :class:`Program` and its symbols by name.

    It is a read-only mapping from symbol name to :class:`Symbol`, filled on demand
    (libdpu can look a name up but not list them): ``loaded["A"]``, ``"A" in loaded``.
    Iterating it lists the symbols looked up so far.

    Attributes:
        program: the program that was loaded.
    """

    def __init__(
        self,
        backend: Backend,
        program: Program,
        handle: ctypes.c_void_p,
        image: bytes | None = None,
    ):
        self.program = program
        self._backend = backend
        self._handle = handle
        self._image = image
        self._types: dict[str, CType] | None = None
        self._symbols: dict[str, Symbol] = {}

    @property
    def types(self) -> dict[str, CType]:
        """The C type of each global variable, from the program's debug information
        (:mod:`pyupmem.debuginfo`); empty for a binary built without ``-g``."""
        if self._types is None:
            if self._image is not None:
                self._types = read_types_from_bytes(self._image)
            else:
                self._types = read_types(self.program.path)
        return self._types

    def symbol(self, name: str) -> Symbol:
        """The symbol ``name`` (``dpu_get_symbol``).

        Raises:
            DpuSymbolError: the program has no such symbol (``DPU_ERR_UNKNOWN_SYMBOL``).
        """
        found = self._symbols.get(name)
        if found is not None:
            return found
        c_symbol = C.dpu_symbol_t()
        lib = self._backend.lib
        status = lib.dpu_get_symbol(self._handle, name.encode(), ctypes.byref(c_symbol))  # type: ignore[attr-defined]
        if status:
            raise self._backend.status_error(
                status, "dpu_get_symbol", f"no symbol {name!r} in {self.program.path}"
            )
        found = Symbol(name, c_symbol.address, c_symbol.size, self.types.get(name))
        self._symbols[name] = found
        return found

    def __getitem__(self, name: str) -> Symbol:
        return self.symbol(name)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            self.symbol(name)
        except DpuError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._symbols))

    def __len__(self) -> int:
        return len(self._symbols)

    def __repr__(self) -> str:
        return f"LoadedProgram({str(self.program.path)!r})"


class DpuGroup:
    """The operations every group of DPUs has: a whole :class:`DpuSet`, a :class:`Rank`,
    a single :class:`Dpu` and a :class:`DpuSubset` (``dpus[0:4]``) all load programs, move
    data, launch, wait, report status and read logs through these methods, each acting on
    its own DPUs only. You never create one directly: allocate a :class:`DpuSet`, then
    index it or take its :attr:`~DpuSet.ranks`.

    Transfers, launches and :meth:`callback` can be queued with ``asynchronous=True``
    (:mod:`pyupmem.asynchrony`).
    """

    _owner: DpuSet
    _c: C.dpu_set_t
    _key: tuple[str, int]  # ("set", 0), ("rank", i) or ("dpu", i): its program's key
    _first: int  # index of this node's first DPU in the owner
    _count: int  # number of DPUs

    # ----------------------------------------------------------------- plumbing

    def _lib(self, settle: bool = True) -> C.LibDpu:
        """The set's libdpu, after the work queued with ``asynchronous=True`` is done
        (unless ``settle`` is False, or this is the queue's worker thread)."""
        owner = self._owner
        if owner._closed:
            raise make_error(
                C.DPU_ERR_INVALID_DPU_SET,
                "pyupmem",
                detail="this DPU set was freed; allocate a new DpuSet",
                before_call=True,
            )
        jobs = owner._jobs
        if settle and jobs is not None and jobs.busy:
            jobs.wait()
        return owner._backend.lib

    def _enqueue(self, action: Callable[[], object], what: str) -> None:
        """Queue ``action`` behind the work queued before it; it runs once this node's
        DPUs are no longer running (:mod:`pyupmem.asynchrony`)."""
        owner = self._owner
        if owner._jobs is None:
            owner._jobs = JobQueue(f"{owner._count} DPUs")
        owner._jobs.put(self._await_idle, action, f"{what} on {self!r}")

    def _await_idle(self, cancelled: Callable[[], bool]) -> None:
        """Wait (on the queue's worker thread) until no DPU of this node runs."""
        while not self._dpu_status().done:
            if cancelled():
                raise QueuedWorkCancelled
            try:
                self._sync_dpus(0.2)
                return
            except DpuTimeoutError:
                continue

    def _queue_busy(self) -> bool:
        """Whether work queued on the set is pending, as seen from the calling thread."""
        jobs = self._owner._jobs
        return jobs is not None and jobs.busy and not jobs.in_worker()

    def _check(self, status: int, call: str, detail: str = "") -> None:
        if status:
            if (status & 0xFFFF) == C.DPU_ERR_DPU_FAULT and not status & C.DPU_ERR_ASYNC_JOBS:
                raise self._fault_error(status, call)
            raise self._owner._backend.status_error(status, call, detail)

    def _program_state(self) -> LoadedProgram | None:
        owner = self._owner
        state = owner._view_programs.get(self._key, _FALLBACK)
        return owner._loaded if state is _FALLBACK else state  # type: ignore[return-value]

    def _dpu_structs(self) -> list[C.dpu_set_t]:
        structs = self._owner._structs()
        return structs[self._first : self._first + self._count]

    @property
    def backend(self) -> Backend:
        """The backend (libdpu) this set was allocated from."""
        return self._owner._backend

    def __len__(self) -> int:
        return self._count

    # ----------------------------------------------------------------- DPUs

    def __iter__(self) -> Iterator[Dpu]:
        owner = self._owner
        structs = owner._structs()
        return (
            Dpu(owner, structs[index], index)
            for index in range(self._first, self._first + self._count)
        )

    def _indices(self) -> Sequence[int]:
        """The positions of this node's DPUs in the owning set."""
        return range(self._first, self._first + self._count)

    def __getitem__(self, index: Any) -> Any:
        """A :class:`Dpu` for an int; a :class:`DpuSubset` for a slice, a sequence of
        positions or a boolean mask of ``len(self)`` entries.

        Raises:
            DpuIndexError: a position outside the set, or a mask of the wrong length.
            ArgumentTypeError: an index of another type.
        """
        owner = self._owner
        structs = owner._structs()
        indices = self._indices()
        count = len(indices)
        if isinstance(index, int | np.integer) and not isinstance(index, bool | np.bool_):
            if not -count <= index < count:
                raise DpuIndexError(
                    f"DPU index {int(index)} is out of range for a set of {count} DPUs "
                    f"(0..{count - 1}, or negative from the end)"
                )
            position = indices[int(index)]
            return Dpu(owner, structs[position], position)
        if isinstance(index, slice):
            return DpuSubset(owner, [indices[i] for i in range(count)[index]])
        if isinstance(index, str | bytes) or not hasattr(index, "__len__"):
            raise ArgumentTypeError(
                f"a DPU set is indexed by an int, a slice, a sequence of ints or a boolean "
                f"mask; got {type(index).__name__}"
            )
        picks = np.asarray(index)
        if picks.dtype == np.bool_:
            if picks.shape != (count,):
                raise DpuIndexError(
                    f"a boolean mask needs one entry per DPU ({count}), got shape {picks.shape}"
                )
            return DpuSubset(owner, [indices[i] for i in np.flatnonzero(picks)])
        if picks.size == 0:
            picks = picks.astype(np.int64)
        if picks.ndim != 1 or picks.dtype.kind not in "iu":
            raise ArgumentTypeError(
                f"a sequence of DPU positions must hold ints, got {picks.dtype} "
                f"with shape {picks.shape}"
            )
        bad = [int(i) for i in picks if not -count <= i < count]
        if bad:
            raise DpuIndexError(
                f"DPU positions {bad[:5]} are out of range for a set of {count} DPUs"
            )
        chosen = [indices[int(i)] for i in picks]
        if len(set(chosen)) != len(chosen):
            raise ArgumentValueError("a DPU sub-set cannot hold the same DPU twice")
        return DpuSubset(owner, chosen)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DpuGroup):
            return NotImplemented
        return self._owner is other._owner and self._key == other._key

    def __hash__(self) -> int:
        return hash((id(self._owner), self._key))

    @property
    def dpus(self) -> list[Dpu]:
        """The DPUs of this set, in libdpu's iteration order."""
        return list(self)

    # ----------------------------------------------------------------- program

    def load(self, program: Program | str | os.PathLike | bytes | bytearray) -> LoadedProgram:
        """Load a DPU program into every DPU of this set (``dpu_load``).

        Loading resets WRAM and MRAM and clears a fault.

        Args:
            program: a :class:`Program` (from :func:`pyupmem.build_program`), a path, or
                the binary's bytes (loaded with ``dpu_load_from_memory``).

        Returns:
            The loaded program, a mapping of its symbols.

        Raises:
            DpuProgramError: the file is missing or not a DPU program.
        """
        lib = self._lib()
        handle = ctypes.c_void_p()
        if isinstance(program, bytes | bytearray | memoryview):
            image = np.frombuffer(program, dtype=np.uint8)
            status = lib.dpu_load_from_memory(  # type: ignore[attr-defined]
                self._c, image.ctypes.data, image.nbytes, ctypes.byref(handle)
            )
            self._check(status, "dpu_load_from_memory", f"loading {image.nbytes} bytes")
            memory_image: bytes | None = bytes(program)
            program = Program("<memory>")
        else:
            if not isinstance(program, Program):
                program = Program(program)
            path = os.fsencode(program.path)
            status = lib.dpu_load(self._c, path, ctypes.byref(handle))  # type: ignore[attr-defined]
            self._check(status, "dpu_load", f"loading {program.path}")
            memory_image = None
        loaded = LoadedProgram(self._owner._backend, program, handle, memory_image)
        self._owner._program_loaded(self, loaded)
        return loaded

    @property
    def program(self) -> LoadedProgram | None:
        """The program last loaded into this set through pyupmem (None before any load)."""
        return self._program_state()

    def symbol(self, name: str) -> Symbol:
        """The symbol ``name`` of the loaded program: address, size and memory.

        Raises:
            DpuProgramError: no program was loaded (``DPU_ERR_NO_PROGRAM_LOADED``).
            DpuSymbolError: no such symbol (``DPU_ERR_UNKNOWN_SYMBOL``).
        """
        self._lib()
        loaded = self._program_state()
        if loaded is None:
            raise make_error(
                C.DPU_ERR_NO_PROGRAM_LOADED,
                "dpu_get_symbol",
                detail="load a program first (DpuSet.load)",
                before_call=True,
            )
        return loaded.symbol(name)

    def _resolve(self, symbol: str | Symbol, call: str) -> Symbol | None:
        if isinstance(symbol, Symbol):
            return symbol
        owner = self._owner
        loaded = (
            owner._view_programs.get(self._key, _FALLBACK)
            if owner._view_programs
            else owner._loaded
        )
        if loaded is _FALLBACK:
            loaded = owner._loaded
        if loaded is None:
            return None
        found = loaded._symbols.get(symbol)  # type: ignore[union-attr]
        if found is None:
            found = loaded.symbol(symbol)
        return found

    # ----------------------------------------------------------------- checks

    @staticmethod
    def _check_access(symbol: Symbol | None, offset: int, length: int, call: str) -> None:
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
                (:mod:`pyupmem.typecheck`), and Python numbers and lists are converted.
            offset: byte offset in the symbol.
            raw: move the bytes as they are, without the type check.
            asynchronous: queue the transfer and return at once (the SDK's
                ``DPU_XFER_ASYNC``): it runs after the work queued before it, once the DPUs
                no longer run, and ``data`` is kept alive until then
                (:mod:`pyupmem.asynchrony`); :meth:`sync` reports its errors.

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
            self._check_access(resolved, offset, length, "dpu_copy_to")
        if length == 0:
            return
        name = resolved.c_name if resolved is not None else str(symbol).encode()
        if asynchronous:
            self._enqueue(
                lambda: self._copy_to(lib, name, offset, array, length),
                f"write of {_name(symbol)!r}",
            )
            return
        status = lib.dpu_copy_to(self._c, name, offset, _address(array), length)  # type: ignore[attr-defined]
        if status:
            self._check(status, "dpu_copy_to", f"symbol {_name(symbol)!r}")
        self._note_transfer("write", length)

    def _copy_to(
        self, lib: C.LibDpu, name: bytes, offset: int, array: np.ndarray, length: int
    ) -> None:
        status = lib.dpu_copy_to(self._c, name, offset, _address(array), length)  # type: ignore[attr-defined]
        if status:
            self._check(status, "dpu_copy_to", f"symbol {name.decode()!r}")
        self._note_transfer("write", length)

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
                with a C type its dtype and shape must fit it (:mod:`pyupmem.typecheck`).
            offset: byte offset in the symbol.
            raw: move the bytes as they are, without the type check.
            asynchronous: queue the transfer and return at once (the SDK's
                ``DPU_XFER_ASYNC``): it runs after the work queued before it, once the DPUs
                no longer run, and ``data`` is kept alive until then
                (:mod:`pyupmem.asynchrony`); :meth:`sync` reports its errors.

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
        self._check_access(resolved, offset, length, "dpu_broadcast_to")
        if length == 0:
            return
        name = resolved.c_name if resolved is not None else str(symbol).encode()

        def run() -> None:
            status = lib.dpu_broadcast_to(  # type: ignore[attr-defined]
                self._c, name, offset, _address(array), length, C.DPU_XFER_DEFAULT
            )
            if status:
                self._check(status, "dpu_broadcast_to", f"symbol {_name(symbol)!r}")
            self._note_transfer("broadcast", length)

        if asynchronous:
            self._enqueue(run, f"broadcast of {_name(symbol)!r}")
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
                symbol's C type (:mod:`pyupmem.typecheck`).
            asynchronous: queue the transfer and return at once (the SDK's
                ``DPU_XFER_ASYNC``): it runs after the work queued before it, once the DPUs
                no longer run, and the shares are kept alive until then
                (:mod:`pyupmem.asynchrony`); :meth:`sync` reports its errors.

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
            base = _address(array)
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
                shares = [_padded(share, length) for share in shares]
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
            addresses = [_address(share) for share in shares]
            keep = shares
        self._check_access(resolved, offset, length, call)
        if length == 0 or count == 0:
            return
        if asynchronous:
            # The job refers to ``keep``: the shares live until it has run.
            self._enqueue(
                lambda: (keep, self._push(
                    lib, C.DPU_XFER_TO_DPU, symbol, resolved, offset, length, addresses
                )),
                f"scatter to {_name(symbol)!r}",
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
        asynchronous: bool = False,
    ) -> np.ndarray:
        """Read ``symbol`` from every DPU into one new array of shape ``(len(self), *shape)``
        (``dpu_prepare_xfer`` + ``dpu_push_xfer``), with no copy after the transfer.

        Args:
            symbol: a symbol name or a :class:`Symbol`.
            dtype: the element type of the result; default: the symbol's C type
                (:attr:`Symbol.dtype`, from the debug information). A symbol without one
                needs it. An explicit dtype reads the bytes as that type.
            shape: the shape of each DPU's part (an int is a count); default: the symbol's
                shape (``()`` for a scalar, so the result is ``(len(self),)``), or the rest
                of the symbol after ``offset`` as ``dtype`` elements.
            offset: byte offset in the symbol.
            out: an existing C-contiguous, writable array of ``len(self)`` rows to fill
                instead of a new one (``dtype`` and ``shape`` are then taken from it).
            pad: when True, a part whose size breaks the alignment rule (a multiple of 8
                bytes in MRAM, 4 in WRAM) is read rounded up and trimmed (one copy); the
                counterpart of ``scatter(..., pad=True)``. When False (default) it raises.
            asynchronous: queue the transfer and return the array at once (the SDK's
                ``DPU_XFER_ASYNC``); it is filled after the work queued before it, once the
                DPUs no longer run: read it after :meth:`sync` or in a :meth:`callback`
                queued after the gather (:mod:`pyupmem.asynchrony`).

        Returns:
            The array, ``result[i]`` from DPU ``i``.

        Raises:
            DpuAccessError: a rule on sizes and offsets is broken, or ``out`` does not fit.
            SymbolTypeError: no ``dtype`` given and the symbol has no C type.
        """
        lib = self._lib(not asynchronous)
        call = "dpu_push_xfer"
        count = self._count
        resolved = self._resolve(symbol, call)
        if out is not None:
            _check_out(out, count, call)
            result = out
        else:
            layout = read_layout(resolved, dtype, shape, offset, "gather")
            if layout is None:
                dtype = np.dtype(dtype)
                shape = _part_shape(shape, resolved, offset, dtype, call)
            else:
                dtype, shape = layout
            granule = resolved.alignment if resolved is not None else 0
            row = dtype.itemsize * int(np.prod(shape)) if shape else dtype.itemsize
            if pad and granule and row % granule:
                padded = -(-row // granule) * granule
                full = self.gather(symbol, np.uint8, padded, offset, asynchronous=asynchronous)
                if not asynchronous:
                    trimmed = np.ascontiguousarray(full[:, :row])
                    return trimmed.view(dtype).reshape((count, *shape))
                result = np.empty((count, *shape), dtype=dtype)
                rows = result.reshape(count, -1).view(np.uint8)
                # A second job, run right after the padded gather, trims into the result.
                self._enqueue(lambda: np.copyto(rows, full[:, :row]), "trim of a padded gather")
                return result
            result = np.empty((count, *shape), dtype=dtype)
        length = result.nbytes // count if count else 0
        self._check_access(resolved, offset, length, call)
        if length == 0 or count == 0:
            return result
        base = _address(result)
        addresses = [base + i * length for i in range(count)]
        if asynchronous:
            # The job refers to ``result``: the array lives until it has been filled.
            self._enqueue(
                lambda: (result, self._push(
                    lib, C.DPU_XFER_FROM_DPU, symbol, resolved, offset, length, addresses
                )),
                f"gather of {_name(symbol)!r}",
            )
            return result
        self._push(lib, C.DPU_XFER_FROM_DPU, symbol, resolved, offset, length, addresses)
        return result

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
        prepare = lib.dpu_prepare_xfer  # type: ignore[attr-defined]
        for dpu, address in zip(self._dpu_structs(), addresses, strict=True):
            status = prepare(dpu, address)
            if status:
                self._check(status, "dpu_prepare_xfer")
        name = resolved.c_name if resolved is not None else str(symbol).encode()
        status = lib.dpu_push_xfer(self._c, direction, name, offset, length, C.DPU_XFER_DEFAULT)  # type: ignore[attr-defined]
        if status:
            self._check(status, "dpu_push_xfer", f"symbol {_name(symbol)!r}")
        self._note_transfer("scatter" if direction == C.DPU_XFER_TO_DPU else "gather", length)

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
        if call in lib.missing:
            raise make_error(
                C.DPU_ERR_SG_NOT_ACTIVATED,
                call,
                detail=f"this libdpu ({lib.path}) has no scatter-gather transfers (SDK 2024+)",
                before_call=True,
            )
        if isinstance(self, Dpu):
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
        self._check_access(resolved, offset, length, call)
        table = [
            [(_address(block), block.nbytes) for block in share if block.nbytes] for share in shares
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
            detail = f"symbol {_name(symbol)!r}"
            if status == C.DPU_ERR_SG_NOT_ACTIVATED:
                detail += (
                    "; allocate the set with DpuSet(..., scatter_gather=True) "
                    "(the profile key sgXferEnable=true)"
                )
            self._check(status, call, detail)

    def read(
        self,
        symbol: str | Symbol,
        dtype: Any = None,
        shape: int | Sequence[int] | None = None,
        offset: int = 0,
        *,
        out: Any = None,
    ) -> np.ndarray:
        """Read ``symbol`` from a single DPU (``dpu_copy_from``).

        Args:
            symbol: a symbol name or a :class:`Symbol`.
            dtype: the element type of the result; default: the symbol's C type (a
                symbol without one needs it).
            shape: the shape of the result (an int is a count); default: the symbol's
                shape (``()`` for a scalar), or the rest of the symbol after ``offset``.
            offset: byte offset in the symbol.
            out: a writable C-contiguous buffer (numpy array, bytearray ...) to fill
                instead of a new array; its size is the transfer's size.

        Returns:
            The array read (``out`` as an array when it was given).

        Raises:
            DpuSetError: the set has more than one DPU (use :meth:`gather`).
            DpuAccessError: a rule on sizes and offsets is broken.
        """
        lib = self._lib()
        if self._count != 1:
            raise make_error(
                C.DPU_ERR_INVALID_DPU_SET,
                "dpu_copy_from",
                detail=f"read() needs a single DPU, this set has {self._count}; use gather()",
                before_call=True,
            )
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
        else:
            layout = read_layout(resolved, dtype, shape, offset, "read")
            if layout is None:
                dtype = np.dtype(dtype)
                shape = _part_shape(shape, resolved, offset, dtype, "dpu_copy_from")
            else:
                dtype, shape = layout
            result = np.empty(shape, dtype=dtype)
        length = result.nbytes
        self._check_access(resolved, offset, length, "dpu_copy_from")
        if length == 0:
            return result
        target = self._c if isinstance(self, Dpu) else self._dpu_structs()[0]
        name = resolved.c_name if resolved is not None else str(symbol).encode()
        status = lib.dpu_copy_from(target, name, offset, _address(result), length)  # type: ignore[attr-defined]
        if status:
            self._check(status, "dpu_copy_from", f"symbol {_name(symbol)!r}")
        self._note_transfer("read", length)
        return result

    # ----------------------------------------------------------------- estimates

    def _note_transfer(self, kind: str, bytes_per_dpu: int) -> None:
        self._owner._hardware_seconds += transfer_seconds(kind, bytes_per_dpu, self._count)

    def estimate(self) -> KernelEstimate:
        """How long the last launch would have taken on hardware, by the emulator's time
        model (per-DPU modelled cycles; see :mod:`pyupmem.estimate`).

        Raises:
            BackendError: the backend is not the emulator (hardware is timed, not modelled).
        """
        lib = self._lib()
        if "dpu_emu_launch_cycles" not in lib.extensions:
            raise BackendError(
                f"estimate() needs the emulator's time model; the {self._owner._backend.kind} "
                "backend runs on hardware or the SDK's simulator: time the launch instead "
                "(PhaseTimer)"
            )
        cycles = np.zeros(self._count, dtype=np.uint64)
        counted = (ctypes.c_bool * self._count)()
        status = lib.dpu_emu_launch_cycles(  # type: ignore[attr-defined]
            self._c, cycles.ctypes.data_as(ctypes.POINTER(ctypes.c_uint64)), counted
        )
        if status:
            self._check(status, "dpu_emu_launch_cycles")
        mhz = ctypes.c_uint32()
        self._check(lib.dpu_emu_clock_mhz(self._c, ctypes.byref(mhz)), "dpu_emu_clock_mhz")  # type: ignore[attr-defined]
        return KernelEstimate(cycles, mhz.value * 1e6, all(counted))

    # ----------------------------------------------------------------- execution

    def launch(self, asynchronous: bool = False) -> None:
        """Run the loaded program on every DPU of this set (``dpu_launch``).

        Args:
            asynchronous: return at once (``DPU_ASYNCHRONOUS``); wait later with
                :meth:`sync` or poll :meth:`status`. Default: wait for every DPU. While
                work queued with ``asynchronous=True`` is pending, the launch is queued
                behind it (:mod:`pyupmem.asynchrony`).

        Raises:
            DpuFaultError: a DPU faulted; ``faults`` maps each faulty DPU to its message.
            DpuProgramError: no program loaded.
            DpuBusyError: the DPUs are already running.
        """
        if asynchronous and self._queue_busy():
            self._lib(settle=False)
            self._enqueue(lambda: self.launch(asynchronous=True), "launch")
            return
        lib = self._lib()
        if not asynchronous and lib.extensions:
            # The emulator: launch, then wait in slices so that Ctrl-C can interrupt.
            status = lib.dpu_launch(self._c, C.DPU_ASYNCHRONOUS)  # type: ignore[attr-defined]
            if status:
                self._check(status, "dpu_launch")
            self._wait(lib, "dpu_launch")
            return
        policy = C.DPU_ASYNCHRONOUS if asynchronous else C.DPU_SYNCHRONOUS
        status = lib.dpu_launch(self._c, policy)  # type: ignore[attr-defined]
        if status:
            self._check(status, "dpu_launch")

    def _wait(self, lib: C.LibDpu, call: str, timeout: float | None = None) -> None:
        wait = lib.dpu_emu_sync_timeout  # type: ignore[attr-defined]
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            while True:
                slice_ms = 200
                if deadline is not None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        status = wait(self._c, 1)
                        if status == C.DPU_ERR_TIMEOUT:
                            raise make_error(
                                C.DPU_ERR_TIMEOUT,
                                call,
                                detail=(
                                    f"the DPUs still run after {timeout} s and keep running. "
                                    "Fix: sync() again to wait longer, or stop() them"
                                ),
                                before_call=True,
                            )
                        break
                    slice_ms = max(1, min(200, int(left * 1000)))
                status = wait(self._c, slice_ms)
                if status != C.DPU_ERR_TIMEOUT:
                    break
        except KeyboardInterrupt:
            # Ctrl-C: leave no DPU running behind the exception.
            if "dpu_emu_stop" in lib.extensions and not self._owner._closed:
                self.stop()
            raise
        if status:
            self._check(status, call)
        self._owner._hardware_seconds += self.estimate().seconds

    def sync(self, timeout: float | None = None) -> None:
        """Wait until every DPU of this set has finished (``dpu_sync``).

        Args:
            timeout: the most seconds to wait (default: no limit). When the DPUs still run
                after it, :class:`~pyupmem.errors.DpuTimeoutError` (a ``TimeoutError``) is
                raised and they keep running: wait again, or :meth:`stop` them.

        On the emulator the wait can be interrupted: Ctrl-C stops the DPUs of this set
        (:meth:`stop`) and raises ``KeyboardInterrupt``; the set stays usable.

        Work queued with ``asynchronous=True`` (:mod:`pyupmem.asynchrony`) is waited for
        first, and the first error it met is raised here (the work queued after that error
        was not done).

        Raises:
            DpuFaultError: a DPU faulted; ``faults`` maps each faulty DPU to its message.
            DpuTimeoutError: still running after ``timeout`` seconds.
            UnsupportedError: a ``timeout`` on a backend that cannot wait with a limit.
        """
        self._lib(settle=False)
        if timeout is not None and (isinstance(timeout, bool) or timeout < 0):
            raise ArgumentValueError(f"timeout must be a number of seconds >= 0, got {timeout!r}")
        timeout = self._settle_queue(timeout)
        self._sync_dpus(timeout)

    def _settle_queue(self, timeout: float | None) -> float | None:
        """Wait for the set's queued work (Ctrl-C drops it and stops the DPUs) and raise
        its first error; returns what is left of ``timeout``."""
        jobs = self._owner._jobs
        if jobs is None or jobs.in_worker():
            return timeout
        start = time.monotonic()
        try:
            finished = jobs.wait(timeout)
        except KeyboardInterrupt:
            jobs.cancel()
            if "dpu_emu_stop" in self._owner._backend.lib.extensions and not self._owner._closed:
                self.stop()
            raise
        if not finished:
            raise make_error(
                C.DPU_ERR_TIMEOUT,
                "dpu_sync",
                detail=(
                    f"work queued with asynchronous=True is still pending after {timeout} s "
                    "and goes on. Fix: sync() again to wait longer, or stop() the DPUs"
                ),
                before_call=True,
            )
        error = jobs.take_error()
        if error is not None:
            raise error
        return None if timeout is None else max(0.0, timeout - (time.monotonic() - start))

    def _sync_dpus(self, timeout: float | None = None) -> None:
        """Wait for the DPUs themselves (not the queue)."""
        lib = self._lib(settle=False)
        if lib.extensions:
            self._wait(lib, "dpu_sync", timeout)
            return
        if timeout is not None:
            deadline = time.monotonic() + timeout
            while not self._dpu_status().done:
                if time.monotonic() >= deadline:
                    raise make_error(
                        C.DPU_ERR_TIMEOUT,
                        "dpu_sync",
                        detail=f"the DPUs still run after {timeout} s and keep running",
                        before_call=True,
                    )
                time.sleep(0.001)
        status = lib.dpu_sync(self._c)  # type: ignore[attr-defined]
        if status:
            self._check(status, "dpu_sync")

    def stop(self) -> None:
        """Stop the running DPUs of this set and leave it ready to launch again.

        On the emulator a stopped DPU loses its WRAM (its worker process is killed), so
        stop reloads the program into every DPU of this set: WRAM and the ``__mram``
        variables return to their initial values, the rest of MRAM keeps its contents.
        Stopping part of a set (a rank, a slice) reloads that part only, so the whole set
        then needs a :meth:`load` before whole-set transfers. Nothing runs: no effect.
        Work queued on the set with ``asynchronous=True`` that has not started is dropped.

        Raises:
            UnsupportedError: the backend cannot stop DPUs (the SDK's libdpu has no call
                for it): bound the kernel with ``sync(timeout=...)`` and free the set.
        """
        lib = self._lib(settle=False)
        if "dpu_emu_stop" not in lib.extensions:
            raise UnsupportedError(
                f"stop() cannot stop DPUs on the {self._owner._backend.kind} backend: its "
                f"libdpu ({lib.path}) has no call that halts running DPUs. Fix: bound the "
                "kernel with sync(timeout=...), then free() the set"
            )
        jobs = self._owner._jobs
        if jobs is not None:
            jobs.cancel()
        if self._dpu_status().done:
            return
        status = lib.dpu_emu_stop(self._c)  # type: ignore[attr-defined]
        if status:
            self._check(status, "dpu_emu_stop")
        loaded = self._program_state()
        if loaded is not None:
            image = loaded._image
            self.load(image if image is not None else loaded.program)
        else:
            for dpu in self:
                state = dpu._program_state()
                if state is not None:
                    dpu.load(state._image if state._image is not None else state.program)

    def status(self) -> DpuStatus:
        """Whether every DPU of this set is done, and whether any faulted (``dpu_status``).

        Work queued on the set with ``asynchronous=True`` and not yet done counts as not
        done."""
        state = self._dpu_status()
        if state.done and self._queue_busy():
            return DpuStatus(False, state.fault)
        return state

    def _dpu_status(self) -> DpuStatus:
        lib = self._lib(settle=False)
        done = ctypes.c_bool()
        fault = ctypes.c_bool()
        status = lib.dpu_status(self._c, ctypes.byref(done), ctypes.byref(fault))  # type: ignore[attr-defined]
        if status and (status & 0xFFFF) != C.DPU_ERR_DPU_FAULT:
            self._check(status, "dpu_status")
        if status:
            return DpuStatus(True, True)
        return DpuStatus(bool(done.value), bool(fault.value))

    def _fault_error(self, status: int, call: str) -> DpuFaultError:
        faults: dict[int, str] = {}
        lib = self._owner._backend.lib
        done = ctypes.c_bool()
        fault = ctypes.c_bool()
        for index, dpu in zip(self._indices(), self._dpu_structs(), strict=True):
            dpu_status = lib.dpu_status(dpu, ctypes.byref(done), ctypes.byref(fault))  # type: ignore[attr-defined]
            if not dpu_status and not fault.value:
                continue
            log_status, data = C.read_log(lib, dpu)
            text = data.decode("utf-8", "replace") if not log_status else ""
            lines = [line for line in text.splitlines() if line.startswith(FAULT_PREFIX)]
            faults[index] = "\n".join(lines) if lines else "fault (no message in the log)"
        if faults:
            shown = list(faults.items())[:3]
            detail = "; ".join(f"DPU {i}: {message}" for i, message in shown)
            if len(faults) > len(shown):
                detail += f"; and {len(faults) - len(shown)} more faulty DPUs"
            detail += ". Reload the program to use these DPUs again"
        else:
            detail = "reload the program to use the DPUs again"
        message = self._owner._backend.lib.error_string(status)
        error = make_error(C.DPU_ERR_DPU_FAULT, call, message=message, detail=detail, faults=faults)
        assert isinstance(error, DpuFaultError)
        return error

    def callback(self, function: Callable[[Any], object], *, per_rank: bool = False) -> None:
        """Queue a call of ``function`` for when the work queued before it on the set is
        done and this set's DPUs no longer run (the SDK's ``dpu_callback`` with
        ``DPU_CALLBACK_ASYNC``); return at once.

        The call happens on the set's queue thread (:mod:`pyupmem.asynchrony`), as the
        SDK's callbacks run on its rank threads: results of a gather queued before it
        are there, and it may use the set (transfers, launches, further callbacks).
        An exception it raises is raised by the next :meth:`sync`, and the work queued
        after it is then not done.

        Args:
            function: called with this set (a :class:`DpuSet`, :class:`Rank`,
                :class:`Dpu` or :class:`DpuSubset`); what it returns is ignored.
            per_rank: call it once per rank instead, with that :class:`Rank` (or, where
                this set holds only part of a rank, a :class:`DpuSubset` of those DPUs),
                as ``dpu_callback`` without ``DPU_CALLBACK_SINGLE_CALL`` does. A single
                :class:`Dpu` gets one call, as in the SDK.

        Raises:
            ArgumentTypeError: ``function`` is not callable.
        """
        self._lib(settle=False)
        if not callable(function):
            raise ArgumentTypeError(
                f"callback() takes a callable (called with the set), got "
                f"{type(function).__name__} {function!r}"
            )
        parts = self._rank_parts() if per_rank else [self]

        def run() -> None:
            for part in parts:
                function(part)

        self._enqueue(run, f"callback {getattr(function, '__qualname__', function)!r}")

    def _rank_parts(self) -> list[DpuGroup]:
        """This set split by rank: whole ranks as :class:`Rank`, parts as sub-sets."""
        owner = self._owner
        chosen = list(self._indices())
        parts: list[DpuGroup] = []
        for rank in owner.ranks:
            members = [p for p in chosen if rank._first <= p < rank._first + rank._count]
            if len(members) == rank._count and members:
                parts.append(rank)
            elif members:
                parts.append(DpuSubset(owner, members))
        return parts

    # ----------------------------------------------------------------- logs

    def logs(self, *, header: bool = False) -> list[str]:
        """What each DPU of this set printed during its last launch (``dpu_log_read``).

        Args:
            header: keep libdpu's ``=== DPU#0x... ===`` first line.

        Returns:
            One text per DPU, in set order.
        """
        lib = self._lib()
        texts = []
        for dpu in self._dpu_structs():
            status, data = C.read_log(lib, dpu)
            self._check(status, "dpu_log_read")
            text = data.decode("utf-8", "replace")
            if not header and text.startswith("=== DPU#"):
                text = text.split("\n", 1)[1] if "\n" in text else ""
            texts.append(text)
        return texts

    def log(self, *, header: bool = False) -> str:
        """What a single DPU printed during its last launch (``dpu_log_read``).

        Raises:
            DpuSetError: the set has more than one DPU (use :meth:`logs`).
        """
        self._lib()
        if self._count != 1:
            raise make_error(
                C.DPU_ERR_INVALID_DPU_SET,
                "dpu_log_read",
                detail=f"log() needs a single DPU, this set has {self._count}; use logs()",
                before_call=True,
            )
        return self.logs(header=header)[0]

    def print_logs(self, file: Any = None) -> None:
        """Print every DPU's log, each under libdpu's ``=== DPU#0x... ===`` line."""
        for text in self.logs(header=True):
            print(text, end="" if text.endswith("\n") else "\n", file=file)


def _name(symbol: str | Symbol) -> str:
    return symbol.name if isinstance(symbol, Symbol) else str(symbol)


def _padded(share: np.ndarray, length: int) -> np.ndarray:
    if share.nbytes == length:
        return share
    padded = np.zeros(length, dtype=np.uint8)
    padded[: share.nbytes] = share.reshape(-1).view(np.uint8)
    return padded


def _part_shape(
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


def _check_out(out: np.ndarray, count: int, call: str) -> None:
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


class Dpu(DpuGroup):
    """One DPU of a :class:`DpuSet` (a ``DPU_SET_DPU`` set in libdpu's terms).

    It has every operation of a set, restricted to this DPU, plus :meth:`read` and
    :meth:`log` for single-DPU reads.

    Attributes:
        index: its position in the owning set.
    """

    def __init__(self, owner: DpuSet, c_set: C.dpu_set_t, index: int):
        self._owner = owner
        self._c = c_set
        self._key = ("dpu", index)
        self._first = index
        self._count = 1
        self.index = index

    def __iter__(self) -> Iterator[Dpu]:
        self._lib(settle=False)
        return iter((self,))

    def _rank_parts(self) -> list[DpuGroup]:
        return [self]  # the SDK calls a single DPU's callback once

    def __getitem__(self, index: int | slice) -> Any:
        return (self,)[index]

    def _dpu_structs(self) -> list[C.dpu_set_t]:
        return [self._c]

    def __repr__(self) -> str:
        return f"<Dpu {self.index} of {self._owner!r}>"


class Rank(DpuGroup):
    """One rank of a :class:`DpuSet` (up to 64 DPUs), with every operation of a set.

    Attributes:
        index: its position among the set's ranks.
    """

    def __init__(self, owner: DpuSet, c_set: C.dpu_set_t, index: int, first: int, count: int):
        self._owner = owner
        self._c = c_set
        self._key = ("rank", index)
        self._first = first
        self._count = count
        self.index = index

    def __repr__(self) -> str:
        return f"<Rank {self.index} ({self._count} DPUs) of {self._owner!r}>"


class DpuSet(DpuGroup):
    """DPUs allocated from libdpu, freed when the set is closed.

    Use it as a context manager so that the DPUs are always freed::

        with DpuSet(64) as dpus:            # 64 DPUs
            ...
        with DpuSet(nr_ranks=1) as rank:    # one rank
            ...
        with DpuSet() as everything:        # every DPU (DpuSet(ALL))
            ...

    ``len(dpus)`` is the number of DPUs; iterating or indexing gives :class:`Dpu` objects
    (a slice, a list or a mask gives a :class:`DpuSubset`) and :attr:`ranks` the
    :class:`Rank` objects. Loading, transfers, launches, status and logs are the methods
    of :class:`DpuGroup`, which every one of these shares. The set is also freed when it is
    garbage collected or when the interpreter exits.

    Args:
        nr_dpus: how many DPUs (default, ``None`` or :data:`ALL`: every available DPU).
        nr_ranks: allocate this many whole ranks instead (:data:`ALL` for all ranks).
        profile: the libdpu profile, as ``"key=value,..."`` or a mapping (for instance
            ``{"backend": "simulator"}`` on the SDK, ``{"nrRanks": 2}`` on the emulator).
        backend: a :class:`~pyupmem.backend.Backend` or backend name; default: found by
            :func:`~pyupmem.backend.find_backend`.
        strict: emulator only: a DPU program that breaks a documented DMA rule faults
            (``True``) instead of doing what the hardware does with a warning (``False``);
            ``None`` (default) follows ``PYUPMEM_EMU_STRICT``. The profile key ``emuStrict``.
        schedule: emulator only: ``"roundrobin"`` (the hardware-like default) or
            ``"shuffle:SEED"``, a seeded random interleaving of the tasklets at every
            switch point, to find races; ``None`` follows ``PYUPMEM_EMU_SCHEDULE``. The
            profile key ``emuSchedule``.
        scatter_gather: allow :meth:`scatter_blocks` and :meth:`gather_blocks`
            (the profile key ``sgXferEnable=true``, on the SDK 2024+ and the emulator);
            an int also sets the most blocks per DPU (``sgXferMaxBlocksPerDpu``).

    Raises:
        DpuAllocationError: not that many DPUs or ranks are available.
        DpuProfileError: the profile is invalid.
        BackendError: no libdpu could be found.
    """

    def __init__(
        self,
        nr_dpus: int | None = None,
        *,
        nr_ranks: int | None = None,
        profile: str | Mapping[str, object] | None = None,
        backend: Backend | str | None = None,
        strict: bool | None = None,
        schedule: str | None = None,
        scatter_gather: bool | int | None = None,
    ):
        self._closed = True
        self._jobs: JobQueue | None = None
        self._hardware_seconds = 0.0
        self._loaded: LoadedProgram | None = None
        self._view_programs: dict[tuple[str, int], LoadedProgram | None] = {}
        self._key = ("set", 0)
        self._first = 0
        self._count = 0
        self._dpu_cache: list[C.dpu_set_t] | None = None
        self._rank_cache: list[tuple[C.dpu_set_t, int, int]] | None = None
        self._backend = backend if isinstance(backend, Backend) else find_backend(backend)
        if nr_dpus is not None and nr_ranks is not None:
            raise ArgumentValueError("give nr_dpus or nr_ranks, not both")
        for label, value in (("nr_dpus", nr_dpus), ("nr_ranks", nr_ranks)):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int | np.integer)
            ):
                raise ArgumentTypeError(
                    f"{label} must be an int (or None for every DPU), got "
                    f"{type(value).__name__} {value!r}" + (
                        f"; convert it first: {label}=int({value!r})"
                        if isinstance(value, str | float) else ""
                    )
                )
        emulator_keys: dict[str, object | None] = {"emuStrict": strict, "emuSchedule": schedule}
        if scatter_gather is not None:
            emulator_keys["sgXferEnable"] = bool(scatter_gather)
            if not isinstance(scatter_gather, bool):
                emulator_keys["sgXferMaxBlocksPerDpu"] = int(scatter_gather)
        if self._backend.kind == "emulator" and "emuPrintFaults" not in _profile_text(profile):
            # The DpuFaultError carries every DPU's message: do not also print them.
            emulator_keys["emuPrintFaults"] = False
        extra = _profile_text({k: v for k, v in emulator_keys.items() if v is not None})
        self.profile = ",".join(p for p in (_profile_text(profile), extra) if p)
        """The profile string the set was allocated with."""
        lib = self._backend.lib
        self._c = C.dpu_set_t()
        profile_bytes = self.profile.encode()
        if nr_ranks is not None:
            if nr_ranks < 0 or (nr_ranks == 0):
                raise make_error(
                    C.DPU_ERR_ALLOCATION,
                    "dpu_alloc_ranks",
                    detail=f"nr_ranks must be positive, got {nr_ranks}",
                    before_call=True,
                )
            call = "dpu_alloc_ranks"
            status = lib.dpu_alloc_ranks(nr_ranks, profile_bytes, ctypes.byref(self._c))  # type: ignore[attr-defined]
            asked = f"{'all' if nr_ranks == ALL else nr_ranks} ranks"
        else:
            count = ALL if nr_dpus is None else nr_dpus
            if count <= 0:
                raise make_error(
                    C.DPU_ERR_ALLOCATION,
                    "dpu_alloc",
                    detail=f"nr_dpus must be positive, got {count}",
                    before_call=True,
                )
            call = "dpu_alloc"
            status = lib.dpu_alloc(count, profile_bytes, ctypes.byref(self._c))  # type: ignore[attr-defined]
            asked = f"{'all' if count == ALL else count} DPUs"
        if status:
            detail = f"asked for {asked} with profile {self.profile!r}"
            if status == C.DPU_ERR_ALLOCATION:
                detail += self._allocation_hint()
            raise self._backend.status_error(status, call, detail)
        self._closed = False
        c_set = C.dpu_set_t.from_buffer_copy(self._c)
        self._finalizer = weakref.finalize(self, lib.dpu_free, c_set)  # type: ignore[attr-defined]
        n = ctypes.c_uint32()
        self._check(lib.dpu_get_nr_dpus(self._c, ctypes.byref(n)), "dpu_get_nr_dpus")  # type: ignore[attr-defined]
        self._count = n.value

    def _allocation_hint(self) -> str:
        """What could be allocated instead, and how to get more, for an allocation error."""
        try:
            dpus, ranks = self._backend.capacity(self.profile)
        except PyUpmemError:
            dpus = ranks = 0
        hint = f"; {dpus} DPUs ({ranks} ranks) are free now. Fix: ask for fewer, free other sets"
        if self._backend.kind == "emulator":
            hint += (" or emulate a larger system (PYUPMEM_EMU_NR_RANKS=N or the profile key "
                     "nrRanks=N; 64 DPUs per rank)")
        return hint

    def hardware_seconds(self) -> float:
        """Estimated hardware time of everything this set did so far: every launch (the
        time model's :meth:`estimate`) and every host transfer (per-rank bandwidths). A
        :class:`~pyupmem.PhaseTimer` given this set shows it per phase."""
        return self._hardware_seconds

    # ----------------------------------------------------------------- lifetime

    def free(self) -> None:
        """Free the DPUs (``dpu_free``). Safe to call more than once."""
        if self._closed:
            return
        if self._jobs is not None:
            self._jobs.close()  # no queued work may touch the DPUs being freed
        self._closed = True
        finalizer = self._finalizer
        if finalizer.alive:
            finalizer.detach()
            status = self._backend.lib.dpu_free(self._c)  # type: ignore[attr-defined]
            if status:
                raise self._backend.status_error(status, "dpu_free")

    close = free

    @property
    def closed(self) -> bool:
        """True once the set has been freed."""
        return self._closed

    def __enter__(self) -> DpuSet:
        self._lib(settle=False)  # a freed set cannot be used again
        return self

    def __len__(self) -> int:
        self._lib(settle=False)
        return self._count

    def __exit__(self, *exc_info: object) -> None:
        self.free()

    def __repr__(self) -> str:
        state = "freed" if self._closed else f"{self._count} DPUs"
        return f"<DpuSet {state} on {self._backend.kind}>"

    # ----------------------------------------------------------------- structure

    @property
    def nr_ranks(self) -> int:
        """The number of ranks of the set (``dpu_get_nr_ranks``)."""
        lib = self._lib(settle=False)
        n = ctypes.c_uint32()
        self._check(lib.dpu_get_nr_ranks(self._c, ctypes.byref(n)), "dpu_get_nr_ranks")  # type: ignore[attr-defined]
        return n.value

    @property
    def _owner(self) -> DpuSet:  # type: ignore[override]
        # A property, not an attribute: a set referring to itself would be a reference
        # cycle, and the set would then be freed by the garbage collector only.
        return self

    @property
    def ranks(self) -> list[Rank]:
        """The ranks of the set, each a :class:`Rank` (through the rank iterator)."""
        lib = self._lib(settle=False)
        if self._rank_cache is None:
            ranks = []
            first = 0
            n = ctypes.c_uint32()
            for c_rank in C.iter_ranks(lib, self._c):
                self._check(lib.dpu_get_nr_dpus(c_rank, ctypes.byref(n)), "dpu_get_nr_dpus")  # type: ignore[attr-defined]
                ranks.append((c_rank, first, n.value))
                first += n.value
            self._rank_cache = ranks
        return [
            Rank(self, c_rank, index, first, count)
            for index, (c_rank, first, count) in enumerate(self._rank_cache)
        ]

    def _structs(self) -> list[C.dpu_set_t]:
        if self._dpu_cache is None:
            lib = self._lib(settle=False)
            self._dpu_cache = list(C.iter_dpus(lib, self._c))
        else:
            self._lib(settle=False)
        return self._dpu_cache

    def _dpu_structs(self) -> list[C.dpu_set_t]:
        return self._structs()

    def _program_loaded(self, node: DpuGroup, loaded: LoadedProgram) -> None:
        programs = self._view_programs
        if node is self:
            self._loaded = loaded
            programs.clear()
            return
        # Part of the set now runs another program: the set as a whole no longer has one
        # (libdpu would report DIFFERENT_DPU_PROGRAMS); the other parts keep theirs.
        ranks = self.ranks
        if self._loaded is not None:
            for index in range(self._count):
                programs.setdefault(("dpu", index), self._loaded)
            for rank in ranks:
                programs.setdefault(rank._key, self._loaded)
            self._loaded = None
        for index in range(node._first, node._first + node._count):
            programs[("dpu", index)] = loaded
        end = node._first + node._count
        for rank in ranks:
            rank_end = rank._first + rank._count
            if (rank._first, rank._count) == (node._first, node._count):
                programs[rank._key] = loaded
            elif rank._first < end and node._first < rank_end:
                programs[rank._key] = None  # a mix of programs


class DpuSubset(DpuGroup):
    """Some DPUs of a :class:`DpuSet`, chosen by a slice, a list of positions or a boolean
    mask (``dpus[0:4]``, ``dpus[[0, 5, 9]]``, ``dpus[mask]``), with every operation of a set.

    libdpu addresses whole sets, ranks and single DPUs only, so a sub-set works through
    them: a transfer prepares a buffer for the chosen DPUs only and pushes it rank by rank
    (the others are skipped, as ``dpu_push_xfer`` skips a DPU without a buffer); a launch
    launches each chosen DPU (a whole rank at once when all of it is chosen); ``load``
    loads whole ranks where it can and single DPUs elsewhere.

    Attributes:
        positions: the positions of its DPUs in the owning set, in order.
    """

    def __init__(self, owner: DpuSet, positions: Sequence[int]):
        self._owner = owner
        self.positions = list(positions)
        self._key = ("subset", hash(tuple(self.positions)))
        self._first = self.positions[0] if self.positions else 0
        self._count = len(self.positions)

    def _indices(self) -> Sequence[int]:
        return self.positions

    def _dpu_structs(self) -> list[C.dpu_set_t]:
        structs = self._owner._structs()
        return [structs[i] for i in self.positions]

    def __iter__(self) -> Iterator[Dpu]:
        structs = self._owner._structs()
        return (Dpu(self._owner, structs[i], i) for i in self.positions)

    def __repr__(self) -> str:
        return f"<DpuSubset of {self._count} DPUs of {self._owner!r}>"

    # ----------------------------------------------------------------- grouping

    def _groups(self) -> list[tuple[DpuGroup, list[int]]]:
        """The chosen DPUs grouped by rank: (the rank, or the single DPU where the rank
        has no single program here, and the positions in this subset)."""
        owner = self._owner
        ranks = owner.ranks
        by_rank: dict[int, list[int]] = {}
        where = {}
        for rank in ranks:
            for position in range(rank._first, rank._first + rank._count):
                where[position] = rank.index
        for slot, position in enumerate(self.positions):
            by_rank.setdefault(where[position], []).append(slot)
        groups: list[tuple[DpuGroup, list[int]]] = []
        for rank_index, slots in by_rank.items():
            rank = ranks[rank_index]
            if rank._program_state() is not None:
                groups.append((rank, slots))
            else:
                for slot in slots:
                    groups.append((self[slot], [slot]))
        return groups

    def _program_state(self) -> LoadedProgram | None:
        states = {id(dpu._program_state()): dpu._program_state() for dpu in self}
        return next(iter(states.values())) if len(states) == 1 else None

    # ----------------------------------------------------------------- program

    def load(self, program: Program | str | os.PathLike | bytes | bytearray) -> LoadedProgram:
        """Load a program into the chosen DPUs: whole ranks at once, single DPUs elsewhere.

        Returns:
            The program as loaded into the first group (every group has the same symbols).
        """
        self._lib()
        owner = self._owner
        chosen = set(self.positions)
        loaded: LoadedProgram | None = None
        done: set[int] = set()
        for rank in owner.ranks:
            members = set(range(rank._first, rank._first + rank._count))
            if members and members <= chosen:
                loaded = rank.load(program)
                done |= members
        for dpu in self:
            if dpu.index not in done:
                loaded = dpu.load(program)
        if loaded is None:
            raise ArgumentValueError("this sub-set holds no DPU")
        return loaded

    # ----------------------------------------------------------------- transfers

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
        name = resolved.c_name if resolved is not None else str(symbol).encode()
        prepare = lib.dpu_prepare_xfer  # type: ignore[attr-defined]
        structs = self._owner._structs()
        for node, slots in self._groups():
            for slot in slots:
                status = prepare(structs[self.positions[slot]], addresses[slot])
                if status:
                    self._check(status, "dpu_prepare_xfer")
            status = lib.dpu_push_xfer(  # type: ignore[attr-defined]
                node._c, direction, name, offset, length, C.DPU_XFER_DEFAULT
            )
            if status:
                self._check(status, "dpu_push_xfer", f"symbol {_name(symbol)!r}")
        self._note_transfer("scatter" if direction == C.DPU_XFER_TO_DPU else "gather", length)

    def write(
        self,
        symbol: str | Symbol,
        data: Any,
        offset: int = 0,
        *,
        raw: bool = False,
        asynchronous: bool = False,
    ) -> None:
        """Write the same ``data`` to ``symbol`` in every chosen DPU (see
        :meth:`DpuSet.write`)."""
        lib = self._lib(not asynchronous)
        resolved = self._resolve(symbol, "dpu_push_xfer")
        array = checked_input(None if raw else resolved, data, offset, "write")
        self._check_access(resolved, offset, array.nbytes, "dpu_push_xfer")
        if array.nbytes == 0 or not self._count:
            return
        address = _address(array)

        def run() -> None:
            self._push(
                lib, C.DPU_XFER_TO_DPU, symbol, resolved, offset, array.nbytes,
                [address] * self._count,
            )

        if asynchronous:
            self._enqueue(run, f"write of {_name(symbol)!r}")
        else:
            run()

    broadcast = write

    # ----------------------------------------------------------------- execution

    def launch(self, asynchronous: bool = False) -> None:
        """Run the loaded program on the chosen DPUs (see :meth:`DpuSet.launch`)."""
        if asynchronous and self._queue_busy():
            self._lib(settle=False)
            self._enqueue(lambda: self.launch(asynchronous=True), "launch")
            return
        lib = self._lib()
        launched: list[DpuGroup] = []
        chosen = set(self.positions)
        done: set[int] = set()
        for rank in self._owner.ranks:
            members = set(range(rank._first, rank._first + rank._count))
            if members and members <= chosen:
                launched.append(rank)
                done |= members
        launched += [dpu for dpu in self if dpu.index not in done]
        for node in launched:
            status = lib.dpu_launch(node._c, C.DPU_ASYNCHRONOUS)  # type: ignore[attr-defined]
            if status:
                self._check(status, "dpu_launch")
        if not asynchronous:
            self.sync()

    def _sync_dpus(self, timeout: float | None = None) -> None:
        self._lib(settle=False)
        deadline = None if timeout is None else time.monotonic() + timeout
        faulty = []
        try:
            for dpu in self:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                try:
                    dpu._sync_dpus(left)
                except DpuFaultError:
                    faulty.append(dpu)
        except KeyboardInterrupt:
            if "dpu_emu_stop" in self._lib(settle=False).extensions:
                self.stop()
            raise
        if faulty:
            raise self._fault_error(C.DPU_ERR_DPU_FAULT, "dpu_sync")

    def _dpu_status(self) -> DpuStatus:
        done, fault = True, False
        for dpu in self:
            state = dpu._dpu_status()
            done &= state.done
            fault |= state.fault
        return DpuStatus(done, fault)

    def stop(self) -> None:
        """Stop the chosen DPUs that run and reload their program one DPU at a time
        (see :meth:`DpuSet.stop`)."""
        jobs = self._owner._jobs
        if jobs is not None:
            jobs.cancel()
        for dpu in self:
            dpu.stop()

    def estimate(self) -> KernelEstimate:
        """The time model's estimate of the chosen DPUs' last launch (emulator only)."""
        parts = [dpu.estimate() for dpu in self]
        cycles = np.concatenate([part.cycles for part in parts]) if parts else np.zeros(0)
        rate = parts[0].clock_hz if parts else 350e6
        return KernelEstimate(cycles, rate, all(part.counted for part in parts))

    def _resolve(self, symbol: str | Symbol, call: str) -> Symbol | None:
        if isinstance(symbol, Symbol):
            return symbol
        loaded = self._program_state()
        return loaded.symbol(symbol) if loaded is not None else None

    @property
    def _c(self) -> C.dpu_set_t:  # type: ignore[override]
        raise UnsupportedError(
            "this operation needs a whole DpuSet, a Rank or a Dpu: libdpu cannot address a "
            "sub-set as one (scatter-gather transfers, for instance); use the set or its ranks"
        )
