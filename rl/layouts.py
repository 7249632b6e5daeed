"""How transitions are spread over DPUs and tasklets, and the order each learner visits them.

With ``N`` transitions, ``D`` DPUs and ``T`` tasklets per DPU there are ``L = D * T``
learners; learner ``l = d * T + t`` is tasklet ``t`` of DPU ``d``. The even split of ``n``
items into ``k`` parts gives part ``i``::

    split(n, k, i) = (start, count)
    count = n // k + (1 if i < n % k else 0)
    start = i * (n // k) + min(i, n % k)

* Every layout first gives DPU ``d`` the contiguous share ``split(N, D, d)`` of the
  dataset (its *local* indices ``0 .. n_d - 1`` are global ``start_d + i``).
* ``"block"``: tasklet ``t`` visits the local indices ``split(n_d, T, t)``, increasing.
* ``"stride"``: local index ``i`` is in chunk ``i // C`` (``C = chunk`` transitions, the
  last chunk may be short); tasklet ``t`` visits chunks ``t, t + T, t + 2T, ...`` in
  increasing order, each chunk's indices in increasing order.
* ``"random"``: the host permutes the dataset once with
  ``perm = np.random.default_rng(seed).permutation(N)`` (transition ``j`` of the permuted
  dataset is transition ``perm[j]`` of the original), then applies ``"block"``.

Nothing is dropped: each epoch every transition is visited exactly once, by one learner.
"""

from __future__ import annotations

import numpy as np

from pyupmem.apps.training import contiguous_shares

#: The layout names :func:`learner_indices` accepts.
LAYOUTS: tuple[str, ...] = ("block", "stride", "random")

#: Default number of transitions in a ``"stride"`` chunk.
DEFAULT_CHUNK = 32


def split(n: int, k: int, i: int) -> tuple[int, int]:
    """``(start, count)`` of part ``i`` of the even split of ``n`` items into ``k`` parts."""
    if k <= 0:
        raise ValueError(f"cannot split into {k} parts; the number of parts must be >= 1")
    if not 0 <= i < k:
        raise ValueError(f"part {i} does not exist in a split into {k} parts")
    base, extra = divmod(n, k)
    return i * base + min(i, extra), base + (1 if i < extra else 0)


def _check(n: int, n_dpus: int, n_tasklets: int, chunk: int) -> None:
    if n < 0:
        raise ValueError(f"the number of transitions must be >= 0, not {n}")
    if n_dpus < 1:
        raise ValueError(f"n_dpus={n_dpus}: at least one DPU is needed")
    if n_tasklets < 1:
        raise ValueError(f"n_tasklets={n_tasklets}: at least one tasklet per DPU is needed")
    if chunk < 1:
        raise ValueError(f"chunk={chunk}: a stride chunk holds at least one transition")


def dpu_shares(n: int, n_dpus: int) -> list[tuple[int, int]]:
    """``(start, count)`` of every DPU's contiguous share of ``n`` transitions."""
    _check(n, n_dpus, 1, 1)
    return list(contiguous_shares(n, n_dpus))


def local_indices(
    layout: str, n_local: int, n_tasklets: int, tasklet: int, chunk: int = DEFAULT_CHUNK
) -> np.ndarray:
    """Local indices (within one DPU's share) tasklet ``tasklet`` visits, in visit order.

    ``"random"`` is ``"block"`` here (its permutation is applied to the whole dataset).
    """
    check_layout(layout)
    _check(n_local, 1, n_tasklets, chunk)
    if layout in ("block", "random"):
        start, count = split(n_local, n_tasklets, tasklet)
        return np.arange(start, start + count, dtype=np.int64)
    n_chunks = -(-n_local // chunk)
    mine = np.arange(tasklet, n_chunks, n_tasklets, dtype=np.int64)
    idx = (mine[:, None] * chunk + np.arange(chunk, dtype=np.int64)[None, :]).reshape(-1)
    return idx[idx < n_local]


def check_layout(layout: str) -> None:
    """Raise ``ValueError`` naming the known layouts if ``layout`` is not one of them."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; choose one of {', '.join(LAYOUTS)}")


def permutation(layout: str, n: int, seed: int = 0) -> np.ndarray | None:
    """The host permutation of the ``"random"`` layout, or None for the other layouts."""
    check_layout(layout)
    if layout != "random":
        return None
    return np.random.default_rng(seed).permutation(n)


def learner_indices(
    layout: str,
    n: int,
    n_dpus: int,
    n_tasklets: int,
    chunk: int = DEFAULT_CHUNK,
    seed: int = 0,
) -> list[np.ndarray]:
    """Global dataset indices of every learner ``l = d * T + t``, each in visit order.

    For ``"random"`` the indices point into the original (unpermuted) dataset.

    Raises:
        ValueError: unknown layout, or a count below 1 (DPUs, tasklets, chunk).
    """
    check_layout(layout)
    _check(n, n_dpus, n_tasklets, chunk)
    perm = permutation(layout, n, seed)
    out: list[np.ndarray] = []
    for d in range(n_dpus):
        start, count = split(n, n_dpus, d)
        for t in range(n_tasklets):
            idx = local_indices(layout, count, n_tasklets, t, chunk) + start
            out.append(perm[idx].astype(np.int64) if perm is not None else idx)
    return out
