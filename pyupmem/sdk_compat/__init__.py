"""The UPMEM SDK's Python module ``dpu``, on pyupmem: scripts written for it run unchanged.

::

    from dpu import ALLOCATE_ALL, DpuError, DpuSet

    with DpuSet(nr_dpus=4, c_source="kernel.c") as dpus:
        dpus.copy("input", bytearray(64))       # the same bytes to every DPU
        dpus.exec(log=sys.stdout)               # run, then print each DPU's log
        print(dpus.result.uint32())             # a symbol as an attribute: one value per DPU

``python -m pyupmem env`` makes ``import dpu`` find this package (through a small package
``dpu`` in the emulator's build folder that it puts first on ``PYTHONPATH``), but only when
the emulator is the selected backend: with UPMEM's SDK selected, ``dpu`` stays the SDK's
own module. Without ``env``, ``from pyupmem.sdk_compat import DpuSet`` gives the same API.

It is laid out as the SDK's module, one submodule for each of the SDK's:

- :mod:`dpu.driver <pyupmem.sdk_compat.driver>`: :class:`DpuSet`, :class:`DpuSymbol`,
  :class:`DpuProgram`, :class:`DpuVariable`, :class:`DpuContext`, :class:`DpuError`,
  :data:`ALLOCATE_ALL` (this package re-exports them, as the SDK's ``dpu`` does);
- :mod:`dpu.compiler <pyupmem.sdk_compat.compiler>`: ``Compiler``, the optimisation levels,
  ``DEFAULT_DPU_COMPILER``; a failed compilation raises
  :class:`subprocess.CalledProcessError`, also from ``DpuSet(c_source=...)``;
- :mod:`dpu.ffi <pyupmem.sdk_compat.ffi>`: the ctypes declarations of ``dpu.h``, with the
  ``Py_dpu_*`` helpers the SDK's libdpu (and the emulator's) exports for this module.

The SDK's hardware tools (``dpu.vpd``, the DIMM configuration) have no counterpart.
Checkpoints (``checkpoint``/``restore``, :class:`DpuContext`) go through libdpu's
``dpu_checkpoint_save``/``_restore`` as the SDK's do and hold a DPU's whole WRAM and MRAM.
What the emulator cannot do: DPU assembly (``asm_source``), and checkpoints of the DPU's
registers and IRAM (``iram=True``, the default) raise :class:`DpuError` (pass
``iram=False``); transfers are synchronous even in
asynchronous mode (they wait for a running launch first, as the SDK's queued transfers
do); a symbol named like a method (``copy``, ``log`` ...) is reached through
:meth:`DpuSet.copy` only.
"""

from . import driver as _driver
from .driver import (
    DpuContext,
    DpuError,
    DpuProgram,
    DpuSet,
    DpuSymbol,
    DpuVariable,
)

ALLOCATE_ALL = _driver.ALLOCATE_ALL
"""``nr_dpus`` or ``nr_ranks`` that allocates every available DPU or rank (from
:mod:`~pyupmem.sdk_compat.driver`, as in the SDK's ``dpu``)."""

SUBMODULES = ("compiler", "driver", "ffi")
"""The submodules, named as the SDK's (``dpu.driver`` ...)."""

__all__ = [
    "ALLOCATE_ALL",
    "DpuContext",
    "DpuError",
    "DpuProgram",
    "DpuSet",
    "DpuSymbol",
    "DpuVariable",
]
