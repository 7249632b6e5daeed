"""C helpers for NumPy's float ``//``, ``%`` and ``**`` and integer ``**`` in generated kernels.

A DPU has no floating-point unit and UPMEM's toolchain no ``libm`` (the emulator's DPU libc
has no ``math.h`` either), so ``fmod``, ``floor`` and ``pow`` are written here in portable
C11 on the bits of a ``double``:

- ``fmod`` is exact (a shift-and-subtract division of the significands), and so is
  ``floor``; float32 uses them through ``double``, which holds every float32 exactly and
  where both results are float32 values again;
- ``//`` and ``%`` are NumPy's ``npy_floor_divide``, ``npy_remainder`` and ``npy_divmod``
  (``numpy/_core/src/npymath/npy_math_internal.h.src``) step by step, in the loop's type:
  ``fmod``, then the sign fix-up of the remainder, the quotient snapped to the nearest
  integer, signed zeros, ``a / b`` for a zero divisor; so the results are NumPy's bit for bit;
- ``pow`` follows C's Annex F for the special values (``x ** 0 == 1`` even for NaN, signed
  zeros and infinities, NaN for a negative base and a non-integer exponent) and computes the
  rest as ``exp(y * log(x))`` with the logarithm and the product in double-double
  arithmetic: within about one unit in the last place of the exact value. NumPy's own
  ``power`` is its ``libm``'s or, on AVX-512 machines, Intel's SVML, whose last bit may
  differ; the tests allow two units in the last place;
- integer ``**`` by squaring in the unsigned type of the same width (wrapping as NumPy's
  loop does); negative exponents are refused on the host (NumPy's ValueError).
"""

from __future__ import annotations

import numpy as np

from pyupmem.array.codegen import c_type

__all__ = ["float_helper", "integer_power_helper", "NEGATIVE_POWER_MESSAGE"]

NEGATIVE_POWER_MESSAGE = "Integers to negative integer powers are not allowed."
"""NumPy's message for an integer ``**`` with a negative exponent."""

_BITS = """\
typedef union { double f; uint64_t i; } __pim_f64_bits;
#define __PIM_SIGN 0x8000000000000000ull
#define __PIM_FRACTION 0x000fffffffffffffull
static inline double __pim_copysign(double x, double y)
{
    __pim_f64_bits ux = {x}, uy = {y};
    ux.i = (ux.i & ~__PIM_SIGN) | (uy.i & __PIM_SIGN);
    return ux.f;
}
"""

_FLOOR = """\
static inline double __pim_floor(double x)
{
    __pim_f64_bits u = {x};
    const int e = (int)((u.i >> 52) & 0x7ff) - 1023;
    if (e >= 52)
        return x; /* integral, infinite or NaN */
    if (e < 0) { /* |x| < 1 */
        if ((u.i << 1) == 0)
            return x;
        return (u.i & __PIM_SIGN) ? -1.0 : 0.0;
    }
    const uint64_t fraction = __PIM_FRACTION >> e;
    if ((u.i & fraction) == 0)
        return x;
    if (u.i & __PIM_SIGN)
        u.i += fraction; /* towards -inf: a carry may reach the exponent, as it should */
    u.i &= ~fraction;
    return u.f;
}
"""

_FMOD = """\
/* x's significand with its implicit bit at bit 52, and its biased exponent (subnormals
 * normalised to exponents below 1) */
static inline uint64_t __pim_significand(uint64_t bits, int *exponent)
{
    int e = (int)((bits >> 52) & 0x7ff);
    uint64_t m = bits & __PIM_FRACTION;
    if (e == 0) {
        e = 1;
        while (m < (1ull << 52)) {
            m <<= 1;
            e--;
        }
    } else {
        m |= 1ull << 52;
    }
    *exponent = e;
    return m;
}

static inline double __pim_fmod(double x, double y)
{
    __pim_f64_bits ux = {x}, uy = {y};
    const uint64_t sign = ux.i & __PIM_SIGN;
    const uint64_t ax = ux.i & ~__PIM_SIGN, ay = uy.i & ~__PIM_SIGN;
    if (ay == 0 || ax >= 0x7ff0000000000000ull || ay > 0x7ff0000000000000ull)
        return (x * y) / (x * y); /* NaN: y zero, x infinite, or a NaN */
    if (ax < ay)
        return x;
    if (ax == ay)
        return __pim_copysign(0.0, x);
    int ex, ey;
    uint64_t r = __pim_significand(ax, &ex);
    const uint64_t my = __pim_significand(ay, &ey);
    for (int d = ex - ey; d > 0; d--) { /* long division, one bit at a time */
        if (r >= my)
            r -= my;
        r <<= 1;
    }
    if (r >= my)
        r -= my;
    if (r == 0)
        return __pim_copysign(0.0, x);
    while (r < (1ull << 52)) {
        r <<= 1;
        ey--;
    }
    __pim_f64_bits out;
    if (ey >= 1)
        out.i = ((uint64_t)ey << 52) | (r & __PIM_FRACTION);
    else
        out.i = r >> (1 - ey); /* subnormal: exact, the remainder is a multiple of its unit */
    out.i |= sign;
    return out.f;
}
"""

