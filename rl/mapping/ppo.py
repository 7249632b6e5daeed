"""Proximal policy optimisation (PPO) in numpy, for choosing a group of mapping parameters.

A :class:`Policy` chooses its parameters one after the other, each from the values chosen
before it: a small network (one hidden tanh layer) reads the one-hot values chosen so far
and the step, and gives the logits of the next parameter's values. So one policy can
learn how its parameters go together; an episode is one mapping, and its reward comes at
the end (the shared reward of the mapping). :meth:`Policy.update` takes a batch of
episodes and their advantages and does a few epochs of PPO's clipped surrogate ascent
with an entropy bonus (Adam).

At these sizes (a dozen parameters, tens of values each) numpy is enough: an update of a
batch of 16 episodes takes about a millisecond.
"""

from __future__ import annotations

import numpy as np


class Policy:
    """A stochastic policy over ``sizes[i]`` values of each of its parameters.

    Args:
        sizes: the number of values of each parameter, in the order they are chosen.
        rng: the generator for the initial weights and for sampling.
        hidden: units of the hidden layer.
        lr: Adam's step size.
        clip: PPO's clipping of the probability ratio.
        entropy: the weight of the entropy bonus (keeps exploring).
        epochs: passes over a batch per update.
    """

    def __init__(self, sizes: list[int], rng: np.random.Generator, hidden: int = 32,
                 lr: float = 0.01, clip: float = 0.2, entropy: float = 0.05, epochs: int = 4):
        if not sizes or min(sizes) < 1:
            raise ValueError(f"a policy needs parameters with values, not sizes {sizes}")
        self.sizes = list(sizes)
        self.rng = rng
        self.offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
        steps = len(sizes)
        self.inputs = int(sum(sizes)) + steps
        width = max(sizes)
        self.mask = np.array([[j < n for j in range(width)] for n in sizes])
        self.weights = {
            "w1": rng.normal(0, 1 / np.sqrt(self.inputs), (self.inputs, hidden)),
            "b1": np.zeros(hidden),
            "w2": np.zeros((hidden, width)),  # uniform at first
            "b2": np.zeros(width),
        }
        self._moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in self.weights.items()}
        self._t = 0
        self.lr, self.clip, self.entropy, self.epochs = lr, clip, entropy, epochs

    def _state(self, actions: np.ndarray, step: int) -> np.ndarray:
        """The network's input at ``step`` for each episode: the values chosen before it."""
        x = np.zeros((len(actions), self.inputs))
        x[:, self.inputs - len(self.sizes) + step] = 1.0
        for j in range(step):
            x[np.arange(len(actions)), self.offsets[j] + actions[:, j]] = 1.0
        return x

    def _logits(self, x: np.ndarray, step: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Hidden activations and masked log-probabilities, one row per input."""
        h = np.tanh(x @ self.weights["w1"] + self.weights["b1"])
        z = h @ self.weights["w2"] + self.weights["b2"]
        z = np.where(self.mask[step], z, -np.inf)
        z = z - z.max(axis=1, keepdims=True)
        return h, z - np.log(np.exp(z).sum(axis=1, keepdims=True))

    def sample(self, count: int) -> np.ndarray:
        """``count`` episodes: a value index per parameter, shape ``(count, parameters)``."""
        actions = np.zeros((count, len(self.sizes)), dtype=int)
        for step in range(len(self.sizes)):
            _, logp = self._logits(self._state(actions, step), np.full(count, step))
            p = np.exp(logp)
            u = self.rng.random(count)[:, None]
            actions[:, step] = np.minimum((p.cumsum(axis=1) < u).sum(axis=1), self.sizes[step] - 1)
        return actions

    def _flat(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every (episode, step) as one row: inputs, step numbers, actions."""
        steps = len(self.sizes)
        x = np.concatenate([self._state(actions, s) for s in range(steps)])
        step = np.repeat(np.arange(steps), len(actions))
        return x, step, actions.T.reshape(-1)

    def log_prob(self, actions: np.ndarray) -> np.ndarray:
        """The log-probability of each step of each episode, shape ``(steps * episodes,)``."""
        x, step, a = self._flat(actions)
        _, logp = self._logits(x, step)
        return logp[np.arange(len(a)), a]

    def update(self, actions: np.ndarray, advantages: np.ndarray) -> None:
        """PPO epochs on a batch of episodes (``actions``) and their advantages."""
        if len(actions) == 0 or not np.any(advantages):
            return
        x, step, a = self._flat(actions)
        adv = np.tile(advantages, len(self.sizes))
        rows = np.arange(len(a))
        old = None
        for _ in range(self.epochs):
            h, logp = self._logits(x, step)
            if old is None:
                old = logp[rows, a].copy()
            ratio = np.exp(logp[rows, a] - old)
            clipped = ((adv > 0) & (ratio > 1 + self.clip)) | ((adv < 0) & (ratio < 1 - self.clip))
            p = np.exp(logp)
            onehot = np.zeros_like(p)
            onehot[rows, a] = 1.0
            # minimise -surrogate - entropy bonus, per row averaged
            g = np.where(clipped, 0.0, -adv * ratio)[:, None] * (onehot - p)
            plogp = np.where(p > 0, p * np.where(np.isfinite(logp), logp, 0.0), 0.0)
            ent = -plogp.sum(axis=1, keepdims=True)
            g += self.entropy * (plogp + p * ent)  # minus the gradient of the entropy
            g /= len(a)
            grads = {"w2": h.T @ g, "b2": g.sum(axis=0)}
            dh = (g @ self.weights["w2"].T) * (1 - h**2)
            grads["w1"] = x.T @ dh
            grads["b1"] = dh.sum(axis=0)
            self._adam(grads)

    def _adam(self, grads: dict[str, np.ndarray], b1: float = 0.9, b2: float = 0.999) -> None:
        self._t += 1
        for name, grad in grads.items():
            m, v = self._moments[name]
            m[:] = b1 * m + (1 - b1) * grad
            v[:] = b2 * v + (1 - b2) * grad**2
            m_hat, v_hat = m / (1 - b1**self._t), v / (1 - b2**self._t)
            self.weights[name] -= self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)


def advantages(rewards: np.ndarray) -> np.ndarray:
    """Centred ranks of the rewards within their batch, from -0.5 to 0.5 (ties share their
    mean rank; all zero when the rewards are all equal). Ranks, not standardised rewards:
    the penalty of invalid mappings is far below every valid reward, and would otherwise
    drown the differences among valid mappings, which are what the search is after."""
    rewards = np.asarray(rewards, dtype=float)
    if len(rewards) < 2 or np.all(rewards == rewards[0]):
        return np.zeros_like(rewards)
    order = np.argsort(rewards, kind="stable")
    ranks = np.empty(len(rewards))
    ranks[order] = np.arange(len(rewards))
    for value in np.unique(rewards):  # ties: their mean rank
        tied = rewards == value
        ranks[tied] = ranks[tied].mean()
    return ranks / (len(rewards) - 1) - 0.5
