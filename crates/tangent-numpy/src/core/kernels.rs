//! Scalar kernels with NumPy's semantics (floor division, modulo, powers, extrema,
//! logaddexp, heaviside, sinc).

use super::*;

/// Python/NumPy floor division for floats (NumPy's `npy_divmod` is CPython's
/// `_float_div_mod`).
#[inline]
pub fn floordiv(a: f64, b: f64) -> f64 {
    match tangent_pyfloat::floordiv(a, b) {
        Ok(q) => q,
        Err(_) => a / b, // zero divisor: inf/nan like NumPy (with a warning there)
    }
}

/// NumPy's int64 floor division: rounds toward negative infinity; 0 for a zero
/// divisor and INT64_MIN for INT64_MIN // -1 (NumPy's results, with a warning there).
#[inline]
pub fn floordiv_i64(a: i64, b: i64) -> i64 {
    if b == 0 {
        return 0;
    }
    if b == -1 {
        return a.wrapping_neg();
    }
    let q = a / b;
    if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// NumPy's int64 remainder: the sign of the divisor; 0 for a zero divisor.
#[inline]
pub fn mod_i64(a: i64, b: i64) -> i64 {
    if b == 0 {
        return 0;
    }
    let r = a.wrapping_rem(b);
    if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    }
}

/// NumPy's int64 power for a non-negative exponent (callers refuse negative ones),
/// wrapping around on overflow.
#[inline]
pub fn pow_i64(a: i64, b: i64) -> i64 {
    let (mut base, mut e, mut acc) = (a, b as u64, 1i64);
    while e > 0 {
        if e & 1 == 1 {
            acc = acc.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        e >>= 1;
    }
    acc
}

/// Python/NumPy modulo (result has the sign of the divisor).
#[inline]
pub fn fmod_py(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        return f64::NAN;
    }
    let m = a % b;
    if m != 0.0 {
        if (b < 0.0) != (m < 0.0) {
            m + b
        } else {
            m
        }
    } else {
        0.0f64.copysign(b)
    }
}

#[inline]
pub fn np_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a >= b {
        a
    } else {
        b
    }
}

#[inline]
pub fn np_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a <= b {
        a
    } else {
        b
    }
}

/// Integer power for int64 arrays (NumPy raises for negative exponents).
pub fn int_pow(a: f64, b: f64) -> NpResult<f64> {
    if b < 0.0 {
        return value_err("Integers to negative integer powers are not allowed.");
    }
    Ok(a.powf(b))
}

/// `log(exp(a) + exp(b))` without overflow.
#[inline]
pub fn logaddexp(a: f64, b: f64) -> f64 {
    if a == b {
        return a + std::f64::consts::LN_2;
    }
    let m = a.max(b);
    if m.is_nan() {
        return f64::NAN;
    }
    m + (-(a - b).abs()).exp().ln_1p()
}

/// `log2(2**a + 2**b)` without overflow.
#[inline]
pub fn logaddexp2(a: f64, b: f64) -> f64 {
    if a == b {
        return a + 1.0;
    }
    let m = a.max(b);
    if m.is_nan() {
        return f64::NAN;
    }
    m + (-(a - b).abs()).exp2().ln_1p() / std::f64::consts::LN_2
}

/// NumPy's heaviside(x, h0).
#[inline]
pub fn heaviside(x: f64, h0: f64) -> f64 {
    if x.is_nan() {
        f64::NAN
    } else if x < 0.0 {
        0.0
    } else if x > 0.0 {
        1.0
    } else {
        h0
    }
}

/// Normalized sinc: sin(pi x) / (pi x).
#[inline]
pub fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        let y = std::f64::consts::PI * x;
        y.sin() / y
    }
}
