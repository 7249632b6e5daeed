"""NumPy's elementwise operations on PimArrays, as generated kernels with NumPy's results.

NumPy decides everything but the arithmetic: for ``ufunc(x, y)`` its own type resolution
(``ufunc.resolve_dtypes``, with Python scalars as weak, NEP 50) gives the loop's types, and
NumPy run on one-element stand-ins raises what it would raise (a ``TypeError`` for
``bool - bool``, an ``OverflowError`` for ``int8_array + 300``). The kernel then computes
in the loop's types, with NumPy's rules for each:

- integer ``+``, ``-``, ``*``, negation, ``abs``: wrap around (computed unsigned, so C's
  signed overflow never happens);
- integer ``//`` and ``%``: floor division and the remainder with the divisor's sign;
  division by zero gives 0 (NumPy's value, without its warning); ``MIN // -1`` gives
  ``MIN`` and ``MIN % -1`` gives 0;
- ``/``: true division in the loop's float type (float64 for integers), IEEE's inf and NaN;
- shifts: by the type's width or more (or a negative count) give 0, or -1 for a negative
  signed value shifted right;
- comparisons: exact, int64 against uint64 included; with a Python int beyond the array's
  type, the constant NumPy gives;
- bool: ``+`` is or, ``*`` is and, ``~`` is not.

- ``**``: integers by squaring, wrapping; a negative exponent raises NumPy's ValueError
  (checked on the host: a scalar, or the exponent array's minimum);
- float ``//`` and ``%``: NumPy's ``divmod`` step by step, bit for bit, and float ``**``
  within two units in the last place of NumPy's (:mod:`~pyupmem.array.floatmath`: a DPU
  has no ``libm``).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from pyupmem.array.codegen import Operand, c_type, elementwise_source
from pyupmem.array.floatmath import NEGATIVE_POWER_MESSAGE, float_helper, integer_power_helper
from pyupmem.array.launching import launch, program
from pyupmem.array.pimarray import PimArray, empty
from pyupmem.errors import ArgumentTypeError, ArgumentValueError, UnsupportedError

__all__ = ["accepts", "apply", "astype", "where", "run"]

_COMPARISONS = {"less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">=",
                "equal": "==", "not_equal": "!="}


def accepts(value: Any) -> bool:
    """Whether ``value`` can be an operand: a PimArray or a scalar (Python or NumPy)."""
    return isinstance(value, PimArray | bool | int | float | np.generic) or (
        isinstance(value, np.ndarray) and value.ndim == 0
    )


def _scalar(value: Any) -> Any:
    """A scalar as NumPy takes it: Python int and float stay weak, bool becomes np.bool_."""
    if isinstance(value, np.ndarray):
        value = value[()]
    if isinstance(value, bool):
        return np.bool_(value)
    if isinstance(value, int | float | np.generic):
        return value
    raise ArgumentTypeError(
        f"an operand of a PimArray must be a PimArray or a scalar, not {type(value).__name__}; "
        "send host arrays with pyupmem.array.asarray first"
    )


def _sample(value: Any) -> Any:
    """A one-element stand-in with which NumPy decides the result type (and errors)."""
    return np.ones(1, dtype=value.dtype) if isinstance(value, PimArray) else value


def _dtype_arg(value: Any) -> Any:
    if isinstance(value, PimArray):
        return value.dtype
    if isinstance(value, int | float) and not isinstance(value, bool):
        return type(value)  # weak: NEP 50
    return np.asarray(value).dtype


def _unsigned_wide(dtype: np.dtype) -> str:
    return "uint64_t" if dtype.itemsize == 8 else "uint32_t"


def _helpers(ufunc: str, dtype: np.dtype) -> tuple[str, str]:
    """A C helper for a signed integer ``//`` or ``%`` with NumPy's results; (name, code)."""
    t, w = c_type(dtype), _unsigned_wide(dtype)
    if ufunc == "floor_divide":
        name = f"__pim_floordiv_{t}"
        code = (
            f"static inline {t} {name}({t} a, {t} b)\n{{\n"
            "    if (b == 0) return 0;\n"
            f"    if (b == -1) return ({t})(0 - ({w})a); /* MIN // -1 wraps to MIN */\n"
            f"    {t} q = ({t})(a / b);\n"
            "    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;\n"
            "    return q;\n}\n"
        )
    else:
        name = f"__pim_remainder_{t}"
        code = (
            f"static inline {t} {name}({t} a, {t} b)\n{{\n"
            "    if (b == 0 || b == -1) return 0;\n"
            f"    {t} r = ({t})(a % b);\n"
            f"    if (r != 0 && ((r < 0) != (b < 0))) r = ({t})(r + b);\n"
            "    return r;\n}\n"
        )
    return name, code


