"""The Pythonic layer: sets of DPUs, their programs, transfers, launches and logs.

A :class:`DpuSet` owns DPUs allocated from libdpu and frees them when it is closed (it is
a context manager). It is a sequence of :class:`Dpu`; :attr:`DpuSet.ranks` gives its
:class:`Rank` objects; slices, lists of positions and masks give :class:`DpuSubset`
objects. DPUs, ranks and sub-sets are views on the set: they offer the same operations
(those of :class:`DpuGroup`, the class they share), restricted to themselves, and become
unusable once the set is freed.

The operations are written where their job is: allocation, indexing, loading, queued calls
and logs here; transfers in :mod:`pyupmem.transfers`; launches, waits and stops in
:mod:`pyupmem.control`. :class:`DpuGroup` gathers them, and the reference documents them
there.

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
from pyupmem.asynchrony import Finish, QueuedWorkCancelled, RankQueues
from pyupmem.backend import Backend, find_backend
from pyupmem.control import _Control
from pyupmem.debuginfo import CType, read_types, read_types_from_bytes
from pyupmem.elf_target import refuse_foreign_binary
from pyupmem.errors import (
    ArgumentTypeError,
    ArgumentValueError,
    BackendError,
    DpuError,
    DpuFaultError,
    DpuIndexError,
    DpuTimeoutError,
    UnsupportedError,
    make_error,
)
from pyupmem.estimate import ACTIVITIES, KernelEstimate
from pyupmem.program import Program, Symbol
from pyupmem.queued_data import lock_while_queued
from pyupmem.timeline import Timeline, TimelineEvent
from pyupmem.timing import INTER_DPU, PHASES
from pyupmem.transfers import _address, _name, _Transfers, checked_input

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

    def _described(self) -> list[str]:
        """``name: C type (size)`` for each variable of the debug information, then the
        symbols looked up that it lacks; the runtime's and pyupmem's own (``__*``) left
        out. Reads no libdpu: a repr must work after the set is freed."""
        try:
            types = self.types
        except Exception:  # a repr must not raise; the debug information is a nicety here
            types = {}
        shown = [
            f"{name}: {ctype.name} ({ctype.size} B)"
            for name, ctype in types.items()
            if not name.startswith("__")
        ]
        shown += [
            f"{name}: {symbol.size} B of {symbol.memory}"
            for name, symbol in self._symbols.items()
            if name not in types and not name.startswith("__")
        ]
        return shown

    def __repr__(self) -> str:
        shown = self._described()
        if len(shown) > 8:  # a repr stays one readable line
            shown = [*shown[:8], f"... {len(shown) - 8} more"]
        return f"LoadedProgram({str(self.program.path)!r}, symbols=[{', '.join(shown)}])"


class DpuGroup(_Transfers, _Control):
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
            jobs.view(self._rank_indices()).wait()
        return owner._backend.lib

    def _enqueue(
        self, action: Callable[[], object], what: str, finish: Finish | None = None
    ) -> None:
        """Queue ``action`` behind the work queued before it on this node's ranks; it runs
        once this node's DPUs are no longer running, and ``finish`` is told how it ended
        (:mod:`pyupmem.asynchrony`)."""
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
            DpuProgramError: the file is missing or not a DPU program, or it was built for
                the other backend (a binary of the SDK's compiler on the emulator: the
                message says how to rebuild it, :mod:`pyupmem.elf_target`).
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

    # ----------------------------------------------------------------- transfers
    # Written in pyupmem/transfers.py (class _Transfers); named here so that the reference
    # documents each once, on DpuGroup, in this order.

    write = _Transfers.write
    broadcast = _Transfers.broadcast
    scatter = _Transfers.scatter
    gather = _Transfers.gather
    scatter_blocks = _Transfers.scatter_blocks
    gather_blocks = _Transfers.gather_blocks
    read = _Transfers.read

    # ----------------------------------------------------------------- estimates

    def _emulator_lib(self, call: str) -> C.LibDpu:
        lib = self._lib()
        if "dpu_emu_launch_cycles" not in lib.extensions:
            raise BackendError(
                f"{call} needs the emulator's time model; the {self._owner._backend.kind} "
                "backend runs on hardware or the SDK's simulator: time the work instead "
                "(PhaseTimer)"
            )
        return lib

    def timeline(self, dpu: int = 0) -> Timeline:
        """What each tasklet of DPU ``dpu`` (an index in this set) did during the last
        launch made with ``launch(trace=True)``, in modelled hardware time: see
        :mod:`pyupmem.timeline` (``save`` writes a Chrome trace, ``plot`` draws it).

        Raises:
            BackendError: the backend is not the emulator.
            ArgumentValueError: no such DPU.
        """
        lib = self._emulator_lib("timeline()")
        if not 0 <= dpu < self._count:
            raise ArgumentValueError(
                f"timeline(dpu={dpu}): this set has DPUs 0 to {self._count - 1}"
            )
        count, dropped = ctypes.c_uint32(), ctypes.c_uint32()
        target = self._dpu_structs()[dpu]
        for capacity in (0, None):  # how many, then all of them
            events = (C.emu_trace_event * (capacity if capacity is not None else count.value))()
            self._check(
                lib.dpu_emu_trace_events(  # type: ignore[attr-defined]
                    target, events, len(events), ctypes.byref(count), ctypes.byref(dropped)
                ),
                "dpu_emu_trace_events",
            )
        mhz = ctypes.c_uint32()
        self._check(lib.dpu_emu_clock_mhz(self._c, ctypes.byref(mhz)), "dpu_emu_clock_mhz")  # type: ignore[attr-defined]
        return Timeline(
            dpu,
            mhz.value * 1e6,
            tuple(
                TimelineEvent(e.tasklet, ACTIVITIES[e.activity], e.start, e.end)
                for e in events[: min(count.value, len(events))]
            ),
            dropped.value,
        )

    def estimate(self) -> KernelEstimate:
        """How long the last launch would have taken on hardware, by the emulator's time
        model: per-DPU modelled cycles, their split per tasklet into compute, DMA and
        waits, and the launch's own cost (see :mod:`pyupmem.estimate`).

        Raises:
            BackendError: the backend is not the emulator (hardware is timed, not modelled).
        """
        lib = self._emulator_lib("estimate()")
        count = self._count
        cycles = np.zeros(count, dtype=np.uint64)
        counted = (ctypes.c_bool * count)()
        self._check(
            lib.dpu_emu_launch_cycles(  # type: ignore[attr-defined]
                self._c, cycles.ctypes.data_as(ctypes.POINTER(ctypes.c_uint64)), counted
            ),
            "dpu_emu_launch_cycles",
        )
        mhz = ctypes.c_uint32()
        self._check(lib.dpu_emu_clock_mhz(self._c, ctypes.byref(mhz)), "dpu_emu_clock_mhz")  # type: ignore[attr-defined]
        total, launch = ctypes.c_double(), ctypes.c_double()
        self._check(
            lib.dpu_emu_kernel_seconds(self._c, ctypes.byref(total), ctypes.byref(launch)),  # type: ignore[attr-defined]
            "dpu_emu_kernel_seconds",
        )
        nr_tasklets = np.zeros(count, dtype=np.uint32)
        times = (C.emu_tasklet_times * (count * C.EMU_MAX_TASKLETS))()
        self._check(
            lib.dpu_emu_tasklet_times(  # type: ignore[attr-defined]
                self._c, nr_tasklets.ctypes.data_as(ctypes.POINTER(ctypes.c_uint32)), times
            ),
            "dpu_emu_tasklet_times",
        )
        raw = np.frombuffer(times, dtype=np.uint64).reshape(count, C.EMU_MAX_TASKLETS, 4)
        used = int(nr_tasklets.max(initial=0))
        return KernelEstimate(
            cycles,
            mhz.value * 1e6,
            all(counted),
            launch_seconds=launch.value,
            tasklet_cycles=raw[:, :used, :3].copy(),
            instructions=raw[:, :used, 3].copy(),
        )

    # ----------------------------------------------------------------- running DPUs
    # Written in pyupmem/control.py (class _Control): launches, waits with a timeout and
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
        what = f"callback {getattr(function, '__qualname__', function)!r}"
        # Per rank: each call is queued on its own rank, as the SDK's rank threads run them.
        for part in self._rank_parts() if per_rank else [self]:
            part._enqueue(lambda part=part: function(part), what)

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
        self._require_single("dpu_log_read", "log", "logs")
        return self.logs(header=header)[0]

    def print_logs(self, file: Any = None) -> None:
        """Print every DPU's log, each under libdpu's ``=== DPU#0x... ===`` line."""
        for text in self.logs(header=True):
            print(text, end="" if text.endswith("\n") else "\n", file=file)


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
        ArgumentValueError: ``nr_dpus`` or ``nr_ranks`` is not positive, or both are given
            (checked before any libdpu call).
        ArgumentTypeError: ``nr_dpus`` or ``nr_ranks`` is not an int.
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
        self._jobs: RankQueues | None = None
        self._loaded: LoadedProgram | None = None
        self._view_programs: dict[tuple[str, int], LoadedProgram | None] = {}
        self._key = ("set", 0)
        self._first = 0
        self._count = 0
        self._dpu_cache: list[C.dpu_set_t] | None = None
        self._rank_cache: list[tuple[C.dpu_set_t, int, int]] | None = None
        if nr_dpus is not None and nr_ranks is not None:
            raise ArgumentValueError("give nr_dpus or nr_ranks, not both")
        # Checked before any backend is found or libdpu is called: a count of zero is a
        # mistake in the call, not a shortage of DPUs.
        for label, value in (("nr_dpus", nr_dpus), ("nr_ranks", nr_ranks)):
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise ArgumentTypeError(
                    f"{label} must be an int (or None for every DPU), got "
                    f"{type(value).__name__} {value!r}" + (
                        f"; convert it first: {label}=int({value!r})"
                        if isinstance(value, str | float) else ""
                    )
                )
            if value != ALL and not 1 <= value < ALL:
                raise ArgumentValueError(
                    f"{label} must be a positive number of "
                    f"{'DPUs' if label == 'nr_dpus' else 'ranks'}, got {value}; for every "
                    "available one, give None or pyupmem.ALL"
                )
        self._backend = backend if isinstance(backend, Backend) else find_backend(backend)
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
            call = "dpu_alloc_ranks"
            status = lib.dpu_alloc_ranks(nr_ranks, profile_bytes, ctypes.byref(self._c))  # type: ignore[attr-defined]
            asked = f"{'all' if nr_ranks == ALL else nr_ranks} ranks"
        else:
            count = ALL if nr_dpus is None else nr_dpus
            call = "dpu_alloc"
            status = lib.dpu_alloc(count, profile_bytes, ctypes.byref(self._c))  # type: ignore[attr-defined]
            asked = f"{'all' if count == ALL else count} DPUs"
        if status:
            # Only the profile the caller gave: the keys added above are pyupmem's own.
            given = _profile_text(profile)
            detail = f"asked for {asked}" + (f" with profile {given!r}" if given else "")
            if status == C.DPU_ERR_ALLOCATION:
                detail += self._allocation_hint(given)
            raise self._backend.status_error(status, call, detail)
        self._closed = False
        c_set = C.dpu_set_t.from_buffer_copy(self._c)
        self._finalizer = weakref.finalize(self, lib.dpu_free, c_set)  # type: ignore[attr-defined]
        n = ctypes.c_uint32()
        self._check(lib.dpu_get_nr_dpus(self._c, ctypes.byref(n)), "dpu_get_nr_dpus")  # type: ignore[attr-defined]
        self._count = n.value

    def _allocation_hint(self, given: str) -> str:
        """What could be allocated instead, and how to get more, for an allocation error
        (``given``: the profile the caller gave, whose ``nrRanks`` may be the limit)."""
        return self._backend.allocation_hint(self.profile, given=given)

    def hardware_seconds(self) -> float:
        """Estimated hardware time of what this set's DPUs did so far: every launch (the
        time model's :meth:`estimate`, the launch's own cost included) and every host
        transfer (bandwidths by the DPUs taking part per rank, a fixed cost per call). The
        host's own work is left out: it runs on this CPU, here as there. A
        :class:`~pyupmem.PhaseTimer` given this set shows it per phase.

        Raises:
            BackendError: the backend is not the emulator.
        """
        phases = self.phase_seconds(estimated=True)
        return sum(seconds for name, seconds in phases.items() if name != INTER_DPU)

    def phase_seconds(self, estimated: bool = True) -> dict[str, float]:
        """This set's time so far by PrIM phase (``CPU-DPU``, ``DPU kernel``,
        ``Inter-DPU``, ``DPU-CPU``), as the emulator's ``libdpu`` classifies its calls:
        estimated for hardware, or with ``estimated=False`` as emulated (wall time). The
        Inter-DPU phase is the host's own work between a launch's end and the next
        launch, transfers left out; it runs on this CPU, so both figures are its wall time.

        Raises:
            BackendError: the backend is not the emulator.
        """
        lib = self._emulator_lib("phase_seconds()")
        emulated, modelled = (ctypes.c_double * 4)(), (ctypes.c_double * 4)()
        self._check(
            lib.dpu_emu_phase_seconds(self._c, emulated, modelled),  # type: ignore[attr-defined]
            "dpu_emu_phase_seconds",
        )
        values = modelled if estimated else emulated
        return dict(zip(PHASES, values, strict=True))

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

    def close(self) -> None:
        """The same as :meth:`free`."""
        self.free()

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

    def _push_nodes(self) -> list[tuple[C.dpu_set_t, Sequence[int]]]:
        return [(node._c, slots) for node, slots in self._groups()]

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
            self._enqueue(run, f"write of {_name(symbol)!r}", lock_while_queued((data, array)))
        else:
            run()

    broadcast = write

    # ----------------------------------------------------------------- execution

    def launch(self, asynchronous: bool = False) -> None:
        """Run the loaded program on the chosen DPUs (see :meth:`DpuSet.launch`)."""
        if asynchronous and self._queue_busy():
            self._lib(settle=False)
            for part in self._rank_parts():  # each part waits for its own rank only
                part._enqueue(lambda part=part: part.launch(asynchronous=True), "launch")
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
            jobs.view(self._rank_indices()).cancel()
        for dpu in self:
            dpu.stop()

    def estimate(self) -> KernelEstimate:
        """The time model's estimate of the chosen DPUs' last launch (emulator only)."""
        parts = [dpu.estimate() for dpu in self]
        if not parts:
            return KernelEstimate(np.zeros(0, dtype=np.uint64), 350e6, True)
        used = max(part.instructions.shape[1] for part in parts)  # type: ignore[union-attr]

        def stack(name: str) -> np.ndarray:
            arrays = [getattr(part, name) for part in parts]
            pad = [(0, 0), (0, used - arrays[0].shape[1])] + [(0, 0)] * (arrays[0].ndim - 2)
            return np.concatenate([np.pad(a, pad[: a.ndim]) for a in arrays])

        return KernelEstimate(
            np.concatenate([part.cycles for part in parts]),
            parts[0].clock_hz,
            all(part.counted for part in parts),
            launch_seconds=max(part.launch_seconds for part in parts),
            tasklet_cycles=stack("tasklet_cycles"),
            instructions=stack("instructions"),
        )

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
