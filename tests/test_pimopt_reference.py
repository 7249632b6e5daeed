"""The CPU reference equals the DPUs bit for bit, for every algorithm x model x format,
with the vectors in WRAM and in MRAM; and combine() has its documented order."""

from __future__ import annotations

import numpy as np
import pytest

from pimopt import algorithms as alg
from pimopt import data, fixed_point, kernel, reference
from pimopt.trainer import RANK_DPUS, Trainer, combine


@pytest.mark.parametrize("fmt", alg.FORMATS)
@pytest.mark.parametrize("model", alg.MODELS)
@pytest.mark.parametrize("algorithm", alg.ALGORITHMS)
@pytest.mark.parametrize("shape", [(130, 19, 3, 4, True), (90, 301, 2, 16, False)])
def test_reference_is_bit_exact(algorithm, model, fmt, shape):
    n, f, dpus, tasklets, wram = shape
    ds = data.dense(n, f, seed=7)
    settings = dict(model=model, algorithm=algorithm, fmt=fmt, epochs=2, batch=7, lr=0.2,
                    schedule="inverse", lam=0.01, rho=0.3, local_steps=3)
    r = Trainer(nr_dpus=dpus, nr_tasklets=tasklets, **settings).train(ds)
    assert r.wram is wram
    ref = reference.train_reference(
        ds, alg.make_config(n_dpus=dpus, n_tasklets=tasklets, **settings))
    assert r.raw.dtype == ref.dtype
    assert np.any(ref != 0)  # the model moved
    np.testing.assert_array_equal(r.raw.view(np.uint32), ref.view(np.uint32))
    assert len(r.history) == 2


def test_reference_detects_a_changed_rule():
    """A reference with a different rounding would not match: the check can fail."""
    ds = data.dense(60, 9, seed=1)
    c = alg.make_config(model="lr", algorithm="ga-sgd", fmt="int32", n_dpus=2,
                        n_tasklets=2, epochs=1, batch=5)
    good = reference.train_reference(ds, c)
    r = Trainer(model="lr", algorithm="ga-sgd", fmt="int32", nr_dpus=2, nr_tasklets=2,
                epochs=1, batch=5).train(ds)
    np.testing.assert_array_equal(r.raw, good)
    changed = alg.make_config(**{**c.__dict__, "lr": 0.1 + 1e-3})
    assert not np.array_equal(reference.train_reference(ds, changed), r.raw)


def test_combine_order_is_rank_blocks_then_blocks():
    rng = np.random.default_rng(0)
    p = (rng.standard_normal((150, 5)) * 10.0 ** rng.integers(-6, 7, (150, 5))).astype(
        np.float32)
    expected = []
    for i in range(0, 150, RANK_DPUS):
        s = p[i]
        for row in p[i + 1:i + RANK_DPUS]:
            s = (s + row).astype(np.float32)
        expected.append(s)
    total = expected[0]
    for s in expected[1:]:
        total = (total + s).astype(np.float32)
    got = combine(p)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, total)
    # a plain left-to-right sum over all DPUs differs in FP32: the order matters
    flat = p[0]
    for row in p[1:]:
        flat = (flat + row).astype(np.float32)
    assert not np.array_equal(flat, got)
    ints = rng.integers(-2**31, 2**31, (130, 4)).astype(np.int32)
    np.testing.assert_array_equal(combine(ints), ints.astype(np.int64).sum(axis=0))


def test_fixed_point_rules():
    x = np.array([-2**31, -1, 0, 1, 12345, 2**31 - 1], dtype=np.int64)
    for c in (-32767, -1, 0, 1, 32767):
        exact = np.floor(x * c / 2**15 + 0.5)
        np.testing.assert_array_equal(fixed_point.mul15(x, c), exact)
    assert fixed_point.scaled_coefficient(0.1) == (26214, 3)  # 0.1 * 2**18 = 26214.4
    with pytest.raises(ValueError, match="outside"):
        fixed_point.scaled_coefficient(1.0, "rho")
    np.testing.assert_array_equal(fixed_point.trunc_div(np.array([-7, 7]), 2), [-3, 3])
    d = np.linspace(-9, 9, 101)
    approx = fixed_point.sigmoid_q(np.rint(d * 8192).astype(np.int64)) / 65536
    assert np.abs(approx - 1 / (1 + np.exp(-d))).max() < 1e-3
    f = fixed_point.sigmoid_f32(d.astype(np.float32))
    assert np.abs(f - 1 / (1 + np.exp(-d))).max() < 1e-3


