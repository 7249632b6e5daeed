"""Agents that search a mapping space, and :func:`search`, which runs one on a budget.

Every agent proposes mappings (a batch at a time) and learns from their rewards (minus the
log of the modelled seconds). A search counts *evaluations*: distinct mappings emulated,
since the environment caches; a proposal of a mapping scored before costs nothing and is
told its cached reward, and a mapping the workload's static rules refuse costs nothing
and is told the penalty.

The agents, by their ``--agent`` names:

- ``marl`` (:class:`~rl.mapping.marl.MARLAgent`): the decentralised multi-agent RL of
  Krishnan et al. (arXiv 2507.16249): correlation-based clusters of parameters, one PPO
  agent per cluster, a shared reward;
- ``ppo`` (:class:`~rl.mapping.marl.PPOAgent`): one PPO agent over the whole space;
- ``random`` (:class:`RandomAgent`): uniformly random mappings, without repeats;
- ``ga`` (:class:`~rl.mapping.baselines.GeneticAgent`): a genetic algorithm;
- ``tpe`` (:class:`~rl.mapping.baselines.TPEAgent`): Optuna's TPE sampler;
- ``marl-bandit`` (:class:`MultiAgent`): issue 19's multi-agent search for small spaces,
  one bandit per correlated cluster (see below);
- ``single`` (:class:`SingleAgent`): tabular Q-learning over the joint space (small
  spaces);
- ``exhaustive`` (:class:`ExhaustiveAgent`): every mapping in order (small spaces).

:class:`MultiAgent` (``marl-bandit``): a warm-up of random mappings gives the correlation
between parameters among the better half of them; parameters whose correlation is strong
(above ``threshold``) are clustered, and each cluster is one agent, a bandit over its
parameters' joint values (a cluster has few). The agents choose together, each its own
part of the mapping, and learn from the shared reward: each keeps, per joint value of its
part, the best reward seen with it, and plays the best one or, with a decaying
probability, explores. Bandits suit a small space, where a cluster's joint values are few
enough to try each; a large space's are not.
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

AGENTS = ("marl", "ppo", "random", "ga", "tpe", "marl-bandit", "single", "exhaustive")
"""The agents by their CLI names."""


class Agent:
    """Proposes mappings and learns from their evaluations.

    An agent proposes ``batch_size`` mappings at a time (:meth:`propose_batch`) and then
    learns from their evaluations (:meth:`learn_batch`, in the same order; fewer when the
    budget ends within the batch, and a mapping may be one the search put in place of a
    repeated proposal). Agents that learn from each mapping before the next have a batch
    of one and implement :meth:`propose` and :meth:`learn`.
    """

    batch_size = 1

    def __init__(self, space: Space, seed: int = 0):
        self.space = space
        self.rng = np.random.default_rng(seed)

    def propose(self) -> dict[str, Any] | None:
        """The next mapping to try (None: nothing left)."""
        raise NotImplementedError

    def learn(self, evaluation: Evaluation) -> None:
        """Take in a proposed mapping's evaluation."""

    def propose_batch(self) -> list[dict[str, Any]]:
        """The next mappings to try (empty: nothing left)."""
        batch = []
        for _ in range(self.batch_size):
            mapping = self.propose()
            if mapping is None:
                break
            batch.append(mapping)
        return batch

    def learn_batch(self, evaluations: list[Evaluation]) -> None:
        """Take in the evaluations of a proposed batch."""
        for evaluation in evaluations:
            self.learn(evaluation)


class ExhaustiveAgent(Agent):
    """Every mapping, in the space's order."""

    def __init__(self, space: Space, seed: int = 0):
        super().__init__(space, seed)
        self._order: Iterator[dict[str, Any]] = iter(space)

    def propose(self) -> dict[str, Any] | None:
        return next(self._order, None)


class RandomAgent(Agent):
    """Uniformly random mappings, none twice. A space of up to :data:`PERMUTED` mappings is
    drawn as a random permutation; a larger one by rejecting indices drawn before."""

    PERMUTED = 1 << 20
    batch_size = 16  # proposals do not depend on evaluations: a batch only runs in parallel

    def __init__(self, space: Space, seed: int = 0):
        super().__init__(space, seed)
        self._order = iter(self.rng.permutation(space.size)) if space.size <= self.PERMUTED \
            else None
        self._drawn: set[int] = set()

    def propose(self) -> dict[str, Any] | None:
        if self._order is not None:
            index = next(self._order, None)
            return None if index is None else self.space.mapping_at(int(index))
        if len(self._drawn) >= self.space.size:
            return None
        while (index := int(self.rng.integers(self.space.size))) in self._drawn:
            pass
        self._drawn.add(index)
        return self.space.mapping_at(index)


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
            count = math.prod(len(self.space[n].values) for n in names)
            if count > 100_000:
                raise ValueError(
                    f"marl-bandit: a cluster ({', '.join(names)}) has {count:,} joint values, "
                    "too many to try each: use --agent marl on a large space"
                )
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


