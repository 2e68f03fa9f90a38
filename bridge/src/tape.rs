//! The tape's `push` and `pop` for CPython, as plain C functions of the stable ABI.
//!
//! Generated code calls them once per saved value (a loop of the building simulation
//! calls them tens of times per iteration). A `#[pyfunction]` costs about 150 ns a call
//! here (abi3 for 3.8 gives PyO3 the tuple-and-dict calling convention, and each call
//! extracts its arguments by name and tracks the GIL); these take CPython's argument
//! array directly and cost what `list.append` and `list.pop` cost, plus one check. The call
//! shapes generated code never makes (Google Tangent's `push(stack, x, op_id)`, which
//! saves a copy of a list or array; keywords; a tape that is not a list) go to the
//! checked `#[pyfunction]`s of `engine.rs`, kept as `_tangent.push_checked` and
//! `_tangent.pop_checked`.

use pyo3::ffi;
use pyo3::prelude::*;
use std::ffi::c_int;
use std::ptr::null_mut;

const EMPTY_TAPE: &std::ffi::CStr = c"tangent: pop from an empty tape: the backward pass read more values than the forward pass saved (this is a bug in tangent, please report it)";

/// CPython's vectorcall convention for C functions (PEP 590): the arguments in an
/// array, keyword names in a tuple. Part of the stable ABI since 3.10 and the same in
/// 3.8 and 3.9 (pyo3-ffi declares it only for 3.10 builds of the limited API).
const METH_FASTCALL: c_int = 0x0080;
type FastCall = unsafe extern "C" fn(
    *mut ffi::PyObject,
    *const *mut ffi::PyObject,
    ffi::Py_ssize_t,
    *mut ffi::PyObject,
) -> *mut ffi::PyObject;

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
    for o in [f, positional, keywords] {
        if !o.is_null() {
            ffi::Py_DecRef(o);
        }
    }
    result
}

/// Adds `push` and `pop` to `m`, which must also hold `push_checked` and `pop_checked`.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let defs: [(&'static std::ffi::CStr, FastCall, &'static std::ffi::CStr); 2] = [
        (
            c"push",
            push,
            c"push(stack, value): saves a value on the tape",
        ),
        (c"pop", pop, c"pop(stack): the value saved last on the tape"),
    ];
    for (name, meth, doc) in defs {
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
        // SAFETY: `def` lives forever; `m` is a live module object, passed as `self`.
        let f = unsafe {
            let raw = ffi::PyCFunction_NewEx(def, m.as_ptr(), null_mut());
            Bound::from_owned_ptr_or_err(m.py(), raw)?
        };
        m.add(name.to_str().expect("ASCII name"), f)?;
    }
    Ok(())
}
