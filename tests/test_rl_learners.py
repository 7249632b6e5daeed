"""Learners: the reference's semantics, and the vectorised baseline equal to it bit for bit."""

import itertools

import numpy as np
import pytest

from rl import fixed_point as fp
from rl.baseline import train_baseline
from rl.combine import combine, pooled_weights
from rl.datasets import Dataset, collect
from rl.layouts import learner_indices
from rl.reference import eps_threshold, learner_seed, train_reference, xorshift32


def _synthetic(n, n_states, n_actions, seed, reward_scale=65536, big=False):
    rng = np.random.default_rng(seed)
    if big:  # whole rewards near the Q15.16 limit: INT32 saturates
        reward = rng.choice([-32000, 32000, 30000], size=n)
        reward_scale = 1
    else:
        reward = rng.integers(-3 * 65536, 3 * 65536, size=n)
    return Dataset(
        None, n_states, n_actions, reward_scale,
        rng.integers(0, n_states, n), rng.integers(0, n_actions, n), reward,
        rng.integers(0, n_states, n), (rng.random(n) < 0.1).astype(np.int32),
    )


def _frozenlake():
    """203 FrozenLake transitions, some of them reaching the goal (reward 1)."""
    big = collect("FrozenLake-v1", 5000, seed=1)
    goal = np.flatnonzero(big.reward > 0)[:5]
    return big.select(np.union1d(np.arange(203 - goal.size), goal))


DATASETS = {
    "frozenlake": _frozenlake(),
    "taxi": collect("Taxi-v3", 211, seed=2),
    "synthetic": _synthetic(157, 7, 3, seed=3),
}


def _same(a, b):
    assert a.table.dtype == b.table.dtype
    assert a.table.tobytes() == b.table.tobytes()
    assert a.tables.tobytes() == b.tables.tobytes()
    assert np.array_equal(a.counts, b.counts) and a.counts.dtype == np.uint32
    assert np.array_equal(a.rng_states, b.rng_states)


@pytest.mark.parametrize("data", list(DATASETS))
@pytest.mark.parametrize(
    "algorithm,fmt,layout",
    list(itertools.product(
        ["qlearning", "sarsa"], ["fp32", "int32"], ["block", "stride", "random"])),
)
def test_baseline_equals_reference_exactly(data, algorithm, fmt, layout):
    ds = DATASETS[data]
    for d, t in itertools.product([1, 4], [1, 3, 16]):
        kw = dict(
            algorithm=algorithm, fmt=fmt, layout=layout, n_dpus=d, n_tasklets=t, epochs=2,
            alpha=0.3, gamma=0.9, epsilon=0.3, seed=5, chunk=5,
            sync_every=1 if d == 4 else 0, combine="weighted" if t == 3 else "mean",
        )
        ref = train_reference(ds, **kw)
        _same(ref, train_baseline(ds, **kw))
        assert np.any(ref.table != 0)


@pytest.mark.parametrize("fmt", ["fp32", "int32"])
def test_int32_saturation_and_large_values_match(fmt):
    ds = _synthetic(300, 4, 2, seed=9, big=True)
    kw = dict(fmt=fmt, n_dpus=2, n_tasklets=3, epochs=6, alpha=0.9, gamma=0.99, layout="stride",
              chunk=4)
    ref = train_reference(ds, **kw)
    _same(ref, train_baseline(ds, **kw))
    if fmt == "int32":
        assert ref.tables.max() == fp.INT32_MAX or ref.tables.min() == fp.INT32_MIN


def _tiny(reward, terminal=0):
    return Dataset(None, 2, 2, 1, [0], [1], [reward], [0], [terminal])


