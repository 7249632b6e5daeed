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

Packages, one per layer, each using only those before it: :mod:`pyupmem.driver` (the
ctypes declarations of libdpu and the backend lookup), :mod:`pyupmem.build` (compiling,
caching and reading DPU programs), :mod:`pyupmem.estimate` (the hardware time model's
estimates, timelines and the four-phase timer), :mod:`pyupmem.dpus` (sets of DPUs:
programs, transfers, launches, queues, logs), :mod:`pyupmem.apps` (what applications
share: the training skeleton, several servers over MPI) and :mod:`pyupmem.array` (arrays
in MRAM, NumPy's operations on them, kernels from one line of C); beside them
:mod:`pyupmem.errors`, the emulator :mod:`pyupmem.emu` and the SDK's Python module
:mod:`pyupmem.sdk_compat`. ``%load_ext pyupmem`` loads the notebook cell magic ``%%dpu``
(:mod:`pyupmem.build.magic`).
"""

from pyupmem.apps.distributed import Cluster
from pyupmem.array import PimArray
from pyupmem.build.builder import build_program
from pyupmem.build.magic import load_ipython_extension
from pyupmem.build.program import Program, Symbol
from pyupmem.dpus.control import DpuStatus
from pyupmem.dpus.dpuset import ALL, DpuSet
from pyupmem.dpus.loaded_program import LoadedProgram
from pyupmem.dpus.queued_data import PendingArray
from pyupmem.dpus.views import Dpu, Rank
from pyupmem.driver.backend import Backend, default_backend, find_backend
from pyupmem.driver.libdpu import DPU_MRAM_HEAP_POINTER_NAME
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
from pyupmem.estimate.model import KernelEstimate
from pyupmem.estimate.phases import (
    CPU_DPU,
    DPU_CPU,
    DPU_KERNEL,
    INTER_DPU,
    INTER_SERVER,
    PHASES,
    PhaseTimer,
)
from pyupmem.estimate.timeline import Timeline, TimelineEvent

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
