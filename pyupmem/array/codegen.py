"""C source of generated DPU kernels: types, the ``__host`` argument block, templates.

Every generated kernel has the same shape, that of a hand-written PrIM kernel: tasklet
``t`` takes the blocks ``t, t + NR_TASKLETS, ...`` of its DPU's share, each block read
from MRAM into a WRAM buffer with one ``mram_read`` of at most 2,048 bytes (8-aligned,
rounded up to 8: every share is padded to 8 bytes), worked on in WRAM, and written back
with one ``mram_write``. Where an output has the size of an input, it is written into
that input's buffer, so a kernel needs no more WRAM than the hand-written one.

What a launch needs from the host (the MRAM address of each array, the elements on this
DPU, the index of its first element, scalar values) arrives in one ``__host`` structure,
``__pim_args``, whose fields take 8 bytes each (:class:`ArgBlock`): the host writes one
row of bytes per DPU.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pyupmem.errors import ArgumentTypeError

__all__ = [
    "C_TYPES",
    "ArgBlock",
    "c_type",
    "block_elements",
    "PRELUDE",
    "elementwise_source",
    "reduction_source",
]

C_TYPES = {
    np.dtype(np.bool_): "uint8_t",
    np.dtype(np.int8): "int8_t",
    np.dtype(np.int16): "int16_t",
    np.dtype(np.int32): "int32_t",
    np.dtype(np.int64): "int64_t",
    np.dtype(np.uint8): "uint8_t",
    np.dtype(np.uint16): "uint16_t",
    np.dtype(np.uint32): "uint32_t",
    np.dtype(np.uint64): "uint64_t",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
}
"""The C type that holds each supported dtype on a DPU (bool as one byte, 0 or 1)."""

WRAM_BYTES = 64 * 1024
STACK_BYTES = 1024  # the runtime's default stack per tasklet
GLOBALS_BYTES = 2048  # the argument block, per-tasklet partials and the like
MAX_DMA = 2048  # the most one mram_read or mram_write moves


def c_type(dtype: np.dtype) -> str:
    """The C type of ``dtype`` on a DPU.

    Raises:
        ArgumentTypeError: a dtype pyupmem.array does not hold (complex, strings, ...).
    """
    try:
        return C_TYPES[np.dtype(dtype)]
    except (KeyError, TypeError):
        raise ArgumentTypeError(
            f"pyupmem.array holds bool, int8..int64, uint8..uint64, float32 and float64, "
            f"not {dtype!r}; convert the data first (numpy's astype)"
        ) from None


def wram_per_tasklet(nr_tasklets: int) -> int:
    """WRAM bytes a tasklet may use for its buffers, stacks and globals set aside."""
    return (WRAM_BYTES - nr_tasklets * STACK_BYTES - GLOBALS_BYTES) // nr_tasklets


def block_elements(buffer_itemsizes: list[int], nr_tasklets: int, extra: int = 0) -> int:
    """Elements per block: the largest power of two (at least 8, so every block of every
    dtype starts 8-byte aligned) whose buffers fit one DMA each and the tasklet's WRAM
    (``extra``: further bytes per tasklet the kernel needs)."""
    widest = max(buffer_itemsizes, default=1)
    per_element = max(sum(buffer_itemsizes), 1)
    budget = wram_per_tasklet(nr_tasklets) - extra
    elements = 8
    while elements * 2 * widest <= MAX_DMA and elements * 2 * per_element <= budget:
        elements *= 2
    return elements


@dataclass
class ArgBlock:
    """The ``__host`` argument block of a kernel: named fields of 8 bytes each.

    ``fields`` holds ``(name, dtype)``; a field of fewer than 8 bytes is followed by
    padding, so field ``k`` sits at byte ``8 * k`` whatever the compiler's rules.
    """

    fields: list[tuple[str, np.dtype]] = field(default_factory=list)

    def add(self, name: str, dtype: object) -> str:
        """Add a field (if new); return the C expression that reads it."""
        if all(name != existing for existing, _ in self.fields):
            self.fields.append((name, np.dtype(dtype)))
        return f"__pim_args.{name}"

    def c_declaration(self) -> str:
        """The structure and its ``__host`` variable, in C."""
        lines = ["typedef struct {"]
        for index, (name, dtype) in enumerate(self.fields):
            lines.append(f"    {c_type(dtype)} {name};")
            if dtype.itemsize < 8:
                lines.append(f"    uint8_t __pad{index}[{8 - dtype.itemsize}];")
        if not self.fields:
            lines.append("    uint64_t __unused;")
        lines.append("} __attribute__((aligned(8))) __pim_args_t;")
        lines.append("__host __pim_args_t __pim_args;")
        return "\n".join(lines)

    @property
    def nbytes(self) -> int:
        """The block's size in bytes."""
        return 8 * max(len(self.fields), 1)

    def pack(self, nr_dpus: int, values: dict[str, object]) -> np.ndarray:
        """One row of bytes per DPU: ``values[name]`` is a scalar (the same on every DPU)
        or a sequence of ``nr_dpus`` values."""
        rows = np.zeros((nr_dpus, self.nbytes), dtype=np.uint8)
        for index, (name, dtype) in enumerate(self.fields):
            value = np.asarray(values[name])
            column = np.broadcast_to(value.astype(dtype, copy=False), (nr_dpus,))
            view = rows[:, 8 * index : 8 * index + dtype.itemsize]
            view[...] = np.ascontiguousarray(column).view(np.uint8).reshape(nr_dpus, -1)
        return rows


