"""The environment the agents search: it scores a mapping by the hardware time the
emulator's model gives the whole run (transfers and launches), caches every evaluation
and counts them.

A workload turns a mapping into a run: :meth:`Workload.run` gets the mapping and returns
the modelled seconds of each phase, or raises :class:`InvalidMapping` with the reason (the
program does not fit WRAM, a DPU faults, the shares do not divide ...). An invalid
mapping scores :data:`PENALTY_SECONDS`, so agents learn to avoid it and the reason is
kept.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
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
    """

    mapping: dict[str, Any]
    seconds: float
    phases: dict[str, float] = field(default_factory=dict)
    valid: bool = True
    reason: str = ""

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
    """

    name = "workload"
    description = ""

    def __init__(self, space: Space):
        self.space = space

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
    """

    def __init__(self, workload: Workload, cache: str | Path | None = None):
        self.workload = workload
        self.space = workload.space
        self.cache_path = Path(cache) if cache is not None else None
        self._cache: dict[tuple[Any, ...], Evaluation] = {}
        self.runs = 0
        """Mappings actually run (cache misses)."""
        self.requests = 0
        """Evaluations asked for, cache hits included."""
        if self.cache_path is not None and self.cache_path.exists():
            self._load()

    def evaluate(self, mapping: Mapping[str, Any]) -> Evaluation:
        """The mapping's score, from the cache or by running it.

        Raises:
            ValueError: the mapping is not in the space.
        """
        checked = self.space.check(mapping)
        key = self.space.key(checked)
        self.requests += 1
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        self.runs += 1
        try:
            phases = self.workload.run(checked)
            evaluation = Evaluation(checked, sum(phases.values()), phases)
        except InvalidMapping as invalid:
            evaluation = Evaluation(checked, PENALTY_SECONDS, valid=False, reason=str(invalid))
        self._cache[key] = evaluation
        return evaluation

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
        self.workload.close()

    def __enter__(self) -> MappingEnvironment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
