"""NumPy's operators, astype and where on PimArrays give NumPy's types, values and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from array_support import DTYPES, INTEGERS, data, dpu_counts, dtypes, sizes, tasklets
from hypothesis import given, settings
from hypothesis import strategies as st

import pyupmem as pim
import pyupmem.array as pa

BINARY = [np.add, np.subtract, np.multiply, np.true_divide, np.floor_divide, np.remainder,
          np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.left_shift, np.right_shift,
          np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal,
          np.power]
UNARY = [np.negative, np.positive, np.invert, np.absolute]


def numpy_result(ufunc, *operands):
    """NumPy's result, or the type of exception it raises."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return ufunc(*operands)
        except (TypeError, OverflowError, ValueError) as error:
            return type(error)


def check(ufunc, host_operands, pim_operands):
    expected = numpy_result(ufunc, *host_operands)
    if isinstance(expected, type):
        with pytest.raises(expected):
            ufunc_on_pim(ufunc, *pim_operands)
        return
    result = ufunc_on_pim(ufunc, *pim_operands)
    assert result.dtype == expected.dtype, (ufunc, result.dtype, expected.dtype)
    if ufunc is np.power and expected.dtype.kind == "f":
        assert_within_ulps(result.get(), expected, 2)
    else:
        assert_same_values(result.get(), expected)


def assert_same_values(result, expected):
    """Equal, NaN where NaN, and for floats the same sign of every zero."""
    np.testing.assert_array_equal(result, expected)
    if expected.dtype.kind == "f":
        keep = ~np.isnan(expected)
        np.testing.assert_array_equal(np.signbit(result[keep]), np.signbit(expected[keep]))


def _ordered(values):
    """Floats as integers in the same order, one apart for neighbouring floats."""
    bits = values.view(f"i{values.itemsize}").astype(np.int64)
    return np.where(bits < 0, -(bits & np.iinfo(f"i{values.itemsize}").max), bits)


def assert_within_ulps(result, expected, ulps):
    """NaN, infinities and zeros where NumPy has them (signs included); finite values at
    most ``ulps`` units in the last place from NumPy's."""
    exact = ~np.isfinite(expected) | (expected == 0) | ~np.isfinite(result) | (result == 0)
    assert_same_values(result[exact], expected[exact])
    distance = np.abs(_ordered(result[~exact]) - _ordered(expected[~exact]))
    assert distance.size == 0 or distance.max() <= ulps, distance.max()


def ufunc_on_pim(ufunc, *operands):
    """The operator a user writes for ``ufunc``."""
    names = {np.add: "__add__", np.subtract: "__sub__", np.multiply: "__mul__",
             np.true_divide: "__truediv__", np.floor_divide: "__floordiv__",
             np.remainder: "__mod__", np.bitwise_and: "__and__", np.bitwise_or: "__or__",
             np.bitwise_xor: "__xor__", np.left_shift: "__lshift__",
             np.right_shift: "__rshift__", np.less: "__lt__", np.less_equal: "__le__",
             np.greater: "__gt__", np.greater_equal: "__ge__", np.equal: "__eq__",
             np.not_equal: "__ne__", np.negative: "__neg__", np.positive: "__pos__",
             np.invert: "__invert__", np.absolute: "__abs__", np.power: "__pow__"}
    import operator

    if len(operands) == 1:
        if ufunc is np.absolute:
            return abs(operands[0])
        return getattr(operator, names[ufunc].strip("_"))(operands[0])
    left, right = operands
    op = {"__add__": operator.add, "__sub__": operator.sub, "__mul__": operator.mul,
          "__truediv__": operator.truediv, "__floordiv__": operator.floordiv,
          "__mod__": operator.mod, "__and__": operator.and_, "__or__": operator.or_,
          "__xor__": operator.xor, "__lshift__": operator.lshift, "__rshift__": operator.rshift,
          "__lt__": operator.lt, "__le__": operator.le, "__gt__": operator.gt,
          "__ge__": operator.ge, "__eq__": operator.eq, "__ne__": operator.ne,
          "__pow__": operator.pow}[names[ufunc]]
    result = op(left, right)
    if result is NotImplemented:  # pragma: no cover
        raise TypeError
    return result


