"""The mapping search at scale: a real layer's space (its size, its static rules, refusals
that cost no emulation), each agent's determinism under a seed, PPO learning a planted
optimum, the clustering of planted correlations, worker processes that change nothing,
and ``rl map`` never presenting a penalty as the best (issue 27, item 1)."""

import json
import math

import numpy as np
import pytest

import pyupmem as pim
from rl.__main__ import main
from rl.mapping import (
    PENALTY_SECONDS,
    LayerWorkload,
    MappingEnvironment,
    Parameter,
    Space,
    Workload,
    layer,
    search,
    workload,
)
from rl.mapping.environment import Evaluation, InvalidMapping
from rl.mapping.marl import MARLAgent, cluster_by_average_linkage, parameter_correlation
from rl.mapping.ppo import Policy, advantages


def test_a_layers_space_size_and_static_rules():
    qkv = layer("gpt2-qkv")  # 2,304 x 768 int8, one vector
    sizes = {p.name: len(p.values) for p in qkv.space.parameters}
    assert sizes == {"dpus_m": 22, "dpus_k": 6, "dpus_n": 1, "tasklets": 8, "tile_k": 9,
                     "tile_m": 8, "tile_n": 1, "order": 2, "resident": 2, "acc": 2,
                     "transfer": 3, "per_launch": 1}
    assert qkv.space.size == math.prod(sizes.values()) == 1_824_768
    for name in ("bert-ffn1", "bert-ffn2", "gpt2-qkv", "gpt2-proj", "resnet-1x1",
                 "resnet-3x3", "mlp-int32"):
        assert 10**6 <= layer(name).space.size <= 10**9, name
    ok = qkv.default_mapping()  # the PrIM-like one: rows over DPUs, 16 tasklets
    assert qkv.check(ok) is None and ok["tasklets"] == 16 and ok["dpus_m"] == 2048
    assert "not whole ranks of 64" in qkv.check(dict(ok, dpus_m=40))
    assert "2560" in qkv.check(dict(ok, dpus_m=2048, dpus_k=2))
    assert "whole 2048-byte DMAs" in qkv.check(dict(ok, dpus_m=64, dpus_k=32, tile_k=2048))
    assert "bytes of WRAM" in qkv.check(dict(ok, dpus_m=64, tasklets=24, tile_k=256,
                                              tile_m=16))
    # 24 tasklets' stacks alone take 24 KiB; X resident takes its share once
    assert qkv.wram_bytes(dict(ok, resident="x")) == qkv.wram_bytes(ok) - 16 * 256 + 768
    bert = layer("bert-ffn1")
    gemm = dict(bert.default_mapping(), per_launch=64, tile_n=1, order="output")
    assert "write 4-byte sums" in bert.check(gemm)
    assert bert.check(dict(gemm, tile_n=2)) is None
    assert "whole launches of 3" not in (bert.check(dict(gemm, tile_n=2)) or "")
    assert "whole tiles of 16" in bert.check(dict(gemm, per_launch=8, tile_n=16))
    big = LayerWorkload("big", m=65536, k=2048, n=64)  # 128 MiB of weights per DPU
    assert "over 64 MiB" in big.check(dict(big.default_mapping(), dpus_m=1, dpus_n=64,
                                           per_launch=1))


def test_a_refused_mapping_costs_no_emulation_and_a_valid_one_runs():
    qkv = layer("gpt2-qkv")
    with MappingEnvironment(qkv) as env:
        refused = env.evaluate(dict(qkv.default_mapping(), dpus_m=40))
        assert not refused.valid and not refused.emulated
        assert refused.seconds == PENALTY_SECONDS and env.runs == 0 and env.refused == 1
        ran = env.evaluate(dict(qkv.default_mapping(), dpus_m=64, tile_m=3, order="output",
                                resident="x", acc="int64", transfer="broadcast"))
        assert ran.valid and ran.emulated and env.runs == 1, ran.reason
        assert set(ran.phases) == {pim.CPU_DPU, pim.DPU_KERNEL, pim.DPU_CPU}
    with pytest.raises(ValueError, match="has a fixed shape"):
        workload("gpt2-qkv", rows=3)


class Planted(Workload):
    """A synthetic space of 6 parameters x 6 values (46,656 mappings): the time grows with
    the distance from a planted optimum, a and b must agree (else refused), c and d pull
    together; no emulation, so agents run in milliseconds."""

    name = "planted"
    OPTIMUM = (1, 1, 4, 4, 2, 5)

    def __init__(self):
        super().__init__(Space(tuple(Parameter(n, tuple(range(6))) for n in "abcdef")))

    def check(self, mapping):
        return None if mapping["a"] == mapping["b"] else "a and b differ"

    def run(self, mapping):
        values = [mapping[n] for n in "abcdef"]
        if values[4] == 0:
            raise InvalidMapping("e=0 faults")
        distance = sum(abs(v - o) for v, o in zip(values, self.OPTIMUM, strict=True))
        distance += 2 * abs(values[2] - values[3])  # c and d interact
        return {pim.DPU_KERNEL: 1e-3 * (1 + distance)}


