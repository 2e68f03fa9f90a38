//! The tape, and the functions the compiled code calls: libm, and Python's integer and
//! float operators where they differ from the machine's.

/// The tape as the compiled code sees it: an array of 64-bit words (the code reads the
/// first four fields at fixed offsets), and the arrays made during the run.
///
/// The code never grows it, so no push is a call (a call in a loop would make every
/// number the loop keeps live across it wait in memory): a push past the capacity sets
/// `full` and bails, and the caller runs the code again on a tape twice as large
/// (`Compiled::run`). The tape is kept between runs, so that happens on the first calls
/// only.
#[repr(C)]
pub struct Tape {
    pub data: *mut u64,
    pub len: usize,
    pub cap: usize,
    /// Set (nonzero) by a push that found the tape full.
    pub full: u64,
    pub arena: super::arrays::Arena,
}

impl Tape {
    pub fn new() -> Tape {
        let mut v: Vec<u64> = Vec::with_capacity(4096);
        let t = Tape {
            data: v.as_mut_ptr(),
            len: 0,
            cap: v.capacity(),
            full: 0,
            arena: super::arrays::Arena::default(),
        };
        std::mem::forget(v);
        t
    }
}

impl Tape {
    /// The most words a tape grows to (2 GB); a run that needs more bails, and the
    /// interpreter runs the function.
    const MAX_WORDS: usize = 1 << 28;

    /// Doubles the capacity (the words are not kept: a run starts again), or false at
    /// the limit.
    pub fn grow(&mut self) -> bool {
        if self.cap >= Self::MAX_WORDS {
            return false;
        }
        // SAFETY: as in `Drop`.
        let mut v = unsafe { Vec::from_raw_parts(self.data, 0, self.cap) };
        v.reserve(2 * self.cap);
        self.data = v.as_mut_ptr();
        self.cap = v.capacity();
        self.len = 0;
        std::mem::forget(v);
        true
    }
}

impl Default for Tape {
    fn default() -> Self {
        Tape::new()
    }
}

impl Drop for Tape {
    fn drop(&mut self) {
        // SAFETY: data/len/cap always describe a Vec<u64> leaked by `new` or `grow`.
        unsafe { drop(Vec::from_raw_parts(self.data, self.len, self.cap)) };
    }
}

/// Python's float `//` (the caller has excluded a zero divisor).
pub extern "C" fn py_floordiv(a: f64, b: f64) -> f64 {
    tangent_pyfloat::floordiv(a, b).unwrap_or(f64::NAN)
}

/// Python's float `%` (the caller has excluded a zero divisor).
pub extern "C" fn py_fmod(a: f64, b: f64) -> f64 {
    tangent_pyfloat::rem(a, b).unwrap_or(f64::NAN)
}

/// NumPy's float32 `//` of two values exact in float32 (`precision.rs`).
pub extern "C" fn floordiv32(a: f64, b: f64) -> f64 {
    tangent_pyfloat::numpy_floordiv_f32(a as f32, b as f32) as f64
}

/// NumPy's float32 `%` of two values exact in float32.
pub extern "C" fn mod32(a: f64, b: f64) -> f64 {
    tangent_pyfloat::numpy_mod_f32(a as f32, b as f32) as f64
}

/// NumPy's float32 `**` (the C library's `powf`, as NumPy's scalar power) of two values
/// exact in float32.
pub extern "C" fn pow32(a: f64, b: f64) -> f64 {
    (a as f32).powf(b as f32) as f64
}

/// Python's float `**`; nan where Python raises (zero to a negative power, overflow) or
/// gives a complex (negative base, non-integer exponent). Those happen only for finite
/// operands, where CPython's real results are finite, so the caller's "non-finite result
/// from finite operands" check bails exactly for them.
pub extern "C" fn py_pow(a: f64, b: f64) -> f64 {
    match tangent_pyfloat::pow(a, b) {
        Ok(tangent_pyfloat::Power::Real(v)) => v,
        _ => f64::NAN,
    }
}

/// Python's int `//`; i64::MIN where Python would raise or leave i64.
pub extern "C" fn py_ifloordiv(a: i64, b: i64) -> i64 {
    if b == 0 || (a == i64::MIN && b == -1) {
        return i64::MIN;
    }
    a.div_euclid(b) - i64::from(b < 0 && a.rem_euclid(b) != 0)
}

/// Python's int `%` (the sign of the divisor); i64::MIN where Python would raise.
pub extern "C" fn py_imod(a: i64, b: i64) -> i64 {
    if b == 0 || (a == i64::MIN && b == -1) {
        return i64::MIN;
    }
    let r = a % b;
    if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    }
}

