//! Python's float operators as CPython computes them (Objects/floatobject.c and
//! complexobject.c of CPython 3.11–3.13): `%`, `//`, `divmod`, `**` and `round`.
//!
//! Plain functions over `f64`, shared by the embedded interpreter (its `float` type gets
//! these as number slots at start-up, `host::rustpython::float_slots`) and the native
//! code (`jit::runtime`), so interpreted code, native code and CPython agree to the bit.
//! RustPython 0.5's own versions differ: `-1.0 % 0.5` gave 0.5, `2.5 // 0.1` 25.0 (the
//! floor of the rounded quotient instead of CPython's corrected floor), `-2.5 // inf`
//! -0.0, `(-0.0) ** (-0.0)` raised, `round(0.5000000000000001)` gave 0.

/// An exception CPython raises, with its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatError {
    ZeroDivision(&'static str),
    Overflow(&'static str),
}

/// What `float ** float` gives: a float, or (negative base, non-integer exponent) the
/// complex number CPython's `complex.__pow__` computes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Power {
    Real(f64),
    Complex(f64, f64),
}

/// CPython's `_float_div_mod`: `(a // b, a % b)` for `b != 0`. The remainder is `fmod`
/// (exact) moved to the divisor's sign; the quotient is computed from the exact multiple
/// `a - fmod(a, b)` and snapped to the nearest integer, so it is never off by one the way
/// `floor(a / b)` is when `a / b` rounds up to an integer (`2.5 // 0.1` is 24.0).
fn div_mod(vx: f64, wx: f64) -> (f64, f64) {
    let mut m = vx % wx;
    // fmod is exact, so vx - m is mathematically a multiple of wx; the division may
    // still leave div a little off an integer, which the snapping below corrects.
    let mut div = (vx - m) / wx;
    if m != 0.0 {
        if (wx < 0.0) != (m < 0.0) {
            m += wx;
            div -= 1.0;
        }
    } else {
        // A zero remainder takes the divisor's sign.
        m = 0.0f64.copysign(wx);
    }
    let floordiv = if div != 0.0 {
        let mut f = div.floor();
        if div - f > 0.5 {
            f += 1.0;
        }
        f
    } else {
        // The sign of the true quotient.
        0.0f64.copysign(vx / wx)
    };
    (floordiv, m)
}

/// `a % b` (`float_rem`).
pub fn rem(a: f64, b: f64) -> Result<f64, FloatError> {
    if b == 0.0 {
        return Err(FloatError::ZeroDivision("float modulo"));
    }
    let m = a % b;
    Ok(if m != 0.0 {
        if (b < 0.0) != (m < 0.0) {
            m + b
        } else {
            m
        }
    } else {
        0.0f64.copysign(b)
    })
}

/// `a // b` (`float_floor_div`).
pub fn floordiv(a: f64, b: f64) -> Result<f64, FloatError> {
    if b == 0.0 {
        return Err(FloatError::ZeroDivision("float floor division by zero"));
    }
    Ok(div_mod(a, b).0)
}

/// `divmod(a, b)` (`float_divmod`).
pub fn divmod(a: f64, b: f64) -> Result<(f64, f64), FloatError> {
    if b == 0.0 {
        return Err(FloatError::ZeroDivision("float divmod()"));
    }
    Ok(div_mod(a, b))
}

/// `DOUBLE_IS_ODD_INTEGER`.
fn is_odd_integer(x: f64) -> bool {
    x.abs() % 2.0 == 1.0
}

/// The message of the OverflowError CPython raises from `errno == ERANGE`.
const ERANGE_MESSAGE: &str = "(34, 'Numerical result out of range')";

