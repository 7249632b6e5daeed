"""The best latency found against evaluations, per agent (matplotlib)."""

from __future__ import annotations

from typing import Any

import numpy as np


def plot_histories(histories: dict[str, list[list[float]]], optimum: float | None = None,
                   title: str = "", ax: Any = None) -> Any:
    """Draws, per agent, the best modelled time after each evaluation: the median over its
    runs (one history per seed; a run that stopped early holds its last best), in
    milliseconds, or as a multiple of ``optimum`` when it is given. Returns the axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6.5, 4))
    scale = 1 / optimum if optimum is not None else 1e3
    for agent, runs in histories.items():
        length = max(len(run) for run in runs)
        padded = np.array([run + [run[-1]] * (length - len(run)) for run in runs]) * scale
        ax.plot(np.arange(1, length + 1), np.median(padded, axis=0), label=agent)
    ax.set_xscale("log")
    ax.set_xlabel("evaluations")
    if optimum is not None:
        ax.axhline(1.05, color="grey", linestyle="--", linewidth=0.8, label="optimum + 5%")
        ax.set_yscale("log")
        ax.set_ylim(0.97, 4)
        ax.set_ylabel("best time / the optimum (median over seeds)")
    else:
        ax.set_ylabel("best modelled time on hardware (ms)")
    ax.set_title(title)
    ax.legend(fontsize="small")
    ax.figure.tight_layout()
    return ax
