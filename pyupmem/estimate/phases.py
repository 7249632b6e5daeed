"""Phase timing as PIM papers report it: CPU-DPU, DPU kernel, Inter-DPU, DPU-CPU.

A :class:`PhaseTimer` runs warm-up repetitions that it leaves out of the figures, then
records how long each phase takes in each measured repetition, and prints the breakdown
as a table (mean, minimum, maximum, share of the total)::

    timer = PhaseTimer(warmup=1)
    for _ in timer.repetitions(10):
        with timer.phase(CPU_DPU):
            dpus.scatter("A", a)
        with timer.phase(DPU_KERNEL):
            dpus.launch()
        with timer.phase(DPU_CPU):
            c = dpus.gather("C", np.int32, n)
    print(timer.table())

Given a :class:`~pyupmem.DpuSet` on the emulator (``PhaseTimer(dpus=dpus)``), the timer
also records, per phase, the time the work would take on hardware by the emulator's
time model (:meth:`~pyupmem.DpuSet.hardware_seconds`), and the table shows it beside
the emulator's wall time.
"""

from __future__ import annotations

import difflib
import statistics
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pyupmem.errors import ArgumentValueError

CPU_DPU = "CPU-DPU"
"""Host-to-DPU transfers."""
DPU_KERNEL = "DPU kernel"
"""The synchronous ``dpu_launch``."""
INTER_DPU = "Inter-DPU"
"""Host-side work between launches (merging partial results, redistributing)."""
DPU_CPU = "DPU-CPU"
"""DPU-to-host transfers."""
PHASES = (CPU_DPU, DPU_KERNEL, INTER_DPU, DPU_CPU)
"""The four standard phases, in the order they are reported."""
INTER_SERVER = "Inter-server"
"""Communication between the processes of several servers (:mod:`pyupmem.apps.distributed`):
an optional phase, reported after Inter-DPU when recorded."""
_ORDER = (CPU_DPU, DPU_KERNEL, INTER_DPU, INTER_SERVER, DPU_CPU)

_ALIASES = {
    "cpu_dpu": CPU_DPU,
    "cpu-dpu": CPU_DPU,
    "kernel": DPU_KERNEL,
    "dpu_kernel": DPU_KERNEL,
    "dpu kernel": DPU_KERNEL,
    "inter_dpu": INTER_DPU,
    "inter-dpu": INTER_DPU,
    "inter_server": INTER_SERVER,
    "inter-server": INTER_SERVER,
    "dpu_cpu": DPU_CPU,
    "dpu-cpu": DPU_CPU,
}


_UNITS = {"s": 1.0, "ms": 1e3, "us": 1e6}


def _canonical(name: str, extra: tuple[str, ...] = ()) -> str:
    """The standard name of phase ``name``; other names must be declared in ``extra``."""
    if name in _ORDER or name in extra:
        return name
    standard = _ALIASES.get(name.lower())
    if standard is not None:
        return standard
    known = [*_ORDER, *_ALIASES, *extra]
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise ArgumentValueError(
        f"unknown phase {name!r}.{hint} The phases are {', '.join(map(repr, PHASES))} (or "
        f"their aliases such as 'kernel'); declare others with PhaseTimer(extra_phases=[...])"
    )


@dataclass(frozen=True)
class PhaseStats:
    """Statistics of one phase over the measured repetitions, in seconds.

    Attributes:
        name: the phase.
        mean: mean time per repetition.
        minimum: the fastest repetition.
        maximum: the slowest repetition.
        stdev: standard deviation (0 with one repetition).
        count: number of measured repetitions.
    """

    name: str
    mean: float
    minimum: float
    maximum: float
    stdev: float
    count: int


