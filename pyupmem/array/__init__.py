"""Arrays in the MRAM of a DPU set, NumPy's operations on them, kernels from one line of C.

A :class:`~pyupmem.array.pimarray.PimArray` is a 1-D or 2-D NumPy-typed array split into
contiguous shares, one per DPU of a :class:`~pyupmem.DpuSet`, at the same MRAM address on
every DPU::

    import numpy as np
    import pyupmem as pim
    from pyupmem import array as pa

    with pim.DpuSet(64) as dpus:
        a = pa.asarray(np.arange(1_000_000, dtype=np.int32), dpus)
        b = a * 3 + 1                      # one generated kernel per operator
        print((b % 7 == 0).sum(), b.max(), pa.cumsum(a).get()[-1])

Every operation is a DPU program generated from a template (:mod:`~pyupmem.array.codegen`),
built once through the build cache and launched like any program, so
:meth:`DpuSet.estimate() <pyupmem.dpus.group.DpuGroup.estimate>` and a :class:`~pyupmem.PhaseTimer`
(:func:`~pyupmem.array.launching.settings`) see it. Results follow NumPy's types and values
(:mod:`~pyupmem.array.elementwise`, :mod:`~pyupmem.array.reductions`).

Modules: :mod:`~pyupmem.array.allocator` (the MRAM allocator of a set),
:mod:`~pyupmem.array.pimarray` (the array, :func:`~pyupmem.array.pimarray.asarray`,
:func:`~pyupmem.array.pimarray.asnumpy`),
:mod:`~pyupmem.array.codegen` (C templates), :mod:`~pyupmem.array.launching` (build, load,
launch, phases), :mod:`~pyupmem.array.elementwise` (with :mod:`~pyupmem.array.floatmath`,
the C of float ``//``, ``%`` and ``**``), :mod:`~pyupmem.array.reductions`,
:mod:`~pyupmem.array.collective` (scan, selection, histogram, matrix-vector product) and
:mod:`~pyupmem.array.kernels` (CuPy's ``ElementwiseKernel``, ``ReductionKernel``,
``RawKernel``).

May use: :mod:`pyupmem.errors`, :mod:`pyupmem.driver`, :mod:`pyupmem.build`,
:mod:`pyupmem.estimate`, :mod:`pyupmem.dpus`.
"""

from pyupmem.array.allocator import MramAllocationError, MramAllocator
from pyupmem.array.collective import cumsum, histogram, matvec, select
from pyupmem.array.elementwise import where
from pyupmem.array.kernels import ElementwiseKernel, RawKernel, ReductionKernel
from pyupmem.array.launching import settings
from pyupmem.array.pimarray import PimArray, asarray, asnumpy, empty

__all__ = [
    "ElementwiseKernel",
    "MramAllocationError",
    "MramAllocator",
    "PimArray",
    "RawKernel",
    "ReductionKernel",
    "asarray",
    "asnumpy",
    "cumsum",
    "empty",
    "histogram",
    "matvec",
    "select",
    "settings",
    "where",
]
