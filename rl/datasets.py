"""Offline experience datasets: collect them from gymnasium, save, load, read SwiftRL text.

A :class:`Dataset` is five int32 arrays of equal length (state, action, reward,
next_state, terminal) plus the table size and a ``reward_scale``: the real reward of
transition ``i`` is ``reward[i] / reward_scale``. Environments whose rewards are whole
numbers (all the known ones) use ``reward_scale = 1``; rewards that are not whole
numbers are stored in fixed point with ``reward_scale = 65536``
(``reward = round_half_even(real * 65536)``).

``terminal[i]`` is 1 when the transition *terminated* the episode (gymnasium's
``terminated``); a time-limit truncation is not terminal: the data simply continues with
a new episode after it.
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import fixed_point
from .envs import TabularModel, canonical_env_id, known_env_ids, make_env, tabular_model

#: Fixed-point scale of rewards that are not whole numbers.
FRACTIONAL_REWARD_SCALE = 65536

#: Methods :func:`collect` accepts.
COLLECT_METHODS: tuple[str, ...] = ("model", "env")

_FIELDS = ("state", "action", "reward", "next_state", "terminal")
_FORMAT = "rl-dataset-1"


class RewardMismatch(ValueError):
    """A dataset's reward contradicts the environment's model (see
    :func:`check_against_model`); shaped rewards are not an error when that check is off."""


def location(source: str | os.PathLike | None, lines: np.ndarray | None, i: int) -> str:
    """Where transition ``i`` (0-based) is, for messages: ``FILE:LINE`` for text files,
    ``FILE: transition K`` (``K = i + 1``) otherwise, ``transition K`` without a file."""
    if source is not None and lines is not None:
        return f"{source}:{int(lines[i])}:"
    if source is not None:
        return f"{source}: transition {i + 1}"
    return f"transition {i + 1}"


@dataclass(frozen=True, eq=False)
class Dataset:
    """Offline transitions of a tabular environment, as int32 arrays (read-only).

    Transition ``i`` is ``(state[i], action[i], reward[i] / reward_scale, next_state[i],
    terminal[i])``. ``env_id`` is the canonical environment name, or None when unknown
    (e.g. a SwiftRL text file loaded without one).
    """

    env_id: str | None  #: canonical environment name, or None
    n_states: int  #: number of states (rows of the Q table)
    n_actions: int  #: number of actions (columns of the Q table)
    reward_scale: int  #: real reward = reward / reward_scale
    state: np.ndarray = field(repr=False)  #: int32 (N,)
    action: np.ndarray = field(repr=False)  #: int32 (N,)
    reward: np.ndarray = field(repr=False)  #: int32 (N,), scaled by reward_scale
    next_state: np.ndarray = field(repr=False)  #: int32 (N,)
    terminal: np.ndarray = field(repr=False)  #: int32 (N,), 0 or 1

    def __post_init__(self) -> None:
        n = None
        for name in _FIELDS:
            arr = np.asarray(getattr(self, name))
            if arr.ndim != 1:
                raise ValueError(f"Dataset.{name} must be one-dimensional, not {arr.shape}")
            if arr.size and not np.issubdtype(arr.dtype, np.integer):
                if not np.all(arr == np.round(arr)):
                    raise ValueError(
                        f"Dataset.{name} must hold integers; scale fractional rewards "
                        f"with reward_scale"
                    )
            lo, hi = fixed_point.INT32_MIN, fixed_point.INT32_MAX
            if arr.size and (arr.min() < lo or arr.max() > hi):
                raise ValueError(f"Dataset.{name} has values outside the int32 range")
            arr = np.ascontiguousarray(arr, dtype=np.int32)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
            if n is None:
                n = arr.size
            elif arr.size != n:
                raise ValueError(
                    f"Dataset fields differ in length: state has {n}, {name} has {arr.size}"
                )
        for name in ("n_states", "n_actions", "reward_scale"):
            object.__setattr__(self, name, int(getattr(self, name)))
        if self.env_id is not None:
            object.__setattr__(self, "env_id", canonical_env_id(self.env_id))

    def __len__(self) -> int:
        return int(self.state.size)

    @property
    def n_transitions(self) -> int:
        """Number of transitions."""
        return len(self)

    def validate(self, source: str | os.PathLike | None = None,
                 lines: np.ndarray | None = None) -> Dataset:
        """Check that every field fits the table and the format; return ``self``.

        ``source`` (a file name) and ``lines`` (the 1-based line of every transition in
        a text file) only make the messages point at the problem: ``FILE:LINE: ...``,
        or ``FILE: transition K: ...`` (1-based) without lines.

        Raises:
            ValueError: a table size or the reward scale is below 1, a state, next state
                or action lies outside the table, or a terminal flag is not 0 or 1.
        """
        if self.n_states < 1 or self.n_actions < 1:
            raise ValueError(
                f"the table must have at least one state and one action, not "
                f"{self.n_states} x {self.n_actions}"
            )
        if self.reward_scale < 1:
            raise ValueError(f"reward_scale must be >= 1, not {self.reward_scale}")
        for name, limit in (
            ("state", self.n_states),
            ("next_state", self.n_states),
            ("action", self.n_actions),
        ):
            arr = getattr(self, name)
            bad = np.flatnonzero((arr < 0) | (arr >= limit))
            if bad.size:
                i = int(bad[0])
                what = "n_states" if name != "action" else "n_actions"
                raise ValueError(
                    f"{location(source, lines, i)} has {name}={int(arr[i])}, outside the "
                    f"table (0..{limit - 1}); {bad.size} transition(s) are out of range; "
                    f"give a larger {what} or fix the data"
                )
        bad = np.flatnonzero((self.terminal != 0) & (self.terminal != 1))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"{location(source, lines, i)} has terminal={int(self.terminal[i])}; "
                f"use 0 or 1"
            )
        return self

    def rewards_f32(self) -> np.ndarray:
        """Float32 rewards as the FP32 learners use them: ``float32(reward / reward_scale)``
        (the quotient computed in float64, then rounded once to float32)."""
        return fixed_point.scaled_to_f32(self.reward, self.reward_scale)

    def rewards_q16(self) -> np.ndarray:
        """Int32 Q15.16 rewards as the INT32 learners use them: ``reward * 65536 /
        reward_scale`` rounded half to even, exactly.

        Raises:
            ValueError: a reward falls outside the Q15.16 range [-32768, 32768).
        """
        return fixed_point.scaled_to_q16(self.reward, self.reward_scale)

    def select(self, indices: np.ndarray | slice) -> Dataset:
        """A new dataset of the transitions at ``indices`` (in that order)."""
        return Dataset(
            self.env_id,
            self.n_states,
            self.n_actions,
            self.reward_scale,
            *(getattr(self, name)[indices] for name in _FIELDS),
        )

    def save(self, path: str | os.PathLike) -> Path:
        """Save to an ``.npz`` file (``np.savez``; appended if ``path`` lacks it).

        :func:`load` restores the dataset exactly. Returns the path written.
        """
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_name(path.name + ".npz")
        np.savez(
            path,
            format=np.array(_FORMAT),
            env_id=np.array(self.env_id or ""),
            n_states=np.int64(self.n_states),
            n_actions=np.int64(self.n_actions),
            reward_scale=np.int64(self.reward_scale),
            **{name: getattr(self, name) for name in _FIELDS},
        )
        return path

    @classmethod
    def load(cls, path: str | os.PathLike) -> Dataset:
        """Load a dataset that :meth:`save` wrote (same as :func:`load`)."""
        return load(path)

    def save_swiftrl_text(self, path: str | os.PathLike) -> Path:
        """Write SwiftRL's text format, one ``state action reward next_state`` per line.

        The terminal flags are not written (the format has no column for them). Rewards
        are written as integers when ``reward_scale`` is 1, else as the shortest decimal
        of the float64 ``reward / reward_scale``; with ``reward_scale`` 1 or 65536 the
        round trip through :func:`load_swiftrl_text` (with the env, for the terminal
        flags) is exact.
        """
        path = Path(path)
        if self.reward_scale == 1:
            rewards = [str(int(r)) for r in self.reward]
        else:
            rewards = [repr(float(r) / self.reward_scale) for r in self.reward]
        with open(path, "w") as f:
            for s, a, r, s2 in zip(
                self.state.tolist(), self.action.tolist(), rewards, self.next_state.tolist(),
                strict=True,
            ):
                f.write(f"{s} {a} {r} {s2}\n")
        return path


_ZIP_MAGIC = b"PK\x03\x04"  # every .npz is a zip archive


def _not_a_dataset(path: str | os.PathLike, problem: str, readable: bool = False) -> ValueError:
    what = "not an rl dataset" if readable else "not a readable .npz dataset"
    return ValueError(
        f"{path}: {what} ({problem}); make one with "
        f"'python -m rl collect ENV -o FILE.npz' or rl.datasets.collect(...).save(FILE)"
    )


def load(path: str | os.PathLike) -> Dataset:
    """Load a dataset saved by :meth:`Dataset.save` (exact round trip).

    Raises:
        ValueError: the file is not a dataset file (not an ``.npz``, truncated, or another
            ``.npz``); the message names the file, what is wrong and how to make one.
        FileNotFoundError: there is no such file.
    """
    with open(path, "rb") as file:
        if file.read(4) != _ZIP_MAGIC:
            raise _not_a_dataset(path, "not an .npz file: it does not start as a zip archive")
    try:
        with np.load(path, allow_pickle=False) as z:
            if "format" not in z or str(z["format"]) != _FORMAT:
                raise _not_a_dataset(path, f"an .npz without the '{_FORMAT}' marker",
                                     readable=True)
            names = ("env_id", "n_states", "n_actions", "reward_scale", *_FIELDS)
            missing = [name for name in names if name not in z]
            if missing:
                raise _not_a_dataset(path, f"its fields {', '.join(missing)} are missing",
                                     readable=True)
            fields = {name: z[name] for name in names}
    except (zipfile.BadZipFile, EOFError, OSError, KeyError) as error:
        raise _not_a_dataset(path, f"truncated or damaged: {error}") from None
    except ValueError as error:
        if "allow_pickle" not in str(error):
            raise
        # numpy would advise allow_pickle=True: a dataset never holds Python objects, and
        # unpickling an untrusted file runs its code.
        raise _not_a_dataset(path, "it holds pickled Python objects, which a dataset never "
                                   "does") from None
    return Dataset(
        str(fields["env_id"]) or None,
        int(fields["n_states"]),
        int(fields["n_actions"]),
        int(fields["reward_scale"]),
        *(fields[name] for name in _FIELDS),
    )


def _reward_scale_of(values: np.ndarray) -> int:
    """1 when every value is a whole number, else :data:`FRACTIONAL_REWARD_SCALE`."""
    return 1 if np.all(values == np.round(values)) else FRACTIONAL_REWARD_SCALE


def _scale_rewards(values: np.ndarray, scale: int) -> np.ndarray:
    raw = np.rint(np.asarray(values, dtype=np.float64) * scale)
    if np.any((raw < fixed_point.INT32_MIN) | (raw > fixed_point.INT32_MAX)):
        raise ValueError(
            f"rewards up to {np.abs(values).max()!r} do not fit int32 at reward_scale={scale}"
        )
    return raw.astype(np.int32)


def _policy_cdf(policy, n_states: int, n_actions: int) -> np.ndarray | None:
    """None for the uniform policy, else the (S, A) cumulative action probabilities."""
    if isinstance(policy, str):
        if policy != "uniform":
            raise ValueError(
                f"unknown behaviour policy {policy!r}; use 'uniform' or an (n_states, "
                f"n_actions) array of action probabilities"
            )
        return None
    p = np.asarray(policy, dtype=np.float64)
    if p.shape != (n_states, n_actions):
        raise ValueError(
            f"a behaviour policy array must have shape ({n_states}, {n_actions}) "
            f"(states x actions), not {p.shape}"
        )
    if np.any(p < 0) or not np.allclose(p.sum(axis=1), 1.0):
        raise ValueError("each row of a behaviour policy must be probabilities summing to 1")
    return np.cumsum(p, axis=1)


def _draw_actions(cdf: np.ndarray | None, states: np.ndarray, n_actions: int, rng) -> np.ndarray:
    if cdf is None:
        return rng.integers(0, n_actions, size=states.shape)
    u = rng.random(states.shape)
    a = (cdf[states] <= u[..., None]).sum(axis=-1)
    return np.minimum(a, n_actions - 1)


def collect(
    env_id: str,
    n_transitions: int,
    seed: int = 0,
    policy="uniform",
    method: str = "model",
    n_streams: int | None = None,
) -> Dataset:
    """Collect ``n_transitions`` transitions of ``env_id`` with a behaviour policy.

    ``policy`` is ``"uniform"`` (uniformly random actions) or an ``(n_states, n_actions)``
    array of action probabilities.

    ``method="model"`` (default, vectorised, about a second per million transitions)
    samples the environment's own transition model ``env.unwrapped.P`` and initial-state
    distribution with numpy: ``n_streams`` independent copies of the environment
    (default ``clip(n_transitions // 1000, 1, 1024)``) run side by side, each starting
    with a reset; an episode ends when the transition is terminated (``terminal = 1``)
    or when the env's TimeLimit is reached (a truncation: ``terminal = 0``), and the next
    step starts a new episode. The dataset holds stream 0's transitions in order, then
    stream 1's, and so on. ``method="env"`` steps the real gymnasium environment (with
    its wrappers) one transition at a time: slow, but the ground truth the model sampler
    is tested against. Both are deterministic for a given ``seed``, but they draw
    different random numbers, so they agree in distribution, not transition by transition.

    Raises:
        ValueError: unknown environment or method, bad policy, or a negative count.
    """
    model = tabular_model(env_id)
    if n_transitions < 0:
        raise ValueError(f"n_transitions must be >= 0, not {n_transitions}")
    if method not in COLLECT_METHODS:
        raise ValueError(f"unknown method {method!r}; use one of {', '.join(COLLECT_METHODS)}")
    cdf = _policy_cdf(policy, model.n_states, model.n_actions)
    scale = _reward_scale_of(model.reward)
    if method == "env":
        s, a, r, s2, term = _collect_env(model, n_transitions, seed, cdf)
    else:
        s, a, r, s2, term = _collect_model(model, n_transitions, seed, cdf, n_streams)
    return Dataset(
        model.env_id,
        model.n_states,
        model.n_actions,
        scale,
        s,
        a,
        _scale_rewards(r, scale),
        s2,
        term,
    )


def _collect_model(
    model: TabularModel, n: int, seed: int, cdf: np.ndarray | None, n_streams: int | None
):
    rng = np.random.default_rng(seed)
    w = n_streams if n_streams is not None else min(max(n // 1000, 1), 1024)
    if w < 1:
        raise ValueError(f"n_streams must be >= 1, not {n_streams}")
    steps = -(-n // w) if n else 0
    n_actions = model.n_actions
    cum = np.cumsum(model.prob, axis=2)
    last = model.n_outcomes.astype(np.int64) - 1
    init_cdf = np.cumsum(model.initial)
    init_cdf /= init_cdf[-1]
    limit = model.max_episode_steps

    def reset(count: int) -> np.ndarray:
        idx = np.searchsorted(init_cdf, rng.random(count), side="right")
        return np.minimum(idx, model.n_states - 1)

    out_s = np.empty((steps, w), dtype=np.int32)
    out_a = np.empty((steps, w), dtype=np.int32)
    out_r = np.empty((steps, w), dtype=np.float64)
    out_s2 = np.empty((steps, w), dtype=np.int32)
    out_t = np.empty((steps, w), dtype=np.int32)
    s = reset(w)
    t = np.zeros(w, dtype=np.int64)
    for j in range(steps):
        a = _draw_actions(cdf, s, n_actions, rng)
        u = rng.random(w)
        # gymnasium's categorical_sample: the first outcome whose cumulative p exceeds u.
        k = np.minimum((cum[s, a] <= u[:, None]).sum(axis=1), last[s, a])
        s2 = model.next_state[s, a, k]
        term = model.terminated[s, a, k]
        out_s[j], out_a[j], out_r[j] = s, a, model.reward[s, a, k]
        out_s2[j], out_t[j] = s2, term
        t += 1
        done = term if limit is None else term | (t >= limit)
        n_done = int(done.sum())
        if n_done:
            s2 = s2.copy()
            s2[done] = reset(n_done)
            t[done] = 0
        s = s2
    # stream-major order: each stream's episodes stay contiguous
    return tuple(arr.T.reshape(-1)[:n] for arr in (out_s, out_a, out_r, out_s2, out_t))


def _collect_env(model: TabularModel, n: int, seed: int, cdf: np.ndarray | None):
    rng = np.random.default_rng(seed)
    env = make_env(model.env_id)
    out = np.empty((5, n), dtype=np.float64)
    try:
        s, _ = env.reset(seed=seed)
        for i in range(n):
            a = int(_draw_actions(cdf, np.array([s]), model.n_actions, rng)[0])
            s2, r, terminated, truncated, _ = env.step(a)
            out[:, i] = (s, a, r, s2, terminated)
            s = env.reset()[0] if terminated or truncated else s2
    finally:
        env.close()
    s, a, r, s2, t = out
    return s.astype(np.int32), a.astype(np.int32), r, s2.astype(np.int32), t.astype(np.int32)


def load_swiftrl_text(
    path: str | os.PathLike,
    env_id: str | None = None,
    n_states: int | None = None,
    n_actions: int | None = None,
    terminal_states=None,
    check_rewards: bool = True,
) -> Dataset:
    """Read SwiftRL's text format: one ``state action reward next_state`` per line.

    Fields are separated by whitespace (commas are accepted too); blank lines and lines
    starting with ``#`` are skipped. States and actions must be whole numbers. Rewards
    that are all whole numbers give ``reward_scale = 1``; otherwise every reward is
    stored in fixed point, ``round_half_even(reward * 65536)`` with ``reward_scale =
    65536``. Messages name the file and the 1-based line (``FILE:LINE: ...``).

    The format has no terminal column, so the terminal flags come from one of:

    * ``terminal_states`` (an iterable of states): a transition is terminal when its
      next state is one of them; an empty iterable: no transition is terminal (every
      transition bootstraps).
    * ``env_id``: ``terminal[i]`` is the ``terminated`` flag the environment's model
      gives the outcome ``next_state`` of ``(state, action)`` (FrozenLake: entering a
      hole or the goal; Taxi: a successful drop-off; CliffWalking: reaching the goal).
    * neither: every ``terminal`` is 0, as with an empty ``terminal_states``.

    With ``env_id`` every transition is also checked against the environment's model
    (:func:`check_against_model`; its rewards only when ``check_rewards``), and the
    table size is the environment's; without it the table size is ``n_states`` x
    ``n_actions`` or, where not given, one more than the largest state / action in the
    file.

    Raises:
        ValueError: a file that is not text, a malformed line, an unknown ``env_id``, a
            table size that contradicts the environment's or the data, or (with
            ``env_id``) a transition the environment cannot make.
        RewardMismatch: (with ``env_id`` and ``check_rewards``) a reward the
            environment's model does not give.
    """
    model = tabular_model(env_id) if env_id is not None else None
    rows: list[list[str]] = []
    numbers: list[int] = []
    lineno = 0
    try:
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):  # noqa: B007 - used after the loop
                parts = line.replace(",", " ").split()
                if not parts or parts[0].startswith("#"):
                    continue
                if len(parts) != 4:
                    raise ValueError(
                        f"{path}:{lineno}: expected 4 fields 'state action reward "
                        f"next_state', got {len(parts)}: {line.strip()[:60]!r}"
                    )
                rows.append(parts)
                numbers.append(lineno)
    except UnicodeDecodeError:
        raise ValueError(
            f"{path}:{lineno + 1}: not text; a dataset is an .npz file written by "
            f"'collect' or a text file of 'state action reward next_state' lines"
        ) from None
    lines = np.array(numbers, dtype=np.int64)
    try:
        values = np.array(rows, dtype=np.float64).reshape(-1, 4)
    except ValueError:
        for k, parts in enumerate(rows):
            for p in parts:
                try:
                    float(p)
                except ValueError:
                    raise ValueError(
                        f"{path}:{lines[k]}: {p[:30]!r} is not a number"
                    ) from None
        raise
    s_f, a_f, r, s2_f = values.T
    for name, col in (("state", s_f), ("action", a_f), ("next_state", s2_f)):
        bad = np.flatnonzero((col != np.round(col)) | ~np.isfinite(col))
        if bad.size:
            raise ValueError(
                f"{path}:{lines[bad[0]]}: {name}={float(col[bad[0]]):g}; states and actions "
                f"must be whole numbers"
            )
    bad = np.flatnonzero(~np.isfinite(r))
    if bad.size:
        raise ValueError(f"{path}:{lines[bad[0]]}: the reward is not a finite number")
    for name, col in (("state", s_f), ("action", a_f), ("next_state", s2_f)):
        bad = np.flatnonzero(np.abs(col) > fixed_point.INT32_MAX)
        if bad.size:
            raise ValueError(
                f"{path}:{lines[bad[0]]}: {name}={float(col[bad[0]]):.0f} is too large")
    s, a, s2 = (c.astype(np.int64) for c in (s_f, a_f, s2_f))
    scale = _reward_scale_of(r)
    reward = _scale_rewards(r, scale)

    if model is not None:
        for given, real, what in ((n_states, model.n_states, "n_states"),
                                  (n_actions, model.n_actions, "n_actions")):
            if given is not None and given != real:
                raise ValueError(
                    f"{what}={given} contradicts {model.env_id}, which has {real}; "
                    f"omit {what} or pass env_id=None"
                )
        n_states, n_actions = model.n_states, model.n_actions
    else:
        marked = [int(t) for t in terminal_states] if terminal_states is not None else []
        n_states = n_states if n_states is not None else int(max(
            s.max(initial=-1), s2.max(initial=-1), max(marked, default=-1)) + 1)
        n_actions = n_actions if n_actions is not None else int(a.max(initial=-1) + 1)
        n_states, n_actions = max(n_states, 1), max(n_actions, 1)
    ds = Dataset(
        model.env_id if model is not None else None,
        n_states, n_actions, scale, s, a, reward, s2, np.zeros(s.size, dtype=np.int32),
    )
    ds.validate(path, lines)
    terminal = ds.terminal
    if model is not None and len(ds):
        terminal = check_against_model(ds, model.env_id, check_rewards, path, lines,
                                       check_terminals=False)
    if terminal_states is not None:
        marked = np.zeros(n_states, dtype=bool)
        for t in terminal_states:
            if not 0 <= int(t) < n_states:
                raise ValueError(f"terminal state {t} is outside the table (0..{n_states - 1})")
            marked[int(t)] = True
        terminal = marked[s2].astype(np.int32)
    return Dataset(ds.env_id, n_states, n_actions, scale, s, a, reward, s2, terminal)


def check_against_model(
    ds: Dataset,
    env_id: str,
    check_rewards: bool = True,
    source: str | os.PathLike | None = None,
    lines: np.ndarray | None = None,
    check_terminals: bool = True,
) -> np.ndarray:
    """Check every transition of ``ds`` against ``env_id``'s transition model; return the
    terminal flags the model gives (int32).

    A transition is possible when ``next_state`` is an outcome of ``(state, action)``;
    its reward must be (within ``1 / reward_scale``) the reward of one such outcome,
    and (with ``check_terminals``) its terminal flag that outcome's ``terminated``.

    Raises:
        ValueError: the table size differs from the environment's, a transition the
            environment cannot make, or a terminal flag it contradicts.
        RewardMismatch: (with ``check_rewards``) a reward it contradicts.
    """
    model = tabular_model(env_id)
    if (ds.n_states, ds.n_actions) != (model.n_states, model.n_actions):
        raise ValueError(
            f"{source or 'the dataset'} has a {ds.n_states} x {ds.n_actions} table, but "
            f"{model.env_id} has {model.n_states} states x {model.n_actions} actions"
        )
    s, a, s2 = ds.state, ds.action, ds.next_state
    k = np.arange(model.prob.shape[2])[None, :]
    outcome = model.next_state[s, a] == s2[:, None]
    outcome &= k < model.n_outcomes[s, a][:, None]
    possible = outcome.any(axis=1)
    if not possible.all():
        i = int(np.flatnonzero(~possible)[0])
        raise ValueError(
            f"{location(source, lines, i)} ({s[i]} {a[i]} ... {s2[i]}) is not a transition "
            f"{model.env_id} can make; {int((~possible).sum())} transition(s) are not; "
            f"check the environment (known: {', '.join(known_env_ids())})"
        )
    if check_rewards:
        real = ds.reward.astype(np.float64) / ds.reward_scale
        close = np.abs(model.reward[s, a] - real[:, None]) <= 0.5 / ds.reward_scale
        ok = (outcome & close).any(axis=1)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            given = model.reward[s[i], a[i]][outcome[i]]
            raise RewardMismatch(
                f"{location(source, lines, i)} reward {fixed_point._num(real[i])} for "
                f"{s[i]} {a[i]} -> {s2[i]}, but {model.env_id} gives "
                f"{fixed_point._num(given[0])} there; {int((~ok).sum())} reward(s) "
                f"disagree with the environment's model"
            )
    terminal = (outcome & model.terminated[s, a]).any(axis=1).astype(np.int32)
    if check_terminals:
        bad = np.flatnonzero(terminal != ds.terminal)
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"{location(source, lines, i)} has terminal={int(ds.terminal[i])}, but "
                f"{model.env_id}'s model says {int(terminal[i])} for {s[i]} {a[i]} -> "
                f"{s2[i]}"
            )
    return terminal
