"""Estimates of how long work would take on UPMEM hardware.

The emulator runs every instruction of every tasklet; its time model turns them into DPU
cycles: while k tasklets compete for the pipeline each issues one instruction every
max(11, k) cycles; a DMA costs its tasklet ``alpha + 0.5 * bytes`` cycles on the DPU's one
engine; a waiting tasklet resumes when its releaser's clock says; a launch adds the cost
of booting and polling the DPUs. Host transfers cost a fixed time per call and per DPU,
and their bytes over a rank's rate, which grows with the DPUs of the rank taking part;
reading a WRAM symbol costs more per DPU and byte (it goes through the control
interfaces). The emulator's ``libdpu`` holds the model (``src/host/hwtime.c``);
this module reads it. See ``docs/explanation/timing.md`` for the mechanisms, the constants
and their sources, and the model's error against hardware.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

DPUS_PER_RANK = 64
"""DPUs that share one rank's host channel."""

ACTIVITIES = ("compute", "dma", "wait")
"""What a tasklet's modelled time goes to, in the order of :attr:`KernelEstimate.tasklet_cycles`:
issuing instructions (at the pipeline's shared pace), waiting for its DMA, waiting for
another tasklet (barrier, mutex, semaphore, handshake)."""

_TRANSFER_KINDS = {"scatter": 0, "gather": 1, "broadcast": 2, "write": 3, "read": 4}
_MEMORIES = {"mram": 0, "wram": 8}


@dataclass(frozen=True, repr=False)
class KernelEstimate:
    """The time model's estimate of a launch on hardware.

    Attributes:
        cycles: modelled DPU cycles of the last launch, one per DPU of the set.
        clock_hz: the modelled DPU clock (profile key ``clockMHz``, or the chip version's).
        counted: whether every DPU's program counted its instructions. Without counting
            (``PYUPMEM_EMU_COST=0``, or not x86-64) the cycles hold only DMA and
            synchronisation, not compute.
        launch_seconds: what the launch itself costs on hardware beyond the slowest DPU's
            cycles: booting the DPUs and polling them until they finish.
        tasklet_cycles: shape ``(DPUs, tasklets, 3)``: each tasklet's cycles spent in each
            of :data:`ACTIVITIES`. A tasklet that finished before the DPU is idle for the
            rest (:meth:`breakdown` counts it).
        instructions: shape ``(DPUs, tasklets)``: the DPU instructions each tasklet issued
            (a mutex's retries included).
    """

    cycles: np.ndarray
    clock_hz: float
    counted: bool
    launch_seconds: float = 0.0
    tasklet_cycles: np.ndarray | None = None
    instructions: np.ndarray | None = None

    @property
    def seconds(self) -> float:
        """The launch's estimated time: the slowest DPU's cycles over the clock, plus the
        launch's own cost (0 before any launch)."""
        if not self.cycles.any():
            return 0.0
        return float(self.cycles.max()) / self.clock_hz + self.launch_seconds

    @property
    def dpu_seconds(self) -> np.ndarray:
        """Each DPU's estimated time, in seconds (the launch's own cost left out)."""
        return self.cycles / self.clock_hz

    @property
    def slowest_dpu(self) -> int:
        """The index (in the set) of the DPU whose cycles set the launch's time."""
        return int(np.argmax(self.cycles)) if len(self.cycles) else 0

    def breakdown(self, dpu: int | None = None) -> dict[str, float]:
        """Where one DPU's time goes, in seconds: the mean over its tasklets of compute,
        DMA, waits and the idle time after a tasklet's end, plus the launch's own cost.
        The values add up to :attr:`seconds` for the slowest DPU (the default).

        Raises:
            ValueError: no per-tasklet figures (an estimate built by hand) or no such DPU.
        """
        if self.tasklet_cycles is None:
            raise ValueError("this estimate has no per-tasklet figures (tasklet_cycles)")
        index = self.slowest_dpu if dpu is None else dpu
        if not 0 <= index < len(self.cycles):
            raise ValueError(f"no DPU {index} in this estimate of {len(self.cycles)} DPUs")
        per_tasklet = self.tasklet_cycles[index].astype(np.float64)
        total = float(self.cycles[index])
        parts = dict(zip(ACTIVITIES, map(float, per_tasklet.mean(axis=0)), strict=True)) if len(
            per_tasklet
        ) else dict.fromkeys(ACTIVITIES, 0.0)
        parts["idle"] = max(0.0, total - sum(parts.values()))
        result = {name: cycles / self.clock_hz for name, cycles in parts.items()}
        result["launch"] = self.launch_seconds if total else 0.0
        return result

    def __repr__(self) -> str:
        if not self.cycles.any():
            return f"KernelEstimate(no launch yet, {len(self.cycles)} DPUs)"
        parts = ""
        if self.tasklet_cycles is not None:
            shares = self.breakdown()
            parts = ", " + ", ".join(f"{k} {v * 1e3:.3f} ms" for k, v in shares.items())
        counted = "" if self.counted else ", compute not counted"
        return (
            f"KernelEstimate({self.seconds * 1e3:.3f} ms on {len(self.cycles)} DPUs at "
            f"{self.clock_hz / 1e6:.0f} MHz; slowest DPU {self.slowest_dpu}: "
            f"{int(self.cycles.max())} cycles{parts}{counted})"
        )


