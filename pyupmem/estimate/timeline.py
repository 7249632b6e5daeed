"""The timeline of a launch: what each tasklet of one DPU did, in modelled hardware time.

Launch with ``dpus.launch(trace=True)`` on the emulator, then ``dpus.timeline(dpu)``
gives a :class:`Timeline`: each tasklet's stretches of compute (issuing instructions at
the pipeline's shared pace), DMA (waiting for its transfer, queueing on the engine
included) and waits (for another tasklet). :meth:`Timeline.save` writes it in the Chrome
trace-event JSON format, which Perfetto (ui.perfetto.dev) and ``chrome://tracing`` open;
:meth:`Timeline.plot` draws it with matplotlib.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyupmem.estimate.model import ACTIVITIES

COLOURS = {"compute": "#4c72b0", "dma": "#dd8452", "wait": "#c44e52"}
"""The colour of each activity in :meth:`Timeline.plot`."""


@dataclass(frozen=True)
class TimelineEvent:
    """One stretch of one tasklet's modelled time, in DPU cycles from the launch's start."""

    tasklet: int
    activity: str
    start: int
    end: int


@dataclass(frozen=True)
class Timeline:
    """One DPU's traced launch.

    Attributes:
        dpu: the DPU's index in the set it was read from.
        clock_hz: the modelled clock, to turn cycles into seconds.
        events: the stretches, in the order the emulator recorded them.
        dropped: stretches the DPU could not keep (it keeps 16,384 per launch); the
            timeline then ends early.
    """

    dpu: int
    clock_hz: float
    events: tuple[TimelineEvent, ...]
    dropped: int = 0

    @property
    def tasklets(self) -> list[int]:
        """The tasklets that appear, in order."""
        return sorted({event.tasklet for event in self.events})

    @property
    def cycles(self) -> int:
        """The end of the last stretch."""
        return max((event.end for event in self.events), default=0)

    def chrome_trace(self) -> dict[str, Any]:
        """The timeline as a Chrome trace-event document: one complete event (``"X"``)
        per stretch, a thread per tasklet, times in microseconds of modelled time."""
        us = 1e6 / self.clock_hz
        events: list[dict[str, Any]] = [
            {"ph": "M", "name": "process_name", "pid": self.dpu, "tid": 0,
             "args": {"name": f"DPU {self.dpu} (modelled hardware time)"}}
        ]
        events += [
            {"ph": "M", "name": "thread_name", "pid": self.dpu, "tid": tasklet,
             "args": {"name": f"tasklet {tasklet}"}}
            for tasklet in self.tasklets
        ]
        events += [
            {
                "ph": "X",
                "name": event.activity,
                "cat": event.activity,
                "pid": self.dpu,
                "tid": event.tasklet,
                "ts": event.start * us,
                "dur": (event.end - event.start) * us,
                "args": {"start_cycle": event.start, "end_cycle": event.end},
            }
            for event in self.events
        ]
        return {"traceEvents": events, "displayTimeUnit": "ns",
                "otherData": {"clock_hz": self.clock_hz, "dropped_events": self.dropped}}

    def save(self, path: str | Path) -> Path:
        """Write :meth:`chrome_trace` as JSON to ``path``; returns the path."""
        path = Path(path)
        path.write_text(json.dumps(self.chrome_trace()))
        return path

    def plot(self, ax: Any = None, title: str | None = None) -> Any:
        """Draw one row per tasklet, coloured by activity, against modelled milliseconds;
        returns the matplotlib axes (a new figure's when ``ax`` is None)."""
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch

        if ax is None:
            _, ax = plt.subplots(figsize=(9, 0.3 * max(4, len(self.tasklets)) + 1.2))
        ms = 1e3 / self.clock_hz
        for activity in ACTIVITIES:
            for tasklet in self.tasklets:
                bars = [
                    (event.start * ms, (event.end - event.start) * ms)
                    for event in self.events
                    if event.tasklet == tasklet and event.activity == activity
                ]
                if bars:
                    ax.broken_barh(bars, (tasklet - 0.4, 0.8), color=COLOURS[activity])
        ax.set_yticks(self.tasklets)
        ax.set_yticklabels([f"tasklet {t}" for t in self.tasklets])
        ax.invert_yaxis()
        ax.set_xlabel("modelled time on hardware (ms)")
        ax.set_title(title or f"DPU {self.dpu}: tasklet activity")
        ax.legend(
            handles=[Patch(color=COLOURS[a], label=a) for a in ACTIVITIES],
            loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small",
        )
        ax.figure.tight_layout()
        return ax
