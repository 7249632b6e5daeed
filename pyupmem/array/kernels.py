"""Kernels from one line of C, with CuPy's signatures: :class:`ElementwiseKernel`,
:class:`ReductionKernel` and :class:`RawKernel`.

Parameters are declared as CuPy declares them, ``"T x, float32 y"``: a NumPy type name,
or a type placeholder (any other name, such as ``T``) bound to the dtype of the first
array given for it; the C code sees ``typedef <C type> T;``. In the C snippets the
parameters are variables of their types, ``i`` is the element's index in the whole array,
and ``_in_ind.size()`` the number of elements. CuPy's ``raw`` parameters (free indexing)
have no counterpart on DPUs, whose arrays are split over the DPUs: use a
:class:`RawKernel` for those.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from pyupmem.array.allocator import find_allocator
from pyupmem.array.codegen import ArgBlock, c_type
from pyupmem.array.elementwise import run
from pyupmem.array.launching import heap_address, launch, program
from pyupmem.array.pimarray import PimArray
from pyupmem.array.reductions import run_reduction
from pyupmem.errors import ArgumentTypeError, ArgumentValueError, UnsupportedError

__all__ = ["ElementwiseKernel", "ReductionKernel", "RawKernel", "parse_params"]

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*$")
_INDEX = re.compile(r"\bi\b")
_MINMAX = (
    "#ifndef min\n#define min(a, b) ((a) < (b) ? (a) : (b))\n#endif\n"
    "#ifndef max\n#define max(a, b) ((a) > (b) ? (a) : (b))\n#endif\n"
)


def _dtype_named(name: str) -> np.dtype | None:
    if name in ("T",) or len(name) == 1:
        return None
    try:
        dtype = np.dtype(name)
    except TypeError:
        return None
    return dtype if dtype in _KNOWN else None


_KNOWN = {np.dtype(t) for t in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "float32", "float64")}


def parse_params(text: str) -> list[tuple[str, np.dtype | str]]:
    """``"T x, float32 y"`` as ``[("x", "T"), ("y", dtype('float32'))]``: each name with
    its dtype, or with its placeholder's name.

    Raises:
        ArgumentValueError: a malformed declaration.
        UnsupportedError: a ``raw`` parameter.
    """
    params: list[tuple[str, np.dtype | str]] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        words = part.split()
        if words[0] == "raw":
            raise UnsupportedError(
                f"{part!r}: raw parameters (free indexing) have no counterpart on DPUs, "
                "whose arrays are split over the DPUs; write a RawKernel instead"
            )
        if len(words) != 2 or not all(_IDENTIFIER.match(w) for w in words):
            raise ArgumentValueError(
                f"a parameter is declared as 'type name' (for instance 'float32 x' or "
                f"'T x'), got {part!r}"
            )
        kind, name = words
        params.append((name, _dtype_named(kind) or kind))
    names = [n for n, _ in params]
    if len(set(names)) != len(names):
        raise ArgumentValueError(f"a parameter name is declared twice in {text!r}")
    return params


def _bind(params: list[tuple[str, Any]], args: tuple[Any, ...]) -> dict[str, np.dtype]:
    """Type placeholders bound to the dtypes of the arrays (then scalars) given for them."""
    bound: dict[str, np.dtype] = {}
    for arrays_first in (True, False):
        for (_, kind), value in zip(params, args, strict=False):
            if isinstance(kind, str) and kind not in bound:
                if isinstance(value, PimArray) == arrays_first:
                    bound[kind] = value.dtype if isinstance(value, PimArray) else np.asarray(
                        value
                    ).dtype
    return bound


def _resolve(kind: Any, bound: dict[str, np.dtype], where: str) -> np.dtype:
    if isinstance(kind, np.dtype):
        return kind
    if kind not in bound:
        raise ArgumentTypeError(f"the type {kind} of {where} is bound by no argument")
    return bound[kind]


def _inputs(params: list[tuple[str, Any]], args: tuple[Any, ...], bound: dict[str, np.dtype]
            ) -> list[tuple[str, Any]]:
    inputs = []
    for (name, kind), value in zip(params, args, strict=True):
        dtype = _resolve(kind, bound, f"parameter {name}")
        if isinstance(value, PimArray):
            if value.dtype != dtype:
                raise ArgumentTypeError(
                    f"parameter {name} is {dtype}, got an array of {value.dtype}; convert it "
                    f"with astype({str(dtype)!r})"
                )
            inputs.append((name, value))
        else:
            inputs.append((name, np.asarray(value).astype(dtype)))
    return inputs


def _typedefs(bound: dict[str, np.dtype]) -> str:
    return "".join(f"typedef {c_type(d)} {name};\n" for name, d in bound.items())


class ElementwiseKernel:
    """A kernel that runs ``operation`` once per element, as CuPy's ``ElementwiseKernel``::

        squared_diff = ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y)",
                                         "squared_diff")
        z = squared_diff(a, b)          # a, b: PimArrays of one dtype and shares
        z = squared_diff(a, 5)          # scalars are taken as T

    Args:
        in_params: the inputs, ``"T x, float32 y"``: arrays (of one shape and shares) or
            scalars.
        out_params: the outputs, new arrays of the inputs' shape unless given after the
            inputs in the call. The operation must assign each one.
        operation: C statements over the parameters (and ``i``, the element's index).
        name: the kernel's name (the built program's name).
        preamble: C code put before the kernel (helper functions, macros).
    """

    def __init__(self, in_params: str, out_params: str, operation: str,
                 name: str = "kernel", preamble: str = ""):
        self.in_params = parse_params(in_params)
        self.out_params = parse_params(out_params)
        if not self.out_params:
            raise ArgumentValueError("an ElementwiseKernel needs at least one out parameter")
        self.operation = operation
        self.name = name
        self.preamble = preamble

    def __call__(self, *args: Any) -> PimArray | tuple[PimArray, ...]:
        """Run the kernel on ``args`` (the inputs, then optionally the outputs)."""
        n_in, n_out = len(self.in_params), len(self.out_params)
        if len(args) not in (n_in, n_in + n_out):
            raise ArgumentValueError(
                f"{self.name} takes {n_in} inputs (and optionally its {n_out} outputs), "
                f"got {len(args)} arguments"
            )
        inputs_given, outs_given = args[:n_in], list(args[n_in:])
        if not any(isinstance(a, PimArray) for a in args):
            raise ArgumentTypeError(f"{self.name} needs at least one PimArray argument")
        bound = _bind(self.in_params + self.out_params, tuple(inputs_given) + tuple(outs_given))
        inputs = _inputs(self.in_params, inputs_given, bound)
        outputs = [(n, _resolve(k, bound, f"out parameter {n}")) for n, k in self.out_params]
        body = self.operation.strip()
        body = body if body.endswith(("}", ";")) else body + ";"
        results = run(
            inputs, outputs, body.replace("_in_ind.size()", "__pim_args.size"),
            preamble=_MINMAX + _typedefs(bound) + self.preamble,
            uses_index=bool(_INDEX.search(self.operation)),
            out=outs_given or None, name=self.name,
        )
        return results[0] if len(results) == 1 else tuple(results)


class ReductionKernel:
    """A whole-array reduction, as CuPy's ``ReductionKernel``::

        l2 = ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
        squares = ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "squares")
        total = squares(a)              # a NumPy scalar

    Each tasklet reduces its elements' ``map_expr`` with ``reduce_expr`` (over ``a`` and
    ``b``, any associative expression), tasklet 0 its DPU's tasklets, and DPU 0, in a
    second launch, the DPUs' results, then applies ``post_map_expr``. The order is fixed,
    so a result is the same from run to run. ``min(a, b)`` and ``max(a, b)`` are defined.

    Args:
        in_params: the inputs (arrays of one shape and shares, or scalars).
        out_params: one output, ``"T y"``: the result's type.
        map_expr: the C expression mapped over the elements.
        reduce_expr: the C expression combining ``a`` and ``b``.
        post_map_expr: C statements assigning the output from ``a``, the reduced value.
        identity: the C expression of ``reduce_expr``'s identity (``"0"`` for a sum).
        name: the kernel's name.
        reduce_type: the NumPy type of ``a`` and ``b`` (default: the output's).
        preamble: C code put before the kernel.
    """

    def __init__(self, in_params: str, out_params: str, map_expr: str, reduce_expr: str,
                 post_map_expr: str, identity: str, name: str = "reduce_kernel",
                 reduce_type: Any = None, preamble: str = ""):
        self.in_params = parse_params(in_params)
        self.out_params = parse_params(out_params)
        if len(self.out_params) != 1:
            raise ArgumentValueError("a ReductionKernel has exactly one out parameter")
        self.map_expr = map_expr
        self.reduce_expr = reduce_expr
        self.post_map_expr = post_map_expr
        self.identity = identity
        self.name = name
        self.reduce_type = None if reduce_type is None else np.dtype(reduce_type)
        self.preamble = preamble

    def __call__(self, *args: Any) -> np.generic:
        """Reduce over every element of the arrays in ``args``; a NumPy scalar."""
        if len(args) != len(self.in_params):
            raise ArgumentValueError(
                f"{self.name} takes {len(self.in_params)} inputs, got {len(args)}"
            )
        if not any(isinstance(a, PimArray) for a in args):
            raise ArgumentTypeError(f"{self.name} needs at least one PimArray argument")
        bound = _bind(self.in_params, args)
        inputs = _inputs(self.in_params, args, bound)
        out_name, out_kind = self.out_params[0]
        out_dtype = _resolve(out_kind, bound, f"out parameter {out_name}")
        reduce_dtype = self.reduce_type or out_dtype
        statement = self.post_map_expr.strip().rstrip(";")
        post = (
            f"{c_type(out_dtype)} {out_name};\n    {statement};\n    __pim_out = {out_name};"
        ).replace("_in_ind.size()", "__pim_args.size")
        uses_index = bool(_INDEX.search(self.map_expr))
        result = run_reduction(
            inputs, reduce_dtype, self.map_expr.replace("_in_ind.size()", "__pim_args.size"),
            self.reduce_expr, self.identity,
            preamble=_MINMAX + _typedefs(bound) + self.preamble, uses_index=uses_index,
            post_map=(post, out_dtype), name=self.name,
        )
        return out_dtype.type(result)


_C_SCALARS = {
    "int8_t": np.int8, "int16_t": np.int16, "int32_t": np.int32, "int64_t": np.int64,
    "uint8_t": np.uint8, "uint16_t": np.uint16, "uint32_t": np.uint32, "uint64_t": np.uint64,
    "int": np.int32, "unsigned": np.uint32, "unsigned int": np.uint32, "float": np.float32,
    "double": np.float64, "bool": np.bool_, "_Bool": np.bool_,
}

RAW_PRELUDE = """\
/* Added by pyupmem.array.RawKernel before the kernel's source. */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>
/* A PimArray as the kernel sees it on this DPU. */
typedef struct {
    uint32_t offset; /* the MRAM address of this DPU's share (8-byte aligned) */
    uint32_t count;  /* elements of the share (rows x columns for a 2-D array) */
    uint64_t first;  /* the index of its first element in the whole array */
    uint64_t size;   /* elements in the whole array */
} pim_array;
#define PIM_MRAM(address) ((__mram_ptr void *)(uintptr_t)(address))
"""


class RawKernel:
    """A DPU program of your own, called with PimArrays and scalars.

    ``source`` defines a C function ``name`` whose parameters are ``pim_array`` (a
    structure: ``offset``, the MRAM address of this DPU's share; ``count``, its elements;
    ``first``, the index of its first element; ``size``, the elements of the whole array)
    or scalars (``int32_t``, ``uint64_t``, ``float``, ``double``, ``int`` ...). pyupmem adds
    a ``__host`` argument block, from which a generated ``main`` passes each call's values,
    after tasklet 0 has reset the WRAM heap (``mem_alloc`` starts afresh) and a barrier.
    Every tasklet runs the function; the macro ``PIM_MRAM(address)`` makes an MRAM pointer.
    The program must not declare ``__mram`` variables (they would lie where the arrays
    are).

    A complete example, ``y = factor * x`` over float32 arrays::

        import numpy as np
        import pyupmem as pim
        from pyupmem import array as pa

        source = r'''
        #define BLOCK 256 /* elements per DMA: 1,024 bytes */

        void scale(pim_array x, pim_array y, float factor)
        {
            float *buffer = mem_alloc(BLOCK * sizeof(float));
            for (uint32_t start = me() * BLOCK; start < x.count;
                 start += NR_TASKLETS * BLOCK) {
                uint32_t n = x.count - start < BLOCK ? x.count - start : BLOCK;
                uint32_t bytes = (n * sizeof(float) + 7) & ~7u; /* DMAs move 8-byte units */
                mram_read(PIM_MRAM(x.offset + start * sizeof(float)), buffer, bytes);
                for (uint32_t k = 0; k < n; k++)
                    buffer[k] *= factor;
                mram_write(buffer, PIM_MRAM(y.offset + start * sizeof(float)), bytes);
            }
        }
        '''
        scale = pa.RawKernel(source, "scale")
        with pim.DpuSet(8) as dpus:
            x = pa.asarray(np.arange(10_000, dtype=np.float32), dpus)
            y = pa.empty(x.shape, np.float32, dpus)
            scale(x, y, 2.5)
            assert np.array_equal(y.get(), 2.5 * np.arange(10_000, dtype=np.float32))

    Args:
        source: the C source (text) defining the function.
        name: the function's name.
    """

    def __init__(self, source: str, name: str):
        if not isinstance(source, str) or not _IDENTIFIER.match(name or ""):
            raise ArgumentTypeError("RawKernel(source, name) takes C source text and a C name")
        match = re.search(rf"\b{name}\s*\(([^)]*)\)\s*\{{", source)
        if match is None:
            raise ArgumentValueError(
                f"the source defines no function {name}(...) {{ ... }}; define it with "
                "pim_array and scalar parameters"
            )
        self.source = source
        self.name = name
        self.params: list[tuple[str, np.dtype | None]] = []
        for part in filter(None, (p.strip() for p in match.group(1).split(","))):
            if part == "void":
                continue
            words = part.replace("const ", "").split()
            ctype, pname = " ".join(words[:-1]), words[-1]
            if ctype == "pim_array":
                self.params.append((pname, None))
            elif ctype in _C_SCALARS:
                self.params.append((pname, np.dtype(_C_SCALARS[ctype])))
            else:
                raise UnsupportedError(
                    f"parameter {part!r} of {name}: use pim_array or a scalar type "
                    f"({', '.join(_C_SCALARS)})"
                )
        self.block = ArgBlock()
        for pname, dtype in self.params:
            if dtype is None:
                for field, ftype in (("offset", np.uint32), ("count", np.uint32),
                                     ("first", np.uint64), ("size", np.uint64)):
                    self.block.add(f"{pname}_{field}", ftype)
            else:
                self.block.add(pname, dtype)
        call = ", ".join(
            f"(pim_array){{__pim_args.{p}_offset, __pim_args.{p}_count, __pim_args.{p}_first, "
            f"__pim_args.{p}_size}}" if d is None else f"__pim_args.{p}"
            for p, d in self.params
        )
        self.full_source = "\n".join([
            RAW_PRELUDE, source, "/* Added by pyupmem.array.RawKernel. */",
            self.block.c_declaration(),
            "BARRIER_INIT(__pim_barrier, NR_TASKLETS);",
            "int main(void)", "{",
            "    if (me() == 0)", "        mem_reset();", "    barrier_wait(&__pim_barrier);",
            f"    {name}({call});", "    return 0;", "}", "",
        ])
        """The program built: the prelude, ``source``, the argument block and ``main``."""

    def __call__(self, *args: Any, nr_tasklets: int | None = None) -> None:
        """Run the function on every DPU of the arrays' set with ``args`` (one per
        parameter) and ``nr_tasklets`` tasklets (default: those of
        :func:`~pyupmem.array.launching.settings`).
        """
        if len(args) != len(self.params):
            raise ArgumentValueError(
                f"{self.name} takes {len(self.params)} arguments, got {len(args)}"
            )
        arrays = [a for a in args if isinstance(a, PimArray)]
        if not arrays:
            raise ArgumentTypeError(f"{self.name} needs at least one PimArray argument")
        dpus = arrays[0].dpus
        values: dict[str, Any] = {}
        for (pname, dtype), value in zip(self.params, args, strict=True):
            if dtype is None:
                if not isinstance(value, PimArray) or value.dpus is not dpus:
                    raise ArgumentTypeError(
                        f"parameter {pname} of {self.name} takes a PimArray of the same set"
                    )
                value._check_alive()
                values.update({f"{pname}_offset": value.offset,
                               f"{pname}_count": value.element_counts(),
                               f"{pname}_first": value.element_firsts(),
                               f"{pname}_size": value.size})
            else:
                if isinstance(value, PimArray):
                    raise ArgumentTypeError(f"parameter {pname} of {self.name} takes a scalar")
                values[pname] = np.asarray(value).astype(dtype)
        built = program(self.full_source, nr_tasklets, self.name)
        from pyupmem.array.launching import ensure_loaded

        ensure_loaded(dpus, built)
        allocator = find_allocator(dpus)
        if allocator is not None and heap_address(dpus) > allocator.base:
            raise ArgumentValueError(
                f"{self.name}'s program declares __mram variables, which lie where the "
                "arrays are; allocate that memory as PimArrays (pyupmem.array.empty) instead"
            )
        launch(dpus, built, self.block.pack(len(dpus), values))