_INDEX_LINE = "const uint64_t i = __pim_first + __pim_start + __pim_k; (void)i;"

PRELUDE = """\
/* Generated by pyupmem.array: do not edit (see docs/explanation/arrays.md). */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#define __PIM_ROUND8(x) (((x) + 7u) & ~7u)
#define __PIM_MRAM(address) ((__mram_ptr void *)(uintptr_t)(address))
BARRIER_INIT(__pim_barrier, NR_TASKLETS);
"""
"""What every generated kernel starts with: the DPU headers, rounding to the DMA's 8-byte
granule, an MRAM pointer from an address, and the barrier of its tasklets."""


@dataclass
class Operand:
    """An input of a generated loop: an array read per element, or a scalar.

    Attributes:
        name: the C variable the body uses.
        dtype: the element's dtype.
        array: True for an array (read from MRAM), False for a scalar (from the block).
        key: arrays with the same key are the same data: read once into one buffer.
    """

    name: str
    dtype: np.dtype
    array: bool = True
    key: object = None


def _buffers(
    inputs: list[Operand], outputs: list[tuple[str, np.dtype]]
) -> tuple[list[tuple[str, np.dtype]], dict[str, str], dict[str, str]]:
    """WRAM buffers for the arrays: one per distinct input, outputs reusing an input's
    buffer of the same item size where one is free (each element is read before it is
    written). Returns (buffers, buffer of each input, buffer of each output)."""
    buffers: list[tuple[str, np.dtype]] = []
    of_input: dict[str, str] = {}
    by_key: dict[object, str] = {}
    for operand in inputs:
        if not operand.array:
            continue
        key = operand.key if operand.key is not None else operand.name
        if key not in by_key:
            by_key[key] = f"__buf{len(buffers)}"
            buffers.append((by_key[key], operand.dtype))
        of_input[operand.name] = by_key[key]
    of_output: dict[str, str] = {}
    taken: set[str] = set()
    for name, dtype in outputs:
        reuse = next(
            (b for b, d in buffers if d.itemsize == dtype.itemsize and b not in taken), None
        )
        if reuse is None:
            reuse = f"__buf{len(buffers)}"
            buffers.append((reuse, dtype))
        taken.add(reuse)
        of_output[name] = reuse
    return buffers, of_input, of_output


def _input_lines(
    inputs: list[Operand], of_input: dict[str, str], block: ArgBlock
) -> tuple[list[str], list[str], list[str]]:
    """The C lines that bring ``inputs`` in, as three lists: ``setup`` (before the blocks:
    each array's MRAM address, each scalar's value, from fields added to ``block``),
    ``loads`` (per block: one ``mram_read`` per WRAM buffer, which inputs may share) and
    ``reads`` (per element: each input as a C variable of its dtype)."""
    setup, loads, reads = [], [], []
    read_done: set[str] = set()
    for operand in inputs:
        ctype = c_type(operand.dtype)
        if operand.array:
            address = block.add(f"a_{operand.name}", np.uint32)
            buffer = of_input[operand.name]
            if buffer not in read_done:
                read_done.add(buffer)
                setup.append(f"    const uint32_t {buffer}_at = {address};")
                loads.append(
                    f"        mram_read(__PIM_MRAM({buffer}_at + __pim_start *"
                    f" {operand.dtype.itemsize}u), "
                    f"{buffer}, __PIM_ROUND8(__pim_n * {operand.dtype.itemsize}u));"
                )
            reads.append(f"            const {ctype} {operand.name} = {buffer}[__pim_k];")
        else:
            value = block.add(f"s_{operand.name}", operand.dtype)
            setup.append(f"    const {ctype} {operand.name} = {value};")
    return setup, loads, reads