/// `a ** b` and `pow(a, b)` (`float_pow`): the IEEE special cases sorted out before the
/// C library's `pow` is asked, `0.0 ** negative` a ZeroDivisionError, an overflowing
/// result an OverflowError, a negative base with a non-integer exponent a complex.
pub fn pow(iv: f64, iw: f64) -> Result<Power, FloatError> {
    use Power::Real;
    if iw == 0.0 {
        // v**0 is 1, even 0**0 and nan**0.
        return Ok(Real(1.0));
    }
    if iv.is_nan() {
        return Ok(Real(iv));
    }
    if iw.is_nan() {
        // 1**nan is 1.
        return Ok(Real(if iv == 1.0 { 1.0 } else { iw }));
    }
    if iw.is_infinite() {
        let av = iv.abs();
        return Ok(Real(if av == 1.0 {
            1.0
        } else if (iw > 0.0) == (av > 1.0) {
            iw.abs()
        } else {
            0.0
        }));
    }
    if iv.is_infinite() {
        let odd = is_odd_integer(iw);
        return Ok(Real(if iw > 0.0 {
            if odd {
                iv
            } else {
                iv.abs()
            }
        } else if odd {
            0.0f64.copysign(iv)
        } else {
            0.0
        }));
    }
    if iv == 0.0 {
        if iw < 0.0 {
            return Err(FloatError::ZeroDivision(
                "0.0 cannot be raised to a negative power",
            ));
        }
        return Ok(Real(if is_odd_integer(iw) { iv } else { 0.0 }));
    }
    let mut base = iv;
    let mut negate = false;
    if iv < 0.0 {
        if iw != iw.floor() {
            return complex_pow_of_negative(iv, iw);
        }
        // An integer exponent: pow of the absolute value, negated for an odd exponent.
        base = -iv;
        negate = is_odd_integer(iw);
    }
    if base == 1.0 {
        // Also (-1) ** huge even/odd integers, where some libms return nan.
        return Ok(Real(if negate { -1.0 } else { 1.0 }));
    }
    // Finite, positive base other than 1 and a finite non-zero exponent: the C library.
    // Its result is infinite exactly when it overflowed (ERANGE); underflow is not an
    // error.
    let ix = base.powf(iw);
    if ix.is_infinite() {
        return Err(FloatError::Overflow(ERANGE_MESSAGE));
    }
    Ok(Real(if negate { -ix } else { ix }))
}

/// `complex(a) ** complex(b)` for a finite negative `a` and a finite non-integer `b`, as
/// `_Py_c_pow` computes it (polar form), with `complex_pow`'s overflow check.
fn complex_pow_of_negative(a: f64, b: f64) -> Result<Power, FloatError> {
    let vabs = a.abs(); // hypot(a, 0.0)
    let len = vabs.powf(b);
    let phase = 0.0f64.atan2(a) * b;
    let (re, im) = (len * phase.cos(), len * phase.sin());
    if re.is_infinite() || im.is_infinite() {
        return Err(FloatError::Overflow("complex exponentiation"));
    }
    Ok(Power::Complex(re, im))
}

/// `round(x)` before the conversion to int: to the nearest integer, halves to even.
pub fn round_half_even(x: f64) -> f64 {
    let rounded = x.round();
    if (x - rounded).abs() == 0.5 {
        2.0 * (x / 2.0).round()
    } else {
        rounded
    }
}