@pytest.mark.parametrize("agent", ["marl", "ppo", "random", "ga", "tpe", "marl-bandit"])
def test_each_agent_is_deterministic_under_a_seed(agent):
    env = MappingEnvironment(Planted())
    one = search(env, agent, budget=40, seed=5)
    two = search(env, agent, budget=40, seed=5)
    assert one.history == two.history and one.best.mapping == two.best.mapping
    assert one.evaluations == 40 and one.refused == two.refused
    assert one.best.valid and one.best.mapping["a"] == one.best.mapping["b"]
    assert one.history == sorted(one.history, reverse=True)


def test_ppo_learns_a_planted_optimum():
    rng = np.random.default_rng(0)
    policy = Policy([5, 5, 5, 5], rng, lr=0.05, entropy=0.0)
    planted = np.array([3, 0, 4, 2])
    for _ in range(150):
        actions = policy.sample(32)
        rewards = -np.abs(actions - planted).sum(axis=1)
        policy.update(actions, advantages(rewards))
    final = policy.sample(200)
    share = float(np.mean((final == planted).all(axis=1)))
    assert share > 0.8, share  # a uniform policy draws it 1 time in 625


def test_the_clustering_finds_planted_correlations():
    space = Space(tuple(Parameter(n, tuple(range(5))) for n in "abcde"))
    rng = np.random.default_rng(1)
    samples = []
    for _ in range(60):
        a, c, e = (int(v) for v in rng.integers(5, size=3))
        b = a if rng.random() < 0.9 else int(rng.integers(5))
        d = 4 - c if rng.random() < 0.9 else int(rng.integers(5))  # anti-correlated
        samples.append(Evaluation(dict(zip("abcde", (a, b, c, d, e), strict=True)), 1.0))
    correlation = parameter_correlation(space, samples)
    assert correlation[0, 1] > 0.7 and correlation[2, 3] < -0.7
    clusters = cluster_by_average_linkage(space.names, correlation, threshold=0.5)
    assert sorted(map(sorted, clusters)) == [["a", "b"], ["c", "d"], ["e"]]
    # the agent finds the planted rule (a = b, else refused) among the mappings that run
    env = MappingEnvironment(Planted())
    agent = MARLAgent(env.space, seed=0, warmup=24)
    search(env, agent, budget=40)
    assert agent.clusters is not None
    assert any({"a", "b"} <= set(cluster) for cluster in agent.clusters), agent.clusters


def test_workers_do_not_change_what_a_seed_finds():
    found = []
    for workers in (1, 2):
        with MappingEnvironment(workload("gpt2-qkv"), workers=workers) as env:
            result = search(env, "random", budget=12, seed=2)
            found.append((result.history, result.best.mapping, env.runs))
    assert found[0] == found[1]
    with pytest.raises(ValueError, match="cannot be copied into worker processes"):
        MappingEnvironment(Planted(), workers=2)


class Hopeless(Workload):
    """Every mapping faults but the default, which the CLI scores after the search."""

    name = "hopeless"

    def __init__(self, default_is_fastest=False):
        super().__init__(Space((Parameter("a", tuple(range(8))),)))
        self.default_is_fastest = default_is_fastest

    def run(self, mapping):
        if mapping["a"] == 0:
            return {pim.DPU_KERNEL: 1e-3}
        if self.default_is_fastest:
            return {pim.DPU_KERNEL: 2e-3 + 1e-4 * mapping["a"]}
        raise InvalidMapping("the DPU faults")

    def default_mapping(self):
        return {"a": 0}


def test_rl_map_never_presents_a_penalty_as_the_best(tmp_path, monkeypatch, capsys):
    import rl.mapping.cli as cli

    monkeypatch.setattr(cli, "workload", lambda name, **shape: Hopeless())
    out = tmp_path / "m.json"
    status = main(["map", "mlp", "--agent", "random", "--budget", "2", "--seed", "3",
                   "--json", str(out)])
    document = json.loads(out.read_text())
    assert document["valid"] is False and document["best_seconds"] is None
    assert document["best_mapping"] is None and document["speedup_over_default"] is None
    assert document["history_seconds"] == [None, None] and document["space_size"] == 8
    assert status == 1
    printed = capsys.readouterr().out
    assert "no valid mapping found" in printed and "10000" not in printed
    assert "faster" not in printed


def test_rl_map_says_when_the_default_beats_the_search(tmp_path, monkeypatch, capsys):
    import rl.mapping.cli as cli

    monkeypatch.setattr(cli, "workload", lambda name, **shape: Hopeless(True))
    out = tmp_path / "m.json"
    assert main(["map", "mlp", "--agent", "random", "--budget", "2", "--seed", "3",
                 "--json", str(out)]) == 0
    document = json.loads(out.read_text())
    assert document["valid"] is True and document["beats_default"] is False
    assert document["speedup_over_default"] < 1
    printed = capsys.readouterr().out
    assert "faster than anything the search found" in printed
    assert "the best is" not in printed
