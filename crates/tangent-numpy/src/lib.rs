//! The native ndarray-backed `numpy` for the embedded interpreter (RustPython).
//!
//! `_numpy_native` (`native/`, one file per concern) holds the `ndarray` type and the
//! functions; the Python package `numpy` (`python/numpy`) re-exports it and adds
//! constants and the few helpers that are simpler in Python; `python/scipy` is the
//! SciPy subset. The crate knows nothing of automatic differentiation: the host
//! (the `tangent` crate) registers it in its interpreter and reads arrays through
//! [`host_api`].

pub mod core;
pub mod fastmath;
pub mod fft;
pub mod format;
pub mod linalg;
mod native;
pub use native::host_api;
pub mod ops;
pub mod radix;
pub mod random;
pub mod special;
pub mod storage;
pub mod vsort;

/// Python shims for numpy and the SciPy subset, installed before the `tangent` shim.
pub const SHIMS: &[(&str, &str)] = &[
    // The package's submodules first: `__init__` re-exports their names.
    (
        "numpy._function_base",
        include_str!("../python/numpy/_function_base.py"),
    ),
    (
        "numpy._index_tricks",
        include_str!("../python/numpy/_index_tricks.py"),
    ),
    (
        "numpy._array_api",
        include_str!("../python/numpy/_array_api.py"),
    ),
    (
        "numpy.exceptions",
        include_str!("../python/numpy/exceptions.py"),
    ),
    ("numpy._ufunc", include_str!("../python/numpy/_ufunc.py")),
    ("numpy._npyio", include_str!("../python/numpy/_npyio.py")),
    (
        "numpy._arrayprint",
        include_str!("../python/numpy/_arrayprint.py"),
    ),
    (
        "numpy._type_check",
        include_str!("../python/numpy/_type_check.py"),
    ),
    (
        "numpy._complex",
        include_str!("../python/numpy/_complex.py"),
    ),
    ("numpy", include_str!("../python/numpy/__init__.py")),
    ("numpy.linalg", include_str!("../python/numpy/linalg.py")),
    ("numpy.random", include_str!("../python/numpy/random.py")),
    ("numpy.fft", include_str!("../python/numpy/fft.py")),
    ("scipy", include_str!("../python/scipy/__init__.py")),
    ("scipy.special", include_str!("../python/scipy/special.py")),
    ("scipy.linalg", include_str!("../python/scipy/linalg.py")),
];

/// Adds the native array module(s) to the interpreter.
pub fn register(builder: rustpython_vm::InterpreterBuilder) -> rustpython_vm::InterpreterBuilder {
    let def = native::_numpy_native::module_def(&builder.ctx);
    builder.add_native_module(def)
}
