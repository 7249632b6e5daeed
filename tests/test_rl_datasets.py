"""Datasets: collection (vectorised model sampler vs the real env), files, SwiftRL text."""


import numpy as np
import pytest

from rl.datasets import Dataset, collect, load, load_swiftrl_text
from rl.envs import KNOWN_ENVS, resolve_env_id, tabular_model


def _joint_counts(ds: Dataset) -> np.ndarray:
    key = (ds.state.astype(np.int64) * ds.n_actions + ds.action) * ds.n_states + ds.next_state
    return np.bincount(key, minlength=ds.n_states * ds.n_actions * ds.n_states)


def _chi2_same(c1: np.ndarray, c2: np.ndarray) -> bool:
    """Two-sample chi-square homogeneity test, generous threshold (p << 1e-4)."""
    keep = (c1 + c2) >= 5
    c1, c2 = c1[keep].astype(float), c2[keep].astype(float)
    n1, n2 = c1.sum(), c2.sum()
    tot = c1 + c2
    e1, e2 = tot * n1 / (n1 + n2), tot * n2 / (n1 + n2)
    chi2 = (((c1 - e1) ** 2) / e1 + ((c2 - e2) ** 2) / e2).sum()
    df = keep.sum() - 1
    return chi2 < df + 6 * np.sqrt(2 * df)


@pytest.mark.parametrize("env_id", KNOWN_ENVS)
def test_collect_shapes_and_validity(env_id):
    ds = collect(env_id, 5000, seed=1)
    assert len(ds) == 5000 and ds.env_id == env_id
    for name in ("state", "action", "reward", "next_state", "terminal"):
        assert getattr(ds, name).dtype == np.int32
    ds.validate()
    assert ds.reward_scale == 1
    m = tabular_model(env_id)
    assert (ds.n_states, ds.n_actions) == (m.n_states, m.n_actions)
    # deterministic per seed
    again = collect(env_id, 5000, seed=1)
    assert np.array_equal(ds.next_state, again.next_state)


def test_model_sampler_matches_real_env_statistically():
    n = 20000
    model = collect("FrozenLake-v1", n, seed=11, method="model")
    env = collect("FrozenLake-v1", n, seed=12, method="env")
    assert _chi2_same(_joint_counts(model), _joint_counts(env))
    assert abs(model.terminal.mean() - env.terminal.mean()) < 0.015
    # the test has power: a different behaviour policy is told apart
    biased = np.full((16, 4), 0.1)
    biased[:, 2] = 0.7
    other = collect("FrozenLake-v1", n, seed=13, policy=biased)
    assert not _chi2_same(_joint_counts(model), _joint_counts(other))


@pytest.mark.parametrize("method", ["model", "env"])
def test_time_limit_truncates_without_terminal(method):
    extra = {"n_streams": 1} if method == "model" else {}
    ds = collect("Taxi-v3", 3000, seed=2, method=method, **extra)
    m = tabular_model("Taxi-v3")
    # episode boundaries: next_state[i] is not where step i+1 starts
    since_reset = 0
    truncations = 0
    for i in range(len(ds) - 1):
        since_reset += 1
        if ds.terminal[i]:
            since_reset = 0
        elif since_reset == m.max_episode_steps:
            truncations += 1
            assert m.initial[ds.state[i + 1]] > 0
            since_reset = 0
        else:
            assert ds.next_state[i] == ds.state[i + 1]
    assert truncations >= 10  # a random Taxi policy rarely delivers within 200 steps


def test_collect_is_vectorised(monkeypatch):
    # Counted, not timed: the model sampler draws a whole batch of streams per Python-level
    # step and never steps a gymnasium environment, so a million transitions take a
    # thousand steps whatever the machine's speed or load.
    import rl.datasets as datasets

    steps = []
    draw = datasets._draw_actions
    monkeypatch.setattr(datasets, "_draw_actions", lambda *a: steps.append(1) or draw(*a))
    monkeypatch.setattr(datasets, "make_env", lambda *a, **k: pytest.fail("stepped gymnasium"))
    ds = collect("FrozenLake-v1", 1_000_000, seed=0)
    assert len(ds) == 1_000_000
    assert len(steps) <= 1_000_000 // 1000 + 1


