"""pyupmem: program UPMEM processing-in-memory systems from Python.

The same code runs on UPMEM hardware, on the SDK's simulator, and on the bundled
emulator (:mod:`pyupmem.emu`), whichever libdpu :func:`find_backend` picks::

    import numpy as np
    import pyupmem as pim

    program = pim.build_program("vecadd.c", nr_tasklets=16)
    with pim.DpuSet(64) as dpus:
        dpus.load(program)
        dpus.scatter("A", a.reshape(64, -1))
        dpus.launch()
        c = dpus.gather("C", np.int32, 1024)

Modules: :mod:`pyupmem.dpuset` (sets, programs, logs), :mod:`pyupmem.transfers`
(moving data), :mod:`pyupmem.control` (launches, waits, stop), :mod:`pyupmem.build`
(compiling DPU programs), :mod:`pyupmem.backend` (finding libdpu), :mod:`pyupmem.errors`,
:mod:`pyupmem.timing`, :mod:`pyupmem.estimate` (the hardware time model's estimates),
:mod:`pyupmem.array` (arrays in MRAM, NumPy's operations on them, kernels from C),
:mod:`pyupmem.buildcache` (the build cache as a whole), :mod:`pyupmem.magic` (the
notebook cell magic ``%%dpu``: ``%load_ext pyupmem``) and :mod:`pyupmem._libdpu` (the raw
ctypes layer).
"""

from pyupmem._libdpu import DPU_MRAM_HEAP_POINTER_NAME

# Last: pyupmem.array uses the modules above (imported by now, so no cycle).
from pyupmem.array import PimArray  # noqa: E402
from pyupmem.backend import Backend, default_backend, find_backend
from pyupmem.build import build_program
from pyupmem.distributed import Cluster
from pyupmem.dpuset import ALL, Dpu, DpuSet, DpuStatus, LoadedProgram, Rank
from pyupmem.errors import (
    ArgumentTypeError,
    ArgumentValueError,
    BackendError,
    CacheFolderError,
    CacheWarning,
    CompileError,
    CompileWarning,
    DpuAccessError,
    DpuAllocationError,
    DpuBusyError,
    DpuError,
    DpuFaultError,
    DpuIndexError,
    DpuProfileError,
    DpuProgramError,
    DpuSetError,
    DpuSymbolError,
    DpuTimeoutError,
    PendingResultError,
    PyUpmemError,
    PyUpmemWarning,
    SourceNotFoundError,
    SymbolShapeError,
    SymbolTypeError,
    UnsupportedError,
)
from pyupmem.estimate import KernelEstimate
from pyupmem.magic import load_ipython_extension
from pyupmem.program import Program, Symbol
from pyupmem.queued_data import PendingArray
from pyupmem.timeline import Timeline, TimelineEvent
from pyupmem.timing import (
    CPU_DPU,
    DPU_CPU,
    DPU_KERNEL,
    INTER_DPU,
    INTER_SERVER,
    PHASES,
    PhaseTimer,
)

__version__ = "0.1.0"
"""The package version."""

__all__ = [
    "ALL",
    "ArgumentTypeError",
    "ArgumentValueError",
    "CacheFolderError",
    "Cluster",
    "CacheWarning",
    "CompileWarning",
    "DpuIndexError",
    "DpuTimeoutError",
    "PyUpmemWarning",
    "SourceNotFoundError",
    "SymbolShapeError",
    "SymbolTypeError",
    "UnsupportedError",
    "Backend",
    "BackendError",
    "CPU_DPU",
    "CompileError",
    "DPU_CPU",
    "DPU_KERNEL",
    "DPU_MRAM_HEAP_POINTER_NAME",
    "Dpu",
    "DpuAccessError",
    "DpuAllocationError",
    "DpuBusyError",
    "DpuError",
    "DpuFaultError",
    "DpuProfileError",
    "DpuProgramError",
    "DpuSet",
    "DpuSetError",
    "DpuStatus",
    "DpuSymbolError",
    "INTER_DPU",
    "INTER_SERVER",
    "KernelEstimate",
    "LoadedProgram",
    "PHASES",
    "PendingArray",
    "PendingResultError",
    "PhaseTimer",
    "PimArray",
    "Program",
    "PyUpmemError",
    "Rank",
    "Symbol",
    "Timeline",
    "TimelineEvent",
    "build_program",
    "default_backend",
    "find_backend",
    "load_ipython_extension",
]
