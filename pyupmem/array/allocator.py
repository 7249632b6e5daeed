"""The MRAM allocator of a DPU set: heap space for arrays, at one offset on every DPU.

Every :class:`~pyupmem.array.pimarray.PimArray` of a set holds one share per DPU at the same MRAM
address on every DPU, so a kernel reads its share at that address whatever DPU it runs
on. :func:`allocator_for` gives the set's one :class:`MramAllocator`, which hands out
8-byte-aligned ranges of the MRAM heap (first fit, freed ranges merged with their
neighbours) and takes them back when an array is freed or garbage-collected. Running
out raises :class:`MramAllocationError`, which says how much is in use and by what.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from pyupmem.errors import ArgumentValueError, PyUpmemError

__all__ = [
    "MramAllocationError",
    "MramAllocator",
    "allocator_for",
    "find_allocator",
    "MRAM_BASE",
    "MRAM_SIZE",
]

MRAM_BASE = 0x08000000
"""The address of a DPU's first MRAM byte, as ``mram_read`` takes addresses."""
MRAM_SIZE = 64 << 20
"""The MRAM of one DPU, in bytes."""

ALIGNMENT = 8  # the DMA's granule: every share starts on an 8-byte boundary


def _mib(nbytes: int) -> str:
    return f"{nbytes / (1 << 20):.2f} MiB"


class MramAllocationError(PyUpmemError, MemoryError):
    """The MRAM heap of a set has no free range large enough for an array's share.

    The message says what was asked, how much is in use and by which arrays; free arrays
    (``del``, :meth:`PimArray.free <pyupmem.array.pimarray.PimArray.free>`) or spread the data over
    more DPUs. Also a ``MemoryError``.

    Attributes:
        requested: the bytes per DPU asked for.
        in_use: the bytes per DPU held by live arrays.
        capacity: the bytes per DPU the heap has in all.
    """

    def __init__(self, message: str, requested: int, in_use: int, capacity: int):
        super().__init__(message)
        self.requested = requested
        self.in_use = in_use
        self.capacity = capacity


@dataclass
class _Block:
    size: int
    owner: str


class MramAllocator:
    """First-fit allocator over ``[base, base + capacity)`` of every DPU's MRAM.

    Args:
        base: the first address it may hand out (the MRAM heap's start).
        capacity: how many bytes from ``base`` it manages.
    """

    def __init__(self, base: int = MRAM_BASE, capacity: int = MRAM_SIZE):
        if base % ALIGNMENT or capacity < 0:
            raise ArgumentValueError(
                f"an MRAM heap must start 8-byte aligned with a size >= 0, got "
                f"0x{base:x} and {capacity}"
            )
        self.base = base
        self.capacity = capacity - capacity % ALIGNMENT
        self._free: list[tuple[int, int]] = [(base, self.capacity)] if self.capacity else []
        self._used: dict[int, _Block] = {}

    @property
    def in_use(self) -> int:
        """Bytes per DPU held by live allocations."""
        return sum(block.size for block in self._used.values())

    def owners(self) -> list[tuple[int, int, str]]:
        """Every live allocation as ``(address, bytes, owner)``, by address."""
        return sorted((address, b.size, b.owner) for address, b in self._used.items())

    def allocate(self, nbytes: int, owner: str) -> int:
        """Reserve ``nbytes`` (rounded up to 8) on every DPU; return their MRAM address.

        A request of 0 bytes gets the heap's base and reserves nothing.

        Raises:
            MramAllocationError: no free range is large enough.
        """
        size = -(-nbytes // ALIGNMENT) * ALIGNMENT
        if size == 0:
            return self.base
        for index, (start, length) in enumerate(self._free):
            if length >= size:
                if length == size:
                    del self._free[index]
                else:
                    self._free[index] = (start + size, length - size)
                self._used[start] = _Block(size, owner)
                return start
        users = sorted(self._used.values(), key=lambda b: -b.size)
        listed = "; ".join(f"{b.owner}: {_mib(b.size)}" for b in users[:5])
        more = f" and {len(users) - 5} more" if len(users) > 5 else ""
        largest = max((length for _, length in self._free), default=0)
        raise MramAllocationError(
            f"out of MRAM: {owner} needs {_mib(size)} per DPU, but {_mib(self.in_use)} of "
            f"{_mib(self.capacity)} are in use by {len(users)} arrays"
            + (f" ({listed}{more})" if users else "")
            + f" and the largest free range is {_mib(largest)}. Fix: free arrays you no "
            "longer need (del a, or a.free()), or spread the data over more DPUs",
            size,
            self.in_use,
            self.capacity,
        )

    def free(self, address: int) -> None:
        """Give back the allocation at ``address`` (a no-op for an unknown address, such
        as that of an empty array)."""
        block = self._used.pop(address, None)
        if block is None:
            return
        self._free.append((address, block.size))
        self._free.sort()
        merged: list[tuple[int, int]] = []
        for start, length in self._free:
            if merged and merged[-1][0] + merged[-1][1] == start:
                merged[-1] = (merged[-1][0], merged[-1][1] + length)
            else:
                merged.append((start, length))
        self._free = merged


_ALLOCATORS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def find_allocator(dpus: object) -> MramAllocator | None:
    """The allocator of set ``dpus``, or None before its first array."""
    return _ALLOCATORS.get(dpus)


def allocator_for(dpus: object, base: int = MRAM_BASE, capacity: int = MRAM_SIZE) -> MramAllocator:
    """The one allocator of set ``dpus``, made on first use over ``[base, base + capacity)``."""
    allocator = _ALLOCATORS.get(dpus)
    if allocator is None:
        allocator = _ALLOCATORS[dpus] = MramAllocator(base, capacity)
    return allocator
