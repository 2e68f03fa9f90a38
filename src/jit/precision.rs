//! NumPy's scalar types in code with float32 values (`typing::tracks_precision`).
//!
//! NumPy 2 promotes by type (NEP 50): a Python float or int is "weak" and takes the other
//! operand's type, a `numpy.float32` with another float32 or a weak number computes in
//! single precision, and a `numpy.float64` makes the result float64. A variable may hold
//! a Python float on one path and a float32 on another (`s = 0.0` before a loop adding
//! float32 elements), so each float carries its *kind* at run time, an i8 beside its
//! value: `PYTHON` (a Python float), `SINGLE` (a `numpy.float32`, its value exact in
//! float32) or `DOUBLE` (a `numpy.float64`). Variables keep theirs in `Var::kind`,
//! expression values in `Cg::kinds`; a float whose kind was not recorded is refused
//! (the function runs interpreted), never guessed.
//!
//! Single precision is computed in double and rounded once, which is exact for `+ - * /`
//! (double has more than twice float's precision); `//`, `%` and `**` call NumPy's
//! float32 functions (`runtime::floordiv32`, `mod32`, `pow32`).
//!
//! This file holds the kinds and what the host declares about its NumPy; the code that
//! computes with kinds is `precision_code.rs`.

use std::sync::atomic::{AtomicBool, Ordering};

/// A Python float (or int or bool: weak in NumPy's promotion).
pub const PYTHON: i64 = 0;
/// A `numpy.float32`.
pub const SINGLE: i64 = 1;
/// A `numpy.float64`.
pub const DOUBLE: i64 = 2;

/// Bools have kinds of their own: Python's (`PYTHON`, weak), NumPy's (`NUMPY_BOOL`: a
/// comparison of NumPy scalars; with a Python float it makes a float64, with a
/// float32 a float32, with an int an int64), or one native code does not follow
/// (`UNKNOWN_BOOL`: arithmetic on it bails).
pub const NUMPY_BOOL: i64 = 1;
pub const UNKNOWN_BOOL: i64 = 0x7f;

/// Whether a comparison of NumPy float scalars gives NumPy's bool, as NumPy's does. The
/// embedded numpy has no bool scalar type yet (its comparisons give Python's bool), and
/// its host says so before compiling anything (`comparisons_give_python_bools`).
static NUMPY_BOOLS: AtomicBool = AtomicBool::new(true);

/// Whether comparisons of NumPy float scalars give NumPy's bool here.
pub(super) fn numpy_bools() -> bool {
    NUMPY_BOOLS.load(Ordering::Relaxed)
}

/// Declares that this process's NumPy compares its float scalars to Python bools.
pub fn comparisons_give_python_bools() {
    NUMPY_BOOLS.store(false, Ordering::Relaxed);
}

/// NumPy's float32 kernels (`tanh`, `exp`, ...: its own approximations) that this
/// process's NumPy computes as the runtime's copies do, said by the host before compiling
/// anything: the embedded numpy uses the copies themselves; the CPython host checks real
/// NumPy's results on sample values (its kernels differ on machines without AVX2 and FMA).
static AGREEING_KERNELS: std::sync::RwLock<Vec<String>> = std::sync::RwLock::new(Vec::new());

/// Declares that this process's NumPy computes the float32 function `name` as
/// `tangent_fastmath::numpy_f32` does.
pub fn numpy_kernel_agrees_on(name: &str) {
    let mut names = AGREEING_KERNELS.write().unwrap_or_else(|e| e.into_inner());
    if !names.iter().any(|n| n == name) {
        names.push(name.to_owned());
    }
}

/// Whether this process's numpy computes its float32 functions without a copy in the
/// runtime (`float32="host_rounds_double"` in backends/numpy.py) in double, rounded once:
/// the embedded numpy does, and its host says so before compiling anything.
static ROUNDS_DOUBLE: AtomicBool = AtomicBool::new(false);

/// Declares that this process's numpy computes those float32 functions in double and
/// rounds the result once.
pub fn float32_functions_round_double() {
    ROUNDS_DOUBLE.store(true, Ordering::Relaxed);
}

pub(super) fn numpy_rounds_double() -> bool {
    ROUNDS_DOUBLE.load(Ordering::Relaxed)
}

/// The names of NumPy's float32 kernels the runtime copies.
pub const NUMPY_KERNELS: [&str; 5] = tangent_fastmath::numpy_f32::NAMES;

/// Sample float32 values for checking a NumPy's kernels against the copies: every
/// 65,521st bit pattern (each sign, exponent and many mantissas, NaN and inf among them)
/// and a dense run over [-10, 10], where the tables and reductions switch.
pub fn numpy_kernel_samples() -> Vec<f32> {
    let spread = (0..=u32::MAX / 65_521).map(|i| f32::from_bits(i.wrapping_mul(65_521)));
    let dense = (-8192..=8192).map(|i| i as f32 / 819.2);
    spread.chain(dense).collect()
}

/// Declares NumPy's float32 `name` the runtime's copy when `outputs`, the host NumPy's
/// results on `numpy_kernel_samples()`, are the copy's bit for bit (any NaN for a NaN);
/// says whether they were.
pub fn check_numpy_kernel(name: &str, outputs: &[f32]) -> bool {
    let Some(f) = tangent_fastmath::numpy_f32::by_name(name) else {
        return false;
    };
    let inputs = numpy_kernel_samples();
    let same = inputs.len() == outputs.len()
        && inputs.iter().zip(outputs).all(|(&x, &y)| {
            let want = f(x);
            want.to_bits() == y.to_bits() || (want.is_nan() && y.is_nan())
        });
    if same {
        numpy_kernel_agrees_on(name);
    }
    same
}

/// Whether the host declared NumPy's float32 `name` the runtime's copy.
pub(super) fn numpy_kernel_agrees(name: &str) -> bool {
    let names = AGREEING_KERNELS.read().unwrap_or_else(|e| e.into_inner());
    names.iter().any(|n| n == name)
}
