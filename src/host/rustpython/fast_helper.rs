//! `fast_helper`: native paths for `tangent`'s hottest runtime helpers in the embedded
//! host (`_tangent.fast_helper`, wrapped around the Python definitions in
//! stdlib-shims/tangent/_runtime.py and _errors.py). They read and build arrays of the
//! native numpy through its `host_api`.

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _fast_helper {
    use rustpython_vm::{
        builtins::{PyStrRef, PyType},
        function::{FuncArgs, OptionalArg},
        pyclass,
        types::{Callable, Constructor},
        AsObject, Py, PyObject, PyObjectRef, PyPayload, PyRef, PyResult, VirtualMachine,
    };
    use tangent_numpy::host_api::{full, matmul_t, DType, PyNdArray};

    /// Which of `tangent`'s runtime helpers a `FastHelper` stands for.
    #[derive(Debug, Clone, Copy)]
    enum HelperKind {
        Unbroadcast,
        UnbroadcastLeft,
        UnbroadcastRight,
        AddGrad,
        Unreduce,
        MatmulGradLeft,
        MatmulGradRight,
        CheckOutput,
    }

    /// One of `tangent`'s runtime helpers: a native path for the case every adjoint of
    /// array code hits (arrays of matching shape, a float seed, 2-D products), and the
    /// helper's Python definition for everything else. Calling a Python function costs
    /// the embedded interpreter about a microsecond before it does any work, which is
    /// a noticeable share of an adjoint's time next to its array kernels. The native
    /// paths do exactly what the Python definition does in the same case.
    #[pyattr]
    #[pyclass(module = "tangent", name = "fast_helper")]
    #[derive(Debug, PyPayload)]
    pub struct PyFastHelper {
        kind: HelperKind,
        fallback: PyObjectRef,
        /// The runtime's `_NUMBERS`, the types its helpers treat as plain numbers
        /// (`type(x) in _NUMBERS`; backends add theirs at run time).
        numbers: Option<PyObjectRef>,
    }

    impl Constructor for PyFastHelper {
        type Args = (PyStrRef, PyObjectRef, OptionalArg<PyObjectRef>);

        fn py_new(
            _cls: &Py<PyType>,
            (name, fallback, numbers): Self::Args,
            vm: &VirtualMachine,
        ) -> PyResult<Self> {
            let kind = match &*name.to_string_lossy() {
                "unbroadcast" => HelperKind::Unbroadcast,
                "unbroadcast_left" => HelperKind::UnbroadcastLeft,
                "unbroadcast_right" => HelperKind::UnbroadcastRight,
                "add_grad" => HelperKind::AddGrad,
                "unreduce" => HelperKind::Unreduce,
                "matmul_grad_left" => HelperKind::MatmulGradLeft,
                "matmul_grad_right" => HelperKind::MatmulGradRight,
                "check_output" => HelperKind::CheckOutput,
                other => {
                    return Err(
                        vm.new_value_error(format!("fast_helper: no native path for `{other}`"))
                    )
                }
            };
            let numbers = numbers.into_option();
            let needs_numbers = matches!(
                kind,
                HelperKind::UnbroadcastLeft | HelperKind::UnbroadcastRight | HelperKind::AddGrad
            );
            if needs_numbers && numbers.is_none() {
                return Err(vm.new_type_error(format!(
                    "fast_helper: `{}` needs the set of number types",
                    name.to_string_lossy()
                )));
            }
            Ok(Self {
                kind,
                fallback,
                numbers,
            })
        }
    }

    /// `numpy.full(like.shape, v, dtype=_grad_dtype(like))`: float32 arrays keep their
    /// precision, every other dtype gets a float64 gradient.
    fn grad_filled_like(like: &PyNdArray, v: f64, vm: &VirtualMachine) -> PyObjectRef {
        let dt = if like.array_dtype() == DType::Float32 {
            DType::Float32
        } else {
            DType::Float64
        };
        full(&like.shape_vec(), v, dt, vm)
    }

    fn exact_float(obj: &PyObject, vm: &VirtualMachine) -> Option<f64> {
        tangent_numpy::host_api::float_value(obj, vm)
    }

    fn array_2d(obj: &PyObject) -> Option<PyRef<PyNdArray>> {
        obj.downcast_ref::<PyNdArray>()
            .filter(|a| a.shape_vec().len() == 2)
            .map(|a| a.to_owned())
    }

    impl PyFastHelper {
        /// `type(x) in _NUMBERS`, as the Python definitions test it (False without the
        /// set: those helpers then take no number path).
        fn is_number(&self, x: &PyObject, vm: &VirtualMachine) -> PyResult<bool> {
            let Some(numbers) = &self.numbers else {
                return Ok(false);
            };
            let class = x.class();
            if class.is(vm.ctx.types.float_type) || class.is(vm.ctx.types.int_type) {
                // Both are in the set from the start, and the runtime never removes one.
                return Ok(true);
            }
            vm._contains(numbers, class.as_object())
        }

        /// The native result, or None when the Python definition must run.
        fn fast(&self, args: &[PyObjectRef], vm: &VirtualMachine) -> PyResult<Option<PyObjectRef>> {
            Ok(match (self.kind, args) {
                // `g` itself when both are numbers, as the first test of each definition.
                (HelperKind::Unbroadcast | HelperKind::UnbroadcastLeft, [g, x, ..])
                    if self.is_number(g, vm)? && self.is_number(x, vm)? =>
                {
                    Some(g.clone())
                }
                (HelperKind::UnbroadcastRight, [g, _, y])
                    if self.is_number(g, vm)? && self.is_number(y, vm)? =>
                {
                    Some(g.clone())
                }
                (HelperKind::AddGrad, [a, b])
                    if self.is_number(a, vm)? && self.is_number(b, vm)? =>
                {
                    Some(vm._add(a, b)?)
                }
                (HelperKind::Unbroadcast, [g, like]) => {
                    let Some(like) = like.downcast_ref::<PyNdArray>() else {
                        return Ok(None);
                    };
                    if let Some(ga) = g.downcast_ref::<PyNdArray>() {
                        // A float64 gradient of a float32 array: the Python definition
                        // gives it in float32.
                        let cast = like.array_dtype() == DType::Float32
                            && ga.array_dtype() == DType::Float64;
                        (ga.shape_vec() == like.shape_vec() && !cast).then(|| g.clone())
                    } else {
                        exact_float(g, vm).map(|v| grad_filled_like(like, v, vm))
                    }
                }
                (HelperKind::Unreduce, [g, x, _axis, _keepdims]) => {
                    match (x.downcast_ref::<PyNdArray>(), exact_float(g, vm)) {
                        (Some(x), Some(v)) => Some(grad_filled_like(x, v, vm)),
                        _ => None,
                    }
                }
                (HelperKind::MatmulGradLeft, [g, _a, b]) => match (array_2d(g), array_2d(b)) {
                    (Some(g), Some(b)) => Some(matmul_t(g, b, false, true, vm)?),
                    _ => None,
                },
                (HelperKind::MatmulGradRight, [g, a, _b]) => match (array_2d(a), array_2d(g)) {
                    (Some(a), Some(g)) => Some(matmul_t(a, g, true, false, vm)?),
                    _ => None,
                },
                (HelperKind::CheckOutput, [y, seed, _name]) => (exact_float(y, vm).is_some()
                    && exact_float(seed, vm).is_some())
                .then(|| vm.ctx.none()),
                _ => None,
            })
        }
    }

    impl Callable for PyFastHelper {
        type Args = FuncArgs;
        fn call(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
            if args.kwargs.is_empty() {
                if let Some(r) = zelf.fast(&args.args, vm)? {
                    return Ok(r);
                }
            }
            zelf.fallback.call(args, vm)
        }
    }

    #[pyclass(with(Constructor, Callable))]
    impl PyFastHelper {
        /// The Python definition (also what `inspect` and `help` should look at).
        #[pygetset(name = "__wrapped__")]
        fn wrapped(&self) -> PyObjectRef {
            self.fallback.clone()
        }
        #[pygetset(name = "__name__")]
        fn name(&self, vm: &VirtualMachine) -> PyResult {
            self.fallback.get_attr("__name__", vm)
        }
        #[pygetset(name = "__doc__")]
        fn doc(&self, vm: &VirtualMachine) -> PyResult {
            self.fallback.get_attr("__doc__", vm)
        }
    }
}
