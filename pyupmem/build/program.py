"""DPU programs and their symbols."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from pyupmem.build.debuginfo import CType
from pyupmem.driver import libdpu as C

if TYPE_CHECKING:
    from pyupmem.build.resources import Resources


@dataclass(frozen=True)
class Program:
    """A compiled DPU program: a binary file that :meth:`DpuSet.load` loads.

    :func:`pyupmem.build_program` returns one; a path to a binary built any other way
    works too (``Program("kernel")`` or just the path).

    Attributes:
        path: the binary.
        nr_tasklets: the ``NR_TASKLETS`` it was built with, when known.
        sources: the sources it was built from, when known.
        build_log: what the compiler printed while building it (warnings included), when
            :func:`pyupmem.build_program` built it.
    """

    path: Path
    nr_tasklets: int | None = None
    sources: tuple[str, ...] = field(default=())
    build_log: str = ""

    def __init__(
        self,
        path: str | os.PathLike,
        nr_tasklets: int | None = None,
        sources: tuple[str, ...] = (),
        build_log: str = "",
    ):
        object.__setattr__(self, "path", Path(path))
        object.__setattr__(self, "nr_tasklets", nr_tasklets)
        object.__setattr__(self, "sources", tuple(sources))
        object.__setattr__(self, "build_log", build_log)

    def __fspath__(self) -> str:
        return str(self.path)

    @property
    def resources(self) -> Resources:
        """What the program uses of a DPU (WRAM by section, stacks, the heap left, MRAM,
        IRAM) against a v1A chip's limits; print it for a table. For another chip:
        ``pyupmem.build.resources.read_resources(program.path, chip="v1B")``.

        Raises:
            ValueError: the file is not a DPU program's ELF.
        """
        from pyupmem.build.resources import read_resources

        return read_resources(self.path)


class Symbol:
    """A symbol of a loaded DPU program: its name, address, size, memory and C type.

    The C type comes from the program's debug information (:mod:`pyupmem.build.debuginfo`):
    ``symbol.dtype``, ``symbol.shape`` and ``symbol.ctype`` are None for a symbol the
    debug information does not describe (a binary built without ``-g``, or a linker
    symbol such as ``DPU_MRAM_HEAP_POINTER_NAME``).

    Attributes:
        name: the symbol's name.
        address: its address as libdpu reports it (MRAM symbols have bit ``0x08000000``).
        size: its size in bytes.
        memory: ``"WRAM"``, ``"MRAM"`` or ``"IRAM"``.
        alignment: the transfer granule for offsets and sizes: 8 (MRAM), 4 (WRAM), 0 (IRAM,
            not transferable).
    """

    __slots__ = (
        "name", "address", "size", "memory", "alignment", "c_symbol", "c_name", "type_info"
    )

    def __init__(self, name: str, address: int, size: int, type_info: CType | None = None):
        self.name = name
        self.address = address
        self.size = size
        self.memory = C.memory_of(address)
        self.alignment = {"MRAM": 8, "WRAM": 4}.get(self.memory, 0)
        self.c_symbol = C.dpu_symbol_t(address, size)
        """The ``struct dpu_symbol_t`` for the ``*_symbol`` calls."""
        self.c_name = name.encode()
        """The name as bytes for the by-name calls."""
        if type_info is not None and type_info.size != size:
            type_info = None  # the debug information describes something else
        self.type_info = type_info
        """The :class:`~pyupmem.build.debuginfo.CType` from the debug information, or None."""

    @property
    def dtype(self) -> np.dtype | None:
        """The numpy dtype of one element (structured for a struct), or None if unknown."""
        return self.type_info.dtype if self.type_info is not None else None

    @property
    def shape(self) -> tuple[int, ...] | None:
        """The array dimensions (``()`` for a scalar), or None if unknown."""
        return self.type_info.shape if self.type_info is not None else None

    @property
    def ctype(self) -> str | None:
        """The C type, readable (``"uint32_t"``, ``"float[4][16]"``), or None if unknown."""
        return self.type_info.name if self.type_info is not None else None

    def describe(self) -> str:
        """The symbol in words: ``'n' (uint32_t: dtype uint32, shape ())``."""
        if self.type_info is None:
            return f"{self.name!r} ({self.size} bytes of {self.memory}, type unknown)"
        return f"{self.name!r} ({self.ctype}: dtype {self.dtype}, shape {self.shape})"

    def __repr__(self) -> str:
        typed = f", ctype={self.ctype!r}" if self.type_info is not None else ""
        return (
            f"Symbol({self.name!r}, address=0x{self.address:08x}, size={self.size}, "
            f"memory={self.memory!r}{typed})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Symbol):
            return NotImplemented
        return (self.name, self.address, self.size) == (other.name, other.address, other.size)

    def __hash__(self) -> int:
        return hash((self.name, self.address, self.size))
