"""Policy-gradient agents for large mapping spaces: one PPO agent over the whole space
(``ppo``, the paper's baseline), and the decentralised multi-agent search of Krishnan et
al. (arXiv 2507.16249, ``marl``): parameters are clustered by how they correlate, and
each cluster is one PPO agent that chooses its parameters; all learn from the shared
reward of the mapping they chose together.

Both propose a batch of :data:`BATCH` mappings, then learn from the batch (PPO's update),
so what they find does not depend on how many processes score the batch. A mapping the
static rules refuse is free and still teaches the agents (its penalty). A batch is drawn
from :data:`CANDIDATES` times as many samples of the policy (up to :data:`DRAWS` such
draws while too few are new), mappings not proposed before first: a policy that has
settled on a mapping then proposes its nearest alternatives instead of repeating it
(sampling without replacement, as far as the draws allow).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from .agents import Agent, RandomAgent
from .environment import Evaluation
from .ppo import Policy, advantages
from .space import Space

BATCH = 16
"""Mappings an agent proposes before it learns (PPO's batch)."""
CANDIDATES = 4
"""Samples of the policy drawn per mapping of a batch (see the module)."""


DRAWS = 4
"""Draws of candidates at most per batch, while too few of them are fresh."""


def _fresh_first(draw: Callable[[int], np.ndarray], proposed: set[tuple[int, ...]],
                 count: int) -> np.ndarray:
    """``count`` rows drawn from the policy (``draw(n)`` gives ``n``): those not in
    ``proposed`` (nor twice) first, in their order, then repeats; up to :data:`DRAWS`
    draws of ``CANDIDATES * count`` while fewer than ``count`` are fresh. ``proposed``
    takes the fresh ones."""
    fresh, stale = [], []
    for _ in range(DRAWS):
        for row in draw(CANDIDATES * count):
            key = tuple(int(v) for v in row)
            (stale if key in proposed else fresh).append(row)
            proposed.add(key)
        if len(fresh) >= count:
            break
    return np.array((fresh + stale)[:count])


class PPOAgent(Agent):
    """One PPO agent that chooses every parameter of the space, one after the other
    (:class:`~rl.mapping.ppo.Policy`)."""

    batch_size = BATCH

    def __init__(self, space: Space, seed: int = 0, **policy: Any):
        super().__init__(space, seed)
        self.policy = Policy([len(p.values) for p in space.parameters], self.rng, **policy)
        self._proposed: set[tuple[int, ...]] = set()

    def propose_batch(self) -> list[dict[str, Any]]:
        rows = _fresh_first(self.policy.sample, self._proposed, self.batch_size)
        return [self.space.from_indices(row) for row in rows]

    def learn_batch(self, evaluations: list[Evaluation]) -> None:
        if not evaluations:
            return
        actions = np.array([self.space.indices(e.mapping) for e in evaluations])
        self.policy.update(actions, advantages([e.reward for e in evaluations]))


def cluster_by_average_linkage(names: list[str], correlation: np.ndarray,
                               threshold: float) -> list[list[str]]:
    """Clusters of parameters: merged while two clusters' mean absolute correlation is
    above ``threshold`` (average linkage, which a single spurious correlation does not
    chain as single linkage does)."""
    clusters = [[i] for i in range(len(names))]
    strength = np.abs(np.nan_to_num(correlation))
    while len(clusters) > 1:
        best, pair = threshold, None
        for a, b in itertools.combinations(range(len(clusters)), 2):
            link = float(strength[np.ix_(clusters[a], clusters[b])].mean())
            if link > best:
                best, pair = link, (a, b)
        if pair is None:
            break
        a, b = pair
        clusters[a] = sorted(clusters[a] + clusters[b])
        del clusters[b]
    return [[names[i] for i in cluster] for cluster in clusters]


def parameter_correlation(space: Space, samples: list[Evaluation]) -> np.ndarray:
    """The correlation of the parameters' value indices over ``samples`` (zero for a
    parameter that does not vary)."""
    matrix = np.array([space.indices(e.mapping) for e in samples], dtype=float)
    spread = matrix.std(axis=0)
    centred = (matrix - matrix.mean(axis=0)) / np.where(spread == 0, 1, spread)
    correlation = centred.T @ centred / max(1, len(samples))
    correlation[:, spread == 0] = 0
    correlation[spread == 0, :] = 0
    return correlation


class MARLAgent(Agent):
    """Decentralised multi-agent PPO over clusters of correlated parameters.

    A warm-up of random mappings (``warmup`` of them run on the emulator; those the
    static rules refuse come free) gives the correlation of the parameters among the
    mappings that run, the better half of them once there are enough: parameters that the
    rules or the best mappings tie together move together there. Clusters are formed by
    average linkage above ``threshold``; each is one :class:`~rl.mapping.ppo.Policy` over
    its parameters. The agents choose their parts of a mapping independently and each
    learns from the mapping's reward (shared, standardised over the batch).
    """

    batch_size = BATCH

    def __init__(self, space: Space, seed: int = 0, warmup: int = 32, threshold: float = 0.25,
                 **policy: Any):
        super().__init__(space, seed)
        self.warmup, self.threshold, self._policy_options = warmup, threshold, policy
        self._random = RandomAgent(space, seed)
        self._samples: list[Evaluation] = []
        self._emulated = 0
        self.agents: list[tuple[list[int], Policy]] | None = None
        self._proposed: set[tuple[int, ...]] = set()

    @property
    def clusters(self) -> list[list[str]] | None:
        """The parameters of each agent, once the warm-up is over."""
        if self.agents is None:
            return None
        return [[self.space.names[i] for i in columns] for columns, _ in self.agents]

    def _form_agents(self) -> None:
        valid = [e for e in self._samples if e.valid]
        if len(valid) >= 24:
            valid = sorted(valid, key=lambda e: e.seconds)[: len(valid) // 2]
        names = self.space.names
        if len(valid) < 4:
            clusters = [[n] for n in names]
        else:
            clusters = cluster_by_average_linkage(
                names, parameter_correlation(self.space, valid), self.threshold)
        self.agents = []
        for cluster in clusters:
            columns = [names.index(n) for n in cluster]
            sizes = [len(self.space.parameters[i].values) for i in columns]
            self.agents.append((columns, Policy(sizes, self.rng, **self._policy_options)))
        self._teach(self._samples)  # the warm-up teaches every agent

    def propose_batch(self) -> list[dict[str, Any]]:
        if self.agents is None and self._emulated < self.warmup:
            batch = [self._random.propose() for _ in range(self.batch_size)]
            return [m for m in batch if m is not None]
        if self.agents is None:
            self._form_agents()
        assert self.agents is not None
        agents = self.agents

        def draw(count: int) -> np.ndarray:
            drawn = np.zeros((count, len(self.space.parameters)), dtype=int)
            for columns, policy in agents:  # each agent its own part, independently
                drawn[:, columns] = policy.sample(count)
            return drawn

        rows = _fresh_first(draw, self._proposed, self.batch_size)
        return [self.space.from_indices(row) for row in rows]

    def _teach(self, evaluations: list[Evaluation]) -> None:
        assert self.agents is not None
        if not evaluations:
            return
        indices = np.array([self.space.indices(e.mapping) for e in evaluations])
        shared = advantages([e.reward for e in evaluations])
        for columns, policy in self.agents:
            policy.update(indices[:, columns], shared)

    def learn_batch(self, evaluations: list[Evaluation]) -> None:
        if self.agents is None:
            self._proposed.update(tuple(self.space.indices(e.mapping)) for e in evaluations)
            self._samples.extend(evaluations)
            self._emulated += sum(e.emulated for e in evaluations)
        else:
            self._teach(evaluations)
