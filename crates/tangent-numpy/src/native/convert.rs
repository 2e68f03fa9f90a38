//! Conversions between Python objects and arrays: scalars, nested sequences, dtype arguments.

pub(crate) use self::_convert::*;

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _convert {
    use crate::native::prelude::*;
    /// A Python bool/int/float (or subclass) or a `numpy.float32` as a value and its
    /// dtype.
    #[inline]
    pub(crate) fn scalar_of(obj: &PyObject, vm: &VirtualMachine) -> Option<(f64, DType)> {
        if let Some(f) = float32_value(obj) {
            return Some((f as f64, DType::Float32));
        }
        if let Some(f) = obj.downcast_ref::<PyFloat>() {
            return Some((f.to_f64(), DType::Float64));
        }
        if let Some(i) = obj.downcast_ref::<PyInt>() {
            let dt = if obj.class().is(vm.ctx.types.bool_type) {
                DType::Bool
            } else {
                DType::Int64
            };
            return Some((i.as_bigint().to_f64().unwrap_or(f64::NAN), dt));
        }
        None
    }

    /// A Python scalar, weak in NumPy 2's promotion (NEP 50); NumPy's scalars
    /// (`numpy.float64`, `numpy.float32`) are not.
    pub(crate) fn is_weak_scalar(obj: &PyObject, vm: &VirtualMachine) -> bool {
        scalar_of(obj, vm).is_some() && !is_float64(obj) && float32_value(obj).is_none()
    }

    pub(crate) fn seq_items(obj: &PyObject) -> Option<Vec<PyObjectRef>> {
        if let Some(l) = obj.downcast_ref::<PyList>() {
            return Some(l.borrow_vec().to_vec());
        }
        if let Some(t) = obj.downcast_ref::<PyTuple>() {
            return Some(t.as_slice().to_vec());
        }
        None
    }

    pub(crate) fn inhomogeneous(
        shape: &[usize],
        depth: usize,
        vm: &VirtualMachine,
    ) -> rustpython_vm::builtins::PyBaseExceptionRef {
        vm.new_value_error(format!(
            "setting an array element with a sequence. The requested array has an inhomogeneous shape after {} dimensions. The detected shape was {} + inhomogeneous part.",
            depth,
            core::shape_tuple(&shape[..depth])
        ))
    }

    pub(crate) fn fill_nested(
        obj: &PyObject,
        depth: usize,
        shape: &[usize],
        data: &mut Vec<f64>,
        dt: &mut DType,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        if let Some((v, d)) = scalar_of(obj, vm) {
            if depth != shape.len() {
                return Err(inhomogeneous(shape, depth, vm));
            }
            data.push(v);
            *dt = (*dt).promote(d);
            return Ok(());
        }
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            let g_lock = a.read();
            let g = g_lock.view();
            if g.shape() != &shape[depth..] {
                return Err(inhomogeneous(shape, depth, vm));
            }
            data.extend(g.iter().copied());
            *dt = (*dt).promote(a.dtype);
            return Ok(());
        }
        if let Some(items) = seq_items(obj) {
            if depth == shape.len() || items.len() != shape[depth] {
                return Err(inhomogeneous(shape, depth.min(shape.len()), vm));
            }
            for it in &items {
                fill_nested(it, depth + 1, shape, data, dt, vm)?;
            }
            return Ok(());
        }
        if depth != shape.len() {
            return Err(inhomogeneous(shape, depth, vm));
        }
        if obj
            .downcast_ref::<rustpython_vm::builtins::PyComplex>()
            .is_some()
        {
            return Err(vm.new_not_implemented_error(core::COMPLEX_UNSUPPORTED));
        }
        // Other objects: anything float() accepts.
        let f = obj.try_float(vm).map_err(|e| {
            if super::super::complex::_complex::is_complex_refusal(&e, vm) {
                // A complex array inside a list (`__float__` refuses): the caller's
                // complex implementation takes over.
                return e;
            }
            vm.new_type_error(format!(
                "float() argument must be a string or a real number, not '{}'",
                obj.class().name()
            ))
        })?;
        data.push(f.to_f64());
        *dt = (*dt).promote(DType::Float64);
        Ok(())
    }

    /// The array an object that is none of the built-in array-likes gives through
    /// NumPy's `__array__` protocol (`numpy.poly1d`, a user's container class).
    pub(crate) fn array_protocol(
        obj: &PyObject,
        vm: &VirtualMachine,
    ) -> PyResult<Option<PyObjectRef>> {
        if obj.downcast_ref::<PyNdArray>().is_some()
            || seq_items(obj).is_some()
            || obj.class().fast_issubclass(vm.ctx.types.str_type)
            || scalar_of(obj, vm).is_some()
        {
            return Ok(None);
        }
        let Some(method) = vm.get_attribute_opt(obj.to_owned(), "__array__")? else {
            return Ok(None);
        };
        let arr = method.call((), vm)?;
        if arr.downcast_ref::<PyNdArray>().is_none() {
            return Err(vm.new_value_error("object __array__ method not producing an array"));
        }
        Ok(Some(arr))
    }

    /// Any array-like (ndarray, scalar, nested lists/tuples, `__array__`) as an owned
    /// array.
    pub(crate) fn to_array(obj: &PyObject, vm: &VirtualMachine) -> PyResult<(ArrayD<f64>, DType)> {
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            return Ok((core::to_standard(a.read().view()), a.dtype));
        }
        if let Some((v, d)) = scalar_of(obj, vm) {
            return Ok((ArrayD::from_elem(IxDyn(&[]), v), d));
        }
        if let Some(arr) = array_protocol(obj, vm)? {
            return to_array(&arr, vm);
        }
        if seq_items(obj).is_none() && !obj.class().fast_issubclass(vm.ctx.types.str_type) {
            // other iterables (range, generators, map objects...): materialize first
            if let Ok(it) = obj.get_iter(vm) {
                let mut items = Vec::new();
                while let rustpython_vm::protocol::PyIterReturn::Return(o) = it.next(vm)? {
                    items.push(o);
                }
                let list: PyObjectRef = vm.ctx.new_list(items).into();
                return to_array(&list, vm);
            }
        }
        let mut shape = Vec::new();
        let mut cur = obj.to_owned();
        loop {
            if let Some(items) = seq_items(&cur) {
                shape.push(items.len());
                if items.is_empty() {
                    break;
                }
                cur = items[0].clone();
            } else if let Some(a) = cur.downcast_ref::<PyNdArray>() {
                shape.extend(a.shape_vec());
                break;
            } else {
                break;
            }
        }
        let n: usize = shape.iter().product();
        let mut data = Vec::with_capacity(n);
        let mut dt = if n == 0 { DType::Float64 } else { DType::Bool };
        fill_nested(obj, 0, &shape, &mut data, &mut dt, vm)?;
        Ok((ArrayD::from_shape_vec(IxDyn(&shape), data).unwrap(), dt))
    }

    /// Runs `f` on a borrowed view of any array-like.
    pub(crate) fn with_arr<R>(
        obj: &PyObject,
        vm: &VirtualMachine,
        f: impl FnOnce(ArrayViewD<'_, f64>, DType) -> PyResult<R>,
    ) -> PyResult<R> {
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            refuse_inexact_ints(a, vm)?;
            let g_lock = a.read();
            let g = g_lock.view();
            return f(g.view(), a.dtype);
        }
        let (arr, dt) = to_array(obj, vm)?;
        f(arr.view(), dt)
    }

    /// The functions without an int64 kernel compute in f64, where int64 values past
    /// 2**53 would round: they refuse such arrays rather than give a rounded number.
    pub(crate) fn refuse_inexact_ints(a: &PyNdArray, vm: &VirtualMachine) -> PyResult<()> {
        const EXACT: i64 = 1 << 53;
        if let ElemView::I64(v) = a.read_typed().typed() {
            if let Some(x) = v.iter().find(|x| !(-EXACT..=EXACT).contains(*x)) {
                return Err(vm.new_not_implemented_error(format!(
                    "this function of the embedded numpy computes int64 arrays in float64, \
                     where {x} (past 2**53) would round; it refuses rather than give a \
                     rounded result (arithmetic, comparisons, sum/prod/max/min, sort, \
                     indexing, `@` and the shape functions are exact; run the script under \
                     CPython with real NumPy: `tangent run --python PYTHON script.py`)"
                )));
            }
        }
        Ok(())
    }

    /// `f`, an operation that only moves elements or inserts zeros (tile, repeat, roll,
    /// diag), applied to an array-like. For arrays other than float64, `f` runs on the
    /// elements' positions (1, 2, ...; an inserted zero stays 0) and the result gathers
    /// the elements in their own type, so no value passes through f64.
    pub(crate) fn moved(
        obj: &PyObject,
        vm: &VirtualMachine,
        f: impl FnOnce(ArrayViewD<'_, f64>, DType) -> PyResult<ArrayD<f64>>,
    ) -> PyResult {
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            if a.dtype != DType::Float64 {
                let src = a.read_typed().typed().to_owned_elements();
                let pos: ArrayD<f64> = ArrayD::from_shape_vec(
                    src.raw_dim(),
                    (1..=src.len()).map(|p| p as f64).collect(),
                )
                .expect("one position per element");
                let out = f(pos.view(), a.dtype)?;
                let e = with_elems!(Elements, &src, s => {
                    let s = elements(s);
                    Elements::from(out.mapv(|p| if p == 0.0 { Element::zero() } else { s[p as usize - 1] }))
                });
                return Ok(PyNdArray::from_elements(e).into_pyobject(vm));
            }
        }
        with_arr(obj, vm, |v, d| Ok(new_arr(f(v, d)?, d, vm)))
    }

    pub(crate) fn parse_dtype(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Option<DType>> {
        if vm.is_none(obj) {
            return Ok(None);
        }
        if let Some(d) = obj.downcast_ref::<PyDType>() {
            return Ok(Some(d.dt));
        }
        if obj.is(vm.ctx.types.float_type)
            || obj.is(<PyFloat64 as rustpython_vm::class::StaticType>::static_type())
        {
            return Ok(Some(DType::Float64));
        }
        if obj.is(<PyFloat32 as rustpython_vm::class::StaticType>::static_type()) {
            return Ok(Some(DType::Float32));
        }
        if obj.is(vm.ctx.types.int_type) {
            return Ok(Some(DType::Int64));
        }
        if obj.is(vm.ctx.types.bool_type) {
            return Ok(Some(DType::Bool));
        }
        if obj.is(vm.ctx.types.complex_type) {
            return Err(vm.new_not_implemented_error(core::COMPLEX_UNSUPPORTED));
        }
        if let Some(s) = obj.downcast_ref::<PyStr>() {
            if let Some(d) = DType::from_name(&s.to_string_lossy()) {
                return Ok(Some(d));
            }
            if core::is_complex_name(&s.to_string_lossy()) {
                return Err(vm.new_not_implemented_error(core::COMPLEX_UNSUPPORTED));
            }
            return Err(vm.new_type_error(format!(
                "data type '{}' not understood",
                s.to_string_lossy()
            )));
        }
        // classes carrying a dtype name, e.g. shim-defined scalar types
        if let Ok(name) = obj.get_attr("__name__", vm) {
            if let Some(s) = name.downcast_ref::<PyStr>() {
                if let Some(d) = DType::from_name(&s.to_string_lossy()) {
                    return Ok(Some(d));
                }
                if core::is_complex_name(&s.to_string_lossy()) {
                    return Err(vm.new_not_implemented_error(core::COMPLEX_UNSUPPORTED));
                }
            }
        }
        // the shim's complex dtypes (`z.dtype`: `dtype('complex128')`), by their `name`
        if let Ok(name) = obj.get_attr("name", vm) {
            if let Some(s) = name.downcast_ref::<PyStr>() {
                if core::is_complex_name(&s.to_string_lossy()) {
                    return Err(vm.new_not_implemented_error(core::COMPLEX_UNSUPPORTED));
                }
            }
        }
        Err(vm.new_type_error(format!(
            "data type {} not understood",
            obj.repr(vm)?.to_string_lossy()
        )))
    }

    pub(crate) fn opt_dtype(
        arg: &OptionalArg<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> PyResult<Option<DType>> {
        match arg {
            OptionalArg::Present(o) => parse_dtype(o, vm),
            OptionalArg::Missing => Ok(None),
        }
    }

    pub(crate) fn to_isize(obj: &PyObject, vm: &VirtualMachine) -> PyResult<isize> {
        if let Some(i) = obj.downcast_ref::<PyInt>() {
            return i.try_to_primitive::<isize>(vm);
        }
        if obj.downcast_ref::<PyFloat>().is_some() {
            return Err(vm.new_type_error("'float' object cannot be interpreted as an integer"));
        }
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            let g_lock = a.read();
            let g = g_lock.view();
            if g.len() == 1 && !a.dtype.is_float() {
                return Ok(*g.iter().next().unwrap() as isize);
            }
        }
        obj.try_index(vm)?.try_to_primitive::<isize>(vm)
    }

    /// A shape argument: an int or a sequence of ints (may contain -1 for reshape).
    pub(crate) fn parse_shape_req(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Vec<isize>> {
        if let Some(items) = seq_items(obj) {
            return items.iter().map(|o| to_isize(o, vm)).collect();
        }
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            if !a.dtype.is_float() {
                return Ok(a.read().view().iter().map(|&x| x as isize).collect());
            }
        }
        Ok(vec![to_isize(obj, vm)?])
    }

    pub(crate) fn parse_shape(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Vec<usize>> {
        let req = parse_shape_req(obj, vm)?;
        req.iter()
            .map(|&d| {
                if d < 0 {
                    Err(vm.new_value_error("negative dimensions are not allowed"))
                } else {
                    Ok(d as usize)
                }
            })
            .collect()
    }

    /// `axis=`: None, an int or a tuple of ints, normalized.
    pub(crate) fn parse_axes(
        obj: Option<&PyObject>,
        ndim: usize,
        vm: &VirtualMachine,
    ) -> PyResult<Option<Vec<usize>>> {
        let obj = match obj {
            None => return Ok(None),
            Some(o) if vm.is_none(o) => return Ok(None),
            Some(o) => o,
        };
        let req: Vec<isize> = match seq_items(obj) {
            Some(items) => items
                .iter()
                .map(|o| to_isize(o, vm))
                .collect::<PyResult<_>>()?,
            None => vec![to_isize(obj, vm)?],
        };
        Ok(Some(
            core::norm_axes(&req, ndim).map_err(|e| axis_err(e, vm))?,
        ))
    }

    /// Out-of-range axes raise `numpy.AxisError` (defined by the shim as a subclass of
    /// both ValueError and IndexError, like NumPy's).
    pub(crate) fn axis_err(
        e: NpErr,
        vm: &VirtualMachine,
    ) -> rustpython_vm::builtins::PyBaseExceptionRef {
        match e {
            NpErr::Index(m) => {
                // AxisError is defined by the shim (subclass of ValueError and IndexError).
                if let Ok(np) = vm.import("numpy", 0) {
                    if let Ok(cls) = np.get_attr("AxisError", vm) {
                        if let Ok(cls) = cls.downcast::<PyType>() {
                            return vm.new_exception_msg(cls, m.into());
                        }
                    }
                }
                vm.new_value_error(m)
            }
            other => np_err(other, vm),
        }
    }

    pub(crate) fn one_axis(obj: &PyObject, ndim: usize, vm: &VirtualMachine) -> PyResult<usize> {
        let a = to_isize(obj, vm)?;
        core::norm_axis(a, ndim).map_err(|e| axis_err(e, vm))
    }

    #[derive(FromArgs)]
    pub(crate) struct DtypeKw {
        #[pyarg(any, optional)]
        pub(crate) dtype: OptionalArg<PyObjectRef>,
    }

    #[derive(FromArgs)]
    pub(crate) struct AxisKw {
        #[pyarg(any, optional)]
        pub(crate) axis: OptionalArg<PyObjectRef>,
    }

    #[derive(FromArgs)]
    pub(crate) struct AxesKw {
        #[pyarg(any, optional)]
        pub(crate) axes: OptionalArg<PyObjectRef>,
    }
}