_DIVMOD = """\
/* NumPy's npy_divmod for {t}: Python's floor division and remainder */
static inline {t} __pim_divmod_{s}({t} a, {t} b, {t} *modulus)
{{
    {t} mod = ({t})__pim_fmod(a, b);
    if (!b) {{
        *modulus = mod;
        return a / b;
    }}
    {t} div = (a - mod) / b;
    if (mod) {{
        if ((b < 0) != (mod < 0)) {{
            mod += b;
            div -= 1;
        }}
    }} else {{
        mod = ({t})__pim_copysign(0.0, b);
    }}
    {t} floordiv;
    if (div) {{
        floordiv = ({t})__pim_floor(div);
        if (div - floordiv > ({t})0.5)
            floordiv += 1;
    }} else {{
        floordiv = ({t})__pim_copysign(0.0, a / b);
    }}
    *modulus = mod;
    return floordiv;
}}

static inline {t} __pim_floor_divide_{s}({t} a, {t} b)
{{
    {t} mod;
    if (!b)
        return a / b;
    return __pim_divmod_{s}(a, b, &mod);
}}

static inline {t} __pim_remainder_{s}({t} a, {t} b)
{{
    {t} mod;
    if (!b)
        return ({t})__pim_fmod(a, b);
    __pim_divmod_{s}(a, b, &mod);
    return mod;
}}
"""

_POW = """\
/* a + b = hi + lo exactly */
static inline void __pim_two_sum(double a, double b, double *hi, double *lo)
{
    const double s = a + b, bb = s - a;
    *hi = s;
    *lo = (a - (s - bb)) + (b - bb);
}

/* a * b = hi + lo exactly (Dekker's product: no fused multiply-add needed) */
static inline void __pim_two_prod(double a, double b, double *hi, double *lo)
{
    const double split = 134217729.0; /* 2^27 + 1 */
    const double p = a * b;
    double t = split * a;
    const double ah = t - (t - a), al = a - ah;
    t = split * b;
    const double bh = t - (t - b), bl = b - bh;
    *hi = p;
    *lo = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

#define __PIM_LN2_HI 6.93147180369123816490e-01 /* 32 bits: k * LN2_HI is exact */
#define __PIM_LN2_LO 1.90821492927058770002e-10

/* log(x) = hi + lo for a positive finite x, to about 2^-100 relative */
static inline void __pim_log_dd(double x, double *hi, double *lo)
{
    __pim_f64_bits u = {x};
    int k = 0;
    if (u.i < 0x0010000000000000ull) { /* subnormal */
        u.f *= 18014398509481984.0; /* 2^54 */
        k = -54;
    }
    k += (int)(u.i >> 52) - 1023;
    u.i = (u.i & __PIM_FRACTION) | 0x3ff0000000000000ull;
    if (u.f > 1.4142135623730951) {
        u.f *= 0.5;
        k++;
    }
    /* log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172 */
    const double m = u.f, f = m - 1.0; /* exact */
    double d_hi, d_lo, p_hi, p_lo;
    __pim_two_sum(m, 1.0, &d_hi, &d_lo);
    const double s = f / d_hi;
    __pim_two_prod(s, d_hi, &p_hi, &p_lo);
    const double s_lo = (((f - p_hi) - p_lo) - s * d_lo) / d_hi;
    /* 2 s^3 / 3 in double-double (it reaches 1% of log(m)), the rest in double */
    double z, z_lo, c, c_lo, t, t_lo;
    __pim_two_prod(s, s, &z, &z_lo);
    __pim_two_prod(z, s, &c, &c_lo);
    c_lo += z_lo * s;
    __pim_two_prod(c, 0.6666666666666666, &t, &t_lo);
    t_lo += c_lo * 0.6666666666666666 + c * 3.700743415417188e-17;
    double rest = 2.0 / 27;
    for (int j = 25; j >= 5; j -= 2)
        rest = rest * z + 2.0 / j;
    rest = rest * z * c;
    double h, l;
    __pim_two_sum(2.0 * s, t, &h, &l);
    l += t_lo + rest + 2.0 * s_lo / (1.0 - z); /* d log(m) / ds = 2 / (1 - s^2) */
    double k_hi, k_lo;
    __pim_two_sum(k * __PIM_LN2_HI, h, &k_hi, &k_lo);
    __pim_two_sum(k_hi, k_lo + (l + k * __PIM_LN2_LO), hi, lo);
}

/* exp(hi + lo) for |hi| < 746, |lo| below hi's last place */
static inline double __pim_exp_dd(double hi, double lo)
{
    const double t = hi * 1.4426950408889634;
    const int n = (int)(t + (t >= 0 ? 0.5 : -0.5));
    double r, r_lo;
    __pim_two_sum(hi - n * __PIM_LN2_HI, lo - n * __PIM_LN2_LO, &r, &r_lo);
    double q = 1.0; /* exp(r) - 1 - r = r^2 / 2 (1 + r / 3 (1 + r / 4 (1 + ...))) */
    for (int j = 18; j >= 3; j--)
        q = q * r / j + 1.0;
    q = q * r / 2;
    double a_hi, a_lo;
    __pim_two_sum(1.0, r, &a_hi, &a_lo);
    double e = a_hi + (a_lo + r * q + r_lo * a_hi);
    __pim_f64_bits scale;
    if (n > 1000) {
        e *= 0x1p1000;
        scale.i = (uint64_t)(n - 1000 + 1023) << 52;
    } else if (n < -1000) {
        e *= 0x1p-1000;
        scale.i = (uint64_t)(n + 1000 + 1023) << 52;
    } else {
        scale.i = (uint64_t)(n + 1023) << 52;
    }
    return e * scale.f;
}

static inline int __pim_is_integer(double y)
{
    return __pim_floor(y) == y;
}

static inline double __pim_pow(double x, double y)
{
    __pim_f64_bits ux = {x}, uy = {y};
    const uint64_t ax = ux.i & ~__PIM_SIGN, ay = uy.i & ~__PIM_SIGN;
    const double inf = __builtin_inf();
    if (ay == 0 || x == 1.0)
        return 1.0;
    if (ax > 0x7ff0000000000000ull || ay > 0x7ff0000000000000ull)
        return x + y; /* NaN */
    if (ay == 0x7ff0000000000000ull) { /* y infinite */
        if (ax == 0x3ff0000000000000ull)
            return 1.0; /* (-1) ** inf */
        return ((ax < 0x3ff0000000000000ull) == (y > 0)) ? 0.0 : inf;
    }
    const int integer = __pim_is_integer(y);
    const int odd = integer && ay < 0x4340000000000000ull /* 2^53 */
                    && !__pim_is_integer(y * 0.5);
    const int negative = (ux.i & __PIM_SIGN) != 0 && odd;
    if (ax == 0 || ax == 0x7ff0000000000000ull) { /* x zero or infinite */
        const int big = (ax == 0) == (y < 0);
        return negative ? (big ? -inf : -0.0) : (big ? inf : 0.0);
    }
    if ((ux.i & __PIM_SIGN) && !integer)
        return __builtin_nan("");
    if (ax == 0x3ff0000000000000ull) /* (-1) ** an integer; y's size would overflow below */
        return negative ? -1.0 : 1.0;
    __pim_f64_bits m = {x};
    m.i = ax;
    double l_hi, l_lo, z_hi, z_lo, result;
    __pim_log_dd(m.f, &l_hi, &l_lo);
    const double guess = y * l_hi;
    if (guess > 710.0)
        result = inf;
    else if (guess < -746.0)
        result = 0.0;
    else {
        __pim_two_prod(y, l_hi, &z_hi, &z_lo);
        __pim_two_sum(z_hi, z_lo + y * l_lo, &z_hi, &z_lo);
        result = __pim_exp_dd(z_hi, z_lo);
    }
    return negative ? -result : result;
}
"""


