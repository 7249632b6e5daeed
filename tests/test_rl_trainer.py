"""The DPU trainer: its tables equal the CPU reference's bit for bit, and bad input fails
clearly."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import pyupmem
from rl import kernel
from rl.baseline import train_baseline
from rl.datasets import Dataset, collect
from rl.reference import train_reference
from rl.trainer import DEFAULTS, Trainer, TrainResult, train_dpu


def _synthetic(n, n_states, n_actions, seed, big=False):
    rng = np.random.default_rng(seed)
    if big:  # whole rewards near the Q15.16 limit: INT32 saturates
        reward, scale = rng.choice([-32000, 32000, 30000], size=n), 1
    else:  # fractional rewards
        reward, scale = rng.integers(-3 * 65536, 3 * 65536, size=n), 65536
    return Dataset(
        None, n_states, n_actions, scale,
        rng.integers(0, n_states, n), rng.integers(0, n_actions, n), reward,
        rng.integers(0, n_states, n), (rng.random(n) < 0.1).astype(np.int32),
    )


def _frozenlake():
    """437 FrozenLake transitions (not a multiple of 4, 3 or 16), some reaching the goal."""
    big = collect("FrozenLake-v1", 5000, seed=1)
    goal = np.flatnonzero(big.reward > 0)[:7]
    return big.select(np.union1d(np.arange(437 - goal.size), goal))


FROZEN = _frozenlake()
TAXI = collect("Taxi-v3", 389, seed=2)  # 500 x 6 tables: in MRAM with 3 or 16 tasklets
SYNTHETIC = _synthetic(301, 7, 3, seed=3)
SATURATING = _synthetic(150, 5, 2, seed=4, big=True)

# Small runs whose sync path is exercised: 3 epochs, combine after epoch 2.
SMALL = dict(epochs=3, sync_every=2, alpha=0.25, gamma=0.9, epsilon=0.3, seed=7, chunk=5)


def _same(ref, dpu):
    assert isinstance(dpu, TrainResult)
    assert dpu.table.dtype == ref.table.dtype
    assert dpu.table.tobytes() == ref.table.tobytes(), "combined tables differ"
    assert dpu.tables.shape == ref.tables.shape
    assert dpu.tables.tobytes() == ref.tables.tobytes(), "learner tables differ"
    assert dpu.counts.dtype == np.uint32
    assert np.array_equal(dpu.counts, ref.counts), "update counts differ"
    assert dpu.rng_states.dtype == np.uint32
    assert np.array_equal(dpu.rng_states, ref.rng_states), "generator states differ"


_REFERENCE_CACHE: dict = {}


def _reference(ds, **kw):
    key = (id(ds), tuple(sorted(kw.items())))
    if key not in _REFERENCE_CACHE:
        _REFERENCE_CACHE[key] = train_reference(ds, **kw)
    return _REFERENCE_CACHE[key]


@pytest.mark.parametrize("layout", ["block", "stride"])
@pytest.mark.parametrize("fmt", ["fp32", "int32"])
@pytest.mark.parametrize("algorithm", ["qlearning", "sarsa"])
def test_dpu_tables_equal_the_reference(algorithm, fmt, layout):
    for (name, ds), (d, t) in itertools.product(
        [("frozenlake", FROZEN), ("synthetic", SYNTHETIC)], [(1, 1), (1, 3), (4, 3), (4, 16)]
    ):
        kw = dict(algorithm=algorithm, fmt=fmt, layout=layout, n_dpus=d, n_tasklets=t,
                  combine="weighted" if t == 3 else "mean", **SMALL)
        result = train_dpu(ds, **kw)
        assert result.tables_in == "wram", (name, d, t)
        _same(_reference(ds, **kw), result)


@pytest.mark.parametrize("layout", ["block", "stride"])
@pytest.mark.parametrize("fmt", ["fp32", "int32"])
@pytest.mark.parametrize("algorithm", ["qlearning", "sarsa"])
def test_tables_in_mram_equal_the_reference(algorithm, fmt, layout):
    """Taxi's 500 x 6 tables do not fit WRAM with 3 or 16 tasklets: they stay in MRAM."""
    for d, t in [(1, 16), (4, 3)]:
        kw = dict(algorithm=algorithm, fmt=fmt, layout=layout, n_dpus=d, n_tasklets=t,
                  combine="weighted", **SMALL)
        result = train_dpu(TAXI, **kw)
        assert result.tables_in == "mram"
        _same(train_baseline(TAXI, **kw), result)
    # a table that would fit WRAM, forced into MRAM
    kw = dict(algorithm=algorithm, fmt=fmt, layout=layout, n_dpus=4, n_tasklets=3, **SMALL)
    result = train_dpu(FROZEN, tables="mram", **kw)
    assert result.tables_in == "mram"
    _same(_reference(FROZEN, **kw), result)


