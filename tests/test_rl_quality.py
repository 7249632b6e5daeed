"""Many learners with the default (pooled) combine learn at least as well as one learner
on the same data and epochs (the cases that run in seconds)."""

from __future__ import annotations

import pytest

from rl import evaluation
from rl.datasets import collect
from rl.trainer import Trainer


@pytest.mark.parametrize("fmt", ["fp32", "int32"])
def test_pooled_learners_match_one_learner_on_taxi(fmt):
    ds = collect("Taxi-v3", 100_000, seed=0)

    def mean_return(**shape) -> float:
        result = Trainer(fmt=fmt, progress=False, **shape).train(ds)
        return evaluation.compare_to_optimal("Taxi-v3", result.table, 50, 0).learned.mean_return

    one = mean_return(nr_dpus=1, nr_tasklets=1)
    assert mean_return(nr_dpus=16, nr_tasklets=16) >= one - 0.2  # 256 learners
    assert mean_return(nr_dpus=4, nr_tasklets=4, layout="random") >= one - 0.2
    # the old default loses: a count-weighted mean shrinks every step
    assert mean_return(nr_dpus=16, nr_tasklets=16, combine="weighted") < one - 1.0
