"""Combining the Q tables of many learners into one (host side, shared by every trainer).

Given learner tables ``Q`` of shape ``(L, S, A)``, their update counts ``n`` of the same
shape (updates of each entry since the last combine) and the ``previous`` combined table
``P`` every learner started from (zeros at first), per entry:

* ``"mean"``: ``sum_l Q_l / L`` (SwiftRL's rule).
* ``"weighted"``: ``sum_l n_l Q_l / sum_l n_l``; an entry no learner updated keeps ``P``.
* ``"delta"``: ``P + sum_l (Q_l - P)``: every learner's change added up (model-delta
  aggregation of federated learning). Right while each entry gets few updates per sync;
  it overshoots when learners make many updates of the same entry.
* ``"pooled"`` (the default): the step one learner would have taken with all
  ``K = sum_l n_l`` updates. A learner that makes ``n`` updates of size ``alpha`` towards
  a target ``T`` moves ``c(n) = 1 - (1 - alpha)**n`` of the way there, so learner ``l``'s
  change ``D_l = Q_l - P`` says its mean target was ``P + D_l / c(n_l)``. The pooled
  value moves ``c(K)`` of the way to the count-weighted mean of those targets::

      Q = P + sum_l w_l D_l,    w_l = (c(K) / c(n_l)) * (n_l / K)

  so that ``w = 1`` for a lone learner (its table is taken exactly), ``sum_l D_l`` when
  every learner made one small step (``"delta"``), and ``"weighted"`` when every learner
  converged (``c = 1``). An entry no learner updated keeps ``P``; with ``alpha = 0``
  nothing changes.

**Exactness.** The result depends only on the inputs, never on how an implementation
orders its work, so the DPU trainer, the reference and the numpy baseline agree bit for
bit. FP32: sums run in float64 over learners ``l = 0, 1, ..., L - 1`` in order
(``"pooled"`` as ``P + (sum_l w_l Q_l - P sum_l w_l)``: one pass over the tables), the
result is cast to float32 (round to nearest even, then -0.0 becomes +0.0). INT32
(Q15.16): integer arithmetic only. ``"mean"`` and ``"weighted"`` divide exact int64 sums
(``"weighted"`` in float64 when the count-weighted sum could exceed 2**62); ``"delta"``
adds exact int64 differences; ``"pooled"`` rounds each weight once to Q8.24 (the
weights are float64 functions of the counts and alpha, computed in one fixed way) and
then sums ``W_l * D_l`` exactly with 64-bit integers (each difference split in two
16-bit halves so that nothing can overflow). Every division rounds half to even, and
the result saturates at the int32 range.
"""

from __future__ import annotations

import numpy as np

from pyupmem.apps.distributed import Cluster, sum_in_order

from . import fixed_point

#: Combine rules :func:`combine` accepts.
COMBINES: tuple[str, ...] = ("pooled", "weighted", "mean", "delta")

_WEIGHT_BITS = 24  #: fraction bits of the INT32 ``"pooled"`` weights (Q8.24)


def check_combine(rule: str) -> None:
    """Raise ``ValueError`` naming the known rules if ``rule`` is not one of them."""
    if rule not in COMBINES:
        raise ValueError(f"unknown combine rule {rule!r}; choose one of {', '.join(COMBINES)}")


def step_alpha(alpha: float, fmt: str) -> float:
    """The learning rate the learners really use, as a float64: ``float32(alpha)`` for FP32,
    the Q0.15 coefficient ``/ 32768`` for INT32 (what ``"pooled"`` needs)."""
    if fmt == "int32":
        return fixed_point.coefficient(alpha, "alpha") / fixed_point.COEF_ONE
    return float(np.float32(alpha))


def _round_div(num: np.ndarray, den: np.ndarray | int) -> np.ndarray:
    """``num / den`` rounded half to even, exactly (int64 arrays, ``den > 0``)."""
    q, r = np.divmod(num, den)
    twice = 2 * r
    up = (twice > den) | ((twice == den) & (q % 2 == 1))
    return q + up


