"""Reading the C types of a DPU program's global variables from its debug information.

:func:`pyupmem.build_program` builds with ``-g`` by default, so the binary carries DWARF
that describes every global variable. :func:`read_types` reads it (with pyelftools, a
well-kept DWARF reader) into a :class:`CType` per variable: a readable C spelling, a numpy
dtype and a shape. :class:`~pyupmem.Symbol` exposes them as ``dtype``, ``shape`` and
``ctype``, and the transfers of :class:`~pyupmem.DpuSet` use them.

How C types become dtypes:

- base types by their DWARF *encoding and byte size*, never by their name: a signed
  integer of 4 bytes is ``int32`` whatever it is called (``int``, ``int32_t``, ``long``
  on a DPU); ``float``/``double`` are ``float32``/``float64``; ``_Bool`` is ``bool``;
- arrays give a shape (``float w[4][16]`` is ``float32`` with shape ``(4, 16)``);
- structs give a structured dtype with the compiler's field offsets and padding;
- enums are integers of their size; pointers are unsigned integers of their size; a
  union or anything else is raw bytes (``V<n>``); ``typedef``, ``const``, ``volatile``
  and ``_Atomic`` are looked through.

The sizes are those of the machine the program was compiled for: the DPU's (pointers and
``size_t`` 4 bytes, ``long`` 8), on hardware as on the emulator, whose DPU programs are
built in that data model.

A binary without debug information (built with ``debug=False`` or elsewhere without
``-g``) has no types: transfers then need an explicit ``dtype=``.
"""

from __future__ import annotations

import functools
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["CType", "read_types", "read_types_from_bytes"]


@dataclass(frozen=True)
class CType:
    """The C type of a global variable, as its debug information describes it.

    Attributes:
        name: a readable C spelling, such as ``"uint32_t"``, ``"float[4][16]"`` or
            ``"struct point[5]"``.
        dtype: the numpy dtype of one element (structured for a struct).
        shape: the array dimensions, ``()`` for a scalar.
        size: the variable's size in bytes.
    """

    name: str
    dtype: np.dtype
    shape: tuple[int, ...]
    size: int


_SIGNED = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_FLOAT = {2: np.float16, 4: np.float32, 8: np.float64}

# DWARF base type encodings (DW_ATE_*).
_ATE_BOOLEAN = 0x02
_ATE_FLOAT = 0x04
_ATE_SIGNED = 0x05
_ATE_SIGNED_CHAR = 0x06
_ATE_UNSIGNED = 0x07
_ATE_UNSIGNED_CHAR = 0x08

_LOOK_THROUGH = {
    "DW_TAG_typedef",
    "DW_TAG_const_type",
    "DW_TAG_volatile_type",
    "DW_TAG_atomic_type",
    "DW_TAG_restrict_type",
}


def _name(die: Any) -> str | None:
    attribute = die.attributes.get("DW_AT_name")
    if attribute is None:
        return None
    value = attribute.value
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _raw(size: int) -> np.dtype:
    return np.dtype((np.void, max(size, 1)))