@settings(max_examples=25, deadline=None)
@given(ufunc=st.sampled_from(BINARY), left=dtypes, right=dtypes, n=sizes, nr_dpus=dpu_counts,
       nr_tasklets=tasklets)
def test_binary_operators_between_arrays_match_numpy(ufunc, left, right, n, nr_dpus, nr_tasklets):
    x, y = data(left, n, seed=1), data(right, n, seed=2)
    with pim.DpuSet(nr_dpus) as dpus, pa.settings(nr_tasklets=nr_tasklets):
        check(ufunc, (x, y), (pa.asarray(x, dpus), pa.asarray(y, dpus)))


SCALARS = st.sampled_from([0, 1, -1, 3, -7, 100, 300, 2**31, -(2**40), 2**63, 0.5, -2.25,
                           np.int8(-3), np.uint16(7), np.float32(1.5), True, np.inf])


@settings(max_examples=25, deadline=None)
@given(ufunc=st.sampled_from(BINARY), dtype=dtypes, scalar=SCALARS, reflected=st.booleans(),
       n=sizes, nr_dpus=dpu_counts)
def test_binary_operators_with_scalars_match_numpy_weak_scalar_rules(
    ufunc, dtype, scalar, reflected, n, nr_dpus
):
    x = data(dtype, n, seed=3)
    with pim.DpuSet(nr_dpus) as dpus:
        a = pa.asarray(x, dpus)
        if reflected:
            check(ufunc, (scalar, x), (scalar, a))
        else:
            check(ufunc, (x, scalar), (a, scalar))


@settings(max_examples=25, deadline=None)
@given(ufunc=st.sampled_from(UNARY), dtype=dtypes, n=sizes, nr_dpus=dpu_counts)
def test_unary_operators_match_numpy(ufunc, dtype, n, nr_dpus):
    x = data(dtype, n, seed=4)
    with pim.DpuSet(nr_dpus) as dpus:
        check(ufunc, (x,), (pa.asarray(x, dpus),))


@pytest.mark.parametrize("dtype", INTEGERS)
def test_integer_division_edges_are_numpy_s(dtype):
    info = np.iinfo(dtype)
    x = np.array([info.min, info.min, info.max, -7 if dtype.kind == "i" else 7, 7, 0, 5, 9],
                 dtype=dtype)
    y = np.array([-1 if dtype.kind == "i" else 1, 0, 0, 2, 3, 0, 7, 4], dtype=dtype)
    with pim.DpuSet(3) as dpus:
        a, b = pa.asarray(x, dpus), pa.asarray(y, dpus)
        for ufunc in (np.floor_divide, np.remainder, np.true_divide, np.multiply, np.add,
                      np.left_shift, np.right_shift):
            check(ufunc, (x, y), (a, b))


FLOATS = [np.dtype(np.float32), np.dtype(np.float64)]
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.0, -7.0, 0.1, 1e30, -1e30, 1e-40,
           5e-324, 1e308, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("dtype", FLOATS)
