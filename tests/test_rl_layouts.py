"""Layouts: the split formula, each layout's visit order, and full coverage."""

import numpy as np
import pytest

from rl.layouts import LAYOUTS, dpu_shares, learner_indices, local_indices, split


def test_split_formula_and_examples():
    assert [split(10, 3, i) for i in range(3)] == [(0, 4), (4, 3), (7, 3)]
    assert [split(2, 4, i) for i in range(4)] == [(0, 1), (1, 1), (2, 0), (2, 0)]
    for n in range(0, 40):
        for k in range(1, 9):
            parts = [split(n, k, i) for i in range(k)]
            assert sum(c for _, c in parts) == n
            # contiguous and in order
            assert all(parts[i][0] + parts[i][1] == parts[i + 1][0] for i in range(k - 1))
            assert max(c for _, c in parts) - min(c for _, c in parts) <= 1


def test_dpu_shares():
    assert dpu_shares(10, 4) == [(0, 3), (3, 3), (6, 2), (8, 2)]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", [0, 1, 5, 97, 1000, 1031])
@pytest.mark.parametrize("d,t", [(1, 1), (1, 3), (4, 1), (4, 16), (3, 7)])
def test_every_transition_visited_exactly_once(layout, n, d, t):
    seqs = learner_indices(layout, n, d, t, chunk=8, seed=3)
    assert len(seqs) == d * t
    allidx = np.concatenate(seqs) if seqs else np.array([], dtype=np.int64)
    assert np.array_equal(np.sort(allidx), np.arange(n))


@pytest.mark.parametrize("n", [100, 103])
def test_block_is_contiguous_per_tasklet_within_dpu_share(n):
    d, t = 4, 3
    seqs = learner_indices("block", n, d, t)
    for dpu in range(d):
        start, count = split(n, d, dpu)
        for k in range(t):
            s, c = split(count, t, k)
            assert np.array_equal(seqs[dpu * t + k], np.arange(start + s, start + s + c))


def test_stride_formula():
    # DPU share of 21 transitions, chunks of 4, 2 tasklets:
    # chunks 0..5 (last holds 1); tasklet 0: chunks 0, 2, 4; tasklet 1: 1, 3, 5
    t0 = local_indices("stride", 21, 2, 0, chunk=4)
    t1 = local_indices("stride", 21, 2, 1, chunk=4)
    assert t0.tolist() == [0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19]
    assert t1.tolist() == [4, 5, 6, 7, 12, 13, 14, 15, 20]
    # global indices: offset by each DPU's start
    seqs = learner_indices("stride", 43, 2, 2, chunk=4)
    assert seqs[2].tolist() == [22 + i for i in t0.tolist()]  # DPU 1 starts at 22
    # and the chunk rule directly
    for n in (50, 64, 65):
        for k in range(3):
            idx = local_indices("stride", n, 3, k, chunk=5)
            assert all((i // 5) % 3 == k for i in idx)
            assert np.all(np.diff(idx) > 0)


def test_random_is_block_of_a_seeded_permutation():
    n, seed = 101, 7
    perm = np.random.default_rng(seed).permutation(n)
    rnd = learner_indices("random", n, 2, 3, seed=seed)
    blk = learner_indices("block", n, 2, 3)
    for r, b in zip(rnd, blk, strict=True):
        assert np.array_equal(r, perm[b])
    assert not np.array_equal(np.concatenate(rnd), np.arange(n))


def test_bad_layout_arguments():
    with pytest.raises(ValueError, match="n_dpus=0"):
        learner_indices("block", 10, 0, 1)
    with pytest.raises(ValueError, match="n_tasklets=0"):
        learner_indices("block", 10, 1, 0)
    with pytest.raises(ValueError, match="chunk=0"):
        learner_indices("stride", 10, 1, 1, chunk=0)
    with pytest.raises(ValueError, match="unknown layout 'diagonal'.*block, stride, random"):
        learner_indices("diagonal", 10, 1, 1)