def _agent_class(name: str) -> Callable[..., Agent]:
    from .baselines import GeneticAgent, TPEAgent
    from .marl import MARLAgent, PPOAgent

    return {
        "marl": MARLAgent, "ppo": PPOAgent, "random": RandomAgent, "ga": GeneticAgent,
        "tpe": TPEAgent, "marl-bandit": MultiAgent, "single": SingleAgent,
        "exhaustive": ExhaustiveAgent,
    }[name]


def make_agent(name: str, space: Space, seed: int = 0) -> Agent:
    """The agent of a CLI name (:data:`AGENTS`) on ``space``.

    Raises:
        ValueError: an unknown name.
    """
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}: choose one of {', '.join(AGENTS)}")
    return _agent_class(name)(space, seed=seed)


@dataclass(frozen=True)
class SearchResult:
    """What a search found.

    Attributes:
        best: the best evaluation (invalid when no mapping tried was valid).
        evaluations: distinct mappings emulated.
        history: the best seconds after each evaluation (``history[k]`` after ``k + 1``).
        clusters: the multi-agent searches' parameter clusters (None for the others).
        refused: distinct mappings the static rules refused (free: not evaluations).
        proposals: mappings the agent proposed, repeats and refusals included.
    """

    best: Evaluation
    evaluations: int
    history: list[float]
    clusters: list[list[str]] | None = None
    refused: int = 0
    proposals: int = 0

    def evaluations_to_within(self, target_seconds: float, tolerance: float = 0.05) -> int | None:
        """Evaluations until the best was within ``tolerance`` of ``target_seconds``."""
        for count, seconds in enumerate(self.history, start=1):
            if seconds <= target_seconds * (1 + tolerance):
                return count
        return None


def search(env: MappingEnvironment, agent: str | Agent = "marl", budget: int | None = None,
           seed: int = 0, progress: bool = False, stop_at: float | None = None,
           max_proposals: int | None = None) -> SearchResult:
    """Run an agent on ``env`` for ``budget`` evaluations (default: the space's size, or
    until the agent has nothing left to propose), or until a mapping of at most
    ``stop_at`` seconds is found.

    A proposal of a mapping seen before in this search is told its reward again and does
    not count; after ``20 x`` the space's parameters such proposals in a row, each further
    one is replaced by a random unseen mapping until the agent proposes a new mapping
    itself, so a converged agent still spends its budget. A
    mapping the static rules refuse does not count either; the search ends after
    ``max_proposals`` proposals (default: 100 per evaluation of the budget, plus 10,000)
    even if the budget is not spent. The environment's worker processes score a batch
    together; what the search finds does not depend on their number.

    Raises:
        ValueError: an unknown agent name or a budget below 1.
    """
    if isinstance(agent, str):
        agent = make_agent(agent, env.space, seed)
    space = env.space
    budget = space.size if budget is None else budget
    if budget < 1:
        raise ValueError(f"the budget is at least one evaluation, not {budget}")
    budget = min(budget, space.size)
    max_proposals = 100 * budget + 10_000 if max_proposals is None else max_proposals
    seen: set[tuple[Any, ...]] = set()
    history: list[float] = []
    best: Evaluation | None = None
    fallback = RandomAgent(space, seed + 1)
    repeats = proposals = refused = 0
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=budget, desc=f"mapping search ({type(agent).__name__})", unit="eval",
                   leave=False)
    done = False
    while not done and len(history) < budget and proposals < max_proposals:
        batch = agent.propose_batch()
        if not batch:
            break
        # the batch as it will be scored: repeats past the limit replaced, and cut where
        # the budget ends
        kept: list[dict[str, Any]] = []
        new_keys: set[tuple[Any, ...]] = set()
        counted = 0
        for mapping in batch:
            key = space.key(mapping)
            if key in seen or key in new_keys:
                repeats += 1  # back to 0 only when the agent itself proposes a new mapping
                if repeats >= 20 * len(space.parameters):
                    while (mapping := fallback.propose()) is not None and (
                            space.key(mapping) in seen or space.key(mapping) in new_keys):
                        pass
                    if mapping is None:
                        done = True
                        break
                    key = space.key(mapping)
            if key not in seen and key not in new_keys:
                if env.refusal(mapping) is None:
                    if len(history) + counted == budget:
                        break
                    counted += 1
                new_keys.add(key)
            kept.append(mapping)
        proposals += len(kept)
        evaluations = env.evaluate_many(kept)
        learned = []
        for proposed, mapping, evaluation in zip(batch, kept, evaluations, strict=False):
            learned.append(evaluation)
            key = space.key(mapping)
            if key in seen:
                continue
            seen.add(key)
            if proposed is mapping:  # the agent's own new mapping, not a stand-in
                repeats = 0
            if not evaluation.emulated:
                refused += 1
                if best is None:
                    best = evaluation
                continue
            if best is None or evaluation.seconds < best.seconds:
                best = evaluation
            history.append(best.seconds)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(best_ms=f"{best.seconds * 1e3:.3f}" if best.valid else "none valid",
                                refresh=False)
            if stop_at is not None and best.seconds <= stop_at:
                done = True
                break
        agent.learn_batch(learned)
    if bar is not None:
        bar.close()
    if best is None:
        raise ValueError("the agent proposed no mapping")
    clusters = getattr(agent, "clusters", None)
    return SearchResult(best, len(history), history, clusters, refused, proposals)