/// `round(x, ndigits)` (`float___round___impl`): correctly rounded to `ndigits` decimal
/// places (negative: to a multiple of `10**-ndigits`), ties to even, as CPython's
/// `double_round` does with `_Py_dg_dtoa` mode 3 and `_Py_dg_strtod`.
pub fn round_digits(x: f64, ndigits: i64) -> Result<f64, FloatError> {
    // (DBL_MANT_DIG - DBL_MIN_EXP) * 0.30103 and (DBL_MAX_EXP + 1) * 0.30103, truncated.
    const NDIGITS_MAX: i64 = 323;
    const NDIGITS_MIN: i64 = -308;
    if !x.is_finite() || ndigits > NDIGITS_MAX {
        return Ok(x);
    }
    if ndigits < NDIGITS_MIN {
        return Ok(0.0 * x);
    }
    // The exact decimal expansion of |x|: every double is an integer times 2**-1074,
    // so 1074 places hold all its digits (Rust prints them exactly).
    let exact = format!("{:.1074}", x.abs());
    let (int_part, frac_part) = exact.split_once('.').expect("fixed-point format");
    let digits: Vec<u8> = int_part.bytes().chain(frac_part.bytes()).collect();
    // Keep the digits down to the 10**-ndigits place: `keep` of them (may be <= 0).
    let keep = int_part.len() as i64 + ndigits;
    let (mut kept, rest): (Vec<u8>, &[u8]) = if keep <= 0 {
        (Vec::new(), if keep == 0 { &digits[..] } else { &[] })
    } else {
        let k = keep as usize;
        (digits[..k].to_vec(), &digits[k..])
    };
    let round_up = match rest.first() {
        Some(b'6'..=b'9') => true,
        Some(b'5') => {
            rest[1..].iter().any(|&d| d != b'0')
                || kept.last().is_some_and(|&d| (d - b'0') % 2 == 1)
        }
        _ => false,
    };
    if round_up {
        let mut i = kept.len();
        loop {
            if i == 0 {
                kept.insert(0, b'1');
                break;
            }
            i -= 1;
            if kept[i] == b'9' {
                kept[i] = b'0';
            } else {
                kept[i] += 1;
                break;
            }
        }
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let mantissa = if kept.is_empty() {
        "0".to_string()
    } else {
        String::from_utf8(kept).expect("decimal digits")
    };
    let rounded: f64 = format!("{sign}{mantissa}e{}", -ndigits)
        .parse()
        .expect("a decimal number");
    if rounded.is_infinite() {
        return Err(FloatError::Overflow("rounded value too large to represent"));
    }
    Ok(rounded)
}

/// NumPy's float32 floor division (`npy_divmodf`: in single precision, the quotient
/// corrected to the floor of the exact one); a zero divisor gives `a / b` (NumPy's inf or
/// nan, where Python raises).
pub fn numpy_floordiv_f32(a: f32, b: f32) -> f32 {
    if b == 0.0 {
        return a / b;
    }
    let m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        div -= 1.0;
    }
    if div == 0.0 {
        return 0.0f32.copysign(a / b);
    }
    let f = div.floor();
    if div - f > 0.5 {
        f + 1.0
    } else {
        f
    }
}

