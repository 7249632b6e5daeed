"""Mapping search: the fastest way to run a DPU program, by the emulator's hardware-time
model, found by decentralised multi-agent RL (or one PPO agent, random search, a genetic
algorithm, Optuna's TPE, bandits, tabular Q-learning or exhaustive search for comparison).

- :mod:`rl.mapping.space`: parameters and their values;
- :mod:`rl.mapping.environment`: scores a mapping (cached, counted; invalid ones penalised
  with their reason);
- :mod:`rl.mapping.workloads`: the built-in workloads and :class:`ProgramWorkload` for a
  user's own program;
- :mod:`rl.mapping.layers`: real DNN layers and their large spaces (10^6 to 10^9
  mappings, with static validity rules);
- :mod:`rl.mapping.agents`: the agents' interface, the small-space agents and
  :func:`search`; :mod:`rl.mapping.marl` the PPO agents (one, or one per cluster),
  :mod:`rl.mapping.ppo` their policy, :mod:`rl.mapping.baselines` the genetic algorithm
  and TPE.
"""

from .agents import (
    AGENTS,
    ExhaustiveAgent,
    MultiAgent,
    RandomAgent,
    SearchResult,
    SingleAgent,
    correlation_clusters,
    make_agent,
    search,
)
from .environment import PENALTY_SECONDS, Evaluation, InvalidMapping, MappingEnvironment, Workload
from .layers import LAYERS, LayerWorkload, layer
from .space import Parameter, Space
from .workloads import BUILTIN, FullyConnected, ProgramWorkload, Streaming, workload

__all__ = [
    "AGENTS",
    "BUILTIN",
    "ExhaustiveAgent",
    "MultiAgent",
    "RandomAgent",
    "SearchResult",
    "SingleAgent",
    "correlation_clusters",
    "make_agent",
    "search",
    "LAYERS",
    "LayerWorkload",
    "layer",
    "PENALTY_SECONDS",
    "Evaluation",
    "FullyConnected",
    "InvalidMapping",
    "MappingEnvironment",
    "Parameter",
    "ProgramWorkload",
    "Space",
    "Streaming",
    "Workload",
    "workload",
]
