"""Telling which machine a DPU program binary was built for, from its ELF header.

The SDK's compiler builds a DPU program for the DPU itself: a 32-bit little-endian ELF
whose ``e_machine`` is ``EM_DPU`` (245, as in UPMEM's LLVM, ``llvm/BinaryFormat/ELF.h``).
The emulator runs DPU programs built by its own ``dpu-upmem-dpurte-clang`` into host
executables (``EM_X86_64`` or ``EM_AARCH64``). Each libdpu refuses the other's binaries
with ``DPU_ERR_ELF_INVALID_FILE``; :func:`foreign_binary_problem` says which it is and how
to rebuild it, so that :meth:`pyupmem.DpuSet.load` can raise an error that explains.
"""

from __future__ import annotations

import os
import platform
import struct

from pyupmem.driver import libdpu as C
from pyupmem.errors import make_error

__all__ = ["EM_DPU", "elf_machine", "foreign_binary_problem", "refuse_foreign_binary"]

EM_DPU = 245
"""``e_machine`` of a binary built for the DPU by the SDK's compiler."""

_HOST_MACHINES = {"x86_64": 62, "amd64": 62, "aarch64": 183, "arm64": 183}

_REBUILD_FOR_EMULATOR = (
    "Fix: rebuild it for the emulator from its C source, with pyupmem.build_program(...) "
    "or with the emulator's dpu-upmem-dpurte-clang (put it on PATH with "
    '`eval "$(python -m pyupmem env)"`, then run the same build command); or use the SDK '
    "backend (PYUPMEM_BACKEND=sdk) on a machine with UPMEM's SDK"
)


def elf_machine(header: bytes) -> int | None:
    """The ``e_machine`` of an ELF file from its first bytes (at least 20), or None when
    they are not an ELF header."""
    if len(header) < 20 or header[:4] != b"\x7fELF":
        return None
    order = "<" if header[5] == 1 else ">"
    return int(struct.unpack_from(order + "H", header, 18)[0])


def foreign_binary_problem(header: bytes, backend_kind: str, what: str) -> str | None:
    """Why a binary whose first bytes are ``header`` cannot run on ``backend_kind``, with
    the fix, or None when nothing in its header says so.

    Args:
        header: the file's first bytes (64 are plenty).
        backend_kind: ``"emulator"`` or ``"sdk"``.
        what: names the binary in the message (its path, or "the binary in memory").
    """
    machine = elf_machine(header)
    if machine is None:
        return None
    host = _HOST_MACHINES.get(platform.machine().lower())
    if backend_kind == "emulator" and machine == EM_DPU:
        return (
            f"{what} is a DPU binary built by the UPMEM SDK's compiler (ELF machine EM_DPU, "
            "245): it runs on DPU hardware or the SDK's simulator, not on the emulator, "
            "which runs DPU programs compiled for this host. " + _REBUILD_FOR_EMULATOR
        )
    if backend_kind == "sdk" and machine != EM_DPU and machine == host:
        return (
            f"{what} was built for the pyupmem emulator (an x32 image of host code, ELF machine "
            f"{machine}), not for the DPU. Fix: rebuild it with the SDK's "
            "dpu-upmem-dpurte-clang (pyupmem.build_program does when the SDK backend is "
            "selected), or run it on the emulator (PYUPMEM_BACKEND=emulator)"
        )
    return None


def refuse_foreign_binary(program: object, backend_kind: str) -> None:
    """Raise ``DPU_ERR_ELF_INVALID_FILE`` with the reason and the fix, before libdpu is
    called, when ``program`` (a :class:`~pyupmem.Program`, a path or the binary's bytes)
    was built for the other backend; do nothing otherwise (a missing or unreadable file
    is left to libdpu to report).

    Raises:
        DpuProgramError: the binary was built for the other backend.
    """
    if isinstance(program, bytes | bytearray | memoryview):
        header, what, call = bytes(program[:64]), "the binary in memory", "dpu_load_from_memory"
    else:
        path = os.fspath(getattr(program, "path", program))  # type: ignore[arg-type]
        try:
            with open(path, "rb") as file:
                header = file.read(64)
        except OSError:
            return
        what, call = str(path), "dpu_load"
    problem = foreign_binary_problem(header, backend_kind, what)
    if problem is not None:
        raise make_error(C.DPU_ERR_ELF_INVALID_FILE, call, detail=problem, before_call=True)