@pytest.mark.parametrize("fmt", ["fp32", "int32"])
@pytest.mark.parametrize("algorithm", ["qlearning", "sarsa"])
def test_random_layout_equals_the_reference(algorithm, fmt):
    for d, t in [(1, 16), (4, 3)]:
        kw = dict(algorithm=algorithm, fmt=fmt, layout="random", n_dpus=d, n_tasklets=t,
                  combine="weighted", **SMALL)
        _same(_reference(FROZEN, **kw), train_dpu(FROZEN, **kw))


@pytest.mark.parametrize("fmt", ["fp32", "int32"])
def test_saturation_sync_schedules_and_more_learners_than_data(fmt):
    # INT32 saturates near the Q15.16 limit; FP32 handles the same large values.
    for sync in (0, 1, 2):
        kw = dict(fmt=fmt, n_dpus=4, n_tasklets=3, epochs=4, sync_every=sync, alpha=0.9,
                  gamma=0.95, combine="weighted")
        _same(train_reference(SATURATING, **kw), train_dpu(SATURATING, **kw))
    # 5 DPUs x 16 tasklets over 37 transitions: most learners see nothing; an empty DPU.
    small = SYNTHETIC.select(slice(0, 37))
    kw = dict(fmt=fmt, algorithm="sarsa", layout="stride", n_dpus=5, n_tasklets=16,
              chunk=3, epochs=2, sync_every=1, combine="weighted")
    _same(train_reference(small, **kw), train_dpu(small, **kw))
    # a dataset with fewer transitions than DPUs, one of them empty
    kw = dict(fmt=fmt, n_dpus=4, n_tasklets=2, epochs=2)
    _same(train_reference(small.select(slice(0, 3)), **kw),
          train_dpu(small.select(slice(0, 3)), **kw))


@pytest.mark.parametrize("fmt", ["fp32", "int32"])
@pytest.mark.parametrize("layout", ["block", "stride", "random"])
@pytest.mark.parametrize("algorithm", ["qlearning", "sarsa"])
def test_segments_equal_the_reference(algorithm, layout, fmt):
    """Several combines per epoch (segments): the DPU tables, the reference's and the
    baseline's agree bit for bit, also with parts shorter than a chunk or empty."""
    for d, t, k in [(2, 3, 3), (3, 16, 5)]:
        kw = dict(algorithm=algorithm, fmt=fmt, layout=layout, n_dpus=d, n_tasklets=t,
                  epochs=2, sync_every=1, segments=k, alpha=0.3, gamma=0.9, epsilon=0.3,
                  seed=4, chunk=5, combine="pooled")
        ref = train_reference(FROZEN, **kw)
        _same(ref, train_dpu(FROZEN, **kw))
        base = train_baseline(FROZEN, **kw)
        assert base.table.tobytes() == ref.table.tobytes()
        assert base.tables.tobytes() == ref.tables.tobytes()
        assert np.array_equal(base.counts, ref.counts)


