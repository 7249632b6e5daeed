"""Evaluation: value iteration's optimal values and policies, rollouts, comparison."""

import numpy as np
import pytest

from rl.evaluation import compare_to_optimal, evaluate_policy, greedy_policy, value_iteration


def test_greedy_policy_lowest_index_on_ties():
    t = np.array([[0.0, 0.0], [1.0, 2.0], [3.0, 3.0]])
    assert greedy_policy(t).tolist() == [0, 1, 0]
    assert greedy_policy(np.array([[5, 7, 7]], dtype=np.int32)).tolist() == [1]


def test_frozenlake_optimal_values_and_success():
    vi = value_iteration("FrozenLake-v1", gamma=0.99)
    assert 0.53 < vi.values[0] < 0.55  # the known V*(start) at gamma 0.99 is ~0.542
    assert vi.values[15] == 0 and vi.values[5] == 0  # goal and holes are absorbing
    res = evaluate_policy("FrozenLake-v1", vi.policy, episodes=2000, seed=0)
    assert 0.70 < res.success_rate < 0.79  # optimum ~0.74
    assert res.mean_return == res.success_rate


def test_taxi_and_cliffwalking_optimal_policies_always_succeed():
    taxi = value_iteration("Taxi-v3", gamma=0.99)
    res = evaluate_policy("Taxi-v3", taxi.policy, episodes=200, seed=1)
    assert res.success_rate == 1.0 and 7 < res.mean_return < 10  # optimum ~8.46
    cliff = value_iteration("CliffWalking-v0", gamma=0.99)
    res = evaluate_policy("CliffWalking-v0", cliff.policy, episodes=5)
    assert res.success_rate == 1.0 and res.mean_return == -13.0


def test_compare_to_optimal():
    # a table that is the optimal Q itself matches the optimum on the same seeds
    vi = value_iteration("FrozenLake-v1", gamma=0.99)
    cmp = compare_to_optimal("FrozenLake-v1", vi.q_values.astype(np.float32), episodes=300)
    assert cmp.success_fraction == 1.0 and cmp.return_gap == 0 and cmp.policy_agreement == 1
    # a zero table (always action 0, "left") almost never succeeds
    cmp = compare_to_optimal("FrozenLake-v1", np.zeros((16, 4), np.int32), episodes=300)
    assert cmp.success_fraction < 0.2
    # CliffWalking has no TimeLimit: evaluation caps episodes, so a stuck policy ends
    res = evaluate_policy("CliffWalking-v0", np.zeros(48, np.int64), episodes=2)
    assert res.success_rate == 0 and res.mean_length == 1000


def test_bad_evaluation_inputs():
    with pytest.raises(ValueError, match="unknown environment"):
        value_iteration("MountainCar-v0")
    with pytest.raises(ValueError, match=r"shape \(16,\)"):
        evaluate_policy("FrozenLake-v1", np.zeros(10, np.int64))
    with pytest.raises(ValueError, match="does not fit"):
        compare_to_optimal("FrozenLake-v1", np.zeros((16, 3)))
    with pytest.raises(ValueError, match="gamma"):
        value_iteration("FrozenLake-v1", gamma=1.0)