@functools.cache
def _model():
    """The emulator's libdpu, which holds the transfer model."""
    from pyupmem import emu
    from pyupmem.driver.libdpu import LibDpu

    return LibDpu.open(emu.build().libdpu)


def transfer_seconds(kind: str, bytes_per_dpu: int, nr_dpus: int, memory: str = "mram") -> float:
    """Estimated hardware time of one host transfer call, by the emulator's model.

    Args:
        kind: ``"scatter"`` (parallel to the DPUs), ``"gather"`` (parallel from them),
            ``"broadcast"`` (the same bytes to each), ``"write"`` / ``"read"`` (one DPU at
            a time, ``dpu_copy_to`` / ``dpu_copy_from``; ``write`` to several DPUs is a
            broadcast, as in libdpu).
        bytes_per_dpu: bytes each DPU sends or receives.
        nr_dpus: DPUs taking part, filling ranks of 64 in order.
        memory: ``"mram"`` or ``"wram"``, where the symbol lives (the hardware reads
            WRAM through the control interfaces, at a cost per DPU and byte).

    Raises:
        ValueError: an unknown kind or memory, or a negative size or count.
    """
    if kind not in _TRANSFER_KINDS:
        raise ValueError(
            f"unknown transfer kind {kind!r}: use scatter, gather, broadcast, write or read"
        )
    if memory not in _MEMORIES:
        raise ValueError(f"unknown memory {memory!r}: use 'mram' or 'wram'")
    if bytes_per_dpu < 0 or nr_dpus < 1:
        raise ValueError(
            f"a transfer needs bytes_per_dpu >= 0 and nr_dpus >= 1, not {bytes_per_dpu} "
            f"and {nr_dpus}"
        )
    if kind == "write" and nr_dpus > 1:
        kind = "broadcast"
    if kind in ("write", "read"):
        code = _TRANSFER_KINDS[kind] | _MEMORIES[memory]
        one = _model().dpu_emu_transfer_seconds(code, bytes_per_dpu, 1, 1)
        return nr_dpus * one
    ranks = -(-nr_dpus // DPUS_PER_RANK)
    per_rank = min(nr_dpus, DPUS_PER_RANK)
    return float(
        _model().dpu_emu_transfer_seconds(
            _TRANSFER_KINDS[kind] | _MEMORIES[memory], bytes_per_dpu, per_rank, ranks
        )
    )


def launch_seconds(nr_dpus: int) -> float:
    """What a launch of ``nr_dpus`` DPUs costs on hardware beyond the slowest DPU's cycles
    (booting the DPUs and polling them until they finish; ranks of 64 in parallel).

    Raises:
        ValueError: ``nr_dpus`` is below 1.
    """
    if nr_dpus < 1:
        raise ValueError(f"a launch needs nr_dpus >= 1, not {nr_dpus}")
    return float(_model().dpu_emu_launch_overhead_seconds(min(nr_dpus, DPUS_PER_RANK)))
