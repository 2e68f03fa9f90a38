//! Functions written against CPython's C API directly, for the calls generated code makes
//! in every step of a loop (`tape.rs`, `fast_helper.rs`). A `#[pyfunction]` costs about
//! 150 ns a call here: abi3 for 3.8 gives PyO3 the tuple-and-dict calling convention, and
//! each call extracts its arguments by name and tracks the GIL. These take CPython's
//! argument array directly.

use pyo3::ffi;
use pyo3::prelude::*;
use std::ffi::{c_int, CStr};
use std::ptr::null_mut;

/// CPython's vectorcall convention for C functions (PEP 590): the arguments in an
/// array, keyword names in a tuple. Part of the stable ABI since 3.10 and the same in
/// 3.8 and 3.9 (pyo3-ffi declares it only for 3.10 builds of the limited API).
const METH_FASTCALL: c_int = 0x0080;

/// A C function called with the vectorcall convention; `slf` is the object it was made
/// with (`new`).
pub type FastCall = unsafe extern "C" fn(
    slf: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject;

/// A Python function object calling `meth` with `slf` (which it keeps alive).
pub fn new<'py>(
    slf: &Bound<'py, PyAny>,
    name: &'static CStr,
    meth: FastCall,
    doc: &'static CStr,
) -> PyResult<Bound<'py, PyAny>> {
    // CPython keeps a pointer to the definition for the function's lifetime.
    let def: &'static mut ffi::PyMethodDef = Box::leak(Box::new(ffi::PyMethodDef {
        ml_name: name.as_ptr(),
        // SAFETY: the union's field for METH_FASTCALL | METH_KEYWORDS, which the flags
        // declare; both are function pointers of one size.
        ml_meth: ffi::PyMethodDefPointer {
            PyCFunctionWithKeywords: unsafe {
                std::mem::transmute::<FastCall, ffi::PyCFunctionWithKeywords>(meth)
            },
        },
        ml_flags: METH_FASTCALL | ffi::METH_KEYWORDS,
        ml_doc: doc.as_ptr(),
    }));
    // SAFETY: `def` lives forever; `slf` is a live object, passed as `self`.
    unsafe {
        let raw = ffi::PyCFunction_NewEx(def, slf.as_ptr(), null_mut());
        Bound::from_owned_ptr_or_err(slf.py(), raw)
    }
}

/// Calls `f` with the arguments of a vectorcall (`args`, `nargs`, `kwnames`).
///
/// # Safety
/// The arguments are those CPython passed to a `FastCall`, with the GIL held.
pub unsafe fn forward(
    f: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    let positional = ffi::PyTuple_New(nargs);
    let keywords = if kwnames.is_null() {
        null_mut()
    } else {
        ffi::PyDict_New()
    };
    let mut ok = !positional.is_null() && (kwnames.is_null() || !keywords.is_null());
    for i in 0..nargs {
        if ok {
            let a = *args.offset(i);
            ffi::Py_IncRef(a); // PyTuple_SetItem steals it
            ok = ffi::PyTuple_SetItem(positional, i, a) == 0;
        }
    }
    if ok && !kwnames.is_null() {
        for k in 0..ffi::PyTuple_Size(kwnames) {
            let value = *args.offset(nargs + k);
            ok = ok && ffi::PyDict_SetItem(keywords, ffi::PyTuple_GetItem(kwnames, k), value) == 0;
        }
    }
    let result = if ok {
        ffi::PyObject_Call(f, positional, keywords)
    } else {
        null_mut()
    };
    for o in [positional, keywords] {
        if !o.is_null() {
            ffi::Py_DecRef(o);
        }
    }
    result
}
