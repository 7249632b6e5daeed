"""Agents that search a mapping space, and :func:`search`, which runs one on a budget.

Every agent proposes mappings one at a time and learns from their rewards (minus the log
of the modelled seconds). A search counts *evaluations*: distinct mappings scored, since
the environment caches; a proposal of a mapping scored before costs nothing and is told
its cached reward.

- :class:`ExhaustiveAgent` proposes every mapping in order (the optimum of a small space).
- :class:`RandomAgent` proposes mappings uniformly at random, without repeats.
- :class:`SingleAgent` is tabular Q-learning over the joint space: an episode sets the
  parameters one after the other, the state being the values chosen so far; one agent
  learns the whole space.
- :class:`MultiAgent` is the decentralised multi-agent RL of Krishnan et al. (arXiv
  2507.16249) in a form that suits this space. A warm-up of random mappings gives the
  correlation between parameters among the better half of them; parameters whose
  correlation is strong (above ``threshold``) are clustered, and each cluster is one
  agent, a bandit over its parameters' joint values (a cluster has few). The agents
  choose together, each its own part of the mapping, and learn from the shared reward:
  each keeps, per joint value of its part, the best reward seen with it, and plays the
  best one or, with a decaying probability, explores. Bandits suit this space: a
  mapping is one decision with one reward, and a cluster's joint values are few enough
  to try each.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .environment import Evaluation, MappingEnvironment
from .space import Space

AGENTS = ("marl", "single", "random", "exhaustive")
"""The agents by their CLI names."""


class Agent:
    """Proposes mappings and learns from their evaluations."""

    def __init__(self, space: Space, seed: int = 0):
        self.space = space
        self.rng = np.random.default_rng(seed)

    def propose(self) -> dict[str, Any] | None:
        """The next mapping to try (None: nothing left)."""
        raise NotImplementedError

    def learn(self, evaluation: Evaluation) -> None:
        """Take in a proposed mapping's evaluation."""


class ExhaustiveAgent(Agent):
    """Every mapping, in the space's order."""

    def __init__(self, space: Space, seed: int = 0):
        super().__init__(space, seed)
        self._order: Iterator[dict[str, Any]] = iter(space)

    def propose(self) -> dict[str, Any] | None:
        return next(self._order, None)


class RandomAgent(Agent):
    """Uniformly random mappings, none twice."""

    def __init__(self, space: Space, seed: int = 0):
        super().__init__(space, seed)
        self._order = iter(self.rng.permutation(space.size))
        self._mappings: list[dict[str, Any]] | None = None

    def propose(self) -> dict[str, Any] | None:
        index = next(self._order, None)
        if index is None:
            return None
        if self._mappings is None:
            self._mappings = list(self.space)
        return self._mappings[int(index)]


def _explore_probability(step: int, start: float = 0.5, floor: float = 0.05) -> float:
    return max(floor, start / math.sqrt(1 + step))


class SingleAgent(Agent):
    """Tabular Q-learning over the joint space: one parameter per step, the state being
    the values chosen so far; the episode's reward comes at its last step and is backed
    up to every step (the best reward seen after each choice, as the values are to be
    maximised, not averaged)."""

    def __init__(self, space: Space, seed: int = 0):
        super().__init__(space, seed)
        self._q: dict[tuple[Any, ...], np.ndarray] = {}
        self._steps = 0

    def _values(self, state: tuple[Any, ...]) -> np.ndarray:
        depth = len(state)
        if state not in self._q:
            self._q[state] = np.full(len(self.space.parameters[depth].values), np.inf)
        return self._q[state]

    def propose(self) -> dict[str, Any] | None:
        state: tuple[Any, ...] = ()
        explore = _explore_probability(self._steps)
        for parameter in self.space.parameters:
            q = self._values(state)
            untried = np.flatnonzero(np.isinf(q))
            if len(untried):
                choice = int(self.rng.choice(untried))  # optimistic: untried first
            elif self.rng.random() < explore:
                choice = int(self.rng.integers(len(q)))
            else:
                choice = int(self.rng.choice(np.flatnonzero(q == q.max())))
            state = (*state, parameter.values[choice])
        self._steps += 1
        return dict(zip(self.space.names, state, strict=True))

    def learn(self, evaluation: Evaluation) -> None:
        state: tuple[Any, ...] = ()
        for parameter in self.space.parameters:  # the episode that gives this mapping
            value = evaluation.mapping[parameter.name]
            q = self._values(state)
            choice = parameter.values.index(value)
            q[choice] = evaluation.reward if np.isinf(q[choice]) else max(q[choice],
                                                                            evaluation.reward)
            state = (*state, value)