def test_save_load_round_trip(tmp_path):
    ds = collect("Taxi-v3", 3001, seed=5)
    path = ds.save(tmp_path / "taxi")
    assert path.suffix == ".npz"
    back = load(path)
    assert back.env_id == ds.env_id and back.reward_scale == ds.reward_scale
    assert (back.n_states, back.n_actions) == (ds.n_states, ds.n_actions)
    for name in ("state", "action", "reward", "next_state", "terminal"):
        assert np.array_equal(getattr(back, name), getattr(ds, name))
        assert getattr(back, name).dtype == np.int32
    assert Dataset.load(path).n_transitions == 3001


def test_load_rejects_foreign_npz(tmp_path):
    np.savez(tmp_path / "x.npz", a=np.zeros(3))
    with pytest.raises(ValueError, match="not an rl dataset"):
        load(tmp_path / "x.npz")


@pytest.mark.parametrize("env_id", ["FrozenLake-v1", "Taxi-v3", "CliffWalking-v0"])
def test_swiftrl_text_round_trip_recovers_terminal_flags(tmp_path, env_id):
    ds = collect(env_id, 4000, seed=3)
    assert ds.terminal.sum() > 0 or env_id != "FrozenLake-v1"
    path = ds.save_swiftrl_text(tmp_path / "d.txt")
    back = load_swiftrl_text(path, env_id=env_id)
    for name in ("state", "action", "reward", "next_state", "terminal"):
        assert np.array_equal(getattr(back, name), getattr(ds, name)), name
    # without the env: no terminal flags, table size from the data
    plain = load_swiftrl_text(path)
    assert plain.env_id is None and plain.terminal.sum() == 0
    assert plain.n_states == max(ds.state.max(), ds.next_state.max()) + 1


def test_swiftrl_text_fractional_rewards(tmp_path):
    p = tmp_path / "f.txt"
    p.write_text("# comment\n0 1 0.5 2\n\n2 0 -1.25 3\n3 1 1e-5 0\n")
    ds = load_swiftrl_text(p, n_states=5)
    assert ds.reward_scale == 65536
    assert ds.reward.tolist() == [32768, -81920, round(1e-5 * 65536)]
    assert (ds.n_states, ds.n_actions) == (5, 2)
    ds.save_swiftrl_text(tmp_path / "g.txt")
    again = load_swiftrl_text(tmp_path / "g.txt", n_states=5)
    assert np.array_equal(again.reward, ds.reward)


def test_swiftrl_text_errors(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text("0 1 0 4\n0 1 0\n")
    with pytest.raises(ValueError, match=r"bad.txt:2: expected 4 fields"):
        load_swiftrl_text(p)
    p.write_text("0 1 0 4\n0 x 0 1\n")
    with pytest.raises(ValueError, match="not a number"):
        load_swiftrl_text(p)
    p.write_text("0 1 0 15\n")  # FrozenLake 4x4 cannot jump from 0 to 15
    with pytest.raises(ValueError, match="not a transition FrozenLake-v1 can make"):
        load_swiftrl_text(p, env_id="FrozenLake-v1")
    with pytest.raises(ValueError, match="unknown environment 'Pong-v5'.*FrozenLake-v1"):
        load_swiftrl_text(p, env_id="Pong-v5")
    with pytest.raises(ValueError, match="n_states=20 contradicts"):
        load_swiftrl_text(p, env_id="FrozenLake-v1", n_states=20)
    with pytest.raises(ValueError, match="outside the table"):
        load_swiftrl_text(p, n_states=10)


def test_bad_datasets_and_envs():
    with pytest.raises(ValueError, match="unknown environment 'Pong-v5'.*Taxi-v3"):
        collect("Pong-v5", 10)
    ds = Dataset(None, 4, 2, 1, [0, 3], [1, 2], [0, 1], [1, 3], [0, 1])
    with pytest.raises(ValueError, match="action=2, outside the table"):
        ds.validate()
    with pytest.raises(ValueError, match="differ in length"):
        Dataset(None, 4, 2, 1, [0], [1, 1], [0], [1], [0])
    with pytest.raises(ValueError, match="unknown behaviour policy"):
        collect("FrozenLake-v1", 10, policy="greedy")


def test_env_aliases():
    assert resolve_env_id("Taxi-v3") in ("Taxi-v3", "Taxi-v4")
    assert resolve_env_id("CliffWalking-v0") in ("CliffWalking-v0", "CliffWalking-v1")
    assert collect("Taxi-v4", 10).env_id == "Taxi-v3"
