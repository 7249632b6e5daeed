"""The INT32 fixed-point helpers against exact integer arithmetic."""

from fractions import Fraction

import numpy as np
import pytest

from rl import fixed_point as fp


def _exact_mul(x: int, c: int) -> int:
    # round half up of x * c / 2**15, in exact integer arithmetic
    return (x * c + (1 << 14)) // (1 << 15)


def test_mul_is_exact_round_half_up_and_fits_32_bits():
    rng = np.random.default_rng(0)
    xs = rng.integers(fp.INT32_MIN, fp.INT32_MAX, size=20000, endpoint=True).tolist()
    cs = rng.integers(0, fp.COEF_MAX, size=20000, endpoint=True).tolist()
    xs += [fp.INT32_MIN, fp.INT32_MAX, -1, 0, 1, -(1 << 15), (1 << 15) - 1, -16384, 16384]
    cs += [fp.COEF_MAX, fp.COEF_MAX, 1, 0, 32767, 32767, 1, 1, 1]
    for x, c in zip(xs, cs, strict=True):
        got = fp.mul(x, c)
        assert got == _exact_mul(x, c)
        hi, lo = (x >> 15) * c, (x & 0x7FFF) * c + 0x4000
        for v in (hi, lo, hi + (lo >> 15)):
            assert fp.INT32_MIN <= v <= fp.INT32_MAX
    arr = fp.mul_array(np.array(xs), np.array(cs))
    assert arr.tolist() == [_exact_mul(x, c) for x, c in zip(xs, cs, strict=True)]


def test_mul_halfway_rounds_up():
    assert fp.mul(1, 16384) == 1  # 0.5 -> 1
    assert fp.mul(-1, 16384) == 0  # -0.5 -> 0 (half up, towards +inf)
    assert fp.mul(3, 16384) == 2  # 1.5 -> 2


def test_saturation():
    assert fp.sat_add(fp.INT32_MAX, 1) == fp.INT32_MAX
    assert fp.sat_add(fp.INT32_MIN, -1) == fp.INT32_MIN
    assert fp.sat_sub(fp.INT32_MIN, 1) == fp.INT32_MIN
    assert fp.sat_sub(fp.INT32_MAX, -5) == fp.INT32_MAX
    assert fp.sat_sub(fp.INT32_MIN, fp.INT32_MAX) == fp.INT32_MIN
    assert fp.sat_add(5, -7) == -2
    a = np.array([fp.INT32_MAX, fp.INT32_MIN, 3])
    b = np.array([10, -10, 4])
    assert fp.sat_add_array(a, b).tolist() == [fp.INT32_MAX, fp.INT32_MIN, 7]
    assert fp.sat_sub_array(b, a).tolist() == [10 - fp.INT32_MAX, -10 - fp.INT32_MIN, 1]
    assert fp.sat_sub_array(a, -b).tolist() == [fp.INT32_MAX, fp.INT32_MIN, 7]


def test_coefficients():
    assert fp.coefficient(0.5) == 16384
    assert fp.coefficient(0.0) == 0
    assert fp.coefficient(0.99999) == 32767  # rounds to 32768, clipped
    assert fp.coefficient(0.1) == round(0.1 * 32768)
    with pytest.raises(ValueError, match=r"gamma=1.0 is outside \[0, 1\).*FP32"):
        fp.coefficient(1.0, "gamma")
    with pytest.raises(ValueError, match="alpha"):
        fp.coefficient(-0.1, "alpha")


def test_value_conversions():
    v = np.array([0.0, 1.0, -1.5, 2**-17, 3 * 2**-17, 32767.99])
    raw = fp.to_q16(v)
    assert raw.dtype == np.int32
    assert raw.tolist() == [0, 65536, -98304, 0, 2, round(32767.99 * 65536)]  # half-even
    assert np.array_equal(fp.from_q16(raw[:3]), v[:3])
    with pytest.raises(ValueError, match="Q15.16"):
        fp.to_q16(np.array([40000.0]))


def test_scaled_rewards_round_half_even_exactly():
    rng = np.random.default_rng(1)
    for scale in (1, 3, 7, 65536, 100000, 2**20):
        vals = rng.integers(-32000 * scale, 32000 * scale, size=300)
        vals = np.concatenate([vals, [scale // 2, -(scale // 2), 1, -1, 0]])
        got = fp.scaled_to_q16(vals, scale)
        want = [round(Fraction(int(v) * 65536, scale)) for v in vals]  # half-even
        assert got.tolist() == want
    assert fp.scaled_to_f32(np.array([1, -3]), 4).tolist() == [0.25, -0.75]
    with pytest.raises(ValueError, match="Q15.16"):
        fp.scaled_to_q16(np.array([40000]), 1)
    with pytest.raises(ValueError, match="reward_scale"):
        fp.scaled_to_q16(np.array([1]), 0)
