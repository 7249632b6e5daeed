"""Views on part of a :class:`~pyupmem.DpuSet`: one :class:`Dpu`, one :class:`Rank`, or a
:class:`DpuSubset` chosen by a slice, positions or a mask. Each has every operation of
:class:`~pyupmem.dpus.group.DpuGroup`, restricted to its own DPUs, and becomes unusable
once its set is freed."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from pyupmem.build.program import Program, Symbol
from pyupmem.dpus.control import DpuStatus, check_launch_timeout
from pyupmem.dpus.group import DpuGroup
from pyupmem.dpus.loaded_program import LoadedProgram
from pyupmem.dpus.queued_data import lock_while_queued
from pyupmem.dpus.transfer_rules import address_of, check_access, symbol_name
from pyupmem.dpus.typecheck import checked_input
from pyupmem.driver import libdpu as C
from pyupmem.errors import (
    ArgumentValueError,
    DpuFaultError,
    UnsupportedError,
)
from pyupmem.estimate.model import KernelEstimate

if TYPE_CHECKING:
    from pyupmem.dpus.dpuset import DpuSet


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
        check_access(resolved, offset, array.nbytes, "dpu_push_xfer")
        if array.nbytes == 0 or not self._count:
            return
        address = address_of(array)

        def run() -> None:
            self._push(
                lib, C.DPU_XFER_TO_DPU, symbol, resolved, offset, array.nbytes,
                [address] * self._count,
            )

        if asynchronous:
            what = f"write of {symbol_name(symbol)!r}"
            self._enqueue(run, what, lock_while_queued((data, array)))
        else:
            run()

    broadcast = write

    # ----------------------------------------------------------------- execution

    def launch(self, asynchronous: bool = False, *, timeout: float | None = None) -> None:
        """Run the loaded program on the chosen DPUs (see :meth:`DpuSet.launch`; a sub-set
        records no trace)."""
        if timeout is not None:
            check_launch_timeout(timeout, asynchronous)
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
            # Reported by sync() below, or later (DpuSet.launch says by what).
            self._owner._unreported.update(node._indices())
        if not asynchronous:
            self.sync(timeout=timeout)

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
        if loaded is None:
            self._refuse_unloaded(symbol, call)
            return None
        return loaded.symbol(symbol)

    @property
    def _c(self) -> C.dpu_set_t:  # type: ignore[override]
        raise UnsupportedError(
            "this operation needs a whole DpuSet, a Rank or a Dpu: libdpu cannot address a "
            "sub-set as one (scatter-gather transfers, for instance); use the set or its ranks"
        )
