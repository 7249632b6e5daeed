"""The tabular gymnasium environments ``rl`` knows, and their transition models as arrays.

Every environment here is a gymnasium *toy text* environment whose ``env.unwrapped.P``
holds its full transition model: ``P[s][a]`` is a list of outcomes
``(probability, next_state, reward, terminated)``. :func:`tabular_model` turns that into
dense numpy arrays, which the vectorised dataset sampler and value iteration use.

Environment ids are resolved through :data:`ALIASES`, so that both the ids of older
gymnasium releases (``Taxi-v3``, ``CliffWalking-v0``) and of newer ones (``Taxi-v4``,
``CliffWalking-v1``) work with whichever release is installed; the dynamics of the
default (non-rainy, non-slippery) versions are the same.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import gymnasium as gym
import numpy as np

# Canonical name -> the gymnasium ids that denote it, newest first.
_FAMILIES: dict[str, tuple[str, ...]] = {
    "FrozenLake-v1": ("FrozenLake-v1",),
    "FrozenLake8x8-v1": ("FrozenLake8x8-v1",),
    "Taxi-v3": ("Taxi-v4", "Taxi-v3"),
    "CliffWalking-v0": ("CliffWalking-v1", "CliffWalking-v0"),
}

#: Every id accepted by :func:`resolve_env_id`, mapped to its canonical name.
ALIASES: dict[str, str] = {
    alias: canonical for canonical, ids in _FAMILIES.items() for alias in ids
}

#: Canonical names of the known environments (the names datasets record).
KNOWN_ENVS: tuple[str, ...] = tuple(_FAMILIES)


def known_env_ids() -> list[str]:
    """All accepted environment ids, sorted (for error messages and the command line)."""
    return sorted(ALIASES)


def canonical_env_id(env_id: str) -> str:
    """The canonical name of ``env_id`` (e.g. ``"Taxi-v4"`` -> ``"Taxi-v3"``).

    Raises:
        ValueError: ``env_id`` is not one of the known environments.
    """
    try:
        return ALIASES[env_id]
    except KeyError:
        raise ValueError(
            f"unknown environment {env_id!r}; rl knows these tabular environments: "
            f"{', '.join(known_env_ids())}"
        ) from None


def resolve_env_id(env_id: str) -> str:
    """The id under which the installed gymnasium registers ``env_id``'s environment.

    Raises:
        ValueError: ``env_id`` is unknown, or the installed gymnasium registers none of
            its ids.
    """
    canonical = canonical_env_id(env_id)
    registry = gym.envs.registry
    if env_id in registry:
        return env_id
    for candidate in _FAMILIES[canonical]:
        if candidate in registry:
            return candidate
    raise ValueError(
        f"the installed gymnasium {gym.__version__} registers none of "
        f"{', '.join(_FAMILIES[canonical])}; install a gymnasium release that has one"
    )


def make_env(env_id: str, **kwargs) -> gym.Env:
    """``gymnasium.make`` for a known environment id (aliases resolved)."""
    return gym.make(resolve_env_id(env_id), **kwargs)


@dataclass(frozen=True, eq=False)
class TabularModel:
    """Dense arrays of an environment's transition model ``env.unwrapped.P``.

    For state ``s`` and action ``a``, outcome ``k < n_outcomes[s, a]`` has probability
    ``prob[s, a, k]``, next state ``next_state[s, a, k]``, reward ``reward[s, a, k]`` and
    terminated flag ``terminated[s, a, k]``, in the order of ``P[s][a]`` (which is the
    order gymnasium's own ``categorical_sample`` uses). Unused outcome slots have
    probability 0 and copy the last real outcome.
    """

    env_id: str  #: canonical environment name
    n_states: int  #: number of states
    n_actions: int  #: number of actions
    prob: np.ndarray  #: float64 (S, A, K)
    next_state: np.ndarray  #: int32 (S, A, K)
    reward: np.ndarray  #: float64 (S, A, K)
    terminated: np.ndarray  #: bool (S, A, K)
    n_outcomes: np.ndarray  #: int32 (S, A)
    initial: np.ndarray  #: float64 (S,), the initial-state distribution
    max_episode_steps: int | None  #: the TimeLimit of the registered env, if any

    @property
    def terminal_states(self) -> np.ndarray:
        """Bool (S,): states every one of whose outcomes is a terminated self-loop.

        These are FrozenLake's holes and goal; Taxi and CliffWalking have none (their
        episodes end on a transition, not by entering an absorbing state).
        """
        s = np.arange(self.n_states)[:, None, None]
        mask = np.arange(self.prob.shape[2])[None, None, :] < self.n_outcomes[:, :, None]
        loops = (self.next_state == s) & self.terminated
        return np.all(loops | ~mask, axis=(1, 2))


@functools.cache
def tabular_model(env_id: str) -> TabularModel:
    """The transition model of ``env_id`` as dense arrays (cached per id).

    Raises:
        ValueError: unknown environment.
    """
    canonical = canonical_env_id(env_id)
    env = make_env(env_id)
    try:
        raw = env.unwrapped
        n_states = int(env.observation_space.n)
        n_actions = int(env.action_space.n)
        p_model = raw.P
        k = max(len(p_model[s][a]) for s in range(n_states) for a in range(n_actions))
        prob = np.zeros((n_states, n_actions, k))
        nxt = np.zeros((n_states, n_actions, k), dtype=np.int32)
        rew = np.zeros((n_states, n_actions, k))
        term = np.zeros((n_states, n_actions, k), dtype=bool)
        n_out = np.zeros((n_states, n_actions), dtype=np.int32)
        for s in range(n_states):
            for a in range(n_actions):
                outcomes = p_model[s][a]
                n_out[s, a] = len(outcomes)
                for j in range(k):
                    p, s2, r, t = outcomes[min(j, len(outcomes) - 1)]
                    prob[s, a, j] = p if j < len(outcomes) else 0.0
                    nxt[s, a, j] = s2
                    rew[s, a, j] = r
                    term[s, a, j] = t
        initial = np.asarray(raw.initial_state_distrib, dtype=np.float64)
        spec = env.spec
        max_steps = spec.max_episode_steps if spec is not None else None
    finally:
        env.close()
    for arr in (prob, nxt, rew, term, n_out, initial):
        arr.setflags(write=False)
    return TabularModel(
        env_id=canonical,
        n_states=n_states,
        n_actions=n_actions,
        prob=prob,
        next_state=nxt,
        reward=rew,
        terminated=term,
        n_outcomes=n_out,
        initial=initial,
        max_episode_steps=max_steps,
    )
