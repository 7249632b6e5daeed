"""DPU programs and their symbols."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from pyupmem import _libdpu as C


@dataclass(frozen=True)
class Program:
    """A compiled DPU program: a binary file that :meth:`DpuSet.load` loads.

    :func:`pyupmem.build_program` returns one; a path to a binary built any other way
    works too (``Program("kernel")`` or just the path).

    Attributes:
        path: the binary.
        nr_tasklets: the ``NR_TASKLETS`` it was built with, when known.
        sources: the sources it was built from, when known.
    """

    path: Path
    nr_tasklets: int | None = None
    sources: tuple[str, ...] = field(default=())

    def __init__(
        self,
        path: str | os.PathLike,
        nr_tasklets: int | None = None,
        sources: tuple[str, ...] = (),
    ):
        object.__setattr__(self, "path", Path(path))
        object.__setattr__(self, "nr_tasklets", nr_tasklets)
        object.__setattr__(self, "sources", tuple(sources))

    def __fspath__(self) -> str:
        return str(self.path)


class Symbol:
    """A symbol of a loaded DPU program: its name, address, size and memory.

    Attributes:
        name: the symbol's name.
        address: its address as libdpu reports it (MRAM symbols have bit ``0x08000000``).
        size: its size in bytes.
        memory: ``"WRAM"``, ``"MRAM"`` or ``"IRAM"``.
        alignment: the transfer granule for offsets and sizes: 8 (MRAM), 4 (WRAM), 0 (IRAM,
            not transferable).
    """

    __slots__ = ("name", "address", "size", "memory", "alignment", "c_symbol", "c_name")

    def __init__(self, name: str, address: int, size: int):
        self.name = name
        self.address = address
        self.size = size
        self.memory = C.memory_of(address)
        self.alignment = {"MRAM": 8, "WRAM": 4}.get(self.memory, 0)
        self.c_symbol = C.dpu_symbol_t(address, size)
        """The ``struct dpu_symbol_t`` for the ``*_symbol`` calls."""
        self.c_name = name.encode()
        """The name as bytes for the by-name calls."""

    def __repr__(self) -> str:
        return (
            f"Symbol({self.name!r}, address=0x{self.address:08x}, size={self.size}, "
            f"memory={self.memory!r})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Symbol):
            return NotImplemented
        return (self.name, self.address, self.size) == (other.name, other.address, other.size)

    def __hash__(self) -> int:
        return hash((self.name, self.address, self.size))
