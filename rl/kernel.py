"""The DPU learner program (``dpu_programs/rl/learner.c``): its variants, memory plan and
records.

This module holds what the host must know about the DPU program and nothing else: where
its source is, which defines build which variant, how its transition records
are packed, how much WRAM and MRAM a run needs, and whether the tables fit in WRAM.
:mod:`rl.trainer` drives it.

**Records.** Each transition is four little-endian uint32: ``state``, ``action``, the
reward's bits (float32 for FP32, int32 Q15.16 for INT32) and ``next_state | terminal <<
31``; or, when the table is small enough (:func:`compact_fits`: every table the trainer
has met so far), two: ``state * A + action | next_state << 16 | terminal << 31`` and the
reward's bits, so that one DMA brings twice as many transitions and the data take half
the MRAM (the trainer picks them automatically).

**MRAM of one DPU**, from ``DPU_MRAM_HEAP_POINTER``: its share's records (``R * n_d``
bytes, ``R`` = 8 or 16 bytes per record), then, at ``tables_offset = R * max_d n_d`` (the
same on every DPU), one table
of ``TB = 8 * S * A`` bytes per tasklet, row-major, each entry a pair of uint32 words:
the value (float32 or int32 Q15.16) and its update count; then, at ``combined_offset =
tables_offset + T * TB``, one more table of ``TB`` bytes: the combined table the host
broadcasts once per DPU after a combine, which every tasklet copies into its own at the
start of the next launch (``reset_tables``). Keeping them side by side
makes an update in MRAM three DMAs: the state's row (with the count), the next state's
row, and one 8-byte write.

**WRAM of one DPU**: 64 KiB, less the program's variables, less ``1024`` bytes of stack
per tasklet; each tasklet allocates a row window of ``8 * A`` bytes, a buffer of
``R * B`` bytes (``B`` = the block layout's DMA block, or the stride chunk) and, when
the tables are in WRAM, its ``TB`` bytes of table. :func:`tables_fit_wram` decides with
a safety margin for the variables.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pyupmem.apps.training import MRAM_BYTES as MRAM_BYTES  # a DPU's, re-exported
from pyupmem.apps.training import STACK_BYTES as STACK_BYTES
from pyupmem.apps.training import WRAM_BYTES as WRAM_BYTES
from pyupmem.build.builder import packaged_program

from .datasets import Dataset
from .layouts import check_layout

#: The learner program's source file in a source tree (and an editable install).
KERNEL_SOURCE: Path = Path(__file__).resolve().parent.parent / "dpu_programs" / "rl" / "learner.c"

WRAM_MARGIN = 2048  #: bytes kept for the program's and runtime's own variables
RECORD_BYTES = 16  #: bytes per transition record (the full format)
COMPACT_RECORD_BYTES = 8  #: bytes per compact record (:func:`compact_fits`)
BLOCK = 32  #: transitions per DMA in the block layout (the program's default ``BLOCK``)
#: block sizes the trainer tries, largest first (:func:`choose_block`)
BLOCK_SIZES: tuple[int, ...] = (256, 128, 64, 32)
MAX_CHUNK = 128  #: largest stride chunk (one DMA of 2048 bytes)
MAX_ACTIONS = 256  #: largest number of actions (a row must fit one 2048-byte DMA)
MAX_TASKLETS = 24  #: the DPU's hardware threads
COUNTER_MAX = 2**32 - 1  #: largest count of the program's uint32 update counters
TERMINAL_BIT = 1 << 31  #: the terminal flag in a record's last word


def kernel_source() -> Path:
    """The path of ``learner.c``: the package data ``rl/dpu_programs/learner.c`` of an
    installed wheel, else :data:`KERNEL_SOURCE` of the source tree
    (:func:`pyupmem.build.builder.packaged_program`).

    Raises:
        FileNotFoundError: neither exists (a broken installation); reinstall pyupmem.
    """
    return packaged_program("rl", "rl", "learner.c")


def kernel_defines(algorithm: str, fmt: str, layout: str, chunk: int,
                   block: int = BLOCK, n_actions: int | None = None,
                   compact: bool = False) -> dict[str, object]:
    """The ``-D`` defines of the program variant for these settings (``n_actions``: fix
    the table's number of actions at build time, so that the loops over a row unroll;
    ``compact``: 8-byte records)."""
    check_layout(layout)
    defines: dict[str, object] = {"BLOCK": int(block)}
    if compact:
        defines["RECORD8"] = None
    if n_actions is not None:
        defines["N_ACTIONS"] = int(n_actions)
    if algorithm == "sarsa":
        defines["ALGORITHM_SARSA"] = None
    if fmt == "int32":
        defines["FORMAT_INT32"] = None
    if layout == "stride":
        defines["LAYOUT_STRIDE"] = None
        defines["CHUNK"] = int(chunk)
    return defines


def table_bytes(n_states: int, n_actions: int) -> int:
    """``TB``: bytes of one learner's table of (value, count) pairs."""
    return 8 * n_states * n_actions


