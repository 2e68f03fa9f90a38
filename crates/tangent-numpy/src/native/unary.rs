//! Unary functions: the one-argument ufuncs and their dtype rules.

pub(crate) use self::_unary::*;

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _unary {
    use crate::native::prelude::*;
    /// Applies `f` elementwise; scalars and 0-d arrays in give a scalar out (NumPy's).
    /// `out_dt` None: a float function (float32 in, float32 out; ints give float64).
    pub(crate) fn unary(
        x: &PyObject,
        out_dt: Option<DType>,
        f: impl Fn(f64) -> f64,
        vm: &VirtualMachine,
    ) -> PyResult {
        if let Some((v, d)) = scalar_of(x, vm) {
            // A float32 scalar stays float32 (Python numbers and float64 give float64).
            let dt = out_dt.unwrap_or(if d == DType::Float32 {
                d
            } else {
                DType::Float64
            });
            return Ok(py_scalar(f(v), dt, vm));
        }
        if let Some(a) = x.downcast_ref::<PyNdArray>() {
            if a.dtype == DType::Float32 && out_dt.is_none() {
                // float32 in, float32 out: computed in f64 and rounded once, in one pass.
                let g = a.read_typed();
                let v = g.typed().cast_to::<f32>();
                let r = core::map_unary(v.view(), |x| f(x as f64) as f32);
                return Ok(typed_arr_or_scalar(r, vm));
            }
        }
        with_arr(x, vm, |v, d| {
            let dt = out_dt.unwrap_or(d.float_result());
            Ok(arr_or_scalar(round_to(core::map_unary(v, f), dt), dt, vm))
        })
    }

    /// A float function of NumPy's name `name`: `f` in double precision, except on
    /// float32 values where NumPy computes in single precision with kernels of its own
    /// (`tanh`, `exp`, `log`, `sin`, `cos`): those are its results bit for bit
    /// (`fastmath::numpy_f32`), for every element of any layout and for scalars alike.
    pub(crate) fn float_function(
        x: &PyObject,
        name: &str,
        f: fn(f64) -> f64,
        vm: &VirtualMachine,
    ) -> PyResult {
        use crate::fastmath::numpy_f32;
        let Some(single) = numpy_f32::by_name(name) else {
            return unary(x, None, f, vm);
        };
        if let Some((v, DType::Float32)) = scalar_of(x, vm) {
            return Ok(py_scalar(single(v as f32) as f64, DType::Float32, vm));
        }
        if let Some(a) = x.downcast_ref::<PyNdArray>() {
            if a.dtype == DType::Float32 {
                let g = a.read_typed();
                let v = g.typed().cast_to::<f32>();
                if let Some(src) = v.as_slice().filter(|_| v.is_standard_layout()) {
                    let kernel = numpy_f32::slice_by_name(name).expect("a kernel per function");
                    let mut out = vec![0.0f32; src.len()];
                    kernel(src, &mut out);
                    let arr = ArrayD::from_shape_vec(v.raw_dim(), out).expect("same size");
                    return Ok(typed_arr_or_scalar(arr, vm));
                }
                return Ok(typed_arr_or_scalar(core::map_unary(v.view(), single), vm));
            }
        }
        unary(x, None, f, vm)
    }

    /// What a dtype-keeping function does with bools (NumPy's loops differ).
    #[derive(Clone, Copy)]
    pub(crate) enum OnBool {
        /// `abs`: bools stay bools.
        Keep,
        /// `square`: NumPy's int8, int64 here (the module has no int8).
        ToInt,
        /// `negative`, `sign`: NumPy has no bool loop; the message is its TypeError.
        Refuse(&'static str),
    }

    pub(crate) const BOOL_NEGATIVE: &str = "The numpy boolean negative, the `-` operator, is not \
        supported, use the `~` operator or the logical_not function instead.";
    pub(crate) const BOOL_POSITIVE: &str = "ufunc 'positive' did not contain a loop with \
        signature matching types <class 'numpy.dtypes.BoolDType'> -> None";
    pub(crate) const BOOL_SIGN: &str = "ufunc 'sign' did not contain a loop with signature \
        matching types <class 'numpy.dtypes.BoolDType'> -> None";

    /// The result dtype of a dtype-keeping function of `d`, or NumPy's TypeError.
    pub(crate) fn kept_dtype(d: DType, on_bool: OnBool, vm: &VirtualMachine) -> PyResult<DType> {
        match (d, on_bool) {
            (DType::Bool, OnBool::Keep) => Ok(DType::Bool),
            (DType::Bool, OnBool::ToInt) => Ok(DType::Int64),
            (DType::Bool, OnBool::Refuse(msg)) => Err(vm.new_type_error(msg.to_owned())),
            (d, _) => Ok(d),
        }
    }

    /// Like `unary` but keeps int dtypes (NumPy's abs/negative/square/sign...); bools as
    /// `on_bool` says.
    pub(crate) fn unary_keep(
        x: &PyObject,
        f: impl Fn(f64) -> f64,
        fi: impl Fn(i64) -> i64,
        on_bool: OnBool,
        vm: &VirtualMachine,
    ) -> PyResult {
        if let Some(a) = x.downcast_ref::<PyNdArray>() {
            // A C-contiguous float64 array: straight from the buffer.
            let fast = a.with_f64_slice(|src, dims| {
                (dims.ndim() > 0).then(|| {
                    let out = crate::fastmath::map1(src, &f);
                    ArrayD::from_shape_vec(dims, out).expect("same size")
                })
            });
            if let Some(Some(arr)) = fast {
                return Ok(new_arr(arr, DType::Float64, vm));
            }
            if kept_dtype(a.dtype, on_bool, vm)? == DType::Int64 {
                // Integers in i64 (NumPy's wrap-around: -INT64_MIN is INT64_MIN).
                let g = a.read_typed();
                let v = g.typed().cast_to::<i64>();
                let r = core::map_unary(v.view(), fi);
                return Ok(typed_arr_or_scalar(r, vm));
            }
        }
        if let Some((v, d)) = scalar_of(x, vm) {
            let dt = kept_dtype(d, on_bool, vm)?;
            return Ok(py_scalar(dt.cast(f(v)), dt, vm));
        }
        with_arr(x, vm, |v, d| {
            let dt = kept_dtype(d, on_bool, vm)?;
            let r = core::map_unary(v, f);
            let r = if dt == DType::Bool {
                r.mapv(|x| dt.cast(x))
            } else {
                r
            };
            Ok(arr_or_scalar(round_to(r, dt), dt, vm))
        })
    }

    pub(crate) fn ufunc_kernel(name: &str) -> Option<fn(f64) -> f64> {
        Some(match name {
            "exp" => f64::exp,
            "exp2" => f64::exp2,
            "log" => f64::ln,
            "log2" => f64::log2,
            "log10" => f64::log10,
            "sin" => f64::sin,
            "cos" => f64::cos,
            "tan" => f64::tan,
            "tanh" => crate::fastmath::tanh,
            "sinh" => f64::sinh,
            "cosh" => f64::cosh,
            "sqrt" => f64::sqrt,
            "cbrt" => f64::cbrt,
            "log1p" => f64::ln_1p,
            "expm1" => f64::exp_m1,
            "arcsin" => f64::asin,
            "arccos" => f64::acos,
            "arctan" => f64::atan,
            "arcsinh" => f64::asinh,
            "arccosh" => f64::acosh,
            "arctanh" => f64::atanh,
            "floor" => f64::floor,
            "ceil" => f64::ceil,
            "trunc" => f64::trunc,
            "rint" => f64::round_ties_even,
            "reciprocal" => |x| 1.0 / x,
            "deg2rad" => f64::to_radians,
            "rad2deg" => f64::to_degrees,
            "sinc" => core::sinc,
            "fix" => f64::trunc,
            "fabs" => f64::abs,
            // scipy.special (the embedded host's subset)
            "erf" => crate::special::erf,
            "erfc" => crate::special::erfc,
            "gammaln" => crate::special::gammaln,
            "gamma" => crate::special::gamma,
            "digamma" => crate::special::digamma,
            _ => return None,
        })
    }

    /// `kernel` over a float64 array in C order (the vectorised kernels of the hot
    /// functions); None for any other argument.
    fn f64_kernel(
        x: &PyObject,
        kernel: fn(&[f64], &mut [std::mem::MaybeUninit<f64>]),
        vm: &VirtualMachine,
    ) -> Option<PyObjectRef> {
        let arr = x.downcast_ref::<PyNdArray>()?.with_f64_slice(|src, dims| {
            let out = crate::fastmath::collect_kernel(src, kernel);
            ArrayD::from_shape_vec(dims, out).expect("same size")
        })?;
        Some(typed_arr_or_scalar(arr, vm))
    }

    #[pyfunction]
    pub(crate) fn exp(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        if let Some(r) = f64_kernel(&x, crate::fastmath::exp_into, vm) {
            return Ok(r);
        }
        float_function(&x, "exp", f64::exp, vm)
    }
    #[pyfunction]
    pub(crate) fn log(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        if let Some(r) = f64_kernel(&x, crate::fastmath::log_into, vm) {
            return Ok(r);
        }
        float_function(&x, "log", f64::ln, vm)
    }
    #[pyfunction]
    pub(crate) fn sin(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        float_function(&x, "sin", f64::sin, vm)
    }
    #[pyfunction]
    pub(crate) fn cos(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        float_function(&x, "cos", f64::cos, vm)
    }
    #[pyfunction]
    pub(crate) fn tan(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::tan, vm)
    }
    #[pyfunction]
    pub(crate) fn tanh(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        // The hot path of float64 tanh layers.
        if let Some(r) = f64_kernel(&x, crate::fastmath::tanh_into, vm) {
            return Ok(r);
        }
        float_function(&x, "tanh", crate::fastmath::tanh, vm)
    }
    #[pyfunction]
    pub(crate) fn sqrt(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::sqrt, vm)
    }
    #[pyfunction]
    pub(crate) fn log1p(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::ln_1p, vm)
    }
    #[pyfunction]
    pub(crate) fn expm1(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::exp_m1, vm)
    }
    #[pyfunction]
    pub(crate) fn arcsin(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::asin, vm)
    }
    #[pyfunction]
    pub(crate) fn arccos(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::acos, vm)
    }
    #[pyfunction]
    pub(crate) fn arctan(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::atan, vm)
    }
    #[pyfunction]
    pub(crate) fn sinh(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::sinh, vm)
    }
    #[pyfunction]
    pub(crate) fn cosh(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::cosh, vm)
    }
    /// A rounding function: integers and bools are already whole, so NumPy 2 gives them
    /// back in their own dtype; floats are rounded by `f`.
    pub(crate) fn rounding(x: &PyObject, f: fn(f64) -> f64, vm: &VirtualMachine) -> PyResult {
        let whole = |d: DType| matches!(d, DType::Int64 | DType::Bool);
        // Integers are their own rounding, kept whole (past 2**53 a float64 would round).
        if let Some(i) = x.downcast_ref_if_exact::<PyInt>(vm) {
            if i.as_bigint().to_i64().is_some() {
                return Ok(x.to_owned());
            }
        }
        if let Some(a) = x.downcast_ref::<PyNdArray>() {
            if whole(a.dtype) {
                let data = a.read_typed().typed().astype(a.dtype);
                return Ok(PyNdArray::from_elements(data).into_pyobject(vm));
            }
        }
        if let Some((v, d)) = scalar_of(x, vm) {
            return Ok(if whole(d) {
                py_scalar(v, d, vm)
            } else {
                py_scalar(f(v), d, vm)
            });
        }
        with_arr(x, vm, |v, d| {
            if whole(d) {
                return Ok(new_arr(core::to_standard(v), d, vm));
            }
            let dt = d.float_result();
            Ok(arr_or_scalar(round_to(core::map_unary(v, f), dt), dt, vm))
        })
    }

    /// `np.reciprocal`: `1 / x` in the input's dtype, so integer division for integers
    /// (`1 // x` truncated toward zero; NumPy's INT64_MIN for a zero, where it warns).
    pub(crate) fn reciprocal(x: &PyObject, vm: &VirtualMachine) -> PyResult {
        let int_recip = |v: f64| match v {
            1.0 => 1.0,
            -1.0 => -1.0,
            0.0 => i64::MIN as f64,
            _ => 0.0,
        };
        let int_dtype = |d: DType| match d {
            DType::Bool | DType::Int64 => Some(DType::Int64),
            _ => None,
        };
        if let Some((v, d)) = scalar_of(x, vm) {
            return Ok(match int_dtype(d) {
                Some(dt) if d == DType::Bool => py_scalar(v, dt, vm),
                Some(dt) => py_scalar(int_recip(v), dt, vm),
                None => py_scalar(1.0 / v, d, vm),
            });
        }
        with_arr(x, vm, |v, d| match int_dtype(d) {
            Some(dt) if d == DType::Bool => Ok(new_arr(core::to_standard(v), dt, vm)),
            Some(dt) => Ok(new_arr(core::map_unary(v, int_recip), dt, vm)),
            None => {
                let dt = d.float_result();
                Ok(new_arr(
                    round_to(core::map_unary(v, |x| 1.0 / x), dt),
                    dt,
                    vm,
                ))
            }
        })
    }

    #[pyfunction]
    pub(crate) fn floor(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        rounding(&x, f64::floor, vm)
    }
    #[pyfunction]
    pub(crate) fn ceil(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        rounding(&x, f64::ceil, vm)
    }
    /// Less common float ufuncs by name (`np.log2 = partial(_ufunc1, "log2")` in the shim).
    #[pyfunction]
    pub(crate) fn _ufunc1(name: PyStrRef, x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let name = name.to_string_lossy();
        match &*name {
            "trunc" | "fix" => return rounding(&x, f64::trunc, vm),
            "reciprocal" => return reciprocal(&x, vm),
            _ => {}
        }
        let f = ufunc_kernel(&name)
            .ok_or_else(|| vm.new_value_error(format!("unknown ufunc {name}")))?;
        float_function(&x, &name, f, vm)
    }
    /// scipy.special.polygamma(n, x) for an integer order n >= 0 (the embedded subset).
    #[pyfunction]
    pub(crate) fn _polygamma(n: i64, x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let n = u32::try_from(n).map_err(|_| {
            vm.new_value_error("polygamma: the order n must be a non-negative integer")
        })?;
        unary(&x, None, |v| crate::special::polygamma(n, v), vm)
    }
    #[pyfunction]
    pub(crate) fn isnan(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, Some(DType::Bool), |v| v.is_nan() as u8 as f64, vm)
    }
    #[pyfunction]
    pub(crate) fn isfinite(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, Some(DType::Bool), |v| v.is_finite() as u8 as f64, vm)
    }
    #[pyfunction]
    pub(crate) fn isinf(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, Some(DType::Bool), |v| v.is_infinite() as u8 as f64, vm)
    }
    #[pyfunction]
    pub(crate) fn logical_not(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, Some(DType::Bool), |v| (v == 0.0) as u8 as f64, vm)
    }
    #[pyfunction]
    pub(crate) fn abs(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary_keep(&x, f64::abs, i64::wrapping_abs, OnBool::Keep, vm)
    }
    #[pyfunction]
    pub(crate) fn absolute(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary_keep(&x, f64::abs, i64::wrapping_abs, OnBool::Keep, vm)
    }
    #[pyfunction]
    pub(crate) fn sign(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary_keep(&x, core::sign, i64::signum, OnBool::Refuse(BOOL_SIGN), vm)
    }
    #[pyfunction]
    pub(crate) fn square(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary_keep(&x, |v| v * v, |v| v.wrapping_mul(v), OnBool::ToInt, vm)
    }
    #[pyfunction]
    pub(crate) fn negative(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary_keep(
            &x,
            |v| -v,
            i64::wrapping_neg,
            OnBool::Refuse(BOOL_NEGATIVE),
            vm,
        )
    }
    #[pyfunction]
    pub(crate) fn positive(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary_keep(&x, |v| v, |v| v, OnBool::Refuse(BOOL_POSITIVE), vm)
    }

    /// `a_min` / `a_max`, by position or keyword (None: unbounded).
    #[derive(FromArgs)]
    pub(crate) struct ClipBounds {
        #[pyarg(any, optional)]
        pub(crate) a_min: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        pub(crate) a_max: OptionalArg<PyObjectRef>,
    }

    #[pyfunction(name = "clip")]
    pub(crate) fn clip_fn(a: PyObjectRef, bounds: ClipBounds, vm: &VirtualMachine) -> PyResult {
        clip(
            a,
            bounds.a_min.unwrap_or_none(vm),
            bounds.a_max.unwrap_or_none(vm),
            vm,
        )
    }

    /// `clip` of a float64 array in C order between Python numbers (or None): the two
    /// passes' operations, `maximum` then `minimum`, in one pass (None otherwise).
    fn clip_f64_by_numbers(
        a: &PyObject,
        lo: &PyObject,
        hi: &PyObject,
        vm: &VirtualMachine,
    ) -> Option<PyObjectRef> {
        let bound = |b: &PyObject| -> Option<Option<f64>> {
            if vm.is_none(b) {
                return Some(None);
            }
            let number =
                b.class().is(vm.ctx.types.float_type) || b.class().is(vm.ctx.types.int_type);
            number.then(|| scalar_of(b, vm).map(|(v, _)| v))?.map(Some)
        };
        let (lo, hi) = (bound(lo)?, bound(hi)?);
        let arr = a.downcast_ref::<PyNdArray>()?;
        let g = arr.read_typed();
        let ElemView::F64(v) = g.typed() else {
            return None;
        };
        let src = v.as_slice()?;
        // `map1`: compiled for the widest vector unit present.
        let out: Vec<f64> = match (lo, hi) {
            (Some(l), Some(h)) => {
                crate::fastmath::map1(src, |x| core::np_min(core::np_max(x, l), h))
            }
            (Some(l), None) => crate::fastmath::map1(src, |x| core::np_max(x, l)),
            (None, Some(h)) => crate::fastmath::map1(src, |x| core::np_min(x, h)),
            (None, None) => return None,
        };
        let arr = ArrayD::from_shape_vec(v.raw_dim(), out).expect("same size");
        Some(typed_arr_or_scalar(arr, vm))
    }

    pub(crate) fn clip(
        a: PyObjectRef,
        lo: PyObjectRef,
        hi: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult {
        if let Some(r) = clip_f64_by_numbers(&a, &lo, &hi, vm) {
            return Ok(r);
        }
        let mut r = a;
        if !vm.is_none(&lo) {
            r = bin_fn(&r, &lo, Op::Max, vm)?;
        }
        if !vm.is_none(&hi) {
            r = bin_fn(&r, &hi, Op::Min, vm)?;
        }
        Ok(r)
    }
}
