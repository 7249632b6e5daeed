"""The DPU program ``dpu_programs/pimopt/linear.c``: where it is, its variants, its memory.

**MRAM of one DPU**, from ``DPU_MRAM_HEAP_POINTER``: the DPU's samples, row-major, ``Fp``
values each (``Fp``: the features padded to even, so that a row is a multiple of 8
bytes; float32 or Q3.12 int32), in :func:`sample_order` (each tasklet's samples of all
the steps of an epoch together, so that one DMA brings a tasklet the rows of several
steps); at ``labels_offset`` the labels in the same order (int32, padded to an even
count); at ``vectors_offset`` the vectors W, Z, U, OUT and one gradient
accumulator per tasklet, ``Fp`` values each.

**WRAM**: each tasklet has four buffers of :data:`CHUNK` values and its stack; the
vectors move to WRAM for a launch when they fit beside them (:func:`vectors_fit_wram`),
else the program works on them in MRAM, chunk by chunk.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pyupmem.apps.training import MRAM_BYTES as MRAM_BYTES  # a DPU's, re-exported
from pyupmem.apps.training import STACK_BYTES as STACK_BYTES
from pyupmem.apps.training import WRAM_BYTES as WRAM_BYTES
from pyupmem.apps.training import contiguous_shares
from pyupmem.build.builder import packaged_program

KERNEL_SOURCE: Path = (Path(__file__).resolve().parent.parent / "dpu_programs" / "pimopt"
                       / "linear.c")
"""The program's source file in a source tree (and an editable install)."""
WRAM_MARGIN = 4096
"""WRAM kept for the program's and runtime's own variables."""
CHUNK = 128
"""Features per chunk (the program's ``CH``: one DMA of 512 bytes)."""
VECTORS = 4
"""Vectors before the accumulators: W, Z, U, OUT."""


def kernel_source() -> Path:
    """The path of ``linear.c``: the package data of an installed wheel, else
    :data:`KERNEL_SOURCE` (:func:`pyupmem.build.builder.packaged_program`).

    Raises:
        FileNotFoundError: neither exists (a broken installation); reinstall pyupmem.
    """
    return packaged_program("pimopt", "pimopt", "linear.c")


def kernel_defines(model: str, fmt: str) -> dict[str, object]:
    """The ``-D`` defines of the program variant for ``model`` and ``fmt``."""
    defines: dict[str, object] = {}
    if fmt == "int32":
        defines["FORMAT_INT32"] = None
    if model == "svm":
        defines["MODEL_SVM"] = None
    return defines


def padded_features(n_features: int) -> int:
    """``Fp``: the features padded to an even count."""
    return n_features + (n_features & 1)


def vectors_fit_wram(padded: int, n_tasklets: int) -> bool:
    """Whether the vectors (model, z, u, out and the accumulators) fit in WRAM."""
    vectors = (VECTORS + n_tasklets) * padded * 4
    per = STACK_BYTES + 4 * CHUNK * 4
    return vectors + n_tasklets * per + WRAM_MARGIN <= WRAM_BYTES


@dataclass(frozen=True)
class MemoryPlan:
    """Where everything goes on each DPU (see the module docstring)."""

    shares: tuple[tuple[int, int], ...]  #: ``(start, count)`` of each DPU's samples
    max_share: int  #: the largest share
    padded: int  #: ``Fp``
    labels_offset: int  #: bytes from the MRAM heap to the labels
    vectors_offset: int  #: bytes from the MRAM heap to W
    mram_needed: int  #: bytes of MRAM one DPU needs
    use_wram: bool  #: whether the vectors live in WRAM during a launch

    def vector_offset(self, index: int) -> int:
        """Bytes from the MRAM heap to vector ``index`` (0 W, 1 Z, 2 U, 3 OUT)."""
        return self.vectors_offset + index * self.padded * 4


def dpu_shares(n: int, n_dpus: int) -> tuple[tuple[int, int], ...]:
    """Contiguous shares of ``n`` samples: the first ``n % D`` DPUs take one more
    (:func:`pyupmem.apps.training.contiguous_shares`)."""
    return contiguous_shares(n, n_dpus)


def sample_order(count: int, batch: int, n_tasklets: int) -> np.ndarray:
    """The order in which a DPU with ``count`` samples holds them in MRAM: ``order[r]`` is
    the local sample at row ``r``. Each step ``k`` of an epoch takes the local samples
    ``[k * batch, min((k + 1) * batch, count))``, split in contiguous parts over the
    tasklets (the first ``step % T`` one more, :mod:`pimopt.algorithms`); the rows hold
    tasklet 0's parts of every step in step order, then tasklet 1's, and so on, which is
    what the DPU program's ``tasklet_row`` computes. Only where a sample lies changes: each
    tasklet takes the same samples at the same steps as in the plain order.
    """
    i = np.arange(int(count), dtype=np.int64)
    b, t_n = int(batch), int(n_tasklets)
    full, rest = divmod(int(count), b)
    k, j = np.divmod(i, b)
    c = np.where(k < full, b, rest)  # samples of each sample's step
    share, extra = np.divmod(c, t_n)
    big = extra * (share + 1)  # samples of the parts that take one more
    t = np.where(j < big, j // np.maximum(share + 1, 1),
                 extra + (j - big) // np.maximum(share, 1))
    offset = j - (t * share + np.minimum(t, extra))

    def start(n: int) -> np.ndarray:
        s, e = divmod(n, t_n)
        return t * s + np.minimum(t, e)

    def length(n: int) -> np.ndarray:
        s, e = divmod(n, t_n)
        return s + (t < e)

    row = full * start(b) + start(rest) + np.minimum(k, full) * length(b) + offset
    order = np.empty_like(i)
    order[row] = i
    return order


def plan(n: int, n_features: int, n_dpus: int, n_tasklets: int) -> MemoryPlan:
    """The memory plan of ``n`` samples of ``n_features`` on the DPUs.

    Raises:
        ValueError: no samples, or a DPU's share does not fit its 64 MiB of MRAM.
    """
    if n < 1 or n_features < 1:
        raise ValueError("the data set has no samples or no features: nothing to train on")
    shares = dpu_shares(n, n_dpus)
    max_share = max(c for _, c in shares)
    padded = padded_features(n_features)
    labels_offset = max(max_share, 1) * padded * 4
    vectors_offset = labels_offset + (max_share + (max_share & 1)) * 4
    needed = vectors_offset + (VECTORS + n_tasklets) * padded * 4
    if needed > MRAM_BYTES:
        raise ValueError(
            f"a DPU's share of {max_share} samples of {n_features} features needs "
            f"{needed / 2**20:.1f} MiB of its 64 MiB MRAM; use more DPUs"
        )
    return MemoryPlan(shares, max_share, padded, labels_offset, vectors_offset, needed,
                      vectors_fit_wram(padded, n_tasklets))