def expression(ufunc: np.ufunc, loop: tuple[np.dtype, ...], names: list[str]) -> tuple[str, str]:
    """The C expression of ``ufunc`` over C variables ``names`` already of the loop's input
    types ``loop[:-1]``, giving ``loop[-1]``; and the helpers it needs (C code).

    Raises:
        UnsupportedError: an operation not generated.
    """
    name = ufunc.__name__
    dtype = loop[0]
    kind = dtype.kind
    t = c_type(loop[-1])
    bits = dtype.itemsize * 8
    w = _unsigned_wide(dtype)
    a = names[0]
    b = names[1] if len(names) > 1 else ""
    if name in _COMPARISONS:
        op = _COMPARISONS[name]
        k0, k1 = loop[0].kind, loop[1].kind
        if {k0, k1} == {"i", "u"} and 8 in (loop[0].itemsize, loop[1].itemsize):
            # int64 against uint64: a negative signed value is below every unsigned one
            s, u = (a, b) if k0 == "i" else (b, a)
            below = f"({s} < 0 || (uint64_t){s} < {u})"  # signed < unsigned
            same = f"({s} >= 0 && (uint64_t){s} == {u})"
            above = f"({s} >= 0 && (uint64_t){s} > {u})"
            if k0 == "u":  # a is the unsigned one: mirror the relation
                below, above = above, below
            table = {"<": below, "<=": f"!{above}", ">": above, ">=": f"!{below}",
                     "==": same, "!=": f"!{same}"}
            return f"(uint8_t)({table[op]})", ""
        return f"(uint8_t)({a} {op} {b})", ""
    if kind == "b":
        table = {"add": f"{a} | {b}", "multiply": f"{a} & {b}", "bitwise_and": f"{a} & {b}",
                 "bitwise_or": f"{a} | {b}", "bitwise_xor": f"{a} ^ {b}", "invert": f"!{a}",
                 "positive": a, "absolute": a}
        if name in table:
            return f"(uint8_t)({table[name]})", ""
    elif kind in "iu":
        wrap = {"add": "+", "subtract": "-", "multiply": "*"}
        if name in wrap:
            return f"({t})(({w}){a} {wrap[name]} ({w}){b})", ""
        bitwise = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}
        if name in bitwise:
            return f"({t})({a} {bitwise[name]} {b})", ""
        if name in ("floor_divide", "remainder"):
            if kind == "u":
                op = "/" if name == "floor_divide" else "%"
                return f"({t})({b} == 0 ? 0 : {a} {op} {b})", ""
            helper, code = _helpers(name, dtype)
            return f"{helper}({a}, {b})", code
        if name == "power":
            helper, code = integer_power_helper(dtype)
            return f"{helper}({a}, {b})", code
        count = f"(uint64_t)(int64_t)({b})"  # a negative count becomes huge: NumPy's rule
        if name == "left_shift":
            return f"({count} < {bits}u ? ({t})(({w}){a} << {b}) : ({t})0)", ""
        if name == "right_shift":
            beyond = f"({t})({a} < 0 ? -1 : 0)" if kind == "i" else f"({t})0"
            return f"({count} < {bits}u ? ({t})({a} >> {b}) : {beyond})", ""
        if name == "negative":
            return f"({t})(0 - ({w}){a})", ""
        if name == "positive":
            return a, ""
        if name == "invert":
            return f"({t})~{a}", ""
        if name == "absolute":
            if kind == "u":
                return a, ""
            return f"({t})({a} < 0 ? 0 - ({w}){a} : ({w}){a})", ""
    elif kind == "f":
        arith = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "true_divide": "/"}
        if name in arith:
            return f"({t})({a} {arith[name]} {b})", ""
        if name in ("floor_divide", "remainder", "power"):
            helper, code = float_helper(name, dtype)
            return f"{helper}({a}, {b})", code
        if name == "negative":
            return f"({t})(-{a})", ""
        if name == "positive":
            return a, ""
        if name == "absolute":
            return (f"__builtin_fabsf({a})" if dtype.itemsize == 4 else f"__builtin_fabs({a})"), ""
    raise UnsupportedError(
        f"numpy.{name} on {', '.join(str(d) for d in loop[:-1])} is not generated for the "
        f"DPUs; compute it on the host: numpy.{name}(a.get(), ...), then asarray the result"
    )