class _Reader:
    def __init__(self, pointer_size: int):
        self.pointer_size = pointer_size
        self.memo: dict[int, tuple[str, np.dtype, tuple[int, ...]]] = {}

    def type_of(self, die: Any | None) -> tuple[str, np.dtype, tuple[int, ...]]:
        """(C spelling, element dtype, shape) of a type DIE (None: void)."""
        if die is None:
            return "void", _raw(1), ()
        found = self.memo.get(die.offset)
        if found is None:
            self.memo[die.offset] = ("?", _raw(1), ())  # a recursive type ends here
            found = self._type_of(die)
            self.memo[die.offset] = found
        return found

    def _target(self, die: Any) -> Any | None:
        return die.get_DIE_from_attribute("DW_AT_type") if "DW_AT_type" in die.attributes else None

    def _type_of(self, die: Any) -> tuple[str, np.dtype, tuple[int, ...]]:
        tag = die.tag
        size = die.attributes["DW_AT_byte_size"].value if "DW_AT_byte_size" in die.attributes else 0
        if tag == "DW_TAG_typedef":
            name, dtype, shape = self.type_of(self._target(die))
            # A typedef of a scalar reads best by its own name (uint32_t, kind_t).
            return (_name(die) or name) if not shape else name, dtype, shape
        if tag in _LOOK_THROUGH:
            name, dtype, shape = self.type_of(self._target(die))
            qualifier = {
                "DW_TAG_const_type": "const ",
                "DW_TAG_volatile_type": "volatile ",
                "DW_TAG_atomic_type": "_Atomic ",
            }.get(tag, "")
            return qualifier + name, dtype, shape
        if tag == "DW_TAG_base_type":
            encoding = die.attributes["DW_AT_encoding"].value
            name = _name(die) or f"base{size}"
            if encoding == _ATE_BOOLEAN and size == 1:
                return name, np.dtype(np.bool_), ()
            if encoding == _ATE_FLOAT and size in _FLOAT:
                return name, np.dtype(_FLOAT[size]), ()
            if encoding in (_ATE_SIGNED, _ATE_SIGNED_CHAR) and size in _SIGNED:
                return name, np.dtype(_SIGNED[size]), ()
            if encoding in (_ATE_UNSIGNED, _ATE_UNSIGNED_CHAR, _ATE_BOOLEAN) and size in _UNSIGNED:
                return name, np.dtype(_UNSIGNED[size]), ()
            return name, _raw(size), ()
        if tag == "DW_TAG_enumeration_type":
            name = f"enum {_name(die)}" if _name(die) else "enum"
            signed = True
            target = self._target(die)
            if target is not None:
                signed = self.type_of(target)[1].kind == "i"
            table = _SIGNED if signed else _UNSIGNED
            return name, np.dtype(table[size]) if size in table else _raw(size), ()
        if tag == "DW_TAG_pointer_type":
            size = size or self.pointer_size
            name = self.type_of(self._target(die))[0] + " *"
            return name, np.dtype(_UNSIGNED[size]) if size in _UNSIGNED else _raw(size), ()
        if tag == "DW_TAG_array_type":
            name, dtype, inner = self.type_of(self._target(die))
            dims: list[int] = []
            for child in die.iter_children():
                if child.tag != "DW_TAG_subrange_type":
                    continue
                if "DW_AT_count" in child.attributes:
                    dims.append(int(child.attributes["DW_AT_count"].value))
                elif "DW_AT_upper_bound" in child.attributes:
                    dims.append(int(child.attributes["DW_AT_upper_bound"].value) + 1)
                else:
                    dims.append(0)  # a flexible array member
            shape = (*dims, *inner)
            base = name.split("[", 1)[0]
            return base + "".join(f"[{n}]" for n in shape), dtype, shape
        if tag == "DW_TAG_structure_type":
            label = f"struct {_name(die)}" if _name(die) else "struct"
            names, formats, offsets = [], [], []
            for child in die.iter_children():
                if child.tag != "DW_TAG_member":
                    continue
                if "DW_AT_bit_size" in child.attributes:
                    # bit fields (DWARF 5 places them with DW_AT_data_bit_offset): raw bytes
                    return label, _raw(size), ()
                if "DW_AT_data_member_location" not in child.attributes:
                    continue
                location = child.attributes["DW_AT_data_member_location"].value
                if not isinstance(location, int):
                    return label, _raw(size), ()
                _, dtype, shape = self.type_of(self._target(child))
                names.append(_name(child) or f"f{len(names)}")
                formats.append((dtype, shape) if shape else dtype)
                offsets.append(location)
            if not names or size == 0:
                return label, _raw(size), ()
            struct = np.dtype(
                {"names": names, "formats": formats, "offsets": offsets, "itemsize": size}
            )
            return label, struct, ()
        if tag == "DW_TAG_union_type":
            return (f"union {_name(die)}" if _name(die) else "union"), _raw(size), ()
        return _name(die) or tag, _raw(size), ()


def _read(stream: Any) -> dict[str, CType]:
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    try:
        elf = ELFFile(stream)
        if not elf.has_dwarf_info():
            return {}
        dwarf = elf.get_dwarf_info()
    except (ELFError, OSError, ValueError):
        return {}
    reader = _Reader(pointer_size=8 if elf.elfclass == 64 else 4)
    types: dict[str, CType] = {}
    try:
        for unit in dwarf.iter_CUs():
            for die in unit.get_top_DIE().iter_children():
                if die.tag != "DW_TAG_variable":
                    continue
                if "DW_AT_specification" in die.attributes:
                    declaration = die.get_DIE_from_attribute("DW_AT_specification")
                    name = _name(declaration)
                    type_die = declaration
                else:
                    name = _name(die)
                    type_die = die
                if not name or name in types or "DW_AT_type" not in type_die.attributes:
                    continue
                if "DW_AT_declaration" in die.attributes:
                    continue  # an extern declaration; the definition has the type
                c_name, dtype, shape = reader.type_of(type_die.get_DIE_from_attribute("DW_AT_type"))
                size = (
                    dtype.itemsize * int(np.prod(shape, dtype=np.int64))
                    if shape
                    else dtype.itemsize
                )
                types[name] = CType(c_name, dtype, tuple(shape), size)
    except Exception:  # a failing reader must not break loading
        return types
    return types


@functools.lru_cache(maxsize=64)
def _read_path(path: str, _inode: int, _size: int, _mtime: int) -> dict[str, CType]:
    with open(path, "rb") as file:
        return _read(file)


def read_types(path: str | os.PathLike) -> dict[str, CType]:
    """The C type of every global variable of the DPU program at ``path``, by name.

    The result is remembered per file (path, size and modification time). A binary without
    debug information, or a file that is not ELF, gives an empty mapping.
    """
    path = Path(path)
    try:
        info = path.stat()
    except OSError:
        return {}
    return _read_path(str(path.resolve()), info.st_ino, info.st_size, info.st_mtime_ns)


def read_types_from_bytes(image: bytes) -> dict[str, CType]:
    """:func:`read_types` for a binary held in memory."""
    return _read(io.BytesIO(bytes(image)))