def test_hand_computed_updates():
    # epoch 1: Q = 0 + .5 * (1 - 0) = .5 ; epoch 2: target = 1 + .5 * .5, Q = .5 + .5 * .75
    for fmt in ("fp32", "int32"):
        res = train_reference(_tiny(1), fmt=fmt, epochs=2, alpha=0.5, gamma=0.5)
        assert res.q_values()[0, 1] == 0.875
        assert res.counts[0, 0, 1] == 2
    res = train_reference(_tiny(1, terminal=1), epochs=3, alpha=0.5, gamma=0.5)
    assert res.table[0, 1] == np.float32(0.875)  # .5, .75, .875: no bootstrap
    int_res = train_reference(_tiny(1), fmt="int32", epochs=2, alpha=0.5, gamma=0.5)
    assert int_res.table.dtype == np.int32 and int_res.table[0, 1] == 57344


def _independent_reference(ds, fmt, alpha, gamma, epochs):
    """A third implementation, one learner, Q-learning: numpy float32 scalars / fp helpers."""
    q = np.zeros((ds.n_states, ds.n_actions), dtype=np.float32 if fmt == "fp32" else np.int64)
    if fmt == "fp32":
        r_all, a32, g32 = ds.rewards_f32(), np.float32(alpha), np.float32(gamma)
    else:
        r_all, ca, cg = ds.rewards_q16(), fp.coefficient(alpha), fp.coefficient(gamma)
    for _ in range(epochs):
        for i in range(len(ds)):
            s, a, s2 = int(ds.state[i]), int(ds.action[i]), int(ds.next_state[i])
            cur, r = q[s, a], r_all[i]
            if fmt == "fp32":
                target = r if ds.terminal[i] else np.float32(r + np.float32(g32 * q[s2].max()))
                q[s, a] = np.float32(cur + np.float32(a32 * np.float32(target - cur)))
            else:
                boot = fp.mul(int(q[s2].max()), cg)
                target = int(r) if ds.terminal[i] else fp.sat_add(int(r), boot)
                q[s, a] = fp.sat_add(int(cur), fp.mul(fp.sat_sub(target, int(cur)), ca))
    return q


@pytest.mark.parametrize("fmt", ["fp32", "int32"])
def test_reference_matches_an_independent_scalar_implementation(fmt):
    ds = DATASETS["synthetic"]
    want = _independent_reference(ds, fmt, 0.1, 0.95, 3)
    got = train_reference(ds, fmt=fmt, alpha=0.1, gamma=0.95, epochs=3)
    assert got.tables[0].tobytes() == want.astype(got.table.dtype).tobytes()


def test_generator_and_seeds():
    x, out = 1, []
    for _ in range(3):
        x = xorshift32(x)
        out.append(x)
    assert out == [270369, 67634689, 2647435461]  # Marsaglia's xorshift32(13, 17, 5)

    def fmix(v):
        v ^= v >> 16
        v = (v * 0x85EBCA6B) % 2**32
        v ^= v >> 13
        v = (v * 0xC2B2AE35) % 2**32
        return v ^ (v >> 16)

    for seed, lrn in [(0, 0), (7, 3), (2**40 + 5, 1000)]:
        want = fmix((seed * 0x9E3779B9 + (lrn + 1) * 0x85EBCA6B) % 2**32) or 0x6D2B79F5
        assert learner_seed(seed, lrn) == want != 0
    assert eps_threshold(0.0) == 0
    assert eps_threshold(0.5) == 2**31
    assert eps_threshold(1.0) == 2**32 - 1


def test_sarsa_with_zero_epsilon_is_qlearning_and_draws_one_number_per_bootstrap():
    ds = DATASETS["taxi"]
    for fmt in ("fp32", "int32"):
        q = train_reference(ds, "qlearning", fmt, epochs=2, n_tasklets=2)
        s = train_reference(ds, "sarsa", fmt, epochs=2, n_tasklets=2, epsilon=0.0)
        assert q.table.tobytes() == s.table.tobytes()
    seqs = learner_indices("block", len(ds), 1, 2)
    for lrn, seq in enumerate(seqs):
        x = learner_seed(0, lrn)
        for _ in range(2 * int((ds.terminal[seq] == 0).sum())):
            x = xorshift32(x)
        assert s.rng_states[lrn] == x


