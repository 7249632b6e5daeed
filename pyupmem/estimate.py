"""Estimates of how long work would take on UPMEM hardware.

The emulator runs every instruction of every tasklet; its time model turns them into DPU
cycles (a tasklet issues at most one instruction every 11 cycles and the DPU one per
cycle; a DMA costs its issuing tasklet ``alpha + 0.5 * bytes`` cycles on the DPU's one
engine; a waiting tasklet resumes when its releaser's clock says). Host transfers are
estimated from the published per-rank bandwidths. Both are estimates: see
``docs/explanation/timing.md`` for the model and its error on the calibration set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DPUS_PER_RANK = 64
"""DPUs that share one rank's host channel."""

# Host transfer bandwidths in bytes per second (PrIM characterisation, one rank of 64
# DPUs; ranks move data in parallel).
TO_DPUS_PARALLEL = 6.68e9
"""CPU to DPUs, a parallel push (``scatter``), per rank."""
FROM_DPUS_PARALLEL = 4.74e9
"""DPUs to CPU, a parallel push (``gather``), per rank."""
TO_DPUS_BROADCAST = 16.88e9
"""CPU to DPUs, the same bytes to every DPU (``broadcast``), per rank, counting each DPU's copy."""
TO_ONE_DPU = 0.33e9
"""CPU to a single DPU (``dpu_copy_to`` on one DPU)."""
FROM_ONE_DPU = 0.12e9
"""A single DPU to the CPU (``dpu_copy_from``)."""


@dataclass(frozen=True)
class KernelEstimate:
    """The time model's estimate of a launch on hardware.

    Attributes:
        cycles: modelled DPU cycles of the last launch, one per DPU of the set.
        clock_hz: the modelled DPU clock (profile key ``clockMHz``, default 350 MHz).
        counted: whether every DPU's program counted its instructions. Without counting
            (``PYUPMEM_EMU_COST=0``, or not x86-64) the cycles hold only DMA and
            synchronisation, not compute.
    """

    cycles: np.ndarray
    clock_hz: float
    counted: bool

    @property
    def seconds(self) -> float:
        """The launch's estimated time: the slowest DPU's cycles over the clock."""
        return float(self.cycles.max(initial=0)) / self.clock_hz

    @property
    def dpu_seconds(self) -> np.ndarray:
        """Each DPU's estimated time, in seconds."""
        return self.cycles / self.clock_hz


def transfer_seconds(kind: str, bytes_per_dpu: int, nr_dpus: int) -> float:
    """Estimated hardware time of one host transfer.

    Args:
        kind: ``"scatter"`` (parallel to the DPUs), ``"gather"`` (parallel from them),
            ``"broadcast"`` (the same bytes to each), ``"write"`` / ``"read"`` (one DPU,
            or ``write`` to several, which libdpu does as a broadcast).
        bytes_per_dpu: bytes each DPU sends or receives.
        nr_dpus: DPUs taking part; ranks of 64 work in parallel.
    """
    per_rank = min(nr_dpus, DPUS_PER_RANK) * bytes_per_dpu
    if kind == "scatter":
        return per_rank / TO_DPUS_PARALLEL
    if kind == "gather":
        return per_rank / FROM_DPUS_PARALLEL
    if kind == "broadcast" or (kind == "write" and nr_dpus > 1):
        return per_rank / TO_DPUS_BROADCAST
    if kind == "write":
        return bytes_per_dpu / TO_ONE_DPU
    if kind == "read":
        return bytes_per_dpu / FROM_ONE_DPU
    raise ValueError(
        f"unknown transfer kind {kind!r}: use scatter, gather, broadcast, write or read"
    )
