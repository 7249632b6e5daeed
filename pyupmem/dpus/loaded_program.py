"""A program loaded into a group of DPUs: its symbols by name, looked up on demand."""

from __future__ import annotations

import ctypes
from collections.abc import Iterator, Mapping

from pyupmem.build.debuginfo import CType, read_types, read_types_from_bytes
from pyupmem.build.elf_symbols import close_names, variable_names
from pyupmem.build.program import Program, Symbol
from pyupmem.driver import libdpu as C
from pyupmem.driver.backend import Backend
from pyupmem.errors import (
    DpuError,
)


class LoadedProgram(Mapping[str, Symbol]):
    """A program loaded into a set: the :class:`Program` and its symbols by name.

    It is a read-only mapping from symbol name to :class:`Symbol`, filled on demand
    (libdpu can look a name up but not list them): ``loaded["A"]``, ``"A" in loaded``.
    Iterating it lists the symbols looked up so far.

    Attributes:
        program: the program that was loaded.
    """

    def __init__(
        self,
        backend: Backend,
        program: Program,
        handle: ctypes.c_void_p,
        image: bytes | None = None,
    ):
        self.program = program
        self._backend = backend
        self._handle = handle
        self._image = image
        self._types: dict[str, CType] | None = None
        self._symbols: dict[str, Symbol] = {}
        self._names: list[str] | None = None  # the ELF's variable names, read on an error

    @property
    def types(self) -> dict[str, CType]:
        """The C type of each global variable, from the program's debug information
        (:mod:`pyupmem.build.debuginfo`); empty for a binary built without ``-g``."""
        if self._types is None:
            if self._image is not None:
                self._types = read_types_from_bytes(self._image)
            else:
                self._types = read_types(self.program.path)
        return self._types

    def symbol(self, name: str) -> Symbol:
        """The symbol ``name`` (``dpu_get_symbol``).

        Raises:
            DpuSymbolError: the program has no such symbol (``DPU_ERR_UNKNOWN_SYMBOL``).
        """
        found = self._symbols.get(name)
        if found is not None:
            return found
        c_symbol = C.dpu_symbol_t()
        lib = self._backend.lib
        status = lib.dpu_get_symbol(self._handle, name.encode(), ctypes.byref(c_symbol))  # type: ignore[attr-defined]
        if status:
            detail = f"no symbol {name!r} in {self.program.path}"
            if (status & 0xFFFF) == C.DPU_ERR_UNKNOWN_SYMBOL:
                detail += self._did_you_mean(name)
            raise self._backend.status_error(status, "dpu_get_symbol", detail)
        found = Symbol(name, c_symbol.address, c_symbol.size, self.types.get(name))
        self._symbols[name] = found
        return found

    def _did_you_mean(self, name: str) -> str:
        """``"; did you mean 'arr'?"`` with the program's names close to ``name`` that
        libdpu finds (the ELF symbol table and the debug information), or ``""``."""
        if self._names is None:
            binary = self._image if self._image is not None else self.program.path
            try:
                self._names = list(dict.fromkeys(variable_names(binary) + list(self.types)))
            except Exception:  # a message's nicety must not hide the error it explains
                self._names = []
        c_symbol = C.dpu_symbol_t()
        lib = self._backend.lib
        found = [
            close
            for close in close_names(name, self._names)
            if not lib.dpu_get_symbol(self._handle, close.encode(), ctypes.byref(c_symbol))  # type: ignore[attr-defined]
        ]
        if not found:
            return ""
        return "; did you mean " + " or ".join(repr(close) for close in found) + "?"

    def __getitem__(self, name: str) -> Symbol:
        return self.symbol(name)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            self.symbol(name)
        except DpuError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._symbols))

    def __len__(self) -> int:
        return len(self._symbols)

    def _described(self) -> list[str]:
        """``name: C type (size)`` for each variable of the debug information, then the
        symbols looked up that it lacks; the runtime's and pyupmem's own (``__*``) left
        out. Reads no libdpu: a repr must work after the set is freed."""
        try:
            types = self.types
        except Exception:  # a repr must not raise; the debug information is a nicety here
            types = {}
        shown = [
            f"{name}: {ctype.name} ({ctype.size} B)"
            for name, ctype in types.items()
            if not name.startswith("__")
        ]
        shown += [
            f"{name}: {symbol.size} B of {symbol.memory}"
            for name, symbol in self._symbols.items()
            if name not in types and not name.startswith("__")
        ]
        return shown

    def __repr__(self) -> str:
        shown = self._described()
        if len(shown) > 8:  # a repr stays one readable line
            shown = [*shown[:8], f"... {len(shown) - 8} more"]
        return f"LoadedProgram({str(self.program.path)!r}, symbols=[{', '.join(shown)}])"