def test_sync_schedule_and_counts():
    ds = DATASETS["frozenlake"]
    n = len(ds)
    assert train_reference(ds, n_tasklets=4, epochs=3).counts.sum() == 3 * n
    assert train_reference(ds, n_tasklets=4, epochs=3, sync_every=1).counts.sum() == n
    assert train_reference(ds, n_tasklets=4, epochs=4, sync_every=2).counts.sum() == 2 * n
    synced = train_reference(ds, n_tasklets=4, epochs=3, sync_every=1, combine="weighted")
    # after a broadcast every learner started from the same table; one learner alone
    # equals one learner that never syncs
    one = train_reference(ds, epochs=3, sync_every=1)
    assert one.table.tobytes() == train_reference(ds, epochs=3).table.tobytes()
    assert synced.tables.shape == (4, 16, 4)


def test_combine_rules():
    t = np.array([[[1.0, 2.0]], [[3.0, 6.0]]], dtype=np.float32)
    n = np.array([[[1, 0]], [[3, 0]]], dtype=np.uint32)
    assert combine(t).tolist() == [[2.0, 4.0]]
    prev = np.array([[9.0, 7.0]], dtype=np.float32)
    w = combine(t, n, "weighted", prev)
    assert w.dtype == np.float32 and w.tolist() == [[2.5, 7.0]]  # (1 + 9) / 4; kept
    ti = np.array([[[1, 2, -1]], [[2, 3, -2]]], dtype=np.int32)
    assert combine(ti).tolist() == [[2, 2, -2]]  # 1.5 -> 2, 2.5 -> 2, -1.5 -> -2
    tiny = np.array([[[-1e-45]], [[0.0]]], dtype=np.float32)  # mean underflows to -0.0
    assert combine(tiny).tobytes() == np.float32(0.0).tobytes()  # returned as +0.0
    with pytest.raises(ValueError, match="counts"):
        combine(t, rule="weighted")
    with pytest.raises(ValueError, match="unknown combine rule 'median'"):
        combine(t, rule="median")
    with pytest.raises(ValueError, match="alpha"):
        combine(t, n, "pooled")


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_pooled_and_delta_combines(dtype):
    """``pooled``: one learner's table exactly; many small steps add up like ``delta``;
    converged learners give the count-weighted mean; untouched entries keep ``previous``."""
    rng = np.random.default_rng(0)
    one = rng.integers(-2**20, 2**20, size=(1, 5, 3)).astype(dtype)
    counts = rng.integers(0, 50, size=(1, 5, 3)).astype(np.uint32)
    prev = rng.integers(-2**20, 2**20, size=(5, 3)).astype(dtype)
    out = combine(one, counts, "pooled", prev, alpha=0.1)
    assert np.array_equal(out, np.where(counts[0] > 0, one[0], prev))
    # 100 learners, one update each, all moving by +d from zero: delta sums them; pooled
    # moves c(100) = 1 - 0.9**100 of the way to the implied target (d / alpha).
    d = 1000 if dtype == np.int32 else 0.001
    tables = np.full((100, 1, 1), d, dtype=dtype)
    ones = np.ones((100, 1, 1), dtype=np.uint32)
    assert combine(tables, ones, "delta")[0, 0] == np.asarray(100 * d, dtype=dtype)
    pooled = float(combine(tables, ones, "pooled", alpha=0.1)[0, 0])
    tolerance = 1 if dtype == np.int32 else 1e-6 * d  # INT32 rounds to whole steps
    assert abs(pooled - (1 - 0.9**100) * d / 0.1) <= tolerance
    # converged learners (huge counts): the count-weighted mean
    big = np.array([[[100]], [[300]]], dtype=dtype)
    many = np.array([[[10_000]], [[30_000]]], dtype=np.uint32)
    assert combine(big, many, "pooled", alpha=0.1)[0, 0] == 250
    # alpha = 0: nothing moved
    assert combine(np.zeros((3, 2, 2), dtype), np.ones((3, 2, 2), np.uint32), "pooled",
                   alpha=0.0).tolist() == [[0, 0], [0, 0]]