@pytest.mark.parametrize("fmt", alg.FORMATS)
@pytest.mark.parametrize(("n", "f", "tasklets", "wram"), [
    (300, 3, 2, True),    # rows of 16 bytes: blocks of 32 rows (the cap), then the rest
    (400, 59, 20, False),  # MRAM placement: 2 rows of 240 bytes fill the x buffer
    (120, 700, 3, True),  # rows longer than the block: chunk by chunk
])
def test_reference_is_bit_exact_when_rows_come_in_blocks(fmt, n, f, tasklets, wram):
    # many samples per tasklet per step, so that a tasklet reads several blocks of rows
    ds = data.dense(n, f, seed=3)
    settings = dict(model="lr", algorithm="ma-sgd", fmt=fmt, epochs=2, batch=90, lr=0.2,
                    lam=0.01, local_steps=0)
    r = Trainer(nr_dpus=2, nr_tasklets=tasklets, **settings).train(ds)
    assert r.wram is wram
    ref = reference.train_reference(
        ds, alg.make_config(n_dpus=2, n_tasklets=tasklets, **settings))
    assert np.any(ref != 0)
    np.testing.assert_array_equal(r.raw.view(np.uint32), ref.view(np.uint32))


@pytest.mark.parametrize(("count", "batch", "tasklets"),
                         [(0, 4, 3), (10, 4, 3), (37, 5, 16), (100, 16, 16), (70, 32, 5)])
def test_sample_order_puts_each_tasklets_steps_together(count, batch, tasklets):
    # the plain definition: tasklet by tasklet, step by step, its contiguous part
    want = []
    steps = alg.steps_per_epoch(count, batch)
    for t in range(tasklets):
        for k in range(steps):
            lo = k * batch
            c = alg.step_count(count, k, batch)
            share, extra = divmod(c, tasklets)
            begin = lo + t * share + min(t, extra)
            want += range(begin, begin + share + (t < extra))
    assert kernel.sample_order(count, batch, tasklets).tolist() == want


@pytest.mark.parametrize("fmt", alg.FORMATS)
@pytest.mark.parametrize(("algorithm", "n", "dpus", "batch", "tasklets", "wram"), [
    ("ma-sgd", 500, 3, 16, 16, True),  # one sample a tasklet a step: blocks span 4 steps
    ("ga-sgd", 203, 2, 21, 8, True),   # a short last step, launches that start mid-epoch
    ("admm", 130, 5, 3, 4, True),      # fewer samples than tasklets in a step
    ("ma-sgd", 61, 70, 2, 2, True),    # DPUs without samples
    ("admm", 400, 2, 40, 20, False),   # MRAM placement: rows re-read after every update
])
def test_reference_is_bit_exact_when_blocks_span_steps(fmt, algorithm, n, dpus, batch,
                                                        tasklets, wram):
    ds = data.dense(n, 24, seed=5)
    settings = dict(model="lr", algorithm=algorithm, fmt=fmt, epochs=2, batch=batch, lr=0.2,
                    lam=0.01, rho=0.2, local_steps=5)
    r = Trainer(nr_dpus=dpus, nr_tasklets=tasklets, **settings).train(ds)
    assert r.wram is wram
    ref = reference.train_reference(
        ds, alg.make_config(n_dpus=dpus, n_tasklets=tasklets, **settings))
    assert np.any(ref != 0)
    np.testing.assert_array_equal(r.raw.view(np.uint32), ref.view(np.uint32))
