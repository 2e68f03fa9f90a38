//! The call of NumPy's ufunc objects (`np.add(a, b)`, `np.sin(x, out=y)`).
//!
//! `_ufunc_base(func, nin, nout)` is the native base of `python/numpy/_ufunc.py`'s
//! `ufunc` class (which adds `reduce`, `accumulate`, `outer`, `at` and the attributes).
//! A call with exactly `nin` positional arguments and no keywords, the common one, goes
//! straight to the native function `func`, without a Python frame or a lookup of
//! `__call__`; any other call (`out=`, `where=`, `dtype=`, `casting=`, `order=`,
//! `subok=`, `signature=`, a positional output, a wrong count) goes to the shim's
//! `_ufunc._call(ufunc, args, kwargs)`, which checks and applies them as NumPy does.

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _ufunc {
    use crate::native::prelude::*;
    use rustpython_vm::{builtins::PyDict, function::FuncArgs, types::Callable};

    #[pyattr]
    #[pyclass(module = "numpy", name = "_ufunc_base")]
    #[derive(Debug, PyPayload)]
    pub struct PyUfuncBase {
        func: PyObjectRef,
        nin: usize,
    }

    impl Constructor for PyUfuncBase {
        type Args = (PyObjectRef, usize);
        fn py_new(
            _cls: &Py<PyType>,
            (func, nin): Self::Args,
            _vm: &VirtualMachine,
        ) -> PyResult<Self> {
            Ok(PyUfuncBase { func, nin })
        }
    }

    impl Callable for PyUfuncBase {
        type Args = FuncArgs;
        fn call(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
            if args.kwargs.is_empty() && args.args.len() == zelf.nin {
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
