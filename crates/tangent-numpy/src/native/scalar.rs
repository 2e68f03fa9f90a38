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
        builtins::PyTypeRef,
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
            array_attr(zelf.as_object(), name, || as_array(zelf.0.to_f64(), vm), vm)
        }
    }

    /// An attribute of a scalar: its own, else the public one of the 0-d array `arr`
    /// builds (NumPy's scalars have the array's methods, not its protocols: a scalar has
    /// no `len()` and is not iterable).
    fn array_attr(
        obj: &PyObject,
        name: &Py<PyStr>,
        arr: impl FnOnce() -> PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult {
        if let Some(attr) = obj.generic_getattr_opt(name, None, vm)? {
            return Ok(attr);
        }
        if name.to_string_lossy().starts_with('_') {
            return Err(vm.new_no_attribute_error(obj.to_owned(), name.to_owned()));
        }
        let Some(attr) = arr().generic_getattr_opt(name, None, vm)? else {
            return Err(vm.new_no_attribute_error(obj.to_owned(), name.to_owned()));
        };
        if attr.is_callable() {
            return Ok(PyScalarMethod { method: attr }.into_ref(&vm.ctx).into());
        }
        Ok(scalar_result(attr, vm))
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

    /// `numpy.float32`: NumPy's single-precision scalar (not a `float` subclass, as in
    /// NumPy). Indexing, reductions and ufuncs of float32 arrays and scalars return it.
    /// Arithmetic follows NumPy 2's promotion (NEP 50): with another float32, a Python
    /// float, int or bool (weak: converted to float32 first) the result is a float32,
    /// computed in single precision; with a `numpy.float64` it is a float64.
    #[pyattr]
    #[pyclass(module = "numpy", name = "float32")]
    #[derive(Debug, PyPayload)]
    pub struct PyFloat32(pub f32);

    /// A float32 scalar holding `v`.
    pub(crate) fn new_float32(v: f32, vm: &VirtualMachine) -> PyObjectRef {
        PyFloat32(v).into_ref(&vm.ctx).into()
    }

    /// The value of a `numpy.float32` scalar.
    pub(crate) fn float32_value(obj: &PyObject) -> Option<f32> {
        obj.downcast_ref::<PyFloat32>().map(|s| s.0)
    }

    /// An operand of float32 arithmetic.
    #[derive(Clone, Copy)]
    enum Single {
        /// A float32, or a Python number converted to one (weak).
        F32(f32),
        /// A `numpy.float64`: the result is a float64.
        F64(f64),
    }

    impl Single {
        fn wide(self) -> f64 {
            match self {
                Single::F32(x) => x as f64,
                Single::F64(x) => x,
            }
        }
    }

    /// `obj` as an operand of float32 arithmetic; None for anything else (arrays among
    /// them, whose own operator then runs).
    fn single(obj: &PyObject) -> Option<Single> {
        if let Some(x) = float32_value(obj) {
            return Some(Single::F32(x));
        }
        if let Some(f) = obj.downcast_ref::<PyFloat>() {
            let x = f.to_f64();
            return Some(if is_float64(obj) {
                Single::F64(x)
            } else {
                Single::F32(x as f32)
            });
        }
        // A Python int (or bool) past float32's range is inf, as NumPy converts it.
        let i = obj.downcast_ref::<PyInt>()?;
        let big = i.as_bigint();
        let x = big
            .to_f64()
            .unwrap_or(if num_traits::Signed::is_negative(big) {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            });
        Some(Single::F32(x as f32))
    }

    /// `a op b` for a float32 operand: `f` in single precision, or `wide` in double when
    /// the other operand is a float64 (one function serves the left and the right call).
    fn binary32(
        a: &PyObject,
        b: &PyObject,
        f: fn(f32, f32) -> f32,
        wide: fn(f64, f64) -> f64,
        vm: &VirtualMachine,
    ) -> PyResult {
        Ok(match (single(a), single(b)) {
            (Some(Single::F32(x)), Some(Single::F32(y))) => new_float32(f(x, y), vm),
            (Some(x), Some(y)) => new_float64(wide(x.wide(), y.wide()), vm),
            _ => vm.ctx.not_implemented(),
        })
    }

    fn value32(obj: &PyObject) -> f32 {
        float32_value(obj).expect("a float32 scalar")
    }

    fn unary32(num: PyNumber<'_>, f: fn(f32) -> f32, vm: &VirtualMachine) -> PyResult {
        Ok(new_float32(f(value32(num.obj)), vm))
    }

    use tangent_pyfloat::{numpy_floordiv_f32 as floordiv32, numpy_mod_f32 as mod32};

    impl AsNumber for PyFloat32 {
        fn as_number() -> &'static PyNumberMethods {
            static AS_NUMBER: PyNumberMethods = PyNumberMethods {
                add: Some(|a, b, vm| binary32(a, b, |x, y| x + y, |x, y| x + y, vm)),
                subtract: Some(|a, b, vm| binary32(a, b, |x, y| x - y, |x, y| x - y, vm)),
                multiply: Some(|a, b, vm| binary32(a, b, |x, y| x * y, |x, y| x * y, vm)),
                true_divide: Some(|a, b, vm| binary32(a, b, |x, y| x / y, |x, y| x / y, vm)),
                floor_divide: Some(|a, b, vm| binary32(a, b, floordiv32, core::floordiv, vm)),
                remainder: Some(|a, b, vm| binary32(a, b, mod32, core::fmod_py, vm)),
                divmod: Some(|a, b, vm| {
                    let q = binary32(a, b, floordiv32, core::floordiv, vm)?;
                    if q.is(&vm.ctx.not_implemented) {
                        return Ok(q);
                    }
                    let r = binary32(a, b, mod32, core::fmod_py, vm)?;
                    Ok(vm.ctx.new_tuple(vec![q, r]).into())
                }),
                power: Some(|a, b, m, vm| {
                    if !vm.is_none(m) {
                        return Err(vm.new_type_error(
                            "pow() 3rd argument not allowed unless all arguments are integers",
                        ));
                    }
                    binary32(a, b, f32::powf, f64::powf, vm)
                }),
                negative: Some(|num, vm| unary32(num, |x| -x, vm)),
                positive: Some(|num, vm| unary32(num, |x| x, vm)),
                absolute: Some(|num, vm| unary32(num, f32::abs, vm)),
                boolean: Some(|num, _vm| Ok(value32(num.obj) != 0.0)),
                int: Some(|num, vm| {
                    rustpython_vm::builtins::try_f64_to_bigint(value32(num.obj) as f64, vm)
                        .map(|i| vm.ctx.new_int(i).into())
                }),
                float: Some(|num, vm| Ok(vm.ctx.new_float(value32(num.obj) as f64).into())),
                ..PyNumberMethods::NOT_IMPLEMENTED
            };
            &AS_NUMBER
        }
    }

    impl Constructor for PyFloat32 {
        type Args = OptionalArg<PyObjectRef>;

        /// `np.float32(x)`: a number, a string or a size-1 value rounded to single
        /// precision; an array or a sequence gives a float32 array, as NumPy's does.
        fn slot_new(_cls: PyTypeRef, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
            let x: OptionalArg<PyObjectRef> = args.bind(vm)?;
            let OptionalArg::Present(x) = x else {
                return Ok(new_float32(0.0, vm));
            };
            if let Some(s) = single(&x) {
                return Ok(new_float32(s.wide() as f32, vm));
            }
            let shaped = x
                .downcast_ref::<PyNdArray>()
                .is_some_and(|a| a.n_dims() > 0)
                || seq_items(&x).is_some();
            if shaped {
                let (a, _) = to_array(&x, vm)?;
                return Ok(new_arr(a.mapv(|v| v as f32 as f64), DType::Float32, vm));
            }
            // Strings, objects with `__float__`, 0-d arrays: through Python's float.
            let f = vm.ctx.types.float_type.as_object().call((x,), vm)?;
            Ok(new_float32(value(&f) as f32, vm))
        }

        fn py_new(_cls: &Py<PyType>, _args: Self::Args, _vm: &VirtualMachine) -> PyResult<Self> {
            unreachable!("slot_new builds float32 scalars")
        }
    }

    impl Representable for PyFloat32 {
        fn repr_str(zelf: &Py<Self>, _vm: &VirtualMachine) -> PyResult<String> {
            Ok(format!("np.float32({})", format::float32_scalar(zelf.0)))
        }
    }

    impl Comparable for PyFloat32 {
        /// Against a Python number, that number converted to float32 (NEP 50:
        /// `np.float32(0.1) == 0.1`); against a float64, in double precision.
        fn cmp(
            zelf: &Py<Self>,
            other: &PyObject,
            op: PyComparisonOp,
            _vm: &VirtualMachine,
        ) -> PyResult<PyComparisonValue> {
            let Some(y) = single(other) else {
                return Ok(PyComparisonValue::NotImplemented);
            };
            let (a, b) = match y {
                Single::F32(y) => (zelf.0 as f64, y as f64),
                Single::F64(y) => (zelf.0 as f64, y),
            };
            Ok(PyComparisonValue::Implemented(match op {
                PyComparisonOp::Lt => a < b,
                PyComparisonOp::Le => a <= b,
                PyComparisonOp::Eq => a == b,
                PyComparisonOp::Ne => a != b,
                PyComparisonOp::Gt => a > b,
                PyComparisonOp::Ge => a >= b,
            }))
        }
    }

    impl Hashable for PyFloat32 {
        /// The hash of the equal Python float.
        fn hash(
            zelf: &Py<Self>,
            vm: &VirtualMachine,
        ) -> PyResult<rustpython_vm::common::hash::PyHash> {
            let f: PyObjectRef = vm.ctx.new_float(zelf.0 as f64).into();
            f.hash(vm)
        }
    }

    impl GetAttr for PyFloat32 {
        fn getattro(zelf: &Py<Self>, name: &Py<PyStr>, vm: &VirtualMachine) -> PyResult {
            array_attr(zelf.as_object(), name, || as_array32(zelf.0, vm), vm)
        }
    }

    /// A 0-d float32 array holding `v`.
    fn as_array32(v: f32, vm: &VirtualMachine) -> PyObjectRef {
        new_arr(ArrayD::from_elem(IxDyn(&[]), v as f64), DType::Float32, vm)
    }

    #[pyclass(with(Constructor, AsNumber, Representable, Comparable, Hashable, GetAttr))]
    impl PyFloat32 {
        #[pyslot]
        fn slot_str(zelf: &PyObject, vm: &VirtualMachine) -> PyResult<PyStrRef> {
            Ok(vm.ctx.new_str(format::float32_scalar(value32(zelf))))
        }
        #[pygetset]
        fn dtype(&self, vm: &VirtualMachine) -> PyObjectRef {
            dtype_obj(DType::Float32, vm)
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
            4
        }
        #[pygetset]
        fn nbytes(&self) -> usize {
            4
        }
        #[pymethod]
        fn item(&self, vm: &VirtualMachine) -> PyObjectRef {
            vm.ctx.new_float(self.0 as f64).into()
        }
        #[pymethod]
        fn tolist(&self, vm: &VirtualMachine) -> PyObjectRef {
            self.item(vm)
        }
        #[pymethod]
        fn astype(&self, dtype: PyObjectRef, vm: &VirtualMachine) -> PyResult {
            let dt = parse_dtype(&dtype, vm)?.unwrap_or(DType::Float64);
            Ok(py_scalar(dt.cast(self.0 as f64), dt, vm))
        }
        #[pymethod]
        fn __array__(&self, vm: &VirtualMachine) -> PyObjectRef {
            as_array32(self.0, vm)
        }
        /// `round(x)` is Python's int; `round(x, n)` a float32, as NumPy's.
        #[pymethod]
        fn __round__(&self, ndigits: OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult {
            let f: PyObjectRef = vm.ctx.new_float(self.0 as f64).into();
            match ndigits {
                OptionalArg::Present(n) if !vm.is_none(&n) => {
                    let round = as_array32(self.0, vm).get_attr("round", vm)?;
                    Ok(scalar_result(round.call((n,), vm)?, vm))
                }
                _ => vm.call_method(&f, "__round__", ()),
            }
        }
        /// As Python's float of the value (`f'{x}'` is `str(float(x))`, as NumPy's).
        #[pymethod]
        fn __format__(&self, spec: PyStrRef, vm: &VirtualMachine) -> PyResult {
            let f: PyObjectRef = vm.ctx.new_float(self.0 as f64).into();
            vm.call_method(&f, "__format__", (spec,))
        }
        #[pymethod]
        fn is_integer(&self) -> bool {
            self.0.is_finite() && self.0.fract() == 0.0
        }
        #[pymethod]
        fn as_integer_ratio(&self, vm: &VirtualMachine) -> PyResult {
            let f: PyObjectRef = vm.ctx.new_float(self.0 as f64).into();
            vm.call_method(&f, "as_integer_ratio", ())
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
