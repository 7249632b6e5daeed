"""The Pythonic layer: sets of DPUs, their programs, transfers, launches and logs.

A :class:`DpuSet` owns DPUs allocated from libdpu and frees them when it is closed (it is
a context manager). It is a sequence of :class:`Dpu`; :attr:`DpuSet.ranks` gives its
:class:`Rank` objects; slices, lists of positions and masks give :class:`DpuSubset`
objects. DPUs, ranks and sub-sets are views on the set: they offer the same operations
(those of :class:`DpuGroup`, the class they share), restricted to themselves, and become
unusable once the set is freed.

The operations are written where their job is: allocation, indexing, loading, queued calls
and logs here; transfers in :mod:`pyupmem.dpus.transfers`; launches, waits and stops in
:mod:`pyupmem.dpus.control`. :class:`DpuGroup` gathers them, and the reference documents them
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
import weakref
from collections.abc import Mapping

import numpy as np

from pyupmem.dpus.asynchrony import RankQueues
from pyupmem.dpus.group import DpuGroup
from pyupmem.dpus.loaded_program import LoadedProgram
from pyupmem.dpus.views import Rank
from pyupmem.driver import libdpu as C
from pyupmem.driver.backend import Backend, find_backend
from pyupmem.errors import (
    ArgumentTypeError,
    ArgumentValueError,
)
from pyupmem.estimate.phases import INTER_DPU, PHASES

__all__ = ["DpuSet", "ALL"]

ALL = C.DPU_ALLOCATE_ALL
"""Allocate every available DPU (or rank): ``DpuSet(ALL)``, the same as ``DpuSet()``."""


def _profile_text(profile: str | Mapping[str, object] | None) -> str:
    if profile is None:
        return ""
    if isinstance(profile, str):
        return profile
    return ",".join(
        f"{key}={str(value).lower() if isinstance(value, bool) else value}"
        for key, value in profile.items()
    )


def _described(error: BaseException) -> str:
    """``Type: message`` with the error's notes, on one line, for a note of another error."""
    notes = " ".join(getattr(error, "__notes__", ()))
    return f"{type(error).__name__}: {error}" + (f" {notes}" if notes else "")


def _chained(error: BaseException, other: BaseException) -> bool:
    """Whether ``other`` is ``error`` or in its chain of causes and contexts."""
    seen: set[int] = set()
    chain: BaseException | None = error
    while chain is not None and id(chain) not in seen:
        if chain is other:
            return True
        seen.add(id(chain))
        chain = chain.__cause__ or chain.__context__
    return False


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
        backend: a :class:`~pyupmem.driver.backend.Backend` or backend name; default: found by
            :func:`~pyupmem.driver.backend.find_backend`.
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
        self._unreported: set[int] = set()  # DPUs whose asynchronous launch nobody reported
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
        """Free the DPUs (``dpu_free``). Safe to call more than once.

        It does not wait: work queued with ``asynchronous=True`` that has not run is
        dropped, and running DPUs are stopped. An error nobody was told of yet is raised
        once the DPUs are freed: the first error of the queued work that no :meth:`sync`
        raised, else the fault of an asynchronous launch that no :meth:`sync` (or queued
        work) reported (:mod:`pyupmem.dpus.asynchrony`).

        Raises:
            DpuFaultError: an asynchronous launch faulted, and nothing reported it.
            Exception: the unreported error of the queued work, as :meth:`sync` raises it.
        """
        if self._closed:
            return
        error: BaseException | None = None
        if self._jobs is not None:
            error = self._jobs.close()  # no queued work may touch the DPUs being freed
        if self._unreported:
            try:
                fault = self[sorted(self._unreported)]._unreported_fault("dpu_free")
                if fault is not None:
                    fault.add_note(
                        "(an asynchronous launch faulted and no sync() reported it before "
                        "the set was freed)"
                    )
            except Exception as problem:  # noqa: BLE001 - the DPUs are freed all the same
                fault = problem
            error = error or fault
            self._unreported.clear()
        self._closed = True
        finalizer = self._finalizer
        if finalizer.alive:
            finalizer.detach()
            status = self._backend.lib.dpu_free(self._c)  # type: ignore[attr-defined]
            if status:
                failure = self._backend.status_error(status, "dpu_free")
                if error is not None:
                    failure.add_note(f"before it: {_described(error)}")
                raise failure
        if error is not None:
            raise error

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

    def __exit__(
        self, kind: type[BaseException] | None, leaving: BaseException | None, trace: object
    ) -> None:
        """Free the set. An unreported error (see :meth:`free`) is raised, unless an
        exception is already leaving the block: that one goes on, with a note that names
        the unreported error (so neither is lost, and the first cause stays first)."""
        if leaving is None:
            self.free()
            return
        try:
            self.free()
        except Exception as error:  # noqa: BLE001 - told in a note of the leaving exception
            if not _chained(leaving, error):  # a PendingResultError carries it already
                leaving.add_note(f"pyupmem: freeing the DPU set also raised {_described(error)}")

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
