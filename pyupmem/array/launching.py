"""Building, loading and launching generated kernels, with the phases they land in.

A kernel's C source goes through :func:`pyupmem.build_program` (the ordinary build cache:
compiled once per source and tasklet count, on disk; remembered per process too), is
loaded only when the set holds another program, receives its ``__host`` argument block
(one broadcast when every DPU gets the same bytes, else one scatter) and is launched.

:func:`settings` chooses the tasklets of generated kernels and a
:class:`~pyupmem.PhaseTimer` that every operation reports to: the transfers of arrays and
argument blocks in ``CPU-DPU``, launches in ``DPU kernel``, the host's combining in
``Inter-DPU`` and results brought back in ``DPU-CPU``; given ``PhaseTimer(dpus=...)``,
each with its modelled hardware time.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

import numpy as np

from pyupmem.build.builder import build_program
from pyupmem.build.program import Program
from pyupmem.driver.libdpu import DPU_MRAM_HEAP_POINTER_NAME
from pyupmem.errors import ArgumentTypeError, ArgumentValueError
from pyupmem.estimate.phases import PhaseTimer

__all__ = ["settings", "nr_tasklets", "phase", "program", "ensure_loaded", "heap_address",
           "launch", "DEFAULT_TASKLETS", "NOOP_SOURCE"]

DEFAULT_TASKLETS = 16
"""Tasklets per DPU of generated kernels unless :func:`settings` says otherwise (PrIM's
usual choice: enough to keep the pipeline full)."""

_TASKLETS: contextvars.ContextVar[int] = contextvars.ContextVar("tasklets", default=16)
_TIMER: contextvars.ContextVar[PhaseTimer | None] = contextvars.ContextVar("timer", default=None)
_PROGRAMS: dict[tuple[str, int], Program] = {}

NOOP_SOURCE = "#include <defs.h>\nint main(void) { return 0; }\n"
"""The program loaded into a set that holds none, so that arrays can be sent to it."""


@contextlib.contextmanager
def settings(*, nr_tasklets: int | None = None, timer: PhaseTimer | None = None) -> Iterator[None]:
    """Within the ``with`` block, generated kernels run ``nr_tasklets`` tasklets per DPU and
    every operation records its phases in ``timer``::

        timer = PhaseTimer(dpus=dpus)
        with pyupmem.array.settings(nr_tasklets=11, timer=timer):
            c = (a + b).get()
        print(timer.table())

    Raises:
        ArgumentValueError: ``nr_tasklets`` outside 1..24.
        ArgumentTypeError: ``timer`` is not a PhaseTimer.
    """
    tokens = []
    if nr_tasklets is not None:
        if isinstance(nr_tasklets, bool) or not isinstance(nr_tasklets, int) or not (
            1 <= nr_tasklets <= 24
        ):
            raise ArgumentValueError(
                f"nr_tasklets must be an int in 1..24 (a DPU has 24 hardware threads), got "
                f"{nr_tasklets!r}"
            )
        tokens.append((_TASKLETS, _TASKLETS.set(nr_tasklets)))
    if timer is not None:
        if not isinstance(timer, PhaseTimer):
            raise ArgumentTypeError(f"timer must be a pyupmem.PhaseTimer, got {timer!r}")
        tokens.append((_TIMER, _TIMER.set(timer)))
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


def nr_tasklets() -> int:
    """The tasklets per DPU generated kernels run with now."""
    return _TASKLETS.get()


def phase(name: str) -> Any:
    """The current timer's phase ``name`` (nothing without a timer)."""
    timer = _TIMER.get()
    return timer.phase(name) if timer is not None else contextlib.nullcontext()


def program(source: str, tasklets: int | None = None, name: str = "pim_kernel") -> Program:
    """The program built from ``source`` with ``tasklets`` (default: :func:`nr_tasklets`),
    through the build cache; remembered for the rest of the process."""
    tasklets = tasklets or nr_tasklets()
    key = (source, tasklets)
    built = _PROGRAMS.get(key)
    if built is None:
        built = _PROGRAMS[key] = build_program(source, nr_tasklets=tasklets, name=name)
    return built


def ensure_loaded(dpus: Any, built: Program | None = None) -> None:
    """Load ``built`` into ``dpus`` unless it is loaded already; with None, load the no-op
    program only if the set holds no program."""
    loaded = dpus.program
    if built is None:
        if loaded is None:
            dpus.load(program(NOOP_SOURCE, 1, "pim_noop"))
        return
    if loaded is None or loaded.program.path != built.path:
        dpus.load(built)


def heap_address(dpus: Any) -> int:
    """The MRAM address of the loaded program's heap (``DPU_MRAM_HEAP_POINTER``), loading
    the no-op program into a set that holds none."""
    ensure_loaded(dpus)
    return dpus.symbol(DPU_MRAM_HEAP_POINTER_NAME).address


def launch(dpus: Any, built: Program, rows: np.ndarray) -> None:
    """Load ``built`` if needed, write its argument block (``rows``: one row of bytes per
    DPU of ``dpus``) and launch it; the block in ``CPU-DPU``, the launch in ``DPU kernel``."""
    ensure_loaded(dpus, built)
    with phase("CPU-DPU"):
        if len(rows) == 1 or not (rows != rows[0]).any():
            dpus.broadcast("__pim_args", rows[0], raw=True)
        else:
            dpus.scatter("__pim_args", rows, raw=True)
    with phase("DPU kernel"):
        dpus.launch()
