"""A mapping space: named parameters, each with a finite tuple of values.

A *mapping* is a dict giving every parameter one of its values. The space enumerates its
mappings in a fixed order (the last parameter varies fastest), so an index names a
mapping and an exhaustive search is a loop over ``range(space.size)``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Parameter:
    """One mapping parameter: its name, its values (in order), and what it means."""

    name: str
    values: tuple[Any, ...]
    help: str = ""

    def __post_init__(self) -> None:
        if not self.values:
            raise ValueError(f"parameter {self.name!r} has no values")
        if len(set(self.values)) != len(self.values):
            raise ValueError(f"parameter {self.name!r} repeats a value: {self.values}")


@dataclass(frozen=True)
class Space:
    """The mappings of a DPU program: every combination of its parameters' values."""

    parameters: tuple[Parameter, ...]

    def __post_init__(self) -> None:
        names = [p.name for p in self.parameters]
        if len(set(names)) != len(names):
            raise ValueError(f"a space names each parameter once, not {names}")

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.parameters]

    @property
    def size(self) -> int:
        """The number of mappings."""
        return math.prod(len(p.values) for p in self.parameters)

    def __getitem__(self, name: str) -> Parameter:
        for parameter in self.parameters:
            if parameter.name == name:
                return parameter
        raise KeyError(f"no parameter {name!r}; the space has {', '.join(self.names)}")

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for values in itertools.product(*(p.values for p in self.parameters)):
            yield dict(zip(self.names, values, strict=True))

    def check(self, mapping: Mapping[str, Any]) -> dict[str, Any]:
        """``mapping`` as a plain dict, after checking it gives each parameter one of its
        values.

        Raises:
            ValueError: a missing or unknown parameter, or a value not in its range.
        """
        missing = [n for n in self.names if n not in mapping]
        unknown = [n for n in mapping if n not in self.names]
        if missing or unknown:
            raise ValueError(
                f"a mapping gives every parameter a value: missing {missing}, unknown "
                f"{unknown} (parameters: {', '.join(self.names)})"
            )
        for parameter in self.parameters:
            if mapping[parameter.name] not in parameter.values:
                raise ValueError(
                    f"{parameter.name}={mapping[parameter.name]!r} is not one of "
                    f"{list(parameter.values)}"
                )
        return {n: mapping[n] for n in self.names}

    def key(self, mapping: Mapping[str, Any]) -> tuple[Any, ...]:
        """A hashable key of a mapping (its values in parameter order)."""
        return tuple(mapping[n] for n in self.names)

    def mapping_at(self, index: int) -> dict[str, Any]:
        """The mapping of an index in the space's order (the last parameter fastest), without
        enumerating the mappings before it."""
        if not 0 <= index < self.size:
            raise IndexError(f"mapping {index} of a space of {self.size}")
        values = []
        for parameter in reversed(self.parameters):
            index, at = divmod(index, len(parameter.values))
            values.append(parameter.values[at])
        return dict(zip(self.names, reversed(values), strict=True))

    def from_indices(self, indices: Any) -> dict[str, Any]:
        """The mapping whose parameters take the values at ``indices`` (one per parameter)."""
        return {p.name: p.values[int(i)] for p, i in zip(self.parameters, indices, strict=True)}

    def indices(self, mapping: Mapping[str, Any]) -> list[int]:
        """Each parameter's value as its index in the parameter's values."""
        return [p.values.index(mapping[p.name]) for p in self.parameters]