_cache: list = []  #: the last ``(alpha, counts, weights, total)`` of :func:`_pooled_weights`


def pooled_weights(
    counts: np.ndarray, alpha: float, *, cluster: Cluster | None = None
) -> np.ndarray:
    """The float64 weights ``w_l`` of ``"pooled"`` (module docstring) for update
    ``counts`` of shape ``(L, S, A)`` or ``(L, E)``, as an ``(L, S * A)`` array.

    They depend on the counts and alpha alone, so a trainer whose counts repeat from one
    combine to the next computes them once and passes them to :func:`combine`. With a
    ``cluster`` of several processes, ``counts`` are this process's learners' and the
    total count ``K`` of each entry is summed over the cluster (exactly: integers)."""
    counts = np.asarray(counts)
    n = counts.reshape(counts.shape[0], -1)
    total = None
    if cluster is not None and cluster.size > 1:
        local = n.sum(axis=0, dtype=np.int64)[None]
        total = cluster.sum_in_order(local).astype(np.float64)
    return _pooled_weights(n, float(alpha), total)


def _pooled_weights(n: np.ndarray, alpha: float, total: np.ndarray | None = None
                    ) -> np.ndarray:
    """float64 ``(L, E)`` weights ``w_l`` of ``"pooled"`` for counts ``n`` ``(L, E)``;
    ``total``: the counts' column sums over every process's learners (None: ``n``'s).

    ``c(n_l)`` is looked up in a table of ``c(0 .. max n)`` when the counts are small (the
    same float64 values as computing it per element, without a transcendental function
    per learner and entry). The weights are a function of the counts alone, and a
    trainer meets the same counts at every combine of a run (each learner updates the
    same entries between combines), so the last ones are kept and reused."""
    if (_cache and _cache[0] == alpha and np.array_equal(_cache[1], n)
            and ((total is None and _cache[3] is None)
                 or (total is not None and _cache[3] is not None
                     and np.array_equal(_cache[3], total)))):
        return _cache[2]
    nf = n.astype(np.float64)
    if total is None:
        total = nf.sum(axis=0)
        kept = None
    else:
        kept = total.copy()
    if alpha <= 0.0:  # nothing moved; any weights do
        w = np.where(nf > 0, nf / np.where(total > 0, total, 1.0), 0.0)
    else:
        log_keep = np.log1p(-alpha)  # log(1 - alpha) < 0
        top = int(n.max(initial=0))
        with np.errstate(divide="ignore", invalid="ignore"):
            if top <= 4 * n.size + 1024:
                c_l = _c(np.arange(top + 1, dtype=np.float64), log_keep)[n]  # c(n_l)
            else:
                c_l = _c(nf, log_keep)
            c_k = _c(total, log_keep)  # c(K)
            w = np.divide(c_k, c_l, out=c_l)
            nf /= total
            w *= nf
        w[n == 0] = 0.0
    _cache[:] = [alpha, n.copy(), w, kept]
    return w


_sums: list = []  #: the last ``(weights, block, their block sums)`` of :func:`_column_sums`


def _column_sums(w: np.ndarray, block: int) -> np.ndarray:
    """``sum_l w_l`` per block of learners and entry, ``(blocks, E)``, in learner order;
    kept for the last weights array seen (a trainer passes the same, unmodified,
    weights at every combine of a kind)."""
    if _sums and _sums[0] is w and _sums[1] == block:
        return _sums[2]
    _sums[:] = [w, block, _block_sums(w, block)]
    return _sums[2]


def _block_sums(x: np.ndarray, block: int) -> np.ndarray:
    """``(blocks, E)`` sums of ``x`` ``(L, E)`` over each block of ``block`` consecutive
    learners (the last block may be short), each in learner order."""
    n_l = x.shape[0]
    if block >= n_l:
        return x.sum(axis=0)[None]
    return np.stack([x[i:i + block].sum(axis=0) for i in range(0, n_l, block)])


