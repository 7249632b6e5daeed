"""Whole-array reductions on the DPUs: ``sum``, ``min``, ``max``, ``mean`` and the runner
that :class:`~pyupmem.array.kernels.ReductionKernel` shares.

Each DPU reduces its share (each tasklet its blocks, then tasklet 0 the tasklets' partial
results in order); the host brings back one value per DPU and combines them with NumPy
(``Inter-DPU``), or, for a :class:`~pyupmem.array.kernels.ReductionKernel`'s own ``reduce_expr``,
sends them to DPU 0, whose second launch combines them and applies ``post_map_expr``.

Result types are NumPy's: ``sum`` of a signed integer narrower than 64 bits is int64 (of
an unsigned one uint64, of bool int64), wrapping around as NumPy's does; ``mean`` of
integers is float64. Integer results are exact. Float sums add in a different order from
NumPy's pairwise summation, so they differ in the last bits; ``min`` and ``max`` give NaN
when an element is NaN, and raise ``ValueError`` on an empty array, as NumPy's do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyupmem.array.codegen import c_type, reduction_source
from pyupmem.array.elementwise import common_layout, kernel_operands
from pyupmem.array.launching import heap_address, launch, nr_tasklets, phase, program
from pyupmem.array.pimarray import PimArray
from pyupmem.driver.libdpu import DPU_MRAM_HEAP_POINTER_NAME
from pyupmem.errors import ArgumentTypeError

__all__ = ["reduce", "run_reduction", "gather_results"]


def gather_results(dpus: Any, name: str, dtype: np.dtype) -> np.ndarray:
    """The ``__host`` union ``name`` (8 bytes) of every DPU of ``dpus`` as ``dtype``."""
    with phase("DPU-CPU"):
        raw = dpus.gather(name, np.uint8, 8, raw=True)
    return np.ascontiguousarray(raw[:, : dtype.itemsize]).view(dtype).reshape(-1)


def _limits(dtype: np.dtype) -> tuple[str, str]:
    """C literals of the smallest and largest value of ``dtype`` (for min and max)."""
    if dtype.kind == "f":
        return "-__builtin_inf()", "__builtin_inf()"
    if dtype.kind == "b":
        return "0", "1"
    info = np.iinfo(dtype)
    low = f"(-{info.max}LL - 1)" if dtype.kind == "i" and dtype.itemsize == 8 else f"{info.min}LL"
    high = f"{info.max}ULL" if dtype.itemsize == 8 else f"{info.max}LL"
    return low, high


def run_reduction(
    inputs: list[tuple[str, Any]],
    reduce_dtype: np.dtype,
    map_expr: str,
    reduce_expr: str,
    identity: str,
    *,
    preamble: str = "",
    uses_index: bool = False,
    host_combine: np.ufunc | None = None,
    post_map: tuple[str, np.dtype] | None = None,
    name: str = "pim_reduce",
) -> Any:
    """Reduce over every element: ``inputs`` are ``(C name, PimArray or scalar)``; the
    DPUs' results are combined by ``host_combine`` (a NumPy ufunc's ``reduce``), giving a
    value of ``reduce_dtype``, or on DPU 0 by ``reduce_expr`` followed by ``post_map``
    (``(C statement assigning __pim_out from a, out dtype)``), giving that."""
    layout = common_layout([value for _, value in inputs])
    dpus = layout.dpus
    operands, values = kernel_operands(inputs)
    source, block = reduction_source(
        operands, reduce_dtype, map_expr, reduce_expr, identity, nr_tasklets(), preamble,
        uses_index, post_map,
    )
    built = program(source, name=name)
    values.update(count=layout.element_counts(), first=layout.element_firsts(), mode=0,
                  size=layout.size, a_partials=0)
    partials = None
    if layout.size:
        launch(dpus, built, block.pack(len(dpus), values))
        partials = gather_results(dpus, "__pim_result", reduce_dtype)
    if host_combine is not None:
        with phase("Inter-DPU"):
            if partials is None:
                return host_combine.reduce(np.zeros(0, reduce_dtype), dtype=reduce_dtype)
            return host_combine.reduce(partials, dtype=reduce_dtype)
    # the reduce_expr on DPU 0 over the DPUs' results: a second, one-DPU launch
    assert post_map is not None
    count = 0 if partials is None else len(partials)
    scratch = PimArray(dpus, (max(count, 1),), reduce_dtype,
                       np.array([max(count, 1)] + [0] * (len(dpus) - 1)))
    try:
        first = dpus[0]
        if count:
            data = np.zeros(scratch.share_bytes, np.uint8)
            data[: partials.nbytes] = partials.view(np.uint8)
            relative = scratch.offset - heap_address(dpus)
            with phase("CPU-DPU"):
                first.write(DPU_MRAM_HEAP_POINTER_NAME, data, relative)
        values.update(count=count, mode=1, a_partials=scratch.offset)
        launch(first, built, block.pack(1, values))
        return gather_results(first, "__pim_final", post_map[1])[0]
    finally:
        scratch.free()


def reduce(array: PimArray, how: str) -> np.generic:
    """``array.sum()``, ``.min()``, ``.max()`` or ``.mean()`` (``how``) as NumPy gives
    them (see the module's notes on types and floats)."""
    if not isinstance(array, PimArray):
        raise ArgumentTypeError(f"reduce() takes a PimArray, not {type(array).__name__}")
    dtype = array.dtype
    c_type(dtype)  # refuses a dtype a DPU cannot hold
    if how in ("min", "max"):
        if array.size == 0:
            ufunc = "minimum" if how == "min" else "maximum"
            raise ValueError(
                f"zero-size array to reduction operation {ufunc} which has no identity"
            )
        low, high = _limits(dtype)
        op = "<" if how == "min" else ">"
        nan = " || b != b" if dtype.kind == "f" else ""
        result = run_reduction(
            [("x", array)], dtype, "x", f"(b {op} a{nan}) ? b : a", high if how == "min" else low,
            host_combine=np.minimum if how == "min" else np.maximum, name=f"pim_{how}",
        )
        return dtype.type(result)
    if how == "sum":
        out = np.add.reduce(np.ones(1, dtype)).dtype
        result = run_reduction([("x", array)], out, f"({c_type(out)})x", "a + b", "0",
                               host_combine=np.add, name="pim_sum")
        return out.type(result)
    if how == "mean":
        out = np.mean(np.ones(1, dtype)).dtype
        if dtype.kind == "f":
            acc = dtype
        elif dtype.itemsize == 8:
            acc = np.dtype(np.float64)  # as NumPy: int64 values summed as float64
        else:
            acc = np.dtype(np.uint64 if dtype.kind == "u" else np.int64)  # exact
        total = run_reduction([("x", array)], acc, f"({c_type(acc)})x", "a + b", "0",
                              host_combine=np.add, name="pim_mean")
        with phase("Inter-DPU"):
            if array.size == 0:
                return out.type(np.nan)
            return out.type(out.type(total) / out.type(array.size))
    raise ArgumentTypeError(f"unknown reduction {how!r}: sum, min, max or mean")