@pytest.mark.parametrize("fmt", ["fp32", "int32"])
@pytest.mark.parametrize("layout", ["block", "stride"])
@pytest.mark.parametrize("algorithm", ["qlearning", "sarsa"])
def test_compact_and_full_records_give_the_same_tables(algorithm, layout, fmt):
    """8-byte records (the default where the table allows) and 16-byte ones, with the
    tables in WRAM and in MRAM: the same tables as the reference."""
    assert kernel.compact_fits(500, 6) and kernel.compact_fits(2**15, 2)
    assert not kernel.compact_fits(2**15 + 1, 1) and not kernel.compact_fits(2**14, 5)
    for ds, tables in ((FROZEN, "wram"), (FROZEN, "mram"), (TAXI, "mram")):
        kw = dict(algorithm=algorithm, fmt=fmt, layout=layout, n_dpus=3, n_tasklets=5,
                  epochs=2, sync_every=1, alpha=0.3, gamma=0.9, epsilon=0.3, seed=2,
                  chunk=7, combine="pooled")
        ref = train_reference(ds, **kw)
        for compact in (True, False):
            _same(ref, train_dpu(ds, tables=tables, compact=compact, **kw))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(1, 300), n_states=st.integers(1, 40), n_actions=st.integers(1, 9),
    n_dpus=st.integers(1, 5), n_tasklets=st.sampled_from([1, 2, 5, 16, 24]),
    algorithm=st.sampled_from(["qlearning", "sarsa"]), fmt=st.sampled_from(["fp32", "int32"]),
    layout=st.sampled_from(["block", "stride", "random"]), chunk=st.integers(1, 128),
    epochs=st.integers(1, 3), sync_every=st.integers(0, 2),
    rule=st.sampled_from(["mean", "weighted"]), seed=st.integers(0, 2**31),
)
def test_property_dpu_equals_baseline(n, n_states, n_actions, n_dpus, n_tasklets, algorithm,
                                      fmt, layout, chunk, epochs, sync_every, rule, seed):
    # Valid configurations only: the stride buffers of all tasklets must fit in WRAM
    # (a bigger one is a clear ValueError, tested elsewhere).
    assume(layout != "stride" or n_tasklets * chunk <= 1024)
    rng = np.random.default_rng(seed)
    ds = Dataset(None, n_states, n_actions, 65536,
                 rng.integers(0, n_states, n), rng.integers(0, n_actions, n),
                 rng.integers(-65536 * 4, 65536 * 4, n), rng.integers(0, n_states, n),
                 (rng.random(n) < 0.2).astype(np.int32))
    kw = dict(algorithm=algorithm, fmt=fmt, layout=layout, n_dpus=n_dpus,
              n_tasklets=n_tasklets, chunk=chunk, epochs=epochs, sync_every=sync_every,
              combine=rule, seed=seed % 1000, alpha=0.5, gamma=0.9, epsilon=0.4)
    _same(train_baseline(ds, **kw), train_dpu(ds, **kw))


def test_result_timing_and_trainer_settings():
    trainer = Trainer(nr_dpus=2, nr_tasklets=4, epochs=3, progress=False)
    result = trainer.train(FROZEN)
    assert result.updates == 3 * len(FROZEN)
    assert result.updates_per_second > 0 and result.seconds > 0
    phases = result.timer.phases()
    assert phases == [pyupmem.CPU_DPU, pyupmem.DPU_KERNEL, pyupmem.INTER_DPU, pyupmem.DPU_CPU]
    text = result.breakdown()
    for name in phases:
        assert name in text
    assert result.table.shape == (16, 4) and result.tables.shape == (8, 16, 4)
    assert result.q_values().dtype == np.float64
    # the defaults are the documented ones
    default = Trainer(progress=False)
    for key, value in DEFAULTS.items():
        field = {"nr_dpus": "n_dpus", "nr_tasklets": "n_tasklets"}.get(key, key)
        assert getattr(default.config, field) == value, key
    assert "Trainer(algorithm='qlearning'" in repr(default)