def _block_dots(q: np.ndarray, w: np.ndarray, block: int) -> np.ndarray:
    """``(blocks, E)`` sums of ``w_l q_l`` in float64 over each block of learners."""
    n_l = q.shape[0]
    return np.stack([np.einsum("le,le->e", q[i:i + block], w[i:i + block],
                               dtype=np.float64) for i in range(0, n_l, block)])


def _reduce(parts: np.ndarray, cluster: Cluster | None) -> np.ndarray:
    """The blocks' ``parts`` ``(blocks, ...)`` summed left to right, over the cluster."""
    if cluster is None:
        return sum_in_order(parts)
    return cluster.sum_in_order(parts)


def _c(n: np.ndarray, log_keep: float) -> np.ndarray:
    """``c(n) = 1 - (1 - alpha)**n`` elementwise, as ``-expm1(n * log(1 - alpha))``."""
    return -np.expm1(n * log_keep)


def combine(
    tables: np.ndarray,
    counts: np.ndarray | None = None,
    rule: str = "mean",
    previous: np.ndarray | None = None,
    alpha: float | None = None,
    weights: np.ndarray | None = None,
    *,
    block: int | None = None,
    cluster: Cluster | None = None,
) -> np.ndarray:
    """The combined ``(S, A)`` table of learner ``tables`` ``(L, S, A)``.

    ``tables`` are float32 (FP32) or int32 (INT32, Q15.16); the result has the same
    dtype. ``counts`` (required by every rule but ``"mean"``), ``previous`` (zeros when
    None) and ``alpha`` (the learning rate the learners used, :func:`step_alpha`;
    required by ``"pooled"``) are as the module docstring describes. ``weights``: the
    ``"pooled"`` weights of these counts, already computed (:func:`pooled_weights`) and
    not modified since (their sums are kept between calls).

    ``block``: learners per block of the fixed summation order (None: all learners form
    one block): every sum over learners runs left to right within each block, then over
    the blocks' partial sums left to right (:mod:`pyupmem.apps.distributed`). ``cluster``:
    with several processes, ``tables`` and ``counts`` hold this process's learners
    (whole blocks, in global order) and the block sums go through
    :meth:`pyupmem.apps.distributed.Cluster.sum_in_order`; every process gets the table one
    process with all learners would get, bit for bit.

    Raises:
        ValueError: unknown rule, missing counts or alpha, mismatched shapes, or no
            learners.
    """
    check_combine(rule)
    tables = np.asarray(tables)
    if tables.ndim != 3 or tables.shape[0] < 1:
        raise ValueError(f"tables must have shape (learners >= 1, S, A), not {tables.shape}")
    if tables.dtype not in (np.float32, np.int32):
        raise ValueError(f"tables must be float32 (FP32) or int32 (INT32), not {tables.dtype}")
    if block is not None and int(block) < 1:
        raise ValueError(f"block={block}: a block holds at least one learner")
    n_l, shape = tables.shape[0], tables.shape[1:]
    blk = n_l if block is None else int(block)
    if cluster is not None and cluster.size == 1:
        cluster = None
    fp32 = tables.dtype == np.float32
    q = tables.reshape(n_l, -1)
    if previous is None:
        previous = np.zeros(shape, dtype=tables.dtype)
    previous = np.asarray(previous)
    if previous.shape != shape:
        raise ValueError(f"previous has shape {previous.shape}, expected {shape}")
    base = previous.reshape(-1)
    n = None
    if rule != "mean":
        if counts is None:
            raise ValueError(f"the {rule!r} combine needs the update counts of every learner")
        counts = np.asarray(counts)
        if counts.shape != tables.shape:
            raise ValueError(f"counts have shape {counts.shape}, tables {tables.shape}")
        n = counts.reshape(n_l, -1)
    if rule == "pooled" and alpha is None:
        raise ValueError("the 'pooled' combine needs the learners' learning rate (alpha)")
    if weights is not None and np.shape(weights) != (n_l, q.shape[1]):
        raise ValueError(f"weights have shape {np.shape(weights)}, expected "
                         f"{(n_l, q.shape[1])} (pooled_weights of these counts)")
    all_learners, top_count = n_l, None
    if cluster is not None and rule in ("mean", "weighted"):
        top = int(n.max(initial=0)) if n is not None else 0
        gathered = cluster.allgather((n_l, top))
        all_learners = sum(g[0] for g in gathered)
        top_count = max(g[1] for g in gathered)

    def total_sums(*xs: np.ndarray) -> list[np.ndarray]:
        """Each ``(L, E)`` array's sum over all learners, blocks in order (one reduce)."""
        parts = np.stack([_block_sums(x, blk) for x in xs], axis=1)
        out = _reduce(parts, cluster)
        return [out[i] for i in range(len(xs))]

    if fp32:
        b = base.astype(np.float64)
        # strided tables (views of gathered (value, count) pairs) are copied before the
        # cast: two plain passes run faster than one strided, casting one
        qd = np.ascontiguousarray(q).astype(np.float64) if rule != "pooled" else None
        if rule == "mean":
            (s,) = total_sums(qd)
            result = s / all_learners
        elif rule == "weighted":
            nf = n.astype(np.float64)
            total, acc = total_sums(nf, nf * qd)
            result = np.where(total > 0, acc / np.where(total > 0, total, 1.0), b)
        elif rule == "delta":
            (s,) = total_sums(qd - b)
            result = b + s
        else:
            if weights is None:
                w = pooled_weights(n, float(alpha), cluster=cluster)
            else:
                w = weights
            # sum_l w_l (Q_l - P) as sum_l w_l Q_l - P sum_l w_l: one pass over the
            # (possibly strided) float32 tables, cast to float64 as it goes
            parts = np.stack([_block_dots(q, w, blk), _column_sums(w, blk)], axis=1)
            moved, wsum = _reduce(parts, cluster)
            result = b + (moved - b * wsum)
        out = result.astype(np.float32) + np.float32(0.0)  # + 0.0 turns -0.0 into +0.0
        return out.reshape(shape)

    qi = q.astype(np.int64)
    b = base.astype(np.int64)
    if rule == "mean":
        (s,) = total_sums(qi)
        result = _round_div(s, all_learners)
    elif rule == "weighted":
        ni = n.astype(np.int64)
        top = int(n.max(initial=0)) if top_count is None else top_count
        if top * all_learners < 2**31:  # sum_l n_l |Q_l| < 2**62: exact
            total, acc = total_sums(ni, ni * qi)
            updated = total > 0
            result = np.where(updated, _round_div(acc, np.where(updated, total, 1)), b)
        else:
            total, acc = total_sums(n.astype(np.float64), n.astype(np.float64) * qi)
            updated = total > 0
            mean = np.rint(acc / np.where(updated, total, 1.0))
            result = np.where(updated, mean, b).astype(np.int64)
    elif rule == "delta":
        (s,) = total_sums(qi - b)
        result = b + s
    else:
        w = pooled_weights(n, float(alpha), cluster=cluster) if weights is None else weights
        weights = np.rint(w * (1 << _WEIGHT_BITS)).astype(np.int64)  # Q8.24, <= 2**24
        d = qi - b  # |d| < 2**32
        hi, lo = d >> 16, d & 0xFFFF  # d = hi * 2**16 + lo, 0 <= lo < 2**16
        s_hi, s_lo = total_sums(weights * hi, weights * lo)
        carry, rest = np.divmod(s_lo, 1 << 16)
        # sum W d = (s_hi + carry) * 2**16 + rest; divide by 2**24, rounding half to even
        m = s_hi + carry
        quot, rem8 = np.divmod(m, 1 << (_WEIGHT_BITS - 16))
        rem = rem8 * (1 << 16) + rest  # in [0, 2**24)
        half = 1 << (_WEIGHT_BITS - 1)
        up = (rem > half) | ((rem == half) & (quot % 2 == 1))
        result = b + quot + up
    out = np.clip(result, fixed_point.INT32_MIN, fixed_point.INT32_MAX).astype(np.int32)
    return out.reshape(shape)
