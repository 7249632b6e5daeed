"""The variable names in a DPU program's ELF symbol table, and the close ones to a name.

libdpu can look a symbol up by name but cannot list them; an unknown name's error says
"did you mean" with the names that :func:`close_names` finds here (with pyelftools, as
:mod:`pyupmem.build.debuginfo` reads the C types). It works on binaries without debug
information too: every ELF keeps its symbol table unless stripped.
"""

from __future__ import annotations

import difflib
import io
import os
from typing import Any

__all__ = ["close_names", "variable_names"]


def _read(stream: Any) -> list[str]:
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection

    names: list[str] = []
    try:
        elf = ELFFile(stream)
        for section in elf.iter_sections():
            if not isinstance(section, SymbolTableSection):
                continue
            for symbol in section.iter_symbols():
                # Data objects defined in the program: what dpu_get_symbol can find.
                if symbol["st_info"]["type"] != "STT_OBJECT" or symbol["st_shndx"] == "SHN_UNDEF":
                    continue
                if symbol.name and symbol.name not in names:
                    names.append(symbol.name)
    except (ELFError, OSError, ValueError, KeyError):
        return names  # an unreadable table leaves the message without suggestions
    return names


def variable_names(binary: str | os.PathLike | bytes) -> list[str]:
    """The names of the data objects defined in the ELF file ``binary`` (a path or its
    bytes); empty when it cannot be read."""
    if isinstance(binary, bytes | bytearray | memoryview):
        return _read(io.BytesIO(bytes(binary)))
    try:
        with open(binary, "rb") as file:
            return _read(file)
    except OSError:
        return []


def close_names(name: str, candidates: list[str], count: int = 3) -> list[str]:
    """Up to ``count`` of ``candidates`` close to ``name`` (difflib's ratio of at least
    0.6), best first. Names of the runtime and pyupmem (``__*``) are offered only for a
    name that starts with ``__`` itself."""
    internal = name.startswith("__")
    pool = [c for c in candidates if c != name and (internal or not c.startswith("__"))]
    return difflib.get_close_matches(name, pool, n=count, cutoff=0.6)
