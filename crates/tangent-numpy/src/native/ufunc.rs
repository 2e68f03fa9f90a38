//! The call of NumPy's ufunc objects (`np.add(a, b)`, `np.sin(x, out=y)`).
//!
//! `_ufunc_base(func, nin, nout)` is the native base of `python/numpy/_ufunc.py`'s
//! `ufunc` class (which adds `reduce`, `accumulate`, `outer`, `at` and the attributes).
//! A call with exactly `nin` positional arguments and no keywords, the common one, goes
//! straight to the native function `func`, without a Python frame or a lookup of
//! `__call__` (and, for the functions that are one binary operator applied to arrays or
//! real numbers, `np.maximum(a, b)`, straight to the operator's code, without binding
//! the native function's arguments: at 10^3 elements that binding was a tenth of the
//! call); any other call (`out=`, `where=`, `dtype=`, `casting=`, `order=`,
//! `subok=`, `signature=`, a positional output, a wrong count) goes to the shim's
//! `_ufunc._call(ufunc, args, kwargs)`, which checks and applies them as NumPy does.

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _ufunc {
    use crate::native::complex::_complex::{plainly_real, PyComplexAware};
    use crate::native::prelude::*;
    use rustpython_vm::{builtins::PyDict, function::FuncArgs, types::Callable};

    #[pyattr]
    #[pyclass(module = "numpy", name = "_ufunc_base")]
    #[derive(Debug, PyPayload)]
    pub struct PyUfuncBase {
        func: PyObjectRef,
        nin: usize,
        /// The operator when `func` is this module's function for it (`function_op`).
        direct: Option<Op>,
    }

    /// The operator `func` applies when it is the native module's own function for one
    /// (or that function under its complex-aware wrapper): checked by identity with
    /// the module's attribute, so a shim or user function never takes the direct call.
    fn direct_op(func: &PyObject, vm: &VirtualMachine) -> Option<Op> {
        let native = match func.downcast_ref::<PyComplexAware>() {
            Some(wrapper) => wrapper.native(),
            None => func,
        };
        let name = native
            .get_attr("__name__", vm)
            .ok()?
            .downcast::<PyStr>()
            .ok()?;
        let op = function_op(name.to_str()?)?;
        let module = vm.import("_numpy_native", 0).ok()?;
        let own = module.get_attr(&name, vm).ok()?;
        own.is(native).then_some(op)
    }

    impl Constructor for PyUfuncBase {
        type Args = (PyObjectRef, usize);
        fn py_new(
            _cls: &Py<PyType>,
            (func, nin): Self::Args,
            vm: &VirtualMachine,
        ) -> PyResult<Self> {
            let direct = if nin == 2 { direct_op(&func, vm) } else { None };
            Ok(PyUfuncBase { func, nin, direct })
        }
    }

    impl Callable for PyUfuncBase {
        type Args = FuncArgs;
        fn call(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
            if args.kwargs.is_empty() && args.args.len() == zelf.nin {
                if let (Some(op), [a, b]) = (zelf.direct, args.args.as_slice()) {
                    // The native function would call `bin_fn` with these; arguments
                    // that may be complex go through it (and its complex fallback).
                    if plainly_real(a, vm) && plainly_real(b, vm) {
                        return bin_fn(a, b, op, vm);
                    }
                }
                return zelf.func.call(args, vm);
            }
            let kwargs = PyDict::default().into_ref(&vm.ctx);
            for (k, v) in args.kwargs {
                kwargs.set_item(k.as_str(), v, vm)?;
            }
            let positional = vm.ctx.new_tuple(args.args);
            let call = super::super::complex::_complex::shim_attr("numpy._ufunc", "_call", vm)?;
            call.call((zelf.to_owned(), positional, kwargs), vm)
        }
    }

    #[pyclass(with(Constructor, Callable), flags(BASETYPE))]
    impl PyUfuncBase {
        /// The function the ufunc calls (the native kernel, or the shim's).
        #[pygetset]
        fn _func(&self) -> PyObjectRef {
            self.func.clone()
        }
    }
}