def test_pooled_fp32_is_the_documented_sum_in_learner_order():
    """FP32 ``pooled`` is ``P + (sum_l w_l Q_l - P sum_l w_l)``, each sum in float64 over
    the learners in order, whatever the tables' memory layout (the trainer passes strided
    views of the gathered (value, count) pairs)."""
    rng = np.random.default_rng(3)
    pairs = np.empty((300, 7, 2), dtype=np.uint32)
    pairs[..., 0] = rng.standard_normal((300, 7)).astype(np.float32).view(np.uint32)
    pairs[..., 1] = rng.integers(0, 40, size=(300, 7))
    tables = pairs.view(np.float32)[..., 0].reshape(300, 7, 1)  # strided, as the trainer's
    counts = pairs[..., 1].reshape(300, 7, 1)
    prev = rng.standard_normal((7, 1)).astype(np.float32)
    w = pooled_weights(counts, 0.1)
    b = prev.reshape(-1).astype(np.float64)
    moved, total = np.zeros(7), np.zeros(7)
    for learner in range(300):
        moved = moved + w[learner] * tables[learner].reshape(-1).astype(np.float64)
        total = total + w[learner]
    expected = (b + (moved - b * total)).astype(np.float32).reshape(7, 1)
    out = combine(tables, counts, "pooled", prev, alpha=0.1)
    assert out.tobytes() == (expected + np.float32(0)).tobytes()
    assert out.tobytes() == combine(np.ascontiguousarray(tables), counts.copy(), "pooled",
                                    prev, alpha=0.1).tobytes()
    assert out.tobytes() == combine(tables, counts, "pooled", prev, 0.1, w).tobytes()
    with pytest.raises(ValueError, match=r"weights have shape \(7, 300\)"):
        combine(tables, counts, "pooled", prev, 0.1, w.T)


def test_pooled_int32_is_exact_at_the_extremes():
    """Differences of 2**32 - 1 with the largest weights neither overflow nor lose bits."""
    lo, hi = np.iinfo(np.int32).min, np.iinfo(np.int32).max
    tables = np.array([[[hi, lo]]] * 64, dtype=np.int32)
    prev = np.array([[lo, hi]], dtype=np.int32)
    counts = np.ones_like(tables, dtype=np.uint32)
    out = combine(tables, counts, "pooled", prev, alpha=1 / 32768)
    assert out.tolist() == [[hi, lo]]  # 64 steps of 2**32: saturated
    small = combine(tables[:1], counts[:1], "pooled", prev, alpha=1 / 32768)
    assert small.tolist() == [[hi, lo]]  # a lone learner's table, exactly


def test_bad_training_inputs():
    ds = DATASETS["frozenlake"]
    with pytest.raises(ValueError, match="n_dpus=0 must be at least 1"):
        train_reference(ds, n_dpus=0)
    with pytest.raises(ValueError, match="n_tasklets=0"):
        train_baseline(ds, n_tasklets=0)
    with pytest.raises(ValueError, match=r"gamma=1.0 is outside \[0, 1\)"):
        train_reference(ds, fmt="int32", gamma=1.0)
    with pytest.raises(ValueError, match="unknown algorithm 'dqn'"):
        train_reference(ds, algorithm="dqn")
    with pytest.raises(ValueError, match="unknown format"):
        train_reference(ds, fmt="fp16")
    bad = Dataset(None, 4, 2, 1, [0, 9], [1, 1], [0, 1], [1, 3], [0, 1])
    with pytest.raises(ValueError, match="state=9, outside the table"):
        train_baseline(bad)
    with pytest.raises(ValueError, match="Q15.16"):
        train_reference(Dataset(None, 1, 1, 1, [0], [0], [40000], [0], [1]), fmt="int32")
