"""The environment the agents search: it scores a mapping by the hardware time the
emulator's model gives the whole run (transfers and launches), caches every evaluation
and counts them.

A workload turns a mapping into a run: :meth:`Workload.run` gets the mapping and returns
the modelled seconds of each phase, or raises :class:`InvalidMapping` with the reason (the
program does not fit WRAM, a DPU faults, the shares do not divide ...). An invalid
mapping scores :data:`PENALTY_SECONDS`, so agents learn to avoid it and the reason is
kept. A workload may also refuse a mapping by static rules (:meth:`Workload.check`: WRAM
or MRAM capacity, DMA sizes ...) before running anything: such a mapping costs no
emulation, is not counted in :attr:`MappingEnvironment.runs`, and still scores the penalty.

With ``workers`` above 1, :meth:`MappingEnvironment.evaluate_many` runs the mappings it
must emulate in that many processes, each with its own copy of the workload; the
evaluations, and so what a search finds, are the same as with one.
"""

from __future__ import annotations

import atexit
import json
import math
import multiprocessing
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .space import Space

PENALTY_SECONDS = 10.0
"""The score of an invalid mapping: far above any valid run of the built-in workloads."""


def _model_version() -> str:
    """The emulator build (its sources' digest), which fixes the time model's figures."""
    from pyupmem import emu

    return emu.build().root.name


class InvalidMapping(Exception):
    """A mapping that cannot run; the message is the reason."""


@dataclass(frozen=True)
class Evaluation:
    """One mapping's score.

    Attributes:
        mapping: the mapping.
        seconds: the modelled hardware time of the whole run (``PENALTY_SECONDS`` when
            invalid).
        phases: its modelled seconds per phase (``CPU-DPU``, ``DPU kernel``, ``DPU-CPU``).
        valid: whether the mapping runs.
        reason: why it does not, when invalid.
        emulated: False when the workload's static rules refused the mapping, so it cost
            no emulation and is not counted as an evaluation.
    """

    mapping: dict[str, Any]
    seconds: float
    phases: dict[str, float] = field(default_factory=dict)
    valid: bool = True
    reason: str = ""
    emulated: bool = True

    @property
    def reward(self) -> float:
        """What the agents maximise: minus the log of the seconds (a ratio scale, so an
        improvement by a factor counts the same at every latency)."""
        return -math.log(self.seconds)


class Workload:
    """A DPU program and its mapping space. Subclasses implement :meth:`run`.

    Attributes:
        name: a short name (the CLI's WORKLOAD).
        space: the mapping space.
        description: one line on what it computes and at which shape.
        factory: ``(name, shape)`` such that ``rl.mapping.workload(name, **shape)`` makes
            this workload again (set by :func:`rl.mapping.workload`); worker processes
            make their own copy with it.
    """

    name = "workload"
    description = ""
    factory: tuple[str, dict[str, Any]] | None = None

    def __init__(self, space: Space):
        self.space = space

    def check(self, mapping: dict[str, Any]) -> str | None:
        """Why the static rules refuse ``mapping`` (None: it may run). Refusing costs no
        emulation; the default refuses nothing."""
        return None

    def run(self, mapping: dict[str, Any]) -> dict[str, float]:
        """The modelled seconds of each phase of the run that ``mapping`` describes.

        Raises:
            InvalidMapping: the mapping cannot run; the message says why.
        """
        raise NotImplementedError

    def default_mapping(self) -> dict[str, Any]:
        """The mapping a programmer would pick without a search."""
        raise NotImplementedError

    def close(self) -> None:
        """Frees what :meth:`run` keeps between runs (DPU sets)."""


