"""A gate the test opens: DPU programs that must still be running when the test looks wait
on it, so no test guesses from the machine's speed how long a launch lasts.

The DPU side (``GATE_C``) reads one 8-byte MRAM word in a loop until it is not zero. The
host side cannot write it through libdpu while the DPUs run (the emulator, like hardware,
refuses), so :class:`Gate` writes it through the emulator's own MRAM mapping: the memfd
``pyupmem-mram`` the set's DPUs share with the host process. The set's mapping is found by a
cookie the test writes first with an ordinary transfer.
"""

from __future__ import annotations

import mmap
import os
import struct
from collections.abc import Iterable

import pyupmem as pim

# Paste into a DPU program; call wait_for_gate() where the launch must wait for the test.
GATE_C = r"""
#include <mram.h>
#include <stdint.h>
__mram_noinit uint64_t gate;        /* the test sets it while the DPU runs */
__mram_noinit uint64_t gate_cookie; /* finds this set's MRAM mapping */
static void wait_for_gate(void) {
    __dma_aligned uint64_t open = 0;
    do
        mram_read(&gate, &open, sizeof(open)); /* a DMA: the other tasklets run meanwhile */
    while (open == 0);
}
"""

MRAM_BASE = 0x08000000
MRAM_SIZE = 64 << 20


class Gate:
    """Closes the gate of every DPU of ``dpus`` (loaded with a program that has ``GATE_C``);
    :meth:`open` lets the waiting DPUs go on, from the test, while they run."""

    def __init__(self, dpus: pim.DpuSet):
        self._offset = dpus.symbol("gate").address - MRAM_BASE
        cookie_offset = dpus.symbol("gate_cookie").address - MRAM_BASE
        cookie = int.from_bytes(os.urandom(8), "little") | 1
        dpus.broadcast("gate", 0)
        dpus.broadcast("gate_cookie", cookie)
        self._map = _find_mapping(cookie, cookie_offset, len(dpus))

    def open(self, positions: Iterable[int] | None = None) -> None:
        """Opens the gate of the DPUs at ``positions`` in the set (all by default)."""
        nr_dpus = len(self._map) // MRAM_SIZE
        for position in range(nr_dpus) if positions is None else positions:
            at = position * MRAM_SIZE + self._offset
            self._map[at : at + 8] = struct.pack("<Q", 1)

    def close(self) -> None:
        self._map.close()

    def __enter__(self) -> Gate:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _find_mapping(cookie: int, cookie_offset: int, nr_dpus: int) -> mmap.mmap:
    wanted = struct.pack("<Q", cookie)
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if not target.startswith("/memfd:pyupmem-mram"):
            continue
        fd = os.open(f"/proc/self/fd/{name}", os.O_RDWR)
        try:
            size = os.fstat(fd).st_size
            if size < nr_dpus * MRAM_SIZE:
                continue
            mapping = mmap.mmap(fd, size, mmap.MAP_SHARED)
        finally:
            os.close(fd)
        if mapping[cookie_offset : cookie_offset + 8] == wanted:
            return mapping
        mapping.close()
    raise RuntimeError("the emulator's MRAM mapping of this set was not found (not the emulator?)")
