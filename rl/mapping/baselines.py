"""What a user would try instead of RL: a genetic algorithm (``ga``) and Bayesian
optimisation with Optuna's TPE sampler (``tpe``). Both are deterministic under a seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .agents import Agent
from .environment import Evaluation
from .space import Space


class GeneticAgent(Agent):
    """A steady (mu + lambda) genetic algorithm: a population of ``population`` mappings;
    each generation breeds as many children by tournament selection (of 3), uniform
    crossover and a mutation of each parameter with probability 1/parameters, and keeps
    the best of parents and children. The first generation is random."""

    def __init__(self, space: Space, seed: int = 0, population: int = 16):
        super().__init__(space, seed)
        self.batch_size = population
        self._population: list[tuple[float, np.ndarray]] = []  # (reward, value indices)

    def _random(self) -> np.ndarray:
        return np.array([self.rng.integers(len(p.values)) for p in self.space.parameters])

    def _tournament(self) -> np.ndarray:
        picks = self.rng.integers(len(self._population), size=3)
        return max((self._population[i] for i in picks), key=lambda entry: entry[0])[1]

    def propose_batch(self) -> list[dict[str, Any]]:
        sizes = [len(p.values) for p in self.space.parameters]
        children = []
        for _ in range(self.batch_size):
            if len(self._population) < self.batch_size:
                child = self._random()
            else:
                a, b = self._tournament(), self._tournament()
                child = np.where(self.rng.random(len(sizes)) < 0.5, a, b)
                for i, size in enumerate(sizes):
                    if self.rng.random() < 1 / len(sizes):
                        child[i] = self.rng.integers(size)
            children.append(child)
        return [self.space.from_indices(c) for c in children]

    def learn_batch(self, evaluations: list[Evaluation]) -> None:
        entries = [(e.reward, np.array(self.space.indices(e.mapping))) for e in evaluations]
        merged = self._population + entries
        order = sorted(range(len(merged)), key=lambda i: -merged[i][0])  # stable: ties keep age
        unique: list[tuple[float, np.ndarray]] = []
        keys: set[tuple[int, ...]] = set()
        for i in order:
            key = tuple(int(v) for v in merged[i][1])
            if key not in keys:
                keys.add(key)
                unique.append(merged[i])
        self._population = unique[: self.batch_size]


class TPEAgent(Agent):
    """Optuna's TPE sampler (multivariate, seeded), one mapping at a time: every
    parameter is a categorical distribution, the objective is the modelled seconds (the
    penalty for an invalid mapping). ``startup`` random trials come first."""

    def __init__(self, space: Space, seed: int = 0, startup: int = 16):
        super().__init__(space, seed)
        try:
            import optuna
        except ImportError:
            raise ImportError(
                "the tpe agent needs Optuna: pip install 'pyupmem[mapping]'") from None

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self._optuna = optuna
        sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup,
                                             multivariate=True)
        self.study = optuna.create_study(direction="minimize", sampler=sampler)
        # values by index: Optuna's categorical choices are compared by value, and a
        # parameter may mix types
        self._distributions = {
            p.name: optuna.distributions.CategoricalDistribution(list(range(len(p.values))))
            for p in space.parameters
        }
        self._trials: list[Any] = []

    def propose_batch(self) -> list[dict[str, Any]]:
        trial = self.study.ask(self._distributions)
        self._trials = [trial]
        return [self.space.from_indices([trial.params[n] for n in self.space.names])]

    def learn_batch(self, evaluations: list[Evaluation]) -> None:
        for trial, evaluation in zip(self._trials, evaluations, strict=False):
            asked = self.space.from_indices([trial.params[n] for n in self.space.names])
            if asked == evaluation.mapping:
                self.study.tell(trial, evaluation.seconds)
            else:  # the search put another mapping in its place: record that one
                self.study.tell(trial, state=self._optuna.trial.TrialState.FAIL)
                self.study.add_trial(self._optuna.trial.create_trial(
                    params=dict(zip(self.space.names, self.space.indices(evaluation.mapping),
                                    strict=True)),
                    distributions=self._distributions, value=evaluation.seconds))
        self._trials = []
