//! `numpy.float64`: NumPy's double scalar, a subclass of `float` as in NumPy.
//!
//! Reductions, ufuncs of scalars and indexing return it (as NumPy does), so a scalar
//! computation follows NumPy's IEEE arithmetic instead of Python's: `x / 0.0` is ±inf or
//! nan, `0.0 ** -1` is inf, `(-8.0) ** (1 / 3)` nan and overflow inf, where Python's
//! float raises. Mixed with a Python float or int the result stays a float64; with an
//! array the array's operators run (the scalar is a float64 operand there, not a weak
//! Python scalar). Attributes it does not have itself (`reshape`, `sum`, `round`, ...)
//! are the 0-d array's, with 0-d results given back as scalars, as NumPy's scalar
//! methods do. `item()`/`tolist()` and `float(x)` give a Python float.

pub(crate) use self::_scalar::*;

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _scalar {
    use crate::native::prelude::*;
    use rustpython_vm::{
        function::FuncArgs,
        protocol::PyNumber,
        types::{Callable, GetAttr},
    };

    #[pyattr]
    #[pyclass(module = "numpy", name = "float64", base = PyFloat)]
    #[repr(transparent)]
    pub struct PyFloat64(pub PyFloat);

    impl std::fmt::Debug for PyFloat64 {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "numpy.float64({})", self.0.to_f64())
        }
    }

    /// A float64 scalar holding `v`.
    pub(crate) fn new_float64(v: f64, vm: &VirtualMachine) -> PyObjectRef {
        PyFloat64(PyFloat::from(v)).into_ref(&vm.ctx).into()
    }

    /// Whether `obj` is a NumPy float64 scalar (not a Python float).
    pub(crate) fn is_float64(obj: &PyObject) -> bool {
        obj.class()
            .fast_issubclass(<PyFloat64 as rustpython_vm::class::StaticType>::static_type())
    }

    /// Python's repr of a float (`1.5`, `inf`, `1e+300`).
    fn float_repr(v: f64, vm: &VirtualMachine) -> PyResult<String> {
        let f: PyObjectRef = vm.ctx.new_float(v).into();
        Ok(f.repr(vm)?.to_string_lossy().into_owned())
    }

    fn value(obj: &PyObject) -> f64 {
        obj.downcast_ref::<PyFloat>()
            .expect("a float64 scalar holds a float")
            .to_f64()
    }

    /// An operand of float64 arithmetic: a float (or subclass), an int or a bool; None
    /// for anything else (arrays among them), whose own operator then runs.
    fn operand(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Option<f64>> {
        if let Some(f) = obj.downcast_ref::<PyFloat>() {
            return Ok(Some(f.to_f64()));
        }
        if let Some(i) = obj.downcast_ref::<PyInt>() {
            return rustpython_vm::builtins::try_bigint_to_f64(i.as_bigint(), vm).map(Some);
        }
        Ok(None)
    }

    /// `a op b` in NumPy's float64 arithmetic; one function serves the left and the right
    /// call (the slots get the operands in expression order).
    fn binary(a: &PyObject, b: &PyObject, f: fn(f64, f64) -> f64, vm: &VirtualMachine) -> PyResult {
        match (operand(a, vm)?, operand(b, vm)?) {
            (Some(x), Some(y)) => Ok(new_float64(f(x, y), vm)),
            _ => Ok(vm.ctx.not_implemented()),
        }
    }

    fn unary(num: PyNumber<'_>, f: fn(f64) -> f64, vm: &VirtualMachine) -> PyResult {
        Ok(new_float64(f(value(num.obj)), vm))
    }

    impl AsNumber for PyFloat64 {
        fn as_number() -> &'static PyNumberMethods {
            static AS_NUMBER: PyNumberMethods = PyNumberMethods {
                add: Some(|a, b, vm| binary(a, b, |x, y| x + y, vm)),
                subtract: Some(|a, b, vm| binary(a, b, |x, y| x - y, vm)),
                multiply: Some(|a, b, vm| binary(a, b, |x, y| x * y, vm)),
                true_divide: Some(|a, b, vm| binary(a, b, |x, y| x / y, vm)),
                floor_divide: Some(|a, b, vm| binary(a, b, core::floordiv, vm)),
                remainder: Some(|a, b, vm| binary(a, b, core::fmod_py, vm)),
                divmod: Some(|a, b, vm| match (operand(a, vm)?, operand(b, vm)?) {
                    (Some(x), Some(y)) => Ok(vm
                        .ctx
                        .new_tuple(vec![
                            new_float64(core::floordiv(x, y), vm),
                            new_float64(core::fmod_py(x, y), vm),
                        ])
                        .into()),
                    _ => Ok(vm.ctx.not_implemented()),
                }),
                power: Some(|a, b, m, vm| {
                    if !vm.is_none(m) {
                        return Err(vm.new_type_error(
                            "pow() 3rd argument not allowed unless all arguments are integers",
                        ));
                    }
                    binary(a, b, f64::powf, vm)
                }),
                negative: Some(|num, vm| unary(num, |x| -x, vm)),
                positive: Some(|num, vm| unary(num, |x| x, vm)),
                absolute: Some(|num, vm| unary(num, f64::abs, vm)),
                boolean: Some(|num, _vm| Ok(value(num.obj) != 0.0)),
                int: Some(|num, vm| {
                    let v = value(num.obj);
                    rustpython_vm::builtins::try_f64_to_bigint(v, vm)
                        .map(|i| vm.ctx.new_int(i).into())
                }),
                float: Some(|num, vm| Ok(vm.ctx.new_float(value(num.obj)).into())),
                ..PyNumberMethods::NOT_IMPLEMENTED
            };
            &AS_NUMBER
        }
    }

    impl Constructor for PyFloat64 {
        type Args = OptionalArg<PyObjectRef>;
        fn py_new(_cls: &Py<PyType>, x: Self::Args, vm: &VirtualMachine) -> PyResult<Self> {
            let v = match x {
                OptionalArg::Missing => 0.0,
                OptionalArg::Present(x) => {
                    // float(x): numbers, strings, objects with __float__, size-1 arrays.
                    let f = vm.ctx.types.float_type.as_object().call((x,), vm)?;
                    value(&f)
                }
            };
            Ok(PyFloat64(PyFloat::from(v)))
        }
    }

    impl Representable for PyFloat64 {
        fn repr_str(zelf: &Py<Self>, vm: &VirtualMachine) -> PyResult<String> {
            let plain = float_repr(zelf.0.to_f64(), vm)?;
            Ok(format!("np.float64({plain})"))
        }
    }

    /// A 0-d float64 array holding the scalar's value.
    fn as_array(v: f64, vm: &VirtualMachine) -> PyObjectRef {
        new_arr(ArrayD::from_elem(IxDyn(&[]), v), DType::Float64, vm)
    }

    /// A 0-d array result becomes a scalar, as NumPy's scalar methods return.
    fn scalar_result(obj: PyObjectRef, vm: &VirtualMachine) -> PyObjectRef {
        match obj.downcast_ref::<PyNdArray>() {
            Some(a) if a.n_dims() == 0 => {
                with_elems!(ElemView, a.read_typed().typed(), v => v.iter().next().unwrap().to_np(vm))
            }
            _ => obj,
        }
    }

    impl GetAttr for PyFloat64 {
        fn getattro(zelf: &Py<Self>, name: &Py<PyStr>, vm: &VirtualMachine) -> PyResult {
            if let Some(attr) = zelf.as_object().generic_getattr_opt(name, None, vm)? {
                return Ok(attr);
            }
            // The 0-d array's public attribute; NumPy's scalars have the array's methods
            // (not its protocols: a scalar has no `len()` and is not iterable).
            if name.to_string_lossy().starts_with('_') {
                return Err(vm.new_no_attribute_error(zelf.as_object().to_owned(), name.to_owned()));
            }
            let arr = as_array(zelf.0.to_f64(), vm);
            let Some(attr) = arr.generic_getattr_opt(name, None, vm)? else {
                return Err(vm.new_no_attribute_error(zelf.as_object().to_owned(), name.to_owned()));
            };
            if attr.is_callable() {
                return Ok(PyScalarMethod { method: attr }.into_ref(&vm.ctx).into());
            }
            Ok(scalar_result(attr, vm))
        }
    }

    #[pyclass(with(Constructor, AsNumber, Representable, GetAttr))]
    impl PyFloat64 {
        #[pyslot]
        fn slot_str(zelf: &PyObject, vm: &VirtualMachine) -> PyResult<PyStrRef> {
            Ok(vm.ctx.new_str(float_repr(value(zelf), vm)?))
        }
        #[pygetset]
        fn dtype(&self, vm: &VirtualMachine) -> PyObjectRef {
            dtype_obj(DType::Float64, vm)
        }
        #[pygetset]
        fn shape(&self, vm: &VirtualMachine) -> PyTupleRef {
            vm.ctx.empty_tuple.clone()
        }
        #[pygetset]
        fn ndim(&self) -> usize {
            0
        }
        #[pygetset]
        fn size(&self) -> usize {
            1
        }
        #[pygetset]
        fn itemsize(&self) -> usize {
            8
        }
        #[pygetset]
        fn nbytes(&self) -> usize {
            8
        }
        #[pymethod]
        fn item(&self, vm: &VirtualMachine) -> PyObjectRef {
            vm.ctx.new_float(self.0.to_f64()).into()
        }
        #[pymethod]
        fn tolist(&self, vm: &VirtualMachine) -> PyObjectRef {
            vm.ctx.new_float(self.0.to_f64()).into()
        }
        #[pymethod]
        fn astype(&self, dtype: PyObjectRef, vm: &VirtualMachine) -> PyResult {
            let dt = parse_dtype(&dtype, vm)?.unwrap_or(DType::Float64);
            Ok(py_scalar(dt.cast(self.0.to_f64()), dt, vm))
        }
        #[pymethod]
        fn __array__(&self, vm: &VirtualMachine) -> PyObjectRef {
            as_array(self.0.to_f64(), vm)
        }
    }

    /// A method of the 0-d array behind a scalar (`np.float64(2.5).round()`), whose 0-d
    /// results come back as scalars.
    #[pyattr]
    #[pyclass(module = "numpy", name = "_scalar_method")]
    #[derive(Debug, PyPayload)]
    pub struct PyScalarMethod {
        method: PyObjectRef,
    }

    impl Callable for PyScalarMethod {
        type Args = FuncArgs;
        fn call(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
            let out = zelf.method.call(args, vm)?;
            Ok(scalar_result(out, vm))
        }
    }

    #[pyclass(with(Callable))]
    impl PyScalarMethod {}
}