def correlation_clusters(space: Space, samples: list[Evaluation],
                         threshold: float = 0.3) -> list[list[str]]:
    """Parameters clustered by how their values correlate among the better half of the
    sampled mappings (Spearman-like: on value indices), joined where the absolute correlation is
    above ``threshold`` (single linkage). Parameters with one value each stay alone."""
    names = space.names
    if len(samples) < 4:
        return [[n] for n in names]
    ranked = sorted(samples, key=lambda e: e.seconds)[: max(4, len(samples) // 2)]
    matrix = np.array([space.indices(e.mapping) for e in ranked], dtype=float)
    parent = list(range(len(names)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    spread = matrix.std(axis=0)
    for i, j in itertools.combinations(range(len(names)), 2):
        if spread[i] == 0 or spread[j] == 0:
            continue
        correlation = float(np.corrcoef(matrix[:, i], matrix[:, j])[0, 1])
        if abs(correlation) > threshold:
            parent[root(i)] = root(j)
    clusters: dict[int, list[str]] = {}
    for i, name in enumerate(names):
        clusters.setdefault(root(i), []).append(name)
    return list(clusters.values())


@dataclass
class _ClusterAgent:
    """One agent of :class:`MultiAgent`: a bandit over its parameters' joint values."""

    names: list[str]
    arms: list[tuple[Any, ...]]
    best: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.best = np.full(len(self.arms), np.inf)  # untried: optimistic

    def choose(self, rng: np.random.Generator, explore: float) -> int:
        untried = np.flatnonzero(np.isinf(self.best))
        if len(untried):
            return int(rng.choice(untried))
        if rng.random() < explore:
            return int(rng.integers(len(self.arms)))
        return int(rng.choice(np.flatnonzero(self.best == self.best.max())))

    def learn(self, arm: int, reward: float) -> None:
        self.best[arm] = reward if np.isinf(self.best[arm]) else max(self.best[arm], reward)


class MultiAgent(Agent):
    """Decentralised multi-agent RL with correlation-based clustering (see the module)."""

    def __init__(self, space: Space, seed: int = 0, warmup: int | None = None,
                 threshold: float = 0.3):
        super().__init__(space, seed)
        self.warmup = warmup if warmup is not None else max(8, min(32, space.size // 20))
        self.threshold = threshold
        self._random = RandomAgent(space, seed)
        self._samples: list[Evaluation] = []
        self.agents: list[_ClusterAgent] | None = None
        self._arms: list[int] = []
        self._steps = 0

    @property
    def clusters(self) -> list[list[str]] | None:
        """The parameters of each agent, once the warm-up is over."""
        return None if self.agents is None else [a.names for a in self.agents]

    def _form_agents(self) -> None:
        clusters = correlation_clusters(self.space, self._samples, self.threshold)
        self.agents = []
        for names in clusters:
            arms = list(itertools.product(*(self.space[n].values for n in names)))
            self.agents.append(_ClusterAgent(names, arms))
        for evaluation in self._samples:  # the warm-up teaches every agent
            self._teach(evaluation)

    def _teach(self, evaluation: Evaluation) -> None:
        assert self.agents is not None
        for agent in self.agents:
            arm = agent.arms.index(tuple(evaluation.mapping[n] for n in agent.names))
            agent.learn(arm, evaluation.reward)

    def propose(self) -> dict[str, Any] | None:
        if self.agents is None and len(self._samples) < self.warmup:
            return self._random.propose()
        if self.agents is None:
            self._form_agents()
        assert self.agents is not None
        explore = _explore_probability(self._steps)
        self._steps += 1
        mapping: dict[str, Any] = {}
        self._arms = []
        for agent in self.agents:
            arm = agent.choose(self.rng, explore)
            self._arms.append(arm)
            mapping.update(zip(agent.names, agent.arms[arm], strict=True))
        return {n: mapping[n] for n in self.space.names}

    def learn(self, evaluation: Evaluation) -> None:
        if self.agents is None:
            self._samples.append(evaluation)
        else:
            self._teach(evaluation)


AGENT_CLASSES: dict[str, Callable[..., Agent]] = {
    "marl": MultiAgent,
    "single": SingleAgent,
    "random": RandomAgent,
    "exhaustive": ExhaustiveAgent,
}
"""The agent class of each CLI name (:data:`AGENTS`)."""


@dataclass(frozen=True)
class SearchResult:
    """What a search found.

    Attributes:
        best: the best evaluation.
        evaluations: distinct mappings scored.
        history: the best seconds after each evaluation (``history[k]`` after ``k + 1``).
        clusters: the multi-agent search's parameter clusters (None for the others).
    """

    best: Evaluation
    evaluations: int
    history: list[float]
    clusters: list[list[str]] | None = None

    def evaluations_to_within(self, target_seconds: float, tolerance: float = 0.05) -> int | None:
        """Evaluations until the best was within ``tolerance`` of ``target_seconds``."""
        for count, seconds in enumerate(self.history, start=1):
            if seconds <= target_seconds * (1 + tolerance):
                return count
        return None


def search(env: MappingEnvironment, agent: str | Agent = "marl", budget: int | None = None,
           seed: int = 0, progress: bool = False, stop_at: float | None = None) -> SearchResult:
    """Run an agent on ``env`` for ``budget`` evaluations (default: the space's size, or
    until the agent has nothing left to propose), or until a mapping of at most
    ``stop_at`` seconds is found.

    A proposal of a mapping scored before in this search is told its reward again and
    does not count; after ``20 x`` the space's parameters such proposals in a row, a
    random unscored mapping is taken instead, so a converged agent still spends its budget.

    Raises:
        ValueError: an unknown agent name or a budget below 1.
    """
    if isinstance(agent, str):
        if agent not in AGENT_CLASSES:
            raise ValueError(f"unknown agent {agent!r}: choose one of {', '.join(AGENTS)}")
        agent = AGENT_CLASSES[agent](env.space, seed=seed)
    space = env.space
    budget = space.size if budget is None else budget
    if budget < 1:
        raise ValueError(f"the budget is at least one evaluation, not {budget}")
    budget = min(budget, space.size)
    seen: set[tuple[Any, ...]] = set()
    history: list[float] = []
    best: Evaluation | None = None
    fallback = RandomAgent(space, seed + 1)
    repeats = 0
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=budget, desc=f"mapping search ({type(agent).__name__})", unit="eval",
                   leave=False)
    while len(history) < budget:
        mapping = agent.propose()
        if mapping is None:
            break
        if space.key(mapping) in seen:
            agent.learn(env.evaluate(mapping))
            repeats += 1
            if repeats < 20 * len(space.parameters):
                continue
            while (mapping := fallback.propose()) is not None and space.key(mapping) in seen:
                pass
            if mapping is None:
                break
        repeats = 0
        seen.add(space.key(mapping))
        evaluation = env.evaluate(mapping)
        agent.learn(evaluation)
        if best is None or evaluation.seconds < best.seconds:
            best = evaluation
        history.append(best.seconds)
        if stop_at is not None and best.seconds <= stop_at:
            break
        if bar is not None:
            bar.update(1)
            bar.set_postfix(best_ms=f"{best.seconds * 1e3:.3f}", refresh=False)
    if bar is not None:
        bar.close()
    if best is None:
        raise ValueError("the agent proposed no mapping")
    clusters = agent.clusters if isinstance(agent, MultiAgent) else None
    return SearchResult(best, len(history), history, clusters)
