"""The mapping search: the space, the environment's cache and penalties, the agents'
determinism under a seed, the exhaustive optimum on a tiny space, the CLI."""

import json

import numpy as np
import pytest

import pyupmem as pim
from rl.__main__ import main
from rl.mapping import (
    PENALTY_SECONDS,
    MappingEnvironment,
    MultiAgent,
    Parameter,
    ProgramWorkload,
    Space,
    Workload,
    correlation_clusters,
    search,
    workload,
)
from rl.mapping.environment import Evaluation, InvalidMapping


class Quadratic(Workload):
    """A tiny synthetic space with a known optimum and a known invalid corner."""

    name = "quadratic"

    def __init__(self):
        super().__init__(Space((Parameter("a", (0, 1, 2, 3)), Parameter("b", (0, 1, 2)),
                                Parameter("c", ("x", "y")))))
        self.runs = 0

    def run(self, mapping):
        self.runs += 1
        if mapping["a"] == 3 and mapping["b"] == 2:
            raise InvalidMapping("a=3 with b=2 does not fit")
        seconds = 1e-3 * (1 + (mapping["a"] - 2) ** 2 + (mapping["b"] - 1) ** 2
                          + (mapping["c"] == "x"))
        return {pim.DPU_KERNEL: seconds}


def test_space_enumerates_checks_and_indexes():
    space = Quadratic().space
    mappings = list(space)
    assert len(mappings) == space.size == 24
    assert mappings[0] == {"a": 0, "b": 0, "c": "x"} and mappings[-1] == {"a": 3, "b": 2, "c": "y"}
    assert space.indices({"a": 2, "b": 1, "c": "y"}) == [2, 1, 1]
    with pytest.raises(ValueError, match="missing \\['c'\\]"):
        space.check({"a": 0, "b": 0})
    with pytest.raises(ValueError, match="a=7 is not one of"):
        space.check({"a": 7, "b": 0, "c": "x"})
    with pytest.raises(ValueError, match="repeats a value"):
        Parameter("d", (1, 1))


def test_environment_caches_counts_and_penalises(tmp_path):
    work = Quadratic()
    cache = tmp_path / "cache.json"
    with MappingEnvironment(work, cache=cache) as env:
        first = env.evaluate({"a": 2, "b": 1, "c": "y"})
        again = env.evaluate({"a": 2, "b": 1, "c": "y"})
        bad = env.evaluate({"a": 3, "b": 2, "c": "y"})
        assert first is again and env.runs == 2 and env.requests == 3 and work.runs == 2
        assert first.valid and first.seconds == pytest.approx(1e-3)
        assert not bad.valid and bad.seconds == PENALTY_SECONDS
        assert bad.reason == "a=3 with b=2 does not fit"
        assert bad.reward < first.reward
    # the file keeps the evaluations: a new environment does not run them again
    again_work = Quadratic()
    with MappingEnvironment(again_work, cache=cache) as env:
        assert env.evaluate({"a": 3, "b": 2, "c": "y"}).reason == "a=3 with b=2 does not fit"
        assert again_work.runs == 0
    cache.write_text("{}")
    with pytest.raises(ValueError, match="cached for another workload"):
        MappingEnvironment(Quadratic(), cache=cache)


def test_exhaustive_search_finds_the_optimum_of_a_tiny_space():
    env = MappingEnvironment(Quadratic())
    result = search(env, "exhaustive")
    assert result.best.mapping == {"a": 2, "b": 1, "c": "y"}
    assert result.evaluations == 24 and len(result.history) == 24
    assert result.history == sorted(result.history, reverse=True)  # the best only improves
    assert result.evaluations_to_within(1e-3) == result.history.index(1e-3) + 1


@pytest.mark.parametrize("agent", ["marl", "single", "random"])
def test_agents_are_deterministic_under_a_seed_and_find_the_optimum(agent):
    env = MappingEnvironment(Quadratic())
    one = search(env, agent, seed=3)
    two = search(env, agent, seed=3)
    other = search(env, agent, seed=4)
    assert one.history == two.history and one.best.mapping == two.best.mapping
    assert one.best.seconds == pytest.approx(1e-3)  # the whole budget reaches the optimum
    assert len(set(map(tuple, [one.history, other.history]))) >= 1
    early = search(env, agent, seed=3, budget=5)
    assert early.evaluations == 5


