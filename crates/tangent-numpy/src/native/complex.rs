//! Complex numbers at the edge of the real arrays: `numpy.fft`'s kernel, and the
//! wrapper that sends a function's complex arguments to its complex implementation.
//!
//! The native arrays are real (bool, int64, float32, float64). A complex array is the
//! Python class of `python/numpy/_complex.py`, a pair of real arrays; every native
//! function refuses complex input the same way (a NotImplementedError whose text is
//! `core::COMPLEX_UNSUPPORTED`, raised while its arguments are converted, before it
//! has done anything). [`PyComplexAware`] wraps the native functions that have a
//! complex implementation: it calls the native one, and on that refusal the complex
//! one with the same arguments, so real arrays pay for one extra call only.

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _complex {
    use crate::native::prelude::*;
    use rustpython_vm::{
        builtins::PyBaseExceptionRef,
        function::FuncArgs,
        types::{Callable, GetAttr},
    };

    /// The float64 parts of an FFT's input and its axis, checked.
    fn fft_input(
        re: &PyObject,
        im: &PyObject,
        axis: usize,
        vm: &VirtualMachine,
    ) -> PyResult<(ArrayD<f64>, Option<ArrayD<f64>>)> {
        let (re, _) = to_array(re, vm)?;
        let im = if vm.is_none(im) {
            None
        } else {
            let (im, _) = to_array(im, vm)?;
            if im.shape() != re.shape() {
                return Err(vm.new_value_error(format!(
                    "fft: parts of shapes {} and {}",
                    core::shape_tuple(re.shape()),
                    core::shape_tuple(im.shape())
                )));
            }
            Some(im)
        };
        if axis >= re.ndim() {
            return Err(vm.new_value_error(format!("fft: axis {axis} of a {}-d array", re.ndim())));
        }
        Ok((re, im))
    }

    fn parts(re: ArrayD<f64>, im: ArrayD<f64>, vm: &VirtualMachine) -> (PyObjectRef, PyObjectRef) {
        (
            new_arr(re, DType::Float64, vm),
            new_arr(im, DType::Float64, vm),
        )
    }

    /// `_fft_c2c(re, im, axis, n, inverse, scale, keep)`: the discrete Fourier transform
    /// of `re + i*im` (`im` None: a real input) along `axis`, each lane taken at length
    /// `n` (trimmed or zero-padded), scaled by `scale`, its first `keep` terms kept, as
    /// float64 parts `(real, imaginary)`.
    #[pyfunction]
    #[allow(clippy::too_many_arguments)]
    fn _fft_c2c(
        re: PyObjectRef,
        im: PyObjectRef,
        axis: usize,
        n: usize,
        inverse: bool,
        scale: f64,
        keep: usize,
        vm: &VirtualMachine,
    ) -> PyResult<(PyObjectRef, PyObjectRef)> {
        let (re, im) = fft_input(&re, &im, axis, vm)?;
        if n == 0 || keep > n {
            return Err(vm.new_value_error(format!("_fft_c2c: n {n}, keep {keep}")));
        }
        let (r, i) = crate::fft::c2c(
            re.view(),
            im.as_ref().map(|a| a.view()),
            axis,
            n,
            inverse,
            scale,
            keep,
        );
        Ok(parts(r, i, vm))
    }

    /// `_fft_r2c(re, axis, n, scale)`: `rfft`'s `n // 2 + 1` terms of the real lanes
    /// along `axis` taken at length `n`, scaled, as float64 parts.
    #[pyfunction]
    fn _fft_r2c(
        re: PyObjectRef,
        axis: usize,
        n: usize,
        scale: f64,
        vm: &VirtualMachine,
    ) -> PyResult<(PyObjectRef, PyObjectRef)> {
        let (re, _) = fft_input(&re, &vm.ctx.none(), axis, vm)?;
        if n == 0 {
            return Err(vm.new_value_error("_fft_r2c: n 0"));
        }
        let (r, i) = crate::fft::r2c(re.view(), axis, n, scale);
        Ok(parts(r, i, vm))
    }

    /// `_fft_c2r(re, im, axis, n, scale)`: `irfft`'s real signals of length `n` from the
    /// lanes of `re + i*im` along `axis` (their first `n // 2 + 1` terms), scaled.
    #[pyfunction]
    fn _fft_c2r(
        re: PyObjectRef,
        im: PyObjectRef,
        axis: usize,
        n: usize,
        scale: f64,
        vm: &VirtualMachine,
    ) -> PyResult {
        let (re, im) = fft_input(&re, &im, axis, vm)?;
        if n == 0 {
            return Err(vm.new_value_error("_fft_c2r: n 0"));
        }
        let im = im.unwrap_or_else(|| ArrayD::zeros(re.raw_dim()));
        Ok(new_arr(
            crate::fft::c2r(re.view(), im.view(), axis, n, scale),
            DType::Float64,
            vm,
        ))
    }

    /// `_complex_text(re, im, single, kind, separator, prefix, suffix)`: NumPy's text of
    /// the complex array `re + i*im` (`kind` 'repr', 'str' or 'array2string'; `single`:
    /// complex64) under the thread's print options.
    #[pyfunction]
    #[allow(clippy::too_many_arguments)]
    fn _complex_text(
        re: PyObjectRef,
        im: PyObjectRef,
        single: bool,
        kind: PyStrRef,
        separator: PyStrRef,
        prefix: PyStrRef,
        suffix: PyStrRef,
        vm: &VirtualMachine,
    ) -> PyResult<String> {
        let (re, _) = to_array(&re, vm)?;
        let (im, _) = to_array(&im, vm)?;
        if re.shape() != im.shape() {
            return Err(vm.new_value_error("_complex_text: parts of different shapes"));
        }
        let z = ndarray::Zip::from(&re)
            .and(&im)
            .map_collect(|&r, &i| format::ComplexElem(r, i));
        Ok(match kind.to_string_lossy().as_ref() {
            "repr" => format::complex_repr(&z.view(), single),
            "str" => format::complex_str(&z.view(), single),
            _ => format::complex_array2string(
                &z.view(),
                single,
                &separator.to_string_lossy(),
                &prefix.to_string_lossy(),
                &suffix.to_string_lossy(),
            ),
        })
    }

    /// `name` of the package's Python module `module` (`numpy._complex`), from
    /// `sys.modules` (importing a dotted name gives the package, not the module).
    pub(crate) fn shim_attr(module: &str, name: &'static str, vm: &VirtualMachine) -> PyResult {
        let modules = vm.sys_module.get_attr("modules", vm)?;
        modules.get_item(module, vm)?.get_attr(name, vm)
    }

    /// Whether an error is a native function's refusal of complex input.
    pub(crate) fn is_complex_refusal(e: &PyBaseExceptionRef, vm: &VirtualMachine) -> bool {
        if !e.fast_isinstance(vm.ctx.exceptions.not_implemented_error) {
            return false;
        }
        let args = e.args();
        args.len() == 1
            && args.as_slice()[0]
                .downcast_ref::<PyStr>()
                .is_some_and(|s| s.to_string_lossy() == core::COMPLEX_UNSUPPORTED)
    }

    /// A native function with a complex implementation (`_complex_aware(native,
    /// complex_impl)`): the native one runs, and if it refuses complex input the
    /// complex one is called with the same arguments. Attributes are the native
    /// function's (`__name__`, `__doc__`, ...).
    #[pyattr]
    #[pyclass(module = "numpy", name = "_complex_aware_function")]
    #[derive(Debug, PyPayload)]
    pub struct PyComplexAware {
        native: PyObjectRef,
        complex_impl: PyObjectRef,
    }

    impl Callable for PyComplexAware {
        type Args = FuncArgs;
        fn call(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
            let plain = args
                .args
                .iter()
                .chain(args.kwargs.values())
                .all(|a| plainly_real(a, vm));
            if plain {
                // No argument can hold a complex number: no copy of the arguments kept.
                return zelf.native.call(args, vm);
            }
            match zelf.native.call(args.clone(), vm) {
                Err(e) if is_complex_refusal(&e, vm) => zelf.complex_impl.call(args, vm),
                other => other,
            }
        }
    }

    impl PyComplexAware {
        /// The native function it wraps.
        pub(crate) fn native(&self) -> &PyObject {
            &self.native
        }
    }

    /// Whether an argument is one that cannot be or hold a complex number (an array,
    /// a real Python number, None).
    pub(crate) fn plainly_real(a: &PyObject, vm: &VirtualMachine) -> bool {
        a.downcast_ref::<PyNdArray>().is_some()
            || a.class().is(vm.ctx.types.float_type)
            || a.class().is(vm.ctx.types.int_type)
            || a.class().is(vm.ctx.types.bool_type)
            || vm.is_none(a)
    }

    impl GetAttr for PyComplexAware {
        fn getattro(zelf: &Py<Self>, name: &Py<PyStr>, vm: &VirtualMachine) -> PyResult {
            if name.to_string_lossy() == "__wrapped_complex__" {
                return Ok(zelf.complex_impl.clone());
            }
            zelf.native.get_attr(name, vm)
        }
    }

    impl Representable for PyComplexAware {
        fn repr_str(zelf: &Py<Self>, vm: &VirtualMachine) -> PyResult<String> {
            Ok(zelf.native.repr(vm)?.to_string_lossy().into_owned())
        }
    }

    #[pyclass(with(Callable, GetAttr, Representable))]
    impl PyComplexAware {}

    /// `_complex_aware(native, complex_impl)`.
    #[pyfunction]
    fn _complex_aware(native: PyObjectRef, complex_impl: PyObjectRef) -> PyComplexAware {
        PyComplexAware {
            native,
            complex_impl,
        }
    }
}