def elementwise_source(
    inputs: list[Operand],
    outputs: list[tuple[str, np.dtype]],
    body: str,
    nr_tasklets: int,
    preamble: str = "",
    uses_index: bool = False,
) -> tuple[str, ArgBlock]:
    """A kernel that runs ``body`` once per element: the inputs are C variables of their
    dtypes (arrays: this element; scalars: the value), the outputs are variables the body
    assigns, written to their arrays. ``preamble`` goes before ``main`` (helpers, typedefs);
    with ``uses_index``, ``i`` is the element's index in the whole array (``uint64_t``).

    The block's fields: ``count`` (elements on this DPU), ``first`` (the index of its first
    element), ``a_<name>`` (the MRAM address of each array) and ``s_<name>`` (scalars).
    """
    block = ArgBlock()
    block.add("count", np.uint32)
    if uses_index:
        block.add("first", np.uint64)
    if "__pim_args.size" in body:
        block.add("size", np.uint64)  # CuPy's _in_ind.size()
    buffers, of_input, of_output = _buffers(inputs, outputs)
    elements = block_elements([d.itemsize for _, d in buffers], nr_tasklets)
    setup, loads, reads = _input_lines(inputs, of_input, block)
    writes, stores = [], []
    for name, dtype in outputs:
        ctype = c_type(dtype)
        buffer = of_output[name]
        address = block.add(f"a_{name}", np.uint32)
        setup.append(f"    const uint32_t {buffer}_out = {address};")
        reads.append(f"            {ctype} {name};")
        writes.append(f"            (({ctype} *){buffer})[__pim_k] = {name};")
        stores.append(
            f"        mram_write({buffer}, __PIM_MRAM({buffer}_out + __pim_start *"
            f" {dtype.itemsize}u), "
            f"__PIM_ROUND8(__pim_n * {dtype.itemsize}u));"
        )
    declare = [
        f"    {c_type(d)} *{b} = mem_alloc({elements * d.itemsize});" for b, d in buffers
    ]
    index = (
        [f"            {_INDEX_LINE}"] if uses_index else []
    )
    first_line = ["    const uint64_t __pim_first = __pim_args.first;"] if uses_index else []
    lines = [
        PRELUDE,
        f"#define __PIM_BLOCK {elements}u",
        block.c_declaration(),
        preamble,
        "int main(void)",
        "{",
        "    if (me() == 0)",
        "        mem_reset(); /* the WRAM heap outlives a launch */",
        "    barrier_wait(&__pim_barrier);",
        "    const uint32_t __pim_count = __pim_args.count;",
        *first_line,
        *setup,
        *declare,
        "    for (uint32_t __pim_start = me() * __PIM_BLOCK; __pim_start < __pim_count;"
        " __pim_start += NR_TASKLETS * __PIM_BLOCK) {",
        "        const uint32_t __pim_n = __pim_count - __pim_start < __PIM_BLOCK ? __pim_count"
        " - __pim_start : __PIM_BLOCK;",
        *loads,
        "        for (uint32_t __pim_k = 0; __pim_k < __pim_n; __pim_k++) {",
        *index,
        *reads,
        "            " + body.strip().replace("\n", "\n            "),
        *writes,
        "        }",
        *stores,
        "    }",
        "    return 0;",
        "}",
        "",
    ]
    source = "\n".join(lines)
    return source, block


