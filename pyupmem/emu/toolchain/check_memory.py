#!/usr/bin/env python3
"""The last step of a DPU program's link for the pyupmem emulator: the DPU's memory limits.

A DPU has 64 KiB of WRAM (v1B: 63,488 bytes) and 64 MiB of MRAM. WRAM holds the program's
read-only data, its variables and every tasklet's stack; MRAM its ``__mram`` and
``__mram_noinit`` variables. The SDK's linker refuses a program that does not fit; so does
this step, naming each part and the fix, and it removes the output.

Usage: check_memory.py --chip v1A|v1B PROGRAM
"""

from __future__ import annotations

import os
import struct
import sys

WRAM_BYTES = {"v1A": 65536, "v1B": 63488}
MRAM_BYTES = 64 << 20
MAX_TASKLETS = 24
WRAM_SECTIONS = (".rodata", ".data", ".bss")
MRAM_SECTIONS = ("dpu_mram", "dpu_mram_noinit")


def read_elf32(image: bytes) -> tuple[dict[str, tuple[int, int, int]], dict[str, int]]:
    """The sections (name -> address, offset, size) and symbols (name -> value) of an
    ELF32 little-endian file."""
    if image[:4] != b"\x7fELF" or image[4] != 1:
        raise ValueError("not a 32-bit ELF file")
    (shoff,) = struct.unpack_from("<I", image, 0x20)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", image, 0x2E)
    headers = [
        struct.unpack_from("<IIIIIIIIII", image, shoff + i * shentsize) for i in range(shnum)
    ]
    names = headers[shstrndx]

    def name_at(table_offset: int, index: int) -> str:
        end = image.index(b"\0", table_offset + index)
        return image[table_offset + index : end].decode()

    sections: dict[str, tuple[int, int, int]] = {}
    symbols: dict[str, int] = {}
    for header in headers:
        sh_name, sh_type, _flags, addr, offset, size, link = header[:7]
        sections[name_at(names[4], sh_name)] = (addr, offset, size)
        if sh_type == 2:  # SHT_SYMTAB
            strings = headers[link][4]
            for at in range(offset, offset + size, 16):
                st_name, st_value = struct.unpack_from("<II", image, at)
                if st_name:
                    symbols[name_at(strings, st_name)] = st_value
    return sections, symbols


def word_at(image: bytes, sections: dict[str, tuple[int, int, int]], address: int) -> int:
    for addr, offset, size in sections.values():
        if addr <= address < addr + size:
            return struct.unpack_from("<I", image, offset + address - addr)[0]
    raise ValueError(f"no section holds address {address:#x}")


def problems(path: str, chip: str) -> list[str]:
    with open(path, "rb") as file:
        image = file.read()
    sections, symbols = read_elf32(image)
    tasklets = word_at(image, sections, symbols["__pyupmem_nr_tasklets"])
    stacks_at = symbols["__pyupmem_stack_sizes"]
    stacks = [
        word_at(image, sections, stacks_at + 4 * i) for i in range(min(tasklets, MAX_TASKLETS))
    ]
    found = []
    wram_parts = {name: sections[name][2] for name in WRAM_SECTIONS if name in sections}
    wram = sum(wram_parts.values()) + sum((size + 7) & ~7 for size in stacks)
    if wram > WRAM_BYTES[chip]:
        parts = ", ".join(f"{name} {size:,}" for name, size in wram_parts.items())
        sizes = sorted(set(stacks))
        stack_text = (
            f"{len(stacks)} x {sizes[0]:,}"
            if len(sizes) == 1
            else " + ".join(f"{s:,}" for s in stacks)
        )
        found.append(
            f"WRAM overflowed by {wram - WRAM_BYTES[chip]:,} bytes: the program needs {wram:,} "
            f"bytes ({parts}; stacks {stack_text}) and a {chip} DPU has {WRAM_BYTES[chip]:,}. Put "
            "large arrays in MRAM (__mram_noinit, read with mram_read), or lower NR_TASKLETS or "
            "the stack sizes (STACK_SIZE_DEFAULT, STACK_SIZE_TASKLET_<n>)"
        )
    mram_end = symbols.get("__sys_used_mram_end", 0x08000000)
    mram = mram_end - 0x08000000
    if mram > MRAM_BYTES:
        parts = ", ".join(
            f"{name} {sections[name][2]:,}" for name in MRAM_SECTIONS if name in sections
        )
        found.append(
            f"MRAM overflowed by {mram - MRAM_BYTES:,} bytes: the program's MRAM variables take "
            f"{mram:,} bytes ({parts}) and a DPU has {MRAM_BYTES:,} (64 MiB). Make them smaller, "
            "or spread the data over more DPUs"
        )
    return found


def main(argv: list[str]) -> int:
    chip, path = "v1A", argv[-1]
    if "--chip" in argv:
        chip = argv[argv.index("--chip") + 1]
    try:
        found = problems(path, chip)
    except (OSError, ValueError, KeyError, IndexError, struct.error) as error:
        print(f"{path}: error: not a DPU program built for the emulator ({error})", file=sys.stderr)
        return 1
    for problem in found:
        print(
            f"dpu-upmem-dpurte-clang (pyupmem emulator): error: {path}: {problem}", file=sys.stderr
        )
    if found:
        os.remove(path)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
