"""Reports on what a group of DPUs did: hardware-time estimates, timelines and logs.

:class:`~pyupmem.dpus.group.DpuGroup` gets :meth:`~pyupmem.dpus.group.DpuGroup.estimate`,
:meth:`~pyupmem.dpus.group.DpuGroup.timeline`, :meth:`~pyupmem.dpus.group.DpuGroup.logs`,
:meth:`~pyupmem.dpus.group.DpuGroup.log` and :meth:`~pyupmem.dpus.group.DpuGroup.print_logs`
from this module. The estimates read the emulator's time model (:mod:`pyupmem.estimate`);
on another backend they raise :class:`~pyupmem.errors.BackendError`.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from pyupmem.dpus.group_parts import _GroupPart
from pyupmem.driver import libdpu as C
from pyupmem.errors import (
    ArgumentValueError,
    BackendError,
)
from pyupmem.estimate.model import ACTIVITIES, KernelEstimate
from pyupmem.estimate.timeline import Timeline, TimelineEvent


class _Reports(_GroupPart):
    """What a group's DPUs did: the time model's estimate and timeline of the last launch,
    and the DPUs' logs (a base class of :class:`~pyupmem.dpus.group.DpuGroup` only)."""

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
        :mod:`pyupmem.estimate.timeline` (``save`` writes a Chrome trace, ``plot`` draws it).

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
        waits, and the launch's own cost (see :mod:`pyupmem.estimate.model`).

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
