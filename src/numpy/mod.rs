//! The native ndarray-backed `numpy` for the embedded interpreter.
//!
//! `_numpy_native` (native.rs) holds the `ndarray` type and the functions; the Python
//! package `numpy` (stdlib-shims/numpy) re-exports it and adds constants and the few
//! helpers that are simpler in Python.

pub mod core;
pub mod fastmath;
pub mod format;
pub mod linalg;
#[cfg(feature = "embedded")]
mod native;
pub mod ops;
pub mod random;

#[cfg(feature = "embedded")]
/// Python shims for numpy, installed before the `tangent` shim.
pub const SHIMS: &[(&str, &str)] = &[
    (
        "numpy",
        include_str!("../../stdlib-shims/numpy/__init__.py"),
    ),
    (
        "numpy.linalg",
        include_str!("../../stdlib-shims/numpy/linalg.py"),
    ),
    (
        "numpy.random",
        include_str!("../../stdlib-shims/numpy/random.py"),
    ),
];

/// Adds the native array module(s) to the interpreter.
#[cfg(feature = "embedded")]
pub fn register(builder: rustpython_vm::InterpreterBuilder) -> rustpython_vm::InterpreterBuilder {
    let def = native::_numpy_native::module_def(&builder.ctx);
    builder.add_native_module(def)
}