def test_float_floor_divide_remainder_and_power_on_special_values_are_numpy_s(dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = np.array(SPECIAL, dtype=dtype)  # float32: some overflow to inf or zero
    x, y = np.repeat(values, len(values)), np.tile(values, len(values))
    with pim.DpuSet(5) as dpus:
        a, b = pa.asarray(x, dpus), pa.asarray(y, dpus)
        for ufunc in (np.floor_divide, np.remainder, np.power):
            check(ufunc, (x, y), (a, b))
        for scalar in (0.0, -0.0, 2.0, -3.5, np.inf, np.nan):
            for ufunc in (np.floor_divide, np.remainder, np.power):
                check(ufunc, (x, scalar), (a, scalar))
                check(ufunc, (scalar, x), (scalar, a))


@settings(max_examples=15, deadline=None)
@given(dtype=st.sampled_from(FLOATS), n=sizes, nr_dpus=dpu_counts, nr_tasklets=tasklets,
       seed=st.integers(0, 2**16))
def test_float_floor_divide_remainder_and_power_match_numpy(dtype, n, nr_dpus, nr_tasklets,
                                                            seed):
    x, y = data(dtype, n, seed=seed), data(dtype, n, seed=seed + 1)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        exponent = (y / 10 ** np.floor(np.log10(np.abs(y) + 1e-30))).astype(dtype)
    exponent[::7] = np.round(exponent[::7] * 10)  # integers: negative bases keep their sign
    with pim.DpuSet(nr_dpus) as dpus, pa.settings(nr_tasklets=nr_tasklets):
        a, b = pa.asarray(x, dpus), pa.asarray(y, dpus)
        check(np.floor_divide, (x, y), (a, b))
        check(np.remainder, (x, y), (a, b))
        check(np.power, (np.abs(x), exponent),
              (pa.asarray(np.abs(x), dpus), pa.asarray(exponent, dpus)))
        check(np.power, (x, exponent), (a, pa.asarray(exponent, dpus)))


@settings(max_examples=15, deadline=None)
@given(dtype=st.sampled_from(INTEGERS), n=sizes, nr_dpus=dpu_counts, seed=st.integers(0, 99))
def test_integer_power_wraps_as_numpy(dtype, n, nr_dpus, seed):
    x = data(dtype, n, seed=seed)
    y = (np.abs(data(dtype, n, seed=seed + 1).astype(np.int64)) % 70).astype(dtype)
    with pim.DpuSet(nr_dpus) as dpus:
        a, b = pa.asarray(x, dpus), pa.asarray(y, dpus)
        check(np.power, (x, y), (a, b))
        check(np.power, (x, 3), (a, 3))
        check(np.power, (2, y), (2, b))


@pytest.mark.parametrize("dtype", [d for d in INTEGERS if d.kind == "i"])
def test_integer_power_with_a_negative_exponent_raises_numpy_s_error(dtype):
    x = np.array([2, 3, 0, 1, 5], dtype=dtype)
    y = np.array([1, 0, 2, -1, 3], dtype=dtype)
    with pim.DpuSet(2) as dpus:
        a, b = pa.asarray(x, dpus), pa.asarray(y, dpus)
        with pytest.raises(ValueError, match="Integers to negative integer powers"):
            a ** b
        with pytest.raises(ValueError, match="Integers to negative integer powers"):
            a ** -2
        with pytest.raises(ValueError, match="Integers to negative integer powers"):
            np.int8(2) ** b
        np.testing.assert_array_equal((a ** abs(b)).get(), x ** np.abs(y))


@settings(max_examples=20, deadline=None)
@given(source=dtypes, target=dtypes, n=sizes, nr_dpus=dpu_counts)
def test_astype_converts_as_numpy(source, target, n, nr_dpus):
    x = data(source, n, seed=5, special=target.kind == "f" or target.kind == "b")
    if source.kind == "f" and target.kind in "iu":
        # beyond the target's range NumPy's result is undefined too: keep it in range
        info = np.iinfo(target)
        x = np.clip(np.nan_to_num(x), max(info.min, -1e6), min(info.max, 1e6)).astype(source)
    with pim.DpuSet(nr_dpus) as dpus:
        result = pa.asarray(x, dpus).astype(target)
        assert result.dtype == target
        np.testing.assert_array_equal(result.get(), x.astype(target))


@settings(max_examples=20, deadline=None)
@given(cond=dtypes, left=dtypes, right=st.one_of(dtypes, SCALARS), n=sizes, nr_dpus=dpu_counts)
def test_where_matches_numpy(cond, left, right, n, nr_dpus):
    c, x = data(cond, n, seed=6), data(left, n, seed=7)
    y = data(right, n, seed=8) if isinstance(right, np.dtype) else right
    expected = numpy_result(np.where, c, x, y)
    with pim.DpuSet(nr_dpus) as dpus:
        pc, px = pa.asarray(c, dpus), pa.asarray(x, dpus)
        py = pa.asarray(y, dpus) if isinstance(y, np.ndarray) else y
        if isinstance(expected, type):
            with pytest.raises(expected):
                pa.where(pc, px, py)
            return
        result = pa.where(pc, px, py)
        assert result.dtype == expected.dtype
        np.testing.assert_array_equal(result.get(), expected)


def test_every_dtype_pair_of_add_and_less_on_awkward_sizes():
    with pim.DpuSet(7) as dpus:
        for left in DTYPES:
            for right in DTYPES:
                x, y = data(left, 2049, seed=9), data(right, 2049, seed=10)
                for ufunc in (np.add, np.less):
                    check(ufunc, (x, y), (pa.asarray(x, dpus), pa.asarray(y, dpus)))