def reduction_source(
    inputs: list[Operand],
    reduce_dtype: np.dtype,
    map_expr: str,
    reduce_expr: str,
    identity: str,
    nr_tasklets: int,
    preamble: str = "",
    uses_index: bool = False,
    post_map: tuple[str, np.dtype] | None = None,
) -> tuple[str, ArgBlock]:
    """A kernel that reduces ``map_expr`` of every element with ``reduce_expr`` (over
    ``a`` and ``b`` of ``reduce_dtype``) from ``identity``: each tasklet over its blocks,
    then tasklet 0 over the tasklets in order, into the ``__host`` variable
    ``__pim_result``; the host combines the DPUs.

    With ``post_map`` (``(statement, out dtype)``: CuPy's ``post_map_expr`` assigning the
    output from ``a``), a launch with ``mode`` 1 on one DPU reduces ``count`` values of
    ``reduce_dtype`` stored at ``a_partials`` (the DPUs' results) and applies it, into
    ``__pim_final``.
    """
    block = ArgBlock()
    block.add("count", np.uint32)
    block.add("mode", np.uint32)
    if uses_index:
        block.add("first", np.uint64)
    if "__pim_args.size" in map_expr + (post_map[0] if post_map else ""):
        block.add("size", np.uint64)  # CuPy's _in_ind.size()
    buffers, of_input, _ = _buffers(inputs, [])
    rtype = c_type(reduce_dtype)
    elements = block_elements([d.itemsize for _, d in buffers], nr_tasklets)
    setup, loads, reads = _input_lines(inputs, of_input, block)
    declare = [
        f"    {c_type(d)} *{b} = mem_alloc({elements * d.itemsize});" for b, d in buffers
    ]
    index = [f"            {_INDEX_LINE}"] if uses_index else []
    first_line = ["    const uint64_t __pim_first = __pim_args.first;"] if uses_index else []
    final: list[str] = []
    if post_map is not None:
        statement, out_dtype = post_map
        partials = block.add("a_partials", np.uint32)
        final = [
            f"__host union {{ {c_type(out_dtype)} value; uint64_t bits; }} __pim_final;",
            "static void __pim_combine(void)",
            "{",
            f"    {rtype} *__pim_values = mem_alloc({MAX_DMA});",
            f"    {rtype} a = __pim_identity();",
            "    const uint32_t __pim_count = __pim_args.count;",
            f"    for (uint32_t __pim_start = 0; __pim_start < __pim_count; __pim_start +="
            f" {MAX_DMA // reduce_dtype.itemsize}u) {{",
            f"        const uint32_t __pim_n = __pim_count - __pim_start <"
            f" {MAX_DMA // reduce_dtype.itemsize}u ?"
            f" __pim_count - __pim_start : {MAX_DMA // reduce_dtype.itemsize}u;",
            f"        mram_read(__PIM_MRAM({partials} + __pim_start *"
            f" {reduce_dtype.itemsize}u), __pim_values,"
            f" __PIM_ROUND8(__pim_n * {reduce_dtype.itemsize}u));",
            "        for (uint32_t __pim_k = 0; __pim_k < __pim_n; __pim_k++)",
            "            a = __pim_reduce(a, __pim_values[__pim_k]);",
            "    }",
            f"    {c_type(out_dtype)} __pim_out;",
            "    " + statement.strip(),
            "    __pim_final.value = __pim_out;",
            "}",
        ]
    lines = [
        PRELUDE,
        f"#define __PIM_BLOCK {elements}u",
        block.c_declaration(),
        preamble,
        f"__host union {{ {rtype} value; uint64_t bits; }} __pim_result; /* 8 bytes: a WRAM"
        " transfer moves multiples of 4 */",
        f"static {rtype} __pim_partial[NR_TASKLETS];",
        f"static inline {rtype} __pim_identity(void) {{ return ({rtype})({identity}); }}",
        f"static inline {rtype} __pim_reduce({rtype} a, {rtype} b) "
        f"{{ return ({rtype})({reduce_expr}); }}",
        *final,
        "int main(void)",
        "{",
        "    if (me() == 0)",
        "        mem_reset(); /* the WRAM heap outlives a launch */",
        "    barrier_wait(&__pim_barrier);",
        *(
            ["    if (__pim_args.mode == 1) {", "        if (me() == 0)",
             "            __pim_combine();", "        return 0;", "    }"]
            if post_map is not None
            else []
        ),
        "    const uint32_t __pim_count = __pim_args.count;",
        *first_line,
        *setup,
        *declare,
        f"    {rtype} __pim_acc = __pim_identity();",
        "    for (uint32_t __pim_start = me() * __PIM_BLOCK; __pim_start < __pim_count;"
        " __pim_start += NR_TASKLETS * __PIM_BLOCK) {",
        "        const uint32_t __pim_n = __pim_count - __pim_start < __PIM_BLOCK ? __pim_count"
        " - __pim_start : __PIM_BLOCK;",
        *loads,
        "        for (uint32_t __pim_k = 0; __pim_k < __pim_n; __pim_k++) {",
        *index,
        *reads,
        f"            __pim_acc = __pim_reduce(__pim_acc, ({rtype})({map_expr}));",
        "        }",
        "    }",
        "    __pim_partial[me()] = __pim_acc;",
        "    barrier_wait(&__pim_barrier);",
        "    if (me() == 0) {",
        f"        {rtype} a = __pim_partial[0];",
        "        for (unsigned t = 1; t < NR_TASKLETS; t++)",
        "            a = __pim_reduce(a, __pim_partial[t]);",
        "        __pim_result.value = a;",
        "    }",
        "    return 0;",
        "}",
        "",
    ]
    return "\n".join(lines), block
