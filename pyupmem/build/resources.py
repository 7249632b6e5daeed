"""What a built DPU program uses of a DPU, read from its ELF file: WRAM by section, the
tasklets' stacks, the WRAM left for ``mem_alloc``'s heap, MRAM, and IRAM, against the
chip's limits (as ``cuobjdump --resource-usage`` does for a CUDA kernel).

:attr:`pyupmem.Program.resources` and ``python -m pyupmem inspect BINARY`` give it.

Two kinds of binary are read:

- the emulator's (built by its ``dpu-upmem-dpurte-clang``, a 32-bit host executable):
  WRAM is its ``.data``, ``.bss`` and ``.rodata`` sections plus each tasklet's stack
  (the sizes the build records in ``__pyupmem_stack_sizes``), as the emulator's
  ``dpu_load`` counts them; MRAM is every section placed at the DPU's MRAM addresses.
  Its code is host code, so it has no DPU instruction count (``iram_instructions`` is
  None);
- the SDK's (``EM_DPU``): sections by address (IRAM at ``0x80000000``, 8 bytes an
  instruction; MRAM at ``0x08000000``; WRAM below it). Its stacks are in its WRAM
  sections already.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field

from pyupmem.build.elf_target import EM_DPU

__all__ = ["CHIPS", "Chip", "Resources", "read_resources"]

MRAM_BASE = 0x08000000
"""Where MRAM starts in a DPU's address space (bit ``0x08000000`` of an MRAM symbol)."""
IRAM_BASE = 0x80000000
"""Where IRAM starts in a DPU binary's address space (the SDK's linker script)."""
IRAM_INSTRUCTION_BYTES = 8
"""Bytes of a DPU binary's code per instruction."""


@dataclass(frozen=True)
class Chip:
    """A DPU chip's limits (the emulator's profile key ``chipVersion``)."""

    name: str
    wram_bytes: int
    iram_instructions: int
    max_tasklets: int
    mram_bytes: int = 64 << 20


CHIPS = {
    "v1A": Chip("v1A", 65536, 4096, 24),
    "v1B": Chip("v1B", 63488, 3968, 16),
}
"""The chips by name: v1A (the default, as in UPMEM's servers) and v1B."""


@dataclass(frozen=True)
class Resources:
    """A DPU program's use of one DPU's memories, against ``chip``'s limits.

    Attributes:
        path: the binary.
        chip: the limits it is measured against.
        nr_tasklets: the tasklets it was built for, when the binary records it.
        wram_sections: bytes of WRAM per section (``.data``, ``.bss`` ...).
        stacks: each tasklet's stack in bytes, when the binary records them apart.
        mram_sections: bytes of MRAM per section.
        mram_used: MRAM bytes below the heap (``DPU_MRAM_HEAP_POINTER_NAME``).
        iram_instructions: DPU instructions (None for the emulator's host code).
        code_bytes: bytes of code (host code for the emulator's binaries).
    """

    path: str
    chip: Chip
    nr_tasklets: int | None
    wram_sections: dict[str, int] = field(default_factory=dict)
    stacks: tuple[int, ...] = ()
    mram_sections: dict[str, int] = field(default_factory=dict)
    mram_used: int = 0
    iram_instructions: int | None = None
    code_bytes: int = 0

    @property
    def wram_used(self) -> int:
        """WRAM bytes of the sections and the stacks (each rounded up to 8 bytes)."""
        return sum(self.wram_sections.values()) + sum((s + 7) & ~7 for s in self.stacks)

    @property
    def heap_left(self) -> int:
        """WRAM bytes left for ``mem_alloc``'s heap (negative: the program does not fit)."""
        return self.chip.wram_bytes - self.wram_used

    @property
    def mram_left(self) -> int:
        """MRAM bytes above the program's own: the MRAM heap the host and DPU share."""
        return self.chip.mram_bytes - self.mram_used

    @property
    def fits(self) -> bool:
        """Whether WRAM, MRAM, IRAM and the tasklets are within the chip's limits."""
        return (
            self.heap_left >= 0
            and self.mram_left >= 0
            and (self.iram_instructions or 0) <= self.chip.iram_instructions
            and (self.nr_tasklets or 1) <= self.chip.max_tasklets
        )

    def table(self) -> str:
        """The resources as a small text table, each against its limit."""
        chip = self.chip

        def share(used: int, limit: int) -> str:
            return f"{used:>10,} of {limit:>10,} B ({100 * used / limit:5.1f}%)"

        tasklets = "unknown" if self.nr_tasklets is None else str(self.nr_tasklets)
        lines = [f"{self.path}: chip {chip.name}, {tasklets} tasklets (of {chip.max_tasklets})"]
        lines.append(f"  WRAM      {share(self.wram_used, chip.wram_bytes)}")
        for name, size in self.wram_sections.items():
            lines.append(f"    {name:<20} {size:>10,} B")
        if self.stacks:
            sizes = sorted(set(self.stacks))
            each = f"{sizes[0]:,} B each" if len(sizes) == 1 else "sizes " + ", ".join(
                f"{s:,}" for s in self.stacks)
            lines.append(f"    {'stacks':<20} {sum((s + 7) & ~7 for s in self.stacks):>10,} B "
                         f"({len(self.stacks)} tasklets, {each})")
        lines.append(f"    {'heap left':<20} {self.heap_left:>10,} B (mem_alloc)")
        lines.append(f"  MRAM      {share(self.mram_used, chip.mram_bytes)}")
        for name, size in self.mram_sections.items():
            lines.append(f"    {name:<20} {size:>10,} B")
        if self.iram_instructions is None:
            lines.append(f"  IRAM      not known: {self.code_bytes:,} B of host code (an "
                         "emulator build; the SDK's build of the same source tells)")
        else:
            lines.append(f"  IRAM      {self.iram_instructions:>10,} of "
                         f"{chip.iram_instructions:>10,} instructions "
                         f"({100 * self.iram_instructions / chip.iram_instructions:5.1f}%)")
        if not self.fits:
            lines.append("  DOES NOT FIT this chip")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def as_dict(self) -> dict[str, object]:
        """The figures as plain values (for JSON)."""
        return {
            "path": self.path, "chip": self.chip.name, "nr_tasklets": self.nr_tasklets,
            "wram_sections": self.wram_sections, "stacks": list(self.stacks),
            "wram_used": self.wram_used, "wram_bytes": self.chip.wram_bytes,
            "heap_left": self.heap_left, "mram_sections": self.mram_sections,
            "mram_used": self.mram_used, "mram_bytes": self.chip.mram_bytes,
            "iram_instructions": self.iram_instructions,
            "iram_limit": self.chip.iram_instructions, "code_bytes": self.code_bytes,
            "fits": self.fits,
        }