/// Python's int `**` for a non-negative exponent; i64::MIN for a negative exponent
/// (Python gives a float) or an overflow (Python gives a big int).
pub extern "C" fn py_ipow(a: i64, b: i64) -> i64 {
    if b < 0 {
        return i64::MIN;
    }
    u32::try_from(b)
        .ok()
        .and_then(|e| a.checked_pow(e))
        .unwrap_or(i64::MIN)
}

/// `len(range(start, stop, step))`, step != 0.
pub extern "C" fn range_len(start: i64, stop: i64, step: i64) -> i64 {
    let (lo, hi, s) = if step > 0 {
        (i128::from(start), i128::from(stop), i128::from(step))
    } else {
        (i128::from(stop), i128::from(start), -i128::from(step))
    };
    if hi <= lo {
        0
    } else {
        ((hi - lo + s - 1) / s) as i64
    }
}

macro_rules! math_fns {
    ($($py:literal => $name:ident = $f:expr;)*) => {
        $(extern "C" fn $name(x: f64) -> f64 { let f: fn(f64) -> f64 = $f; f(x) })*
        /// The address of `math.<name>` of one argument.
        pub fn math1(name: &str) -> Option<usize> {
            match name {
                $($py => Some($name as *const () as usize),)*
                _ => None,
            }
        }
    };
}

math_fns! {
    "sin" => m_sin = f64::sin;
    "cos" => m_cos = f64::cos;
    "tan" => m_tan = f64::tan;
    "asin" => m_asin = f64::asin;
    "acos" => m_acos = f64::acos;
    "atan" => m_atan = f64::atan;
    "sinh" => m_sinh = f64::sinh;
    "cosh" => m_cosh = f64::cosh;
    "tanh" => m_tanh = f64::tanh;
    "asinh" => m_asinh = f64::asinh;
    "acosh" => m_acosh = f64::acosh;
    "atanh" => m_atanh = f64::atanh;
    "exp" => m_exp = f64::exp;
    "expm1" => m_expm1 = f64::exp_m1;
    "log" => m_log = f64::ln;
    "log1p" => m_log1p = f64::ln_1p;
    "log2" => m_log2 = f64::log2;
    "log10" => m_log10 = f64::log10;
    "sqrt" => m_sqrt = f64::sqrt;
    "fabs" => m_fabs = f64::abs;
    // NumPy's names of the same functions (numpy.arcsin, ...).
    "arcsin" => m_arcsin = f64::asin;
    "arccos" => m_arccos = f64::acos;
    "arctan" => m_arctan = f64::atan;
    "arcsinh" => m_arcsinh = f64::asinh;
    "arccosh" => m_arccosh = f64::acosh;
    "arctanh" => m_arctanh = f64::atanh;
}

/// `numpy.sign` of a float (`tangent_fastmath::sign`).
pub extern "C" fn numpy_sign(x: f64) -> f64 {
    tangent_fastmath::sign(x)
}

/// NumPy's float32 functions of one float32 value (held as a double), by name: those
/// whose float32 result is the true value rounded, and copies of NumPy's own kernels
/// (`tangent_fastmath::numpy_f32`).
fn single1(name: &str) -> Option<usize> {
    use tangent_fastmath::numpy_f32;
    extern "C" fn sqrt32(x: f64) -> f64 {
        (x as f32).sqrt() as f64
    }
    extern "C" fn fabs32(x: f64) -> f64 {
        x.abs()
    }
    extern "C" fn tanh32(x: f64) -> f64 {
        numpy_f32::tanh(x as f32) as f64
    }
    extern "C" fn exp32(x: f64) -> f64 {
        numpy_f32::exp(x as f32) as f64
    }
    extern "C" fn log32(x: f64) -> f64 {
        numpy_f32::log(x as f32) as f64
    }
    extern "C" fn sin32(x: f64) -> f64 {
        numpy_f32::sin(x as f32) as f64
    }
    extern "C" fn cos32(x: f64) -> f64 {
        numpy_f32::cos(x as f32) as f64
    }
    let f: extern "C" fn(f64) -> f64 = match name {
        "sqrt" => sqrt32,
        "fabs" => fabs32,
        "tanh" => tanh32,
        "exp" => exp32,
        "log" => log32,
        "sin" => sin32,
        "cos" => cos32,
        _ => return None,
    };
    Some(f as usize)
}