def common_layout(operands: list[Any]) -> PimArray:
    """The first :class:`PimArray` among ``operands``, once every array among them is
    alive, on the same DPU set and shared over it alike (there is no broadcasting on the
    DPUs)."""
    arrays = [x for x in operands if isinstance(x, PimArray)]
    if not arrays:
        raise ArgumentTypeError("an operation on the DPUs needs at least one PimArray")
    first = arrays[0]
    for other in arrays[1:]:
        if other.dpus is not first.dpus:
            raise ArgumentValueError(
                f"{first!r} and {other!r} are on different DPU sets; move one with "
                "pyupmem.array.asarray(x.get(), dpus)"
            )
        if other.shape != first.shape or not other.same_layout(first):
            raise ArgumentValueError(
                f"{first!r} and {other!r} differ in shape or in how their elements are "
                "shared over the DPUs (no broadcasting on the DPUs); make them alike with "
                "pyupmem.array.asarray(x.get(), dpus)"
            )
        other._check_alive()
    first._check_alive()
    return first


def kernel_operands(inputs: list[tuple[str, Any]]) -> tuple[list[Operand], dict[str, Any]]:
    """The kernel's operands for ``inputs`` (``(C name, PimArray or scalar)``) and the
    argument block's values: ``a_<name>``, an array's MRAM offset; ``s_<name>``, a
    scalar."""
    operands, values = [], {}
    for cname, value in inputs:
        if isinstance(value, PimArray):
            operands.append(Operand(cname, value.dtype, True, key=id(value)))
            values[f"a_{cname}"] = value.offset
        else:
            scalar = np.asarray(value)
            operands.append(Operand(cname, scalar.dtype, False))
            values[f"s_{cname}"] = scalar
    return operands, values


def run(
    inputs: list[tuple[str, Any]],
    outputs: list[tuple[str, np.dtype]],
    body: str,
    *,
    preamble: str = "",
    uses_index: bool = False,
    out: list[PimArray | None] | None = None,
    name: str = "pim_elementwise",
) -> list[PimArray]:
    """Run ``body`` over every element of the arrays among ``inputs`` (``(C name, PimArray
    or scalar already of its final NumPy type)``), giving the arrays of ``outputs``
    (``(C name, dtype)``), new unless given in ``out``. All arrays share one layout."""
    supplied = [o for o in (out or []) if o is not None]
    layout = common_layout([value for _, value in inputs] + supplied)
    operands, values = kernel_operands(inputs)
    results = []
    for index, (cname, dtype) in enumerate(outputs):
        given = out[index] if out is not None and index < len(out) else None
        if given is None:
            given = empty(layout.shape, dtype, layout.dpus, counts=layout.counts)
        elif given.dtype != np.dtype(dtype):
            raise ArgumentTypeError(f"out array {given!r} must be {np.dtype(dtype)}")
        results.append(given)
        values[f"a_{cname}"] = given.offset
    if layout.size == 0:
        return results
    from pyupmem.array.launching import nr_tasklets

    source, block = elementwise_source(
        operands, [(c, np.dtype(d)) for c, d in outputs], body, nr_tasklets(), preamble,
        uses_index,
    )
    values["count"] = layout.element_counts()
    values["first"] = layout.element_firsts()
    values["size"] = layout.size
    launch(layout.dpus, program(source, name=name), block.pack(len(layout.dpus), values))
    return results


def _fits(value: int, dtype: np.dtype) -> bool:
    if dtype.kind not in "iu":
        return True
    info = np.iinfo(dtype)
    return info.min <= value <= info.max


