//! The tape's `push` and `pop` for CPython, as C functions (`c_functions.rs`).
//!
//! Generated code calls them once per saved value; these cost what `list.append` and
//! `list.pop` cost, plus one check (109 ns a pair against 304 as `#[pyfunction]`s). The
//! call shapes generated code never makes (Google Tangent's `push(stack, x, op_id)`, which
//! saves a copy of a list or array; keywords; a tape that is not a list) go to the
//! checked `#[pyfunction]`s of `engine.rs`, kept as `_tangent.push_checked` and
//! `_tangent.pop_checked`.

use pyo3::ffi;
use pyo3::prelude::*;
use std::ptr::null_mut;

const EMPTY_TAPE: &std::ffi::CStr = c"tangent: pop from an empty tape: the backward pass read more values than the forward pass saved (this is a bug in tangent, please report it)";

/// `push(stack, value)`: appends to the list.
unsafe extern "C" fn push(
    module: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    if kwnames.is_null() && nargs == 2 {
        let stack = *args;
        if ffi::PyList_Check(stack) != 0 {
            if ffi::PyList_Append(stack, *args.add(1)) < 0 {
                return null_mut();
            }
            let none = ffi::Py_None();
            ffi::Py_IncRef(none);
            return none;
        }
    }
    checked(module, c"push_checked", args, nargs, kwnames)
}

/// `pop(stack)`: removes and returns the list's last item.
unsafe extern "C" fn pop(
    module: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    if kwnames.is_null() && nargs == 1 {
        let stack = *args;
        if ffi::PyList_Check(stack) != 0 {
            let n = ffi::PyList_Size(stack);
            if n <= 0 {
                ffi::PyErr_SetString(ffi::PyExc_IndexError, EMPTY_TAPE.as_ptr());
                return null_mut();
            }
            // A borrowed reference: own it before the list lets go of it.
            let item = ffi::PyList_GetItem(stack, n - 1);
            ffi::Py_IncRef(item);
            if ffi::PyList_SetSlice(stack, n - 1, n, null_mut()) < 0 {
                ffi::Py_DecRef(item);
                return null_mut();
            }
            return item;
        }
    }
    checked(module, c"pop_checked", args, nargs, kwnames)
}

/// Calls the module's checked function of that name with the same arguments.
unsafe fn checked(
    module: *mut ffi::PyObject,
    name: &std::ffi::CStr,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    let f = ffi::PyObject_GetAttrString(module, name.as_ptr());
    if f.is_null() {
        return null_mut();
    }
    let result = crate::c_functions::forward(f, args, nargs, kwnames);
    ffi::Py_DecRef(f);
    result
}

/// Adds `push` and `pop` to `m`, which must also hold `push_checked` and `pop_checked`.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let push = crate::c_functions::new(
        m.as_any(),
        c"push",
        push,
        c"push(stack, value): saves a value on the tape",
    )?;
    let pop = crate::c_functions::new(
        m.as_any(),
        c"pop",
        pop,
        c"pop(stack): the value saved last on the tape",
    )?;
    m.add("push", push)?;
    m.add("pop", pop)
}