def _suffix(dtype: np.dtype) -> str:
    return "f32" if dtype.itemsize == 4 else "f64"


def float_helper(ufunc: str, dtype: np.dtype) -> tuple[str, str]:
    """The C function (name) for float ``floor_divide``, ``remainder`` or ``power`` of
    ``dtype`` (float32 or float64) and the C code defining it and what it calls."""
    t, s = c_type(dtype), _suffix(dtype)
    if ufunc == "power":
        name = f"__pim_power_{s}"
        code = _BITS + _FLOOR + _POW + (
            f"static inline {t} {name}({t} a, {t} b) {{ return ({t})__pim_pow(a, b); }}\n"
        )
        return name, code
    return f"__pim_{ufunc}_{s}", _BITS + _FLOOR + _FMOD + _DIVMOD.format(t=t, s=s)


def integer_power_helper(dtype: np.dtype) -> tuple[str, str]:
    """The C function (name) for integer ``power`` of ``dtype`` (exponent not negative:
    the host checks) by squaring, wrapping as NumPy does; and its code."""
    t = c_type(dtype)
    w = "uint64_t" if dtype.itemsize == 8 else "uint32_t"
    name = f"__pim_power_{t}"
    code = (
        f"static inline {t} {name}({t} a, {t} b)\n{{\n"
        f"    {w} base = ({w})a, out = 1;\n"
        f"    {w} e = ({w})b;\n"
        "    while (e != 0) {\n"
        "        if (e & 1)\n"
        f"            out = ({w})(out * base);\n"
        f"        base = ({w})(base * base);\n"
        "        e >>= 1;\n"
        "    }\n"
        f"    return ({t})out;\n}}\n"
    )
    return name, code