def test_correlation_clusters_join_parameters_that_move_together():
    space = Space((Parameter("a", (0, 1, 2, 3)), Parameter("b", (0, 1, 2, 3)),
                   Parameter("c", (0, 1, 2, 3))))
    rng = np.random.default_rng(0)
    samples = []
    for _ in range(40):
        a, c = int(rng.integers(4)), int(rng.integers(4))
        b = a if rng.random() < 0.9 else int(rng.integers(4))
        seconds = 1.0 + 0.1 * abs(a - b) + 0.01 * c  # a and b must agree
        samples.append(Evaluation({"a": a, "b": b, "c": c}, seconds))
    clusters = correlation_clusters(space, samples, threshold=0.5)
    assert sorted(map(sorted, clusters)) == [["a", "b"], ["c"]]
    agent = MultiAgent(space, seed=0, warmup=8)
    for evaluation in samples[:8]:
        agent.propose()
        agent.learn(evaluation)
    agent.propose()
    assert agent.clusters is not None and sum(map(len, agent.clusters)) == 3


def test_a_real_workload_scores_and_penalises_with_a_reason():
    layer = workload("mlp", rows=64, cols=256)
    with MappingEnvironment(layer) as env:
        default = env.evaluate(layer.default_mapping())
        assert default.valid and default.seconds > pim.estimate.model.launch_seconds(64)
        assert set(default.phases) == {pim.CPU_DPU, pim.DPU_KERNEL, pim.DPU_CPU}
        idle = env.evaluate(dict(layer.default_mapping(), dpus=128))
        assert not idle.valid and "128 DPUs for 64 rows" in idle.reason
        full = env.evaluate({"dpus": 64, "tasklets": 24, "block": 2048, "split": "cols",
                             "transfer": "parallel"})
        assert not full.valid and "split into 64 slices" in full.reason
        wram = env.evaluate({"dpus": 64, "tasklets": 24, "block": 256, "split": "rows",
                             "transfer": "parallel"})
        assert wram.valid  # 24 tasklets with 256-byte blocks fit WRAM
        serial = env.evaluate(dict(layer.default_mapping(), transfer="serial"))
        assert serial.phases[pim.DPU_CPU] > default.phases[pim.DPU_CPU]
    big = workload("mlp", rows=64, cols=8192)
    with MappingEnvironment(big) as env:
        faulting = env.evaluate({"dpus": 64, "tasklets": 24, "block": 2048, "split": "rows",
                                 "transfer": "parallel"})
        assert not faulting.valid and "WRAM" in faulting.reason
    with pytest.raises(ValueError, match="unknown workload 'conv'"):
        workload("conv")


def test_a_users_own_program(tmp_path):
    source = tmp_path / "scale.c"
    source.write_text(
        "#include <defs.h>\n#include <mram.h>\n#include <stdint.h>\n"
        "__host uint32_t n; __host uint32_t out[NR_TASKLETS];\n"
        "int main(void) { uint32_t s = 0; for (uint32_t i = me(); i < n * FACTOR; "
        "i += NR_TASKLETS) s += i; out[me()] = s; return 0; }\n"
    )
    space = Space((Parameter("dpus", (1, 2)), Parameter("tasklets", (1, 4)),
                   Parameter("factor", (1, 8))))

    def host(dpus, mapping):
        dpus.broadcast("n", np.uint32(1000))
        dpus.launch()
        dpus.gather("out", np.uint32, mapping["tasklets"])

    work = ProgramWorkload("scale", source, space, host,
                           default={"dpus": 1, "tasklets": 1, "factor": 8})
    with MappingEnvironment(work) as env:
        result = search(env, "exhaustive")
        assert result.best.mapping["factor"] == 1 and result.best.mapping["tasklets"] == 4
        assert env.evaluate(work.default_mapping()).seconds > result.best.seconds


def test_the_map_command_writes_its_json(tmp_path, capsys):
    out = tmp_path / "map.json"
    status = main(["map", "red", "--elements", "65536", "--agent", "random", "--budget", "6",
                   "--seed", "1", "--json", str(out)])
    assert status == 0
    document = json.loads(out.read_text())
    assert document["evaluations"] == 6 and len(document["history_seconds"]) == 6
    assert document["best_seconds"] == min(document["history_seconds"])
    assert set(document["best_mapping"]) == {"dpus", "tasklets", "block", "transfer"}
    printed = capsys.readouterr().out
    assert "best (random, 6 evaluations)" in printed and "faster" in printed
    assert main(["map", "red", "--rows", "3"]) == 2
    assert "--rows does not apply to workload red" in capsys.readouterr().err
