//! `_tangent.fast_helper(name, fn, numbers)` for CPython: the number paths of the runtime
//! helpers scalar code calls in every step (`unbroadcast`, `unbroadcast_left`,
//! `unbroadcast_right`, `add_grad`), as C functions (`c_functions.rs`) that do what the
//! first test of each Python definition does (stdlib-shims/tangent/_runtime.py) and call
//! that definition for everything else. The embedded host's `fast_helper` has these paths
//! and the array ones (src/host/rustpython/fast_helper.rs); for the other helpers this
//! one returns the Python definition itself.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// `type(x) in numbers`, as the Python definitions test it.
unsafe fn is_number(x: *mut ffi::PyObject, numbers: *mut ffi::PyObject) -> bool {
    let class = ffi::Py_TYPE(x);
    if std::ptr::eq(class, &raw mut ffi::PyFloat_Type)
        || std::ptr::eq(class, &raw mut ffi::PyLong_Type)
    {
        // Both are in the set from the start, and the runtime never removes one.
        return true;
    }
    match ffi::PySet_Contains(numbers, class.cast()) {
        1 => true,
        0 => false,
        _ => {
            // A type is always hashable; should the test fail, the definition decides.
            ffi::PyErr_Clear();
            false
        }
    }
}

/// The helper's number path, or its Python definition (`state`: the definition and the
/// set of number types).
unsafe fn number_path(
    helper: Helper,
    state: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    let fallback = ffi::PyTuple_GetItem(state, 0);
    let numbers = ffi::PyTuple_GetItem(state, 1);
    if kwnames.is_null() {
        let arg = |i: isize| *args.offset(i);
        let both = |i, j| is_number(arg(i), numbers) && is_number(arg(j), numbers);
        let same = |x: *mut ffi::PyObject| {
            ffi::Py_IncRef(x);
            x
        };
        match (helper, nargs) {
            // unbroadcast(g, like), unbroadcast_left(g, x, y): g for numbers g and like/x
            (Helper::Unbroadcast, 2) | (Helper::UnbroadcastLeft, 3) if both(0, 1) => {
                return same(arg(0));
            }
            // unbroadcast_right(g, x, y): g for numbers g and y
            (Helper::UnbroadcastRight, 3) if both(0, 2) => return same(arg(0)),
            // add_grad(a, b): a + b for numbers
            (Helper::AddGrad, 2) if both(0, 1) => return ffi::PyNumber_Add(arg(0), arg(1)),
            _ => {}
        }
    }
    crate::c_functions::forward(fallback, args, nargs, kwnames)
}

#[derive(Clone, Copy)]
enum Helper {
    Unbroadcast,
    UnbroadcastLeft,
    UnbroadcastRight,
    AddGrad,
}

macro_rules! entry {
    ($name:ident, $helper:expr) => {
        unsafe extern "C" fn $name(
            state: *mut ffi::PyObject,
            args: *const *mut ffi::PyObject,
            nargs: ffi::Py_ssize_t,
            kwnames: *mut ffi::PyObject,
        ) -> *mut ffi::PyObject {
            number_path($helper, state, args, nargs, kwnames)
        }
    };
}
entry!(unbroadcast, Helper::Unbroadcast);
entry!(unbroadcast_left, Helper::UnbroadcastLeft);
entry!(unbroadcast_right, Helper::UnbroadcastRight);
entry!(add_grad, Helper::AddGrad);

/// fast_helper(name, fn, numbers=None) -> the helper `fn` with a native number path, or
/// `fn` itself for a helper without one here.
#[pyfunction]
#[pyo3(signature = (name, fallback, numbers=None))]
pub fn fast_helper<'py>(
    name: &str,
    fallback: Bound<'py, PyAny>,
    numbers: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let entry: (&'static std::ffi::CStr, crate::c_functions::FastCall) = match name {
        "unbroadcast" => (c"unbroadcast", unbroadcast),
        "unbroadcast_left" => (c"unbroadcast_left", unbroadcast_left),
        "unbroadcast_right" => (c"unbroadcast_right", unbroadcast_right),
        "add_grad" => (c"add_grad", add_grad),
        _ => return Ok(fallback),
    };
    let Some(numbers) = numbers.filter(|n| n.is_instance_of::<pyo3::types::PySet>()) else {
        return Ok(fallback);
    };
    let py = fallback.py();
    let state = PyTuple::new(py, [fallback, numbers])?;
    crate::c_functions::new(
        state.as_any(),
        entry.0,
        entry.1,
        c"a tangent runtime helper",
    )
}
