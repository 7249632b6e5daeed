"""Evaluating tables: greedy policies, value iteration, and rollouts in the real environment.

* :func:`value_iteration` solves the environment's own transition model
  (``env.unwrapped.P``) for the optimal values and a greedy optimal policy.
* :func:`evaluate_policy` runs a deterministic policy in the real gymnasium environment
  for seeded episodes (episode ``i`` resets with seed ``seed + i``).
* :func:`compare_to_optimal` sets a learned table's greedy policy against the optimal
  one on the same episodes.

An episode is a *success* when it terminates in the task's goal: FrozenLake reaching the
goal tile (terminated with reward > 0), Taxi a successful drop-off, CliffWalking
reaching the goal (Taxi and CliffWalking terminate only so).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import fixed_point
from .envs import make_env, tabular_model

#: Step cap for environments registered without a TimeLimit (CliffWalking), so that a
#: policy that never reaches the goal still ends its episodes.
DEFAULT_MAX_EPISODE_STEPS = 1000


def greedy_policy(table: np.ndarray) -> np.ndarray:
    """int64 (S,): the greedy action of every state, the lowest index among ties.

    ``table`` is an ``(S, A)`` float table or an int32 Q15.16 table (ties and order are
    the same either way).
    """
    table = np.asarray(table)
    if table.ndim != 2 or table.shape[1] < 1:
        raise ValueError(f"a Q table must have shape (n_states, n_actions), not {table.shape}")
    return np.argmax(table, axis=1).astype(np.int64)


@dataclass(frozen=True, eq=False)
class ValueIterationResult:
    """Optimal state values, action values and a greedy optimal policy."""

    values: np.ndarray  #: float64 (S,) optimal V
    q_values: np.ndarray  #: float64 (S, A) optimal Q
    policy: np.ndarray  #: int64 (S,) greedy policy of ``q_values`` (lowest index on ties)
    iterations: int  #: sweeps until the largest change fell below ``tol``


def value_iteration(
    env_id: str, gamma: float = 0.99, tol: float = 1e-10, max_iterations: int = 100_000
) -> ValueIterationResult:
    """Solve ``env_id``'s transition model: ``V(s) = max_a sum_k p_k (r_k + gamma *
    (1 - terminated_k) * V(s'_k))``.

    Terminated outcomes do not bootstrap (as in the learners). The environment's
    TimeLimit is ignored (the optimal policy of the discounted, unbounded problem).

    Raises:
        ValueError: unknown environment, ``gamma`` outside [0, 1] or ``gamma = 1`` (may
            not converge; use 0.999), or no convergence within ``max_iterations``.
    """
    if not 0.0 <= gamma < 1.0:
        raise ValueError(f"gamma={gamma} must lie in [0, 1) for value iteration to converge")
    m = tabular_model(env_id)
    cont = np.where(m.terminated, 0.0, gamma) * m.prob  # (S, A, K)
    expected_r = (m.prob * m.reward).sum(axis=2)
    v = np.zeros(m.n_states)
    sweeps = 0
    while True:
        q = expected_r + (cont * v[m.next_state]).sum(axis=2)
        new = q.max(axis=1)
        delta = float(np.abs(new - v).max())
        v = new
        sweeps += 1
        if delta < tol:
            break
        if sweeps >= max_iterations:
            raise ValueError(
                f"value iteration did not converge to tol={tol} in {max_iterations} "
                f"sweeps; raise max_iterations or tol"
            )
    q = expected_r + (cont * v[m.next_state]).sum(axis=2)
    return ValueIterationResult(v, q, greedy_policy(q), sweeps)


@dataclass(frozen=True)
class EvaluationResult:
    """Outcome of running a policy for several seeded episodes."""

    episodes: int  #: number of episodes
    mean_return: float  #: mean undiscounted return
    success_rate: float  #: fraction of episodes that reached the goal
    mean_length: float  #: mean episode length in steps


def _success(env_id: str, terminated: bool, reward: float) -> bool:
    if env_id.startswith("FrozenLake"):
        return terminated and reward > 0
    return terminated


def evaluate_policy(
    env_id: str,
    policy: np.ndarray,
    episodes: int = 1000,
    seed: int = 0,
    max_episode_steps: int | None = None,
) -> EvaluationResult:
    """Run the deterministic ``policy`` (int array, one action per state) in the real env.

    Episode ``i`` starts with ``env.reset(seed=seed + i)`` and ends on termination or
    the TimeLimit (``max_episode_steps`` if given, else the registered one, else
    :data:`DEFAULT_MAX_EPISODE_STEPS`).

    Raises:
        ValueError: unknown environment, a policy of the wrong shape or with actions
            outside the action space, or ``episodes < 1``.
    """
    m = tabular_model(env_id)
    policy = np.asarray(policy)
    if policy.shape != (m.n_states,):
        raise ValueError(
            f"policy must have one action per state, shape ({m.n_states},), not "
            f"{policy.shape}; use greedy_policy(table) to get one from a table"
        )
    if policy.size and (policy.min() < 0 or policy.max() >= m.n_actions):
        raise ValueError(f"policy actions must lie in 0..{m.n_actions - 1}")
    if episodes < 1:
        raise ValueError(f"episodes={episodes} must be at least 1")
    limit = max_episode_steps or m.max_episode_steps or DEFAULT_MAX_EPISODE_STEPS
    env = make_env(env_id, max_episode_steps=limit)
    acts = policy.tolist()
    total = successes = steps = 0
    try:
        for i in range(episodes):
            s, _ = env.reset(seed=seed + i)
            while True:
                s, r, terminated, truncated, _ = env.step(acts[s])
                total += r
                steps += 1
                if terminated or truncated:
                    successes += _success(m.env_id, terminated, r)
                    break
    finally:
        env.close()
    return EvaluationResult(episodes, total / episodes, successes / episodes, steps / episodes)


@dataclass(frozen=True)
class Comparison:
    """A learned policy against the optimal policy on the same seeded episodes."""

    learned: EvaluationResult  #: the table's greedy policy
    optimal: EvaluationResult  #: value iteration's policy
    success_fraction: float  #: learned / optimal success rate (1.0 when both are 0)
    return_gap: float  #: optimal minus learned mean return (0 = as good as optimal)
    policy_agreement: float  #: fraction of states where the greedy actions coincide


def compare_to_optimal(
    env_id: str,
    table: np.ndarray,
    episodes: int = 1000,
    seed: int = 0,
    gamma: float = 0.99,
) -> Comparison:
    """Evaluate ``table``'s greedy policy and the optimal policy on the same episodes.

    ``table`` is an (S, A) float table or INT32 Q15.16 table. The optimal policy comes
    from :func:`value_iteration` with ``gamma``.
    """
    table = np.asarray(table)
    if table.dtype == np.int32:
        table = fixed_point.from_q16(table)
    m = tabular_model(env_id)
    if table.shape != (m.n_states, m.n_actions):
        raise ValueError(
            f"table shape {table.shape} does not fit {m.env_id} "
            f"({m.n_states} states x {m.n_actions} actions)"
        )
    learned_policy = greedy_policy(table)
    opt = value_iteration(env_id, gamma)
    learned = evaluate_policy(env_id, learned_policy, episodes, seed)
    optimal = evaluate_policy(env_id, opt.policy, episodes, seed)
    frac = learned.success_rate / optimal.success_rate if optimal.success_rate else 1.0
    return Comparison(
        learned,
        optimal,
        frac,
        optimal.mean_return - learned.mean_return,
        float(np.mean(learned_policy == opt.policy)),
    )
