"""Reinforcement learning on DPUs: collect a dataset, train Q-learning and SARSA on DPUs,
FP32 against INT32, block against stride, and evaluate against the optimal policy.

Run it from the repository root (about 15 seconds on the emulator)::

    .venv/bin/python docs/tutorials/rl_on_dpus.py
"""

# The imports come with the section of the tutorial that first needs them.
# ruff: noqa: E402

# [start-collect]
import numpy as np

from rl import datasets, evaluation

data = datasets.collect("FrozenLake-v1", 500_000, seed=0)  # uniformly random actions
print(f"{len(data):,} transitions of {data.env_id}:", end=" ")
print(f"{data.n_states} states x {data.n_actions} actions")
print("first transitions (s, a, r, s', terminal):")
for i in range(3):
    s, a, r = data.state[i], data.action[i], data.reward[i]
    print(" ", s, a, r, data.next_state[i], data.terminal[i])
goals = int(((data.reward > 0) & (data.terminal == 1)).sum())
print(f"episodes that reached the goal: {goals:,}")
# [end-collect]

# [start-save]
import tempfile
from pathlib import Path

with tempfile.TemporaryDirectory() as folder:
    path = data.save(Path(folder) / "frozenlake.npz")
    again = datasets.load(path)
    same = np.array_equal(again.state, data.state)
    print("saved and loaded:", len(again), "transitions, same:", same)
# [end-save]

# [start-train]
from rl.trainer import Trainer

trainer = Trainer(
    algorithm="qlearning",
    fmt="fp32",
    layout="block",
    nr_dpus=64,
    nr_tasklets=16,
    epochs=40,
    progress=False,
)
result = trainer.train(data)
print(f"{len(result.tables)} learners; tables in {result.tables_in.upper()}")
print(f"{result.updates:,} updates in {result.seconds:.2f} s")
print(result.breakdown())
# [end-train]

# [start-evaluate]
optimal = evaluation.value_iteration("FrozenLake-v1", gamma=0.99)
comparison = evaluation.compare_to_optimal("FrozenLake-v1", result.table, episodes=1000)
learned, best = comparison.learned.success_rate, comparison.optimal.success_rate
print(f"greedy policy: success {learned:.1%}, optimal policy: {best:.1%}", end=" ")
print(f"({comparison.success_fraction:.0%} of optimal)")
agreement = comparison.policy_agreement
print(f"same action as the optimal policy in {agreement:.0%} of the states")
v_start = float(optimal.values[0])
q_start = float(result.q_values()[0].max())
print(f"V*(start) = {v_start:.4f}  max Q(start) = {q_start:.4f}")
# [end-evaluate]

# [start-variants]
rows = []
sizes = dict(nr_dpus=64, nr_tasklets=16, epochs=40, progress=False)
for algorithm in ("qlearning", "sarsa"):
    for fmt in ("fp32", "int32"):
        for layout in ("block", "stride"):
            trainer = Trainer(algorithm=algorithm, fmt=fmt, layout=layout, **sizes)
            run = trainer.train(data)
            rate = evaluation.compare_to_optimal("FrozenLake-v1", run.table, 1000)
            rows.append((algorithm, fmt, layout, run.q_values()))
            kernel_ms = run.timer.stats()["DPU kernel"].mean * 1e3
            print(f"{algorithm:9s} {fmt:5s} {layout:6s}", end="  ")
            print(f"{rate.success_fraction:6.1%} of optimal  kernel {kernel_ms:6.1f} ms")
# [end-variants]

# [start-fp32-int32]
q_fp32, q_int32 = rows[0][3], rows[2][3]  # Q-learning, block layout: FP32 and INT32
print(f"largest |Q_fp32 - Q_int32|: {np.abs(q_fp32 - q_int32).max():.5f}")
same = np.array_equal(evaluation.greedy_policy(q_fp32), evaluation.greedy_policy(q_int32))
print("same greedy policy:", same)
# [end-fp32-int32]

# [start-exact]
from rl.baseline import train_baseline
from rl.reference import train_reference
from rl.trainer import train_dpu

small = data.select(slice(0, 20_000))
settings = dict(
    algorithm="sarsa",
    fmt="int32",
    layout="stride",
    n_dpus=4,
    n_tasklets=8,
    epochs=3,
    sync_every=1,
    combine="weighted",
    seed=7,
)
on_dpus = train_dpu(small, **settings)
in_python = train_reference(small, **settings)
in_numpy = train_baseline(small, **settings)
print("DPUs == reference:", np.array_equal(on_dpus.table, in_python.table), end="   ")
print("DPUs == numpy baseline:", np.array_equal(on_dpus.tables, in_numpy.tables))
# [end-exact]