/// The address of the float32 kernel of `name` computing as `how` says, when native code
/// may use it: a correctly rounded one always, a copy of NumPy's own where the host's
/// NumPy computes the same (`precision::numpy_kernels_agree`).
pub fn kernel32(name: &str, how: crate::rules::Float32Kernel) -> Option<usize> {
    use crate::rules::Float32Kernel;
    match how {
        Float32Kernel::CorrectlyRounded => single1(name),
        Float32Kernel::NumPys if super::precision::numpy_kernel_agrees(name) => single1(name),
        Float32Kernel::NumPys => None,
        // The double kernel, its result rounded by the caller.
        Float32Kernel::HostRoundsDouble if super::precision::numpy_rounds_double() => math1(name),
        Float32Kernel::HostRoundsDouble => None,
    }
}

extern "C" fn m_pow(a: f64, b: f64) -> f64 {
    a.powf(b)
}
extern "C" fn m_atan2(a: f64, b: f64) -> f64 {
    a.atan2(b)
}
extern "C" fn m_hypot(a: f64, b: f64) -> f64 {
    a.hypot(b)
}
extern "C" fn m_copysign(a: f64, b: f64) -> f64 {
    a.copysign(b)
}

/// The address of the float kernel `name` of `arity` arguments (`native_scalar(...)`
/// declarations in `backends/` name them by their function's short name).
pub fn kernel(name: &str, arity: usize) -> Option<usize> {
    match arity {
        1 => math1(name),
        2 => math2(name),
        _ => None,
    }
}

/// The address of `math.<name>` of two arguments.
pub fn math2(name: &str) -> Option<usize> {
    Some(match name {
        "pow" => m_pow as *const () as usize,
        "atan2" => m_atan2 as *const () as usize,
        "hypot" => m_hypot as *const () as usize,
        "copysign" => m_copysign as *const () as usize,
        "arctan2" => m_atan2 as *const () as usize,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_operators_follow_python() {
        // Python: 7 // -2 == -4, -7 // 2 == -4, 7 % -2 == -1, -7 % 2 == 1.
        assert_eq!(py_ifloordiv(7, -2), -4);
        assert_eq!(py_ifloordiv(-7, 2), -4);
        assert_eq!(py_ifloordiv(7, 2), 3);
        assert_eq!(py_imod(7, -2), -1);
        assert_eq!(py_imod(-7, 2), 1);
        assert_eq!(py_ifloordiv(1, 0), i64::MIN);
        assert_eq!(py_ipow(3, 4), 81);
        assert_eq!(py_ipow(2, -1), i64::MIN);
        assert_eq!(py_ipow(10, 30), i64::MIN);
        assert_eq!(range_len(0, 10, 3), 4);
        assert_eq!(range_len(10, 0, -3), 4);
        assert_eq!(range_len(5, 5, 1), 0);
    }

    /// The native float operators are the interpreter's (`host::float_ops`), and `**`
    /// marks exactly what CPython raises or makes complex: only for finite operands, so
    /// the compiled code's "non-finite result from finite operands" check bails for it.
    #[test]
    fn float_operators_are_the_interpreters() {
        use tangent_pyfloat::{self as float_ops, Power};
        let values = [
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            0.1,
            -0.5,
            1.0,
            -1.0,
            2.5,
            -2.5,
            3.0,
            -8.0,
            1.0 / 3.0,
            1e308,
            -1e308,
            5e-324,
        ];
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        for &a in &values {
            for &b in &values {
                if b != 0.0 {
                    assert!(same(py_floordiv(a, b), float_ops::floordiv(a, b).unwrap()));
                    assert!(same(py_fmod(a, b), float_ops::rem(a, b).unwrap()));
                }
                let p = py_pow(a, b);
                match float_ops::pow(a, b) {
                    Ok(Power::Real(v)) => {
                        assert!(same(p, v), "{a} ** {b}");
                        if a.is_finite() && b.is_finite() {
                            assert!(v.is_finite(), "{a} ** {b}");
                        }
                    }
                    _ => {
                        assert!(p.is_nan() && a.is_finite() && b.is_finite(), "{a} ** {b}")
                    }
                }
            }
        }
        // CPython: 2.5 // 0.1 == 24.0, -2.5 // inf == -1.0, (-0.0) ** (-0.0) == 1.0.
        assert_eq!(py_floordiv(2.5, 0.1), 24.0);
        assert_eq!(py_floordiv(-2.5, f64::INFINITY), -1.0);
        assert_eq!(py_pow(-0.0, -0.0), 1.0);
        assert_eq!(py_fmod(-1.0, 0.5), 0.0);
    }
}