def apply(ufunc: np.ufunc, *operands: Any) -> PimArray:
    """``ufunc(*operands)`` on the DPUs, with NumPy's result type and values (see the
    module's rules); one operand at least is a PimArray, the others PimArrays of the same
    shape and shares, or scalars.

    Raises:
        TypeError, OverflowError: as NumPy raises them for these types.
        UnsupportedError: an operation not generated.
    """
    operands = tuple(x if isinstance(x, PimArray) else _scalar(x) for x in operands)
    layout = common_layout(list(operands))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        result_dtype = ufunc(*(_sample(x) for x in operands)).dtype  # NumPy's errors, too
    loop = ufunc.resolve_dtypes((*(_dtype_arg(x) for x in operands), None))
    if ufunc.__name__ in _COMPARISONS:
        for x, dtype in zip(operands, loop, strict=False):
            if isinstance(x, int) and not _fits(x, dtype):
                # beyond the array's type: the same answer for every element, as NumPy's
                other = next(y for y in operands if isinstance(y, PimArray))
                constant = ufunc(*(np.zeros(1, other.dtype) if y is other else y
                                   for y in operands))[0]
                return run([], [("out", np.bool_)], f"out = {int(constant)};",
                           out=[empty(layout.shape, np.bool_, layout.dpus, layout.counts)])[0]
    if ufunc is np.power and loop[1].kind in "iu":
        _check_exponent(operands[1])
    names, inputs = [], []
    for index, (x, dtype) in enumerate(zip(operands, loop, strict=False)):
        cname = f"x{index}"
        if isinstance(x, PimArray):
            inputs.append((cname, x))
            names.append(f"(({c_type(dtype)}){cname})" if x.dtype != dtype else cname)
        else:
            inputs.append((cname, np.asarray(x).astype(dtype)))
            names.append(cname)
    expr, helpers = expression(ufunc, tuple(loop), names)
    return run(inputs, [("out", result_dtype)], f"out = ({c_type(result_dtype)})({expr});",
               preamble=helpers, name=f"pim_{ufunc.__name__}")[0]


def _check_exponent(exponent: Any) -> None:
    """NumPy's ValueError for an integer power with a negative exponent (NumPy checks
    each element; here a scalar, or an array's minimum in one reduction)."""
    if isinstance(exponent, PimArray):
        negative = exponent.dtype.kind == "i" and exponent.size > 0 and exponent.min() < 0
    else:
        negative = exponent < 0
    if negative:
        raise ValueError(NEGATIVE_POWER_MESSAGE)


def astype(array: PimArray, dtype: Any) -> PimArray:
    """A new array of ``dtype`` converted as NumPy's ``astype`` converts (C's conversions:
    round to nearest for floats, wrap-around between integers, ``!= 0`` to bool; a float
    beyond an integer type's range is undefined, in NumPy as here)."""
    dtype = np.dtype(dtype)
    c_type(dtype)
    body = "out = (x != 0);" if dtype.kind == "b" else f"out = ({c_type(dtype)})x;"
    return run([("x", array)], [("out", dtype)], body, name="pim_astype")[0]


def where(condition: PimArray, x: Any, y: Any) -> PimArray:
    """``numpy.where(condition, x, y)`` on the DPUs: ``x`` where ``condition`` is true
    (non-zero), else ``y``; ``x`` and ``y`` are PimArrays or scalars, and the result has
    NumPy's type for them."""
    if not isinstance(condition, PimArray):
        raise ArgumentTypeError("where() needs its condition as a PimArray")
    x = x if isinstance(x, PimArray) else _scalar(x)
    y = y if isinstance(y, PimArray) else _scalar(y)
    result = np.where(np.ones(1, bool), _sample(x), _sample(y)).dtype
    inputs: list[tuple[str, Any]] = [("c", condition)]
    for cname, value in (("x", x), ("y", y)):
        if isinstance(value, PimArray):
            inputs.append((cname, value))
        else:
            inputs.append((cname, np.asarray(value).astype(result)))
    t = c_type(result)
    take = "(x != 0)" if result.kind == "b" else "x"
    other = "(y != 0)" if result.kind == "b" else "y"
    return run(inputs, [("out", result)], f"out = c ? ({t}){take} : ({t}){other};",
               name="pim_where")[0]
