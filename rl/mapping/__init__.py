"""Mapping search: the fastest way to run a DPU program, by the emulator's hardware-time
model, found by decentralised multi-agent RL (or single-agent RL, random or exhaustive
search for comparison).

- :mod:`rl.mapping.space`: parameters and their values;
- :mod:`rl.mapping.environment`: scores a mapping (cached, counted; invalid ones penalised
  with their reason);
- :mod:`rl.mapping.workloads`: the built-in workloads and :class:`ProgramWorkload` for a
  user's own program;
- :mod:`rl.mapping.agents`: the agents and :func:`search`.
"""

from .agents import (
    AGENTS,
    ExhaustiveAgent,
    MultiAgent,
    RandomAgent,
    SearchResult,
    SingleAgent,
    correlation_clusters,
    search,
)
from .environment import PENALTY_SECONDS, Evaluation, InvalidMapping, MappingEnvironment, Workload
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
    "search",
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