class MappingEnvironment:
    """Scores mappings of one workload, each at most once (a cache), and counts them.

    Args:
        workload: the program and its space.
        cache: a JSON file that keeps evaluations between runs (optional); it is read
            when it exists and written by :meth:`save`.
        workers: processes that emulate mappings (1: this one).
    """

    def __init__(self, workload: Workload, cache: str | Path | None = None,
                 workers: int = 1):
        self.workload = workload
        self.space = workload.space
        self.cache_path = Path(cache) if cache is not None else None
        self._cache: dict[tuple[Any, ...], Evaluation] = {}
        self.runs = 0
        """Mappings actually run (cache misses that the static rules let through)."""
        self.refused = 0
        """Mappings the static rules refused (cache misses, no emulation)."""
        self.requests = 0
        """Evaluations asked for, cache hits included."""
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        if workers > 1 and workload.factory is None:
            raise ValueError(
                f"workload {workload.name!r} cannot be copied into worker processes (only "
                "the built-in workloads, made by rl.mapping.workload, can): use workers=1"
            )
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        if self.cache_path is not None and self.cache_path.exists():
            self._load()

    def evaluate(self, mapping: Mapping[str, Any]) -> Evaluation:
        """The mapping's score, from the cache or by running it.

        Raises:
            ValueError: the mapping is not in the space.
        """
        return self.evaluate_many([mapping])[0]

    def refusal(self, mapping: Mapping[str, Any]) -> str | None:
        """Why the static rules refuse ``mapping`` (None: it would be emulated, or was)."""
        checked = self.space.check(mapping)
        cached = self._cache.get(self.space.key(checked))
        if cached is not None:
            return None if cached.emulated else cached.reason
        return self.workload.check(checked)

    def evaluate_many(self, mappings: Sequence[Mapping[str, Any]]) -> list[Evaluation]:
        """The scores of several mappings, in their order; those to emulate run in the
        worker processes when there are several (the scores do not depend on it).

        Raises:
            ValueError: a mapping is not in the space.
        """
        checked = [self.space.check(m) for m in mappings]
        keys = [self.space.key(m) for m in checked]
        self.requests += len(checked)
        pending: dict[tuple[Any, ...], dict[str, Any]] = {}
        for key, mapping in zip(keys, checked, strict=True):
            if key in self._cache or key in pending:
                continue
            reason = self.workload.check(mapping)
            if reason is not None:
                self.refused += 1
                self._cache[key] = Evaluation(mapping, PENALTY_SECONDS, valid=False,
                                              reason=reason, emulated=False)
            else:
                pending[key] = mapping
        self.runs += len(pending)
        if self.workers > 1 and len(pending) > 1:
            outcomes = list(self._worker_pool().map(_run_in_worker, pending.values()))
        else:
            outcomes = [_run(self.workload, m) for m in pending.values()]
        for (key, mapping), (phases, reason) in zip(pending.items(), outcomes, strict=True):
            if reason is None:
                self._cache[key] = Evaluation(mapping, sum(phases.values()), phases)
            else:
                self._cache[key] = Evaluation(mapping, PENALTY_SECONDS, valid=False,
                                              reason=reason)
        return [self._cache[key] for key in keys]

    def _worker_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            assert self.workload.factory is not None
            # spawn: a fork would copy this process's DPU sets and their worker processes
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker, initargs=self.workload.factory,
            )
        return self._pool

    def cached(self, mapping: Mapping[str, Any]) -> bool:
        """Whether the mapping was evaluated already."""
        return self.space.key(self.space.check(mapping)) in self._cache

    def save(self) -> None:
        """Write the cache to its file (if the environment has one)."""
        if self.cache_path is None:
            return
        rows = [asdict(e) for e in self._cache.values()]
        document = {"workload": self.workload.name, "space": self._space_signature(),
                    "model": _model_version(), "evaluations": rows}
        self.cache_path.write_text(json.dumps(document))

    def _space_signature(self) -> list[list[Any]]:
        return [[p.name, list(p.values)] for p in self.space.parameters]

    def _load(self) -> None:
        assert self.cache_path is not None
        try:
            document = json.loads(self.cache_path.read_text())
        except (OSError, ValueError) as error:
            raise ValueError(
                f"{self.cache_path}: not a mapping cache ({error}); delete it or name "
                "another file"
            ) from None
        if document.get("workload") != self.workload.name or document.get(
            "space"
        ) != self._space_signature():
            raise ValueError(
                f"{self.cache_path}: cached for another workload or space; delete it or "
                "name another file"
            )
        if document.get("model") != _model_version():
            return  # scored by another version of the time model: start afresh
        for row in document["evaluations"]:
            evaluation = Evaluation(**row)
            self._cache[self.space.key(evaluation.mapping)] = evaluation

    def close(self) -> None:
        self.save()
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        self.workload.close()

    def __enter__(self) -> MappingEnvironment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _run(workload: Workload, mapping: dict[str, Any]) -> tuple[dict[str, float], str | None]:
    """Runs a mapping: its phases, or the reason it is invalid."""
    try:
        return workload.run(mapping), None
    except InvalidMapping as invalid:
        return {}, str(invalid)


_worker_workload: Workload | None = None
"""A worker process's own copy of the workload."""


def _start_worker(name: str, shape: dict[str, Any]) -> None:
    global _worker_workload
    from .workloads import workload

    _worker_workload = workload(name, **shape)
    atexit.register(_worker_workload.close)


def _run_in_worker(mapping: dict[str, Any]) -> tuple[dict[str, float], str | None]:
    assert _worker_workload is not None
    return _run(_worker_workload, mapping)
