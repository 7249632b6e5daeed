"""The operations every group of DPUs shares: :class:`DpuGroup`.

A :class:`~pyupmem.DpuSet`, a :class:`~pyupmem.Rank`, a :class:`~pyupmem.Dpu` and a
sub-set (``dpus[0:4]``) are all groups. This module holds what a group does itself:
indexing into views, loading programs, finding symbols, queueing calls; the transfers
(:mod:`pyupmem.dpus.transfers`, :mod:`pyupmem.dpus.block_transfers`), launches
(:mod:`pyupmem.dpus.control`) and reports (:mod:`pyupmem.dpus.reports`) come from its base
classes, and the reference documents them all here, on :class:`DpuGroup`.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from pyupmem.build.elf_target import refuse_foreign_binary
from pyupmem.build.program import Program, Symbol
from pyupmem.dpus.asynchrony import Finish, QueuedWorkCancelled, RankQueues
from pyupmem.dpus.block_transfers import _BlockTransfers
from pyupmem.dpus.control import _Control
from pyupmem.dpus.loaded_program import LoadedProgram
from pyupmem.dpus.reports import _Reports
from pyupmem.dpus.transfers import _Transfers
from pyupmem.driver import libdpu as C
from pyupmem.driver.backend import Backend
from pyupmem.errors import (
    ArgumentTypeError,
    ArgumentValueError,
    DpuIndexError,
    DpuTimeoutError,
    make_error,
)

if TYPE_CHECKING:
    from pyupmem.dpus.dpuset import DpuSet
    from pyupmem.dpus.views import Dpu


_FALLBACK = object()  # a view without a program of its own uses its set's


class DpuGroup(_Transfers, _BlockTransfers, _Control, _Reports):
    """The operations every group of DPUs has: a whole :class:`DpuSet`, a :class:`Rank`,
    a single :class:`Dpu` and a :class:`DpuSubset` (``dpus[0:4]``) all load programs, move
    data, launch, wait, report status and read logs through these methods, each acting on
    its own DPUs only. You never create one directly: allocate a :class:`DpuSet`, then
    index it or take its :attr:`~DpuSet.ranks`.

    Transfers, launches and :meth:`callback` can be queued with ``asynchronous=True``
    (:mod:`pyupmem.dpus.asynchrony`).
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
            jobs.view(self._rank_indices()).wait()
        return owner._backend.lib

    def _enqueue(
        self, action: Callable[[], object], what: str, finish: Finish | None = None
    ) -> None:
        """Queue ``action`` behind the work queued before it on this node's ranks; it runs
        once this node's DPUs are no longer running, and ``finish`` is told how it ended
        (:mod:`pyupmem.dpus.asynchrony`)."""
        owner = self._owner
        if owner._jobs is None:
            owner._jobs = RankQueues(f"{owner._count} DPUs")
        owner._jobs.put(
            self._rank_indices(), self._await_idle, action, f"{what} on {self!r}", finish
        )

    def _rank_indices(self) -> list[int]:
        """The ranks (positions in :attr:`DpuSet.ranks`) that hold this node's DPUs: the
        queues its asynchronous work goes on."""
        owner = self._owner
        if owner._rank_cache is None:
            owner.ranks  # noqa: B018 - fills the cache
        spans = owner._rank_cache or []
        chosen = self._indices()
        if isinstance(chosen, range):
            return [
                i for i, (_, first, count) in enumerate(spans)
                if first < chosen.stop and chosen.start < first + count
            ]
        members = set(chosen)
        return [
            i for i, (_, first, count) in enumerate(spans)
            if not members.isdisjoint(range(first, first + count))
        ]

    def _await_idle(self, cancelled: Callable[[], bool]) -> None:
        """Wait (on the queue's worker thread) until no DPU of this node runs; raise the
        fault of their launch (the job's error then: it does not run) unless the user was
        told of it already."""
        while not self._dpu_status().done:
            if cancelled():
                raise QueuedWorkCancelled
            try:
                self._sync_dpus(0.2)  # raises a fault of the launch it waited for
                return
            except DpuTimeoutError:
                continue
        # Done before this job's turn: a fault nobody was told of is this job's error, never
        # memory to hand out (one already raised is the user's to read, on purpose).
        self._refuse_unreported_fault("dpu_sync")

    def _queue_busy(self) -> bool:
        """Whether work queued on the set is pending, as seen from the calling thread."""
        jobs = self._owner._jobs
        return (
            jobs is not None
            and jobs.busy
            and not jobs.in_worker()
            and jobs.view(self._rank_indices()).busy
        )

    def _check(self, status: int, call: str, detail: str = "") -> None:
        if status:
            if (status & 0xFFFF) == C.DPU_ERR_DPU_FAULT and not status & C.DPU_ERR_ASYNC_JOBS:
                raise self._fault_error(status, call)
            raise self._owner._backend.status_error(status, call, detail)

    def _require_single(self, call: str, method: str, instead: str) -> None:
        """Raise the libdpu error of ``call`` unless this group is a single DPU."""
        if self._count != 1:
            raise make_error(
                C.DPU_ERR_INVALID_DPU_SET,
                call,
                detail=f"{method}() needs a single DPU, this set has {self._count}; use "
                       f"{instead}()",
                before_call=True,
            )

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
        from pyupmem.dpus.views import Dpu  # views are groups: imported on use

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
        from pyupmem.dpus.views import Dpu, DpuSubset  # views are groups: imported on use

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
            DpuProgramError: the file is missing or not a DPU program, or it was built for
                the other backend (a binary of the SDK's compiler on the emulator: the
                message says how to rebuild it, :mod:`pyupmem.build.elf_target`).
        """
        lib = self._lib()
        handle = ctypes.c_void_p()
        refuse_foreign_binary(program, self._owner._backend.kind)
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
        self._launch_reported()  # a load clears a fault: nothing of the last launch is left
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
            self._refuse_unloaded(symbol, call)
            return None
        found = loaded._symbols.get(symbol)  # type: ignore[union-attr]
        if found is None:
            found = loaded.symbol(symbol)
        return found

    def _refuse_unloaded(self, symbol: str, call: str) -> None:
        """Raise libdpu's ``DPU_ERR_NO_PROGRAM_LOADED`` before any type check when no DPU
        of the set has a program: the data's type is not the problem then. (A part with a
        mix of programs has no one symbol table either; libdpu reports that itself.)"""
        owner = self._owner
        if owner._loaded is None and all(p is None for p in owner._view_programs.values()):
            raise make_error(
                C.DPU_ERR_NO_PROGRAM_LOADED,
                call,
                detail=f"symbol {symbol!r}. Fix: load a program first (dpus.load(program))",
                before_call=True,
            )

    # ----------------------------------------------------------------- transfers
    # Written in pyupmem/dpus/transfers.py and block_transfers.py; named here so that the reference
    # documents each once, on DpuGroup, in this order.

    write = _Transfers.write
    broadcast = _Transfers.broadcast
    scatter = _Transfers.scatter
    gather = _Transfers.gather
    scatter_blocks = _BlockTransfers.scatter_blocks
    gather_blocks = _BlockTransfers.gather_blocks
    read = _Transfers.read

    # ----------------------------------------------------------------- reports
    # Written in pyupmem/dpus/reports.py (class _Reports); named here for the reference.

    timeline = _Reports.timeline
    estimate = _Reports.estimate
    logs = _Reports.logs
    log = _Reports.log
    print_logs = _Reports.print_logs

    # ----------------------------------------------------------------- running DPUs
    # Written in pyupmem/dpus/control.py (class _Control): launches, waits with a timeout and
    # Ctrl-C, stop, status and fault reports; named here for the reference, as above.

    launch = _Control.launch
    sync = _Control.sync
    stop = _Control.stop
    status = _Control.status

    # ----------------------------------------------------------------- queued calls

    def callback(self, function: Callable[[Any], object], *, per_rank: bool = False) -> None:
        """Queue a call of ``function`` for when the work queued before it on the set is
        done and this set's DPUs no longer run (the SDK's ``dpu_callback`` with
        ``DPU_CALLBACK_ASYNC``); return at once.

        The call happens on the set's queue thread (:mod:`pyupmem.dpus.asynchrony`), as the
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
        what = f"callback {getattr(function, '__qualname__', function)!r}"
        # Per rank: each call is queued on its own rank, as the SDK's rank threads run them.
        for part in self._rank_parts() if per_rank else [self]:
            part._enqueue(lambda part=part: function(part), what)

    def _rank_parts(self) -> list[DpuGroup]:
        """This set split by rank: whole ranks as :class:`Rank`, parts as sub-sets."""
        from pyupmem.dpus.views import DpuSubset  # views are groups: imported on use

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