/// NumPy's float32 remainder: the sign of the divisor; nan for a zero divisor.
pub fn numpy_mod_f32(a: f32, b: f32) -> f32 {
    if b == 0.0 {
        return f32::NAN;
    }
    let m = a % b;
    if m == 0.0 {
        0.0f32.copysign(b)
    } else if (b < 0.0) != (m < 0.0) {
        m + b
    } else {
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn real(r: Result<Power, FloatError>) -> f64 {
        match r {
            Ok(Power::Real(v)) => v,
            other => panic!("not a real power: {other:?}"),
        }
    }

    fn same(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || (a == b && a.is_sign_negative() == b.is_sign_negative())
    }

    #[test]
    fn float_remainder_and_floor_division_follow_cpython() {
        // Values printed by CPython 3.11.
        let inf = f64::INFINITY;
        let cases: &[(f64, f64, f64, f64)] = &[
            // a, b, a // b, a % b
            (-1.0, 0.5, -2.0, 0.0),
            (2.5, 0.1, 24.0, 0.09999999999999987),
            (1.0, 0.1, 9.0, 0.09999999999999995),
            (-2.5, inf, -1.0, inf),
            (2.5, -inf, -1.0, -inf),
            (2.5, inf, 0.0, 2.5),
            (-0.0, 1.0, -0.0, 0.0),
            (0.0, -1.0, -0.0, -0.0),
            (7.0, -3.0, -3.0, -2.0),
            (-7.0, 3.0, -3.0, 2.0),
            (1e308, 1e-308, inf, 3.498445546245627e-309),
            (5e-324, -1.0, -1.0, -1.0),
        ];
        for &(a, b, q, m) in cases {
            assert!(same(floordiv(a, b).unwrap(), q), "{a} // {b}");
            assert!(same(rem(a, b).unwrap(), m), "{a} % {b}");
            let (dq, dm) = divmod(a, b).unwrap();
            assert!(same(dq, q) && same(dm, m), "divmod({a}, {b})");
        }
        assert!(floordiv(inf, 2.0).unwrap().is_nan());
        assert!(rem(f64::NAN, 2.0).unwrap().is_nan());
        for b in [0.0, -0.0] {
            assert!(matches!(rem(1.0, b), Err(FloatError::ZeroDivision(_))));
            assert!(matches!(floordiv(1.0, b), Err(FloatError::ZeroDivision(_))));
            assert!(matches!(divmod(1.0, b), Err(FloatError::ZeroDivision(_))));
        }
    }

    #[test]
    fn float_power_follows_cpython() {
        let inf = f64::INFINITY;
        assert!(same(real(pow(-0.0, -0.0)), 1.0));
        assert!(same(real(pow(f64::NAN, 0.0)), 1.0));
        assert!(same(real(pow(1.0, f64::NAN)), 1.0));
        assert!(real(pow(2.0, f64::NAN)).is_nan());
        assert!(same(real(pow(-1.0, inf)), 1.0));
        assert!(same(real(pow(0.5, -inf)), inf));
        assert!(same(real(pow(0.0, -inf)), inf));
        assert!(same(real(pow(-inf, 3.0)), -inf));
        assert!(same(real(pow(-inf, -3.0)), -0.0));
        assert!(same(real(pow(-inf, 0.5)), inf));
        assert!(same(real(pow(-0.0, 3.0)), -0.0));
        assert!(same(real(pow(-0.0, 0.5)), 0.0));
        assert!(same(real(pow(-2.0, 3.0)), -8.0));
        assert!(same(real(pow(-1.0, 1e300)), 1.0));
        assert!(same(real(pow(0.5, 1070.3)), 6.4e-323));
        assert_eq!(
            pow(-0.0, -1.0),
            Err(FloatError::ZeroDivision(
                "0.0 cannot be raised to a negative power"
            ))
        );
        assert!(matches!(pow(1e300, 2.0), Err(FloatError::Overflow(_))));
        assert!(matches!(pow(-1e300, 1.5), Err(FloatError::Overflow(_))));
        assert_eq!(
            pow(-8.0, 1.0 / 3.0),
            Ok(Power::Complex(1.0000000000000002, 1.7320508075688772))
        );
        assert_eq!(
            pow(-8.0, 0.1),
            Ok(Power::Complex(1.1708879168120567, 0.3804445462533539))
        );
    }

    #[test]
    fn float_round_follows_cpython() {
        assert_eq!(round_half_even(0.5000000000000001), 1.0);
        assert_eq!(round_half_even(2.5), 2.0);
        assert_eq!(round_half_even(-3.5), -4.0);
        assert!(same(round_half_even(-0.4), -0.0));
        let cases: &[(f64, i64, f64)] = &[
            (2.675, 2, 2.67),
            (0.125, 2, 0.12),
            (0.375, 2, 0.38),
            (1.005, 2, 1.0),
            (1250.0, -2, 1200.0),
            (1350.0, -2, 1400.0),
            (-150.0, -2, -200.0),
            (0.6, 0, 1.0),
            (0.5, 0, 0.0),
            (-0.001, 2, -0.0),
            (5e-324, 323, 0.0),
            (123456.789, -3, 123000.0),
            (1e22, -22, 1e22),
            (4503599627370496.5, 0, 4503599627370496.0),
            (1.0, -1, 0.0),
            (5.0, -1, 0.0),
            (15.0, -1, 20.0),
        ];
        for &(x, n, want) in cases {
            assert!(same(round_digits(x, n).unwrap(), want), "round({x}, {n})");
        }
        assert!(matches!(
            round_digits(1.7976931348623157e308, -308),
            Err(FloatError::Overflow(_))
        ));
        assert!(same(round_digits(-2.5, -400).unwrap(), -0.0));
        assert!(same(round_digits(0.1, 400).unwrap(), 0.1));
    }
}