_WRAM_SECTIONS = (".data", ".bss", ".rodata")  # what the emulator's dpu_load counts


def read_resources(path: str | os.PathLike, chip: str = "v1A") -> Resources:
    """The resources of the DPU program at ``path`` against ``chip`` (``"v1A"`` or
    ``"v1B"``).

    Raises:
        ValueError: an unknown chip, or a file that is not a DPU program's ELF.
        OSError: the file cannot be read.
    """
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    if chip not in CHIPS:
        raise ValueError(f"unknown chip {chip!r}: choose one of {', '.join(CHIPS)}")
    with open(path, "rb") as stream:
        try:
            elf = ELFFile(stream)
            machine = elf.header["e_machine"]
            symbols = _symbols(elf)
            sections = [s for s in elf.iter_sections() if s["sh_flags"] & 2 and s["sh_size"]]
            is_dpu = machine == "EM_DPU" or machine == EM_DPU
            wram: dict[str, int] = {}
            mram: dict[str, int] = {}
            code = iram = 0
            for section in sections:
                address, size = section["sh_addr"], section["sh_size"]
                if MRAM_BASE <= address < MRAM_BASE + (64 << 20):
                    mram[section.name] = mram.get(section.name, 0) + size
                elif is_dpu and address >= IRAM_BASE:
                    iram += size
                elif section["sh_flags"] & 4:  # SHF_EXECINSTR
                    code += size
                elif is_dpu or section.name in _WRAM_SECTIONS:
                    wram[section.name] = wram.get(section.name, 0) + size
            nr_tasklets = _word(elf, symbols.get("__pyupmem_nr_tasklets"))
            stacks: tuple[int, ...] = ()
            sizes = symbols.get("__pyupmem_stack_sizes")
            if not is_dpu and sizes is not None and nr_tasklets:
                stacks = tuple(_word(elf, sizes, 4 * t) or 0 for t in range(nr_tasklets))
            if is_dpu and nr_tasklets is None and "NR_TASKLETS" in symbols:
                nr_tasklets = int(symbols["NR_TASKLETS"]["st_value"])  # an absolute symbol
        except ELFError as error:
            raise ValueError(f"{path} is not an ELF file: {error}") from None
    heap = symbols.get("__sys_used_mram_end")
    mram_used = (int(heap["st_value"]) - MRAM_BASE) if heap is not None else sum(mram.values())
    return Resources(
        path=str(path), chip=CHIPS[chip], nr_tasklets=nr_tasklets, wram_sections=wram,
        stacks=stacks, mram_sections=mram, mram_used=mram_used,
        iram_instructions=iram // IRAM_INSTRUCTION_BYTES if is_dpu else None,
        code_bytes=iram if is_dpu else code,
    )


def _symbols(elf: object) -> dict[str, object]:
    table = elf.get_section_by_name(".symtab")  # type: ignore[attr-defined]
    if table is None:
        return {}
    return {s.name: s for s in table.iter_symbols() if s.name}


def _word(elf: object, symbol: object | None, offset: int = 0) -> int | None:
    """The 32-bit little-endian word stored at ``symbol`` + ``offset`` in the file."""
    if symbol is None or symbol["st_shndx"] in ("SHN_UNDEF", "SHN_ABS"):  # type: ignore[index]
        return None
    section = elf.get_section(symbol["st_shndx"])  # type: ignore[attr-defined,index]
    if section["sh_type"] == "SHT_NOBITS":
        return None
    at = symbol["st_value"] - section["sh_addr"] + offset  # type: ignore[index]
    data = section.data()
    if not 0 <= at <= len(data) - 4:
        return None
    return int(struct.unpack_from("<I", data, at)[0])