class PhaseTimer:
    """Records the time of named phases over repetitions, leaving warm-ups out.

    Phase names are the four standard ones (:data:`PHASES`; ``"kernel"``, ``"cpu_dpu"``
    ... are accepted as aliases), the optional :data:`INTER_SERVER` (reported after
    Inter-DPU, and only when recorded) or names declared in ``extra_phases``, reported
    after them; any other name is an error, so that a misspelt phase is not silently a new
    one. Time spent in a phase several times within one repetition adds up.

    Args:
        warmup: repetitions run first and not recorded by :meth:`repetitions`.
        dpus: a DPU set (anything with ``hardware_seconds()``) whose estimated hardware
            time each phase also records (see :meth:`estimates`).
        extra_phases: names of phases other than the four standard ones (a misspelt
            standard name is an error, not a new phase).
    """

    def __init__(self, warmup: int = 1, dpus: Any = None, extra_phases: Iterable[str] = ()):
        if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
            raise ArgumentValueError(f"warmup must be a whole number >= 0, got {warmup!r}")
        self.warmup = warmup
        self.extra_phases = tuple(extra_phases)
        """The declared phases beyond the standard four."""
        self.dpus = dpus
        self._samples: dict[str, list[float]] = {}
        self._estimates: dict[str, list[float]] = {}
        self._current: dict[str, float] | None = None
        self._current_estimates: dict[str, float] | None = None
        self._recording = True

    def repetitions(self, n: int) -> Iterator[int]:
        """Yield ``warmup + n`` repetition numbers; only the last ``n`` are recorded.

        Warm-up repetitions yield negative numbers (``-warmup`` .. ``-1``), measured ones
        ``0 .. n-1``.
        """
        for index in range(-self.warmup, n):
            self._recording = index >= 0
            self._current = {}
            self._current_estimates = {}
            try:
                yield index
            finally:
                self._commit()
        self._recording = True

    def _commit(self) -> None:
        current, self._current = self._current, None
        estimates, self._current_estimates = self._current_estimates, None
        if current is None or not self._recording:
            return
        for name, seconds in current.items():
            self._samples.setdefault(name, []).append(seconds)
        for name, seconds in (estimates or {}).items():
            self._estimates.setdefault(name, []).append(seconds)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Time the ``with`` block as part of phase ``name``.

        Outside :meth:`repetitions`, each block is one recorded sample.
        """
        name = _canonical(name, self.extra_phases)
        estimated = self.dpus.hardware_seconds() if self.dpus is not None else None
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - start)
            if estimated is not None:
                self.add_estimate(name, self.dpus.hardware_seconds() - estimated)

    def add_estimate(self, name: str, seconds: float) -> None:
        """Add ``seconds`` of estimated hardware time to phase ``name``."""
        self._accumulate(self._current_estimates, self._estimates, name, seconds)

    def estimates(self, name: str) -> list[float]:
        """The estimated hardware times of phase ``name``, in seconds, one per repetition
        (empty without ``dpus``)."""
        return list(self._estimates.get(_canonical(name, self.extra_phases), []))

    def add(self, name: str, seconds: float) -> None:
        """Add ``seconds`` to phase ``name`` (for times measured elsewhere)."""
        self._accumulate(self._current, self._samples, name, seconds)

    def _accumulate(
        self,
        current: dict[str, float] | None,
        recorded: dict[str, list[float]],
        name: str,
        seconds: float,
    ) -> None:
        """Inside a repetition, add to its running total; outside, record one sample."""
        name = _canonical(name, self.extra_phases)
        if current is not None:
            current[name] = current.get(name, 0.0) + seconds
        elif self._recording:
            recorded.setdefault(name, []).append(seconds)

    def samples(self, name: str) -> list[float]:
        """The recorded times of phase ``name``, in seconds, one per repetition."""
        return list(self._samples.get(_canonical(name, self.extra_phases), []))

    def phases(self) -> list[str]:
        """The phases recorded: the standard ones first, in order, then the others."""
        others = [name for name in self._samples if name not in _ORDER]
        return [name for name in _ORDER if name in self._samples] + others

    def stats(self) -> dict[str, PhaseStats]:
        """:class:`PhaseStats` of every recorded phase."""
        result = {}
        for name in self.phases():
            values = self._samples[name]
            result[name] = PhaseStats(
                name,
                statistics.fmean(values),
                min(values),
                max(values),
                statistics.stdev(values) if len(values) > 1 else 0.0,
                len(values),
            )
        return result

    def total(self) -> float:
        """The sum of the mean times of every phase, in seconds."""
        return sum(stats.mean for stats in self.stats().values())

    def table(self, unit: str = "ms", title: str | None = None) -> str:
        """The breakdown as a text table: mean, min, max per phase and its share of the total.

        Args:
            unit: ``"s"``, ``"ms"`` or ``"us"``.
            title: a line printed above the table.
        """
        if unit not in _UNITS:
            raise ArgumentValueError(
                f"unknown unit {unit!r}: use one of {', '.join(map(repr, _UNITS))}"
            )
        scale = _UNITS[unit]
        stats = self.stats()
        total = sum(s.mean for s in stats.values())
        width = max([len("phase"), len("total"), *(len(n) for n in stats)])
        count = max((s.count for s in stats.values()), default=0)
        lines = []
        if title:
            lines.append(title)
        header = (
            f"{'phase':<{width}}  {'mean ' + unit:>12}  {'min ' + unit:>12}  "
            f"{'max ' + unit:>12}  {'share':>6}"
        )
        estimated = {n: statistics.fmean(v) for n, v in self._estimates.items() if v}
        if estimated:
            header += f"  {'hw est. ' + unit:>12}"
        lines += [header, "-" * len(header)]
        for s in stats.values():
            share = 100.0 * s.mean / total if total else 0.0
            line = (
                f"{s.name:<{width}}  {s.mean * scale:>12.3f}  {s.minimum * scale:>12.3f}  "
                f"{s.maximum * scale:>12.3f}  {share:>5.1f}%"
            )
            if estimated:
                value = estimated.get(s.name)
                line += f"  {value * scale:>12.3f}" if value is not None else f"  {'':>12}"
            lines.append(line)
        lines.append("-" * len(header))
        total_line = f"{'total':<{width}}  {total * scale:>12.3f}"
        if estimated:
            total_line += " " * 38 + f"{sum(estimated.values()) * scale:>12.3f}"
        lines.append(total_line)
        lines.append(f"({count} measured repetitions, {self.warmup} warm-up)")
        return "\n".join(lines)

    def print(self, unit: str = "ms", title: str | None = None) -> None:
        """Print :meth:`table`."""
        print(self.table(unit, title))

    def reset(self) -> None:
        """Forget every recorded sample."""
        self._samples.clear()
        self._estimates.clear()