def test_bad_input_raises_clear_errors():
    with pytest.raises(ValueError, match="at least one DPU"):
        Trainer(nr_dpus=0)
    with pytest.raises(ValueError, match="1 to 24"):
        Trainer(nr_tasklets=25)
    with pytest.raises(ValueError, match="chunk"):
        Trainer(chunk=129)
    with pytest.raises(ValueError, match="unknown algorithm"):
        Trainer(algorithm="dqn")
    with pytest.raises(ValueError, match="unknown layout"):
        Trainer(layout="diagonal")
    with pytest.raises(ValueError, match="INT32"):
        Trainer(fmt="int32", gamma=1.0)
    with pytest.raises(ValueError, match="tables="):
        Trainer(tables="l2")
    with pytest.raises(ValueError, match="unknown environment 'Pong-v5'"):
        collect("Pong-v5", 10)
    # states beyond the table
    bad = Dataset(None, 4, 2, 1, [0, 5], [0, 1], [0, 0], [1, 2], [0, 0])
    with pytest.raises(ValueError, match=r"does not fit its Q table.*state=5.*0\.\.3"):
        Trainer(nr_dpus=1, progress=False).train(bad)
    bad = Dataset(None, 4, 2, 1, [0, 1], [0, 2], [0, 0], [1, 2], [0, 0])
    with pytest.raises(ValueError, match="action=2"):
        Trainer(nr_dpus=1, progress=False).train(bad)
    # a table too big for MRAM (16 learners x 2 x 16 MiB)
    huge = Dataset(None, 1_000_000, 4, 1, [0], [0], [0], [1], [0])
    with pytest.raises(ValueError, match="too big for MRAM"):
        Trainer(nr_dpus=1, nr_tasklets=16, progress=False).train(huge)
    with pytest.raises(ValueError, match="do not fit in a DPU's 64 KiB WRAM"):
        Trainer(nr_dpus=1, nr_tasklets=16, tables="wram", progress=False).train(TAXI)
    wide = Dataset(None, 2, 300, 1, [0], [0], [0], [1], [0])
    with pytest.raises(ValueError, match="at most 256"):
        Trainer(nr_dpus=1, progress=False).train(wide)
    # INT32 rewards outside Q15.16
    loud = Dataset(None, 2, 2, 1, [0], [0], [40000], [1], [0])
    with pytest.raises(ValueError, match="Q15.16"):
        Trainer(nr_dpus=1, fmt="int32", progress=False).train(loud)


def test_memory_plan():
    plan = Trainer(nr_dpus=3, nr_tasklets=16, progress=False).plan(FROZEN)
    assert sum(n for _, n in plan.shares) == len(FROZEN)
    assert plan.max_share == 146 and plan.tables_offset == 146 * 8  # compact records
    assert plan.record_bytes == 8 and plan.block == 256
    full = Trainer(nr_dpus=3, nr_tasklets=16, progress=False, compact=False).plan(FROZEN)
    assert full.tables_offset == 146 * 16 and full.block == 128
    assert plan.table_bytes == 512 and plan.use_wram
    assert kernel.tables_fit_wram(64, 4, 16, kernel.BLOCK)  # FrozenLake 8x8
    assert kernel.tables_fit_wram(500, 6, 2, kernel.BLOCK)  # Taxi, 2 learners: 48 KiB
    assert not kernel.tables_fit_wram(500, 6, 3, kernel.BLOCK)


def test_update_totals_are_checked_modulo_2_32():
    """Tasklets add their updates up over a run in uint32 counters (they may wrap); the
    host checks each DPU's sum against the run's total modulo 2**32."""
    wrapped = np.array([[2**32 - 1, 2], [5, 0]], dtype=np.uint32)  # DPU 0 made 2**32 + 1
    Trainer._check_updates(wrapped, np.array([2**32 + 1, 5], dtype=np.int64))
    with pytest.raises(RuntimeError, match=r"DPU 1 made 5 updates \(modulo 2\*\*32\) over "
                                           r"the run, expected 6"):
        Trainer._check_updates(wrapped, np.array([2**32 + 1, 6], dtype=np.int64))