def compact_fits(n_states: int, n_actions: int) -> bool:
    """Whether the 8-byte records can hold this table's transitions: ``state * A + action``
    in 16 bits and the next state in 15."""
    return n_states * n_actions <= 1 << 16 and n_states <= 1 << 15


def wram_needed(n_states: int, n_actions: int, n_tasklets: int, buffer: int,
                tables: bool, record_bytes: int = RECORD_BYTES) -> int:
    """Bytes of WRAM one DPU needs (stacks, margin and every tasklet's allocations)."""
    per = 8 * n_actions + record_bytes * buffer
    if tables:
        per += table_bytes(n_states, n_actions)
    return n_tasklets * (STACK_BYTES + per) + WRAM_MARGIN


def tables_fit_wram(n_states: int, n_actions: int, n_tasklets: int, buffer: int,
                    record_bytes: int = RECORD_BYTES) -> bool:
    """Whether every tasklet's table fits in WRAM with its buffers."""
    return wram_needed(n_states, n_actions, n_tasklets, buffer, True,
                       record_bytes) <= WRAM_BYTES


def buffer_transitions(layout: str, chunk: int, block: int = BLOCK) -> int:
    """Transitions in each tasklet's DMA buffer: the stride chunk, or the block size."""
    return int(chunk) if layout == "stride" else int(block)


def choose_block(n_states: int, n_actions: int, n_tasklets: int,
                 record_bytes: int = RECORD_BYTES) -> int:
    """The block layout's DMA size: the largest of :data:`BLOCK_SIZES` (one DMA of at most
    2048 bytes) with which the tables still fit in WRAM, else (tables in MRAM) the largest
    whose buffers fit. Longer DMAs mean fewer of them per update (on the emulator, fewer
    tasklet switches and scheduler passes: 128 transitions per DMA ran the kernel
    1.3-3x faster than 32 on FrozenLake, 256 compact records 1.1x faster than 128)."""
    sizes = [b for b in BLOCK_SIZES if b * record_bytes <= 2048]
    for block in sizes:
        if tables_fit_wram(n_states, n_actions, n_tasklets, block, record_bytes):
            return block
    for block in sizes:
        if wram_needed(n_states, n_actions, n_tasklets, block, False,
                       record_bytes) <= WRAM_BYTES:
            return block
    return BLOCK


@dataclass(frozen=True)
class MemoryPlan:
    """Where everything goes on each DPU (see the module docstring)."""

    shares: tuple[tuple[int, int], ...]  #: ``(start, count)`` of each DPU's transitions
    max_share: int  #: the largest share, in transitions
    tables_offset: int  #: bytes from the MRAM heap to the first table
    table_bytes: int  #: ``TB``
    region_bytes: int  #: ``n_tasklets * TB``: all tables of one DPU
    mram_needed: int  #: ``tables_offset + region_bytes + table_bytes``
    use_wram: bool  #: whether the tables live in WRAM during a launch
    combined_offset: int = 0  #: bytes from the MRAM heap to the broadcast combined table
    block: int = BLOCK  #: transitions per DMA of the block layout (:func:`choose_block`)
    record_bytes: int = RECORD_BYTES  #: 16, or 8 for compact records (:func:`compact_fits`)


def records(dataset: Dataset, rewards: np.ndarray, order: np.ndarray | None = None,
            compact: bool = False) -> np.ndarray:
    """``(N, 4)`` uint32 records of the dataset, in ``order`` when given; ``compact``:
    ``(N, 2)`` 8-byte records (``state * A + action | next_state << 16 | terminal << 31``,
    reward bits), for tables that :func:`compact_fits`.

    ``rewards`` are the format's rewards (float32 or int32 Q15.16) of every transition.
    """
    n = len(dataset)
    idx = slice(None) if order is None else order
    terminal = dataset.terminal[idx].astype(np.uint32) << np.uint32(31)
    reward = np.ascontiguousarray(rewards[idx]).view(np.uint32)
    if compact:
        out = np.empty((n, 2), dtype=np.uint32)
        key = (dataset.state[idx].astype(np.uint32) * np.uint32(dataset.n_actions)
               + dataset.action[idx].astype(np.uint32))
        out[:, 0] = key | (dataset.next_state[idx].astype(np.uint32) << np.uint32(16)) | terminal
        out[:, 1] = reward
        return out
    out = np.empty((n, 4), dtype=np.uint32)
    out[:, 0] = dataset.state[idx]
    out[:, 1] = dataset.action[idx]
    out[:, 2] = reward
    out[:, 3] = dataset.next_state[idx].astype(np.uint32) | terminal
    return out
