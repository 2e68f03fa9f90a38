//! Constructors: array, zeros, ones, full, eye, arange, linspace and the like.

pub(crate) use self::_construct::*;

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _construct {
    use crate::native::prelude::*;
    #[derive(FromArgs)]
    pub(crate) struct ArrayArgs {
        #[pyarg(positional)]
        object: PyObjectRef,
        #[pyarg(any, optional)]
        dtype: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = true)]
        copy: bool,
        #[pyarg(any, default = 0)]
        ndmin: usize,
    }

    pub(crate) fn make_array(
        obj: &PyObject,
        want: Option<DType>,
        ndmin: usize,
        vm: &VirtualMachine,
    ) -> PyResult<PyObjectRef> {
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            // An array: a copy in its own type (or cast), no detour through f64.
            let data = a.read_typed().typed().astype(want.unwrap_or(a.dtype));
            let data = with_elems!(Elements, data, mut x => {
                while x.ndim() < ndmin {
                    x.insert_axis_inplace(Axis(0));
                }
                Elements::from(x)
            });
            return Ok(PyNdArray::from_elements(data).into_pyobject(vm));
        }
        if let Some(arr) = array_protocol(obj, vm)? {
            return make_array(&arr, want, ndmin, vm);
        }
        let (mut arr, d) = to_array(obj, vm)?;
        let dt = want.unwrap_or(d);
        if d == DType::Int64
            && matches!(dt, DType::Int64)
            && arr.iter().any(|x| x.abs() >= 9.007_199_254_740_992e15)
        {
            // Python ints past 2**53: read them again exactly.
            let mut ints = Vec::with_capacity(arr.len());
            if exact_ints(obj, &mut ints, vm)? && ints.len() == arr.len() {
                let mut x = ArrayD::from_shape_vec(arr.raw_dim(), ints).expect("same size");
                while x.ndim() < ndmin {
                    x.insert_axis_inplace(Axis(0));
                }
                return Ok(PyNdArray::from_elements(Elements::I64(x)).into_pyobject(vm));
            }
        }
        if dt != d && dt != DType::Float64 {
            arr.mapv_inplace(|x| dt.cast(x));
        }
        while arr.ndim() < ndmin {
            arr.insert_axis_inplace(Axis(0));
        }
        Ok(new_arr(arr, dt, vm))
    }

    /// The Python ints of a nested sequence, exactly, in C order; false if some item
    /// is not an int (NumPy's OverflowError for ints outside int64).
    fn exact_ints(obj: &PyObject, out: &mut Vec<i64>, vm: &VirtualMachine) -> PyResult<bool> {
        if let Some(items) = seq_items(obj) {
            for it in items {
                if !exact_ints(&it, out, vm)? {
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            if !matches!(a.dtype, DType::Int64 | DType::Bool) {
                return Ok(false);
            }
            let g = a.read_typed();
            out.extend(g.typed().cast_to::<i64>().iter().copied());
            return Ok(true);
        }
        match obj.downcast_ref::<PyInt>() {
            Some(i) => match i.as_bigint().to_i64() {
                Some(v) => {
                    out.push(v);
                    Ok(true)
                }
                None => Err(vm.new_overflow_error(format!(
                    "Python integer {} out of bounds for int64",
                    i.as_bigint()
                ))),
            },
            None => Ok(false),
        }
    }

    #[pyfunction]
    pub(crate) fn array(args: ArrayArgs, vm: &VirtualMachine) -> PyResult {
        let want = opt_dtype(&args.dtype, vm)?;
        let _ = args.copy;
        make_array(&args.object, want, args.ndmin, vm)
    }

    #[pyfunction]
    pub(crate) fn asarray(a: PyObjectRef, kw: DtypeKw, vm: &VirtualMachine) -> PyResult {
        let dtype = kw.dtype;
        let want = opt_dtype(&dtype, vm)?;
        if let Some(arr) = a.downcast_ref::<PyNdArray>() {
            if want.is_none() || want == Some(arr.dtype) {
                return Ok(a);
            }
        }
        make_array(&a, want, 0, vm)
    }

    #[pyfunction]
    pub(crate) fn copy(a: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        make_array(&a, None, 0, vm)
    }

    pub(crate) fn filled(
        shape: &PyObject,
        v: f64,
        dtype: &OptionalArg<PyObjectRef>,
        default: DType,
        vm: &VirtualMachine,
    ) -> PyResult {
        let shape = parse_shape(shape, vm)?;
        let dt = opt_dtype(dtype, vm)?.unwrap_or(default);
        Ok(PyNdArray::from_elements(Elements::full(&shape, v, dt)).into_pyobject(vm))
    }

    #[pyfunction]
    pub(crate) fn zeros(shape: PyObjectRef, kw: DtypeKw, vm: &VirtualMachine) -> PyResult {
        let dtype = kw.dtype;
        filled(&shape, 0.0, &dtype, DType::Float64, vm)
    }
    #[pyfunction]
    pub(crate) fn ones(shape: PyObjectRef, kw: DtypeKw, vm: &VirtualMachine) -> PyResult {
        let dtype = kw.dtype;
        filled(&shape, 1.0, &dtype, DType::Float64, vm)
    }
    #[pyfunction]
    pub(crate) fn empty(shape: PyObjectRef, kw: DtypeKw, vm: &VirtualMachine) -> PyResult {
        let dtype = kw.dtype;
        filled(&shape, 0.0, &dtype, DType::Float64, vm)
    }
    /// A Python int fill value of an int64 array, exactly (past 2**53 too).
    fn refill_exact(out: &PyObject, fill: &PyObject, vm: &VirtualMachine) -> PyResult<()> {
        let Some(i) = fill.downcast_ref::<PyInt>() else {
            return Ok(());
        };
        let arr = out.downcast_ref::<PyNdArray>().expect("an ndarray");
        if arr.dtype != DType::Int64 {
            return Ok(());
        }
        let Some(v) = i.as_bigint().to_i64() else {
            return Err(vm.new_overflow_error(format!(
                "Python integer {} out of bounds for int64",
                i.as_bigint()
            )));
        };
        let mut w = arr.write(vm)?;
        if let ElemViewMut::I64(mut t) = w.typed_mut() {
            t.fill(v);
        }
        Ok(())
    }

    #[pyfunction]
    pub(crate) fn full(
        shape: PyObjectRef,
        fill_value: PyObjectRef,
        kw: DtypeKw,
        vm: &VirtualMachine,
    ) -> PyResult {
        let dtype = kw.dtype;
        let (v, d) = fill_scalar(&fill_value, "full", vm)?;
        let out = filled(&shape, v, &dtype, d, vm)?;
        refill_exact(&out, &fill_value, vm)?;
        Ok(out)
    }

    /// A fill value's number and dtype (a complex one is refused the way every complex
    /// input is, so that the complex version of the function takes over).
    fn fill_scalar(value: &PyObject, what: &str, vm: &VirtualMachine) -> PyResult<(f64, DType)> {
        if let Some(found) = scalar_of(value, vm) {
            return Ok(found);
        }
        if value
            .downcast_ref::<rustpython_vm::builtins::PyComplex>()
            .is_some()
        {
            return Err(vm.new_not_implemented_error(core::COMPLEX_UNSUPPORTED));
        }
        Err(vm.new_type_error(format!("{what}: fill_value must be a number")))
    }

    pub(crate) fn like(
        a: &PyObject,
        v: f64,
        dtype: &OptionalArg<PyObjectRef>,
        // NumPy's `*_like` keep the prototype's dtype whatever the fill value's is.
        _fill_dtype: Option<DType>,
        vm: &VirtualMachine,
    ) -> PyResult {
        let (shape, d) = match a.downcast_ref::<PyNdArray>() {
            Some(arr) => (arr.shape_vec(), arr.dtype),
            None => {
                let (x, d) = to_array(a, vm)?;
                (x.shape().to_vec(), d)
            }
        };
        let dt = opt_dtype(dtype, vm)?.unwrap_or(d);
        Ok(PyNdArray::from_elements(Elements::full(&shape, v, dt)).into_pyobject(vm))
    }

    #[pyfunction]
    pub(crate) fn zeros_like(a: PyObjectRef, kw: DtypeKw, vm: &VirtualMachine) -> PyResult {
        let dtype = kw.dtype;
        like(&a, 0.0, &dtype, None, vm)
    }
    #[pyfunction]
    pub(crate) fn ones_like(a: PyObjectRef, kw: DtypeKw, vm: &VirtualMachine) -> PyResult {
        let dtype = kw.dtype;
        like(&a, 1.0, &dtype, None, vm)
    }
    #[pyfunction]
    pub(crate) fn empty_like(a: PyObjectRef, kw: DtypeKw, vm: &VirtualMachine) -> PyResult {
        let dtype = kw.dtype;
        like(&a, 0.0, &dtype, None, vm)
    }
    #[pyfunction]
    pub(crate) fn full_like(
        a: PyObjectRef,
        fill_value: PyObjectRef,
        kw: DtypeKw,
        vm: &VirtualMachine,
    ) -> PyResult {
        let dtype = kw.dtype;
        let (v, d) = fill_scalar(&fill_value, "full_like", vm)?;
        let out = like(&a, v, &dtype, Some(d), vm)?;
        refill_exact(&out, &fill_value, vm)?;
        Ok(out)
    }

    #[derive(FromArgs)]
    pub(crate) struct ArangeArgs {
        #[pyarg(positional)]
        start: PyObjectRef,
        #[pyarg(positional, optional)]
        stop: OptionalArg<PyObjectRef>,
        #[pyarg(positional, optional)]
        step: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        dtype: OptionalArg<PyObjectRef>,
    }

    #[pyfunction]
    pub(crate) fn arange(args: ArangeArgs, vm: &VirtualMachine) -> PyResult {
        let num = |o: &PyObject| {
            scalar_of(o, vm).ok_or_else(|| vm.new_type_error("arange: arguments must be numbers"))
        };
        let (a, da) = num(&args.start)?;
        let (start, stop, mut dt) = match args.stop.as_option() {
            Some(s) if !vm.is_none(s) => {
                let (b, db) = num(s)?;
                (a, b, da.max(db))
            }
            _ => (0.0, a, da),
        };
        let step = match args.step.as_option() {
            Some(s) if !vm.is_none(s) => {
                let (c, dc) = num(s)?;
                dt = dt.max(dc);
                c
            }
            _ => 1.0,
        };
        if step == 0.0 {
            return Err(vm.new_exception_msg(
                vm.ctx.exceptions.zero_division_error.to_owned(),
                "division by zero".into(),
            ));
        }
        if dt == DType::Bool {
            dt = DType::Int64;
        }
        let dt = opt_dtype(&args.dtype, vm)?.unwrap_or(dt);
        let exact = |o: Option<&PyObjectRef>| match o {
            None => Some(None),
            Some(o) if vm.is_none(o) => Some(None),
            Some(o) => o
                .downcast_ref::<PyInt>()
                .and_then(|i| i.as_bigint().to_i64())
                .map(Some),
        };
        if dt == DType::Int64 {
            // Integer ranges in i64 (exact past 2**53).
            if let (Some(Some(a)), Some(b), Some(c)) = (
                exact(Some(&args.start)),
                exact(args.stop.as_option()),
                exact(args.step.as_option()),
            ) {
                let (start, stop) = match b {
                    Some(b) => (a as i128, b as i128),
                    None => (0, a as i128),
                };
                let step = c.unwrap_or(1) as i128;
                let n = if (stop - start) * step.signum() <= 0 {
                    0
                } else {
                    ((stop - start).abs() + step.abs() - 1) / step.abs()
                };
                let data: Vec<i64> = (0..n).map(|i| (start + i * step) as i64).collect();
                let arr = ArrayD::from_shape_vec(IxDyn(&[n as usize]), data).unwrap();
                return Ok(PyNdArray::from_elements(Elements::I64(arr)).into_pyobject(vm));
            }
        }
        let n = ((stop - start) / step).ceil().max(0.0) as usize;
        let data: Vec<f64> = (0..n).map(|i| dt.cast(start + i as f64 * step)).collect();
        Ok(new_arr(
            ArrayD::from_shape_vec(IxDyn(&[n]), data).unwrap(),
            dt,
            vm,
        ))
    }

    #[derive(FromArgs)]
    pub(crate) struct LinspaceArgs {
        #[pyarg(any)]
        start: rustpython_vm::function::ArgIntoFloat,
        #[pyarg(any)]
        stop: rustpython_vm::function::ArgIntoFloat,
        #[pyarg(any, default = 50)]
        num: usize,
        #[pyarg(any, default = true)]
        endpoint: bool,
        #[pyarg(any, default = false)]
        retstep: bool,
        #[pyarg(any, optional)]
        dtype: OptionalArg<PyObjectRef>,
    }

    #[pyfunction]
    pub(crate) fn linspace(args: LinspaceArgs, vm: &VirtualMachine) -> PyResult {
        let (start, stop) = (args.start.into_float(), args.stop.into_float());
        let n = args.num;
        let div = if args.endpoint {
            n.saturating_sub(1)
        } else {
            n
        };
        let step = if div > 0 {
            (stop - start) / div as f64
        } else {
            f64::NAN
        };
        let mut data: Vec<f64> = (0..n)
            .map(|i| {
                if div > 0 {
                    start + i as f64 * step
                } else {
                    start
                }
            })
            .collect();
        if args.endpoint && n > 1 {
            data[n - 1] = stop;
        }
        let dt = opt_dtype(&args.dtype, vm)?.unwrap_or(DType::Float64);
        if dt == DType::Float32 {
            data.iter_mut().for_each(|x| *x = dt.cast(*x));
        } else if dt != DType::Float64 {
            data.iter_mut().for_each(|x| *x = dt.cast(x.floor()));
        }
        let arr = new_arr(ArrayD::from_shape_vec(IxDyn(&[n]), data).unwrap(), dt, vm);
        if args.retstep {
            return Ok(vm
                .ctx
                .new_tuple(vec![arr, vm.ctx.new_float(step).into()])
                .into());
        }
        Ok(arr)
    }

    #[derive(FromArgs)]
    pub(crate) struct EyeArgs {
        #[pyarg(any)]
        n: usize,
        #[pyarg(any, optional)]
        m: OptionalArg<Option<usize>>,
        #[pyarg(any, default = 0)]
        k: isize,
        #[pyarg(any, optional)]
        dtype: OptionalArg<PyObjectRef>,
    }

    #[pyfunction]
    pub(crate) fn eye(args: EyeArgs, vm: &VirtualMachine) -> PyResult {
        let n = args.n;
        let m = args.m.flatten().unwrap_or(n);
        let dt = opt_dtype(&args.dtype, vm)?.unwrap_or(DType::Float64);
        let mut a = ArrayD::zeros(IxDyn(&[n, m]));
        for i in 0..n {
            let j = i as isize + args.k;
            if j >= 0 && (j as usize) < m {
                a[[i, j as usize]] = 1.0;
            }
        }
        Ok(new_arr(a, dt, vm))
    }

    #[pyfunction]
    pub(crate) fn identity(n: usize, kw: DtypeKw, vm: &VirtualMachine) -> PyResult {
        let dtype = kw.dtype;
        let dt = opt_dtype(&dtype, vm)?.unwrap_or(DType::Float64);
        let mut a = ArrayD::zeros(IxDyn(&[n, n]));
        for i in 0..n {
            a[[i, i]] = 1.0;
        }
        Ok(new_arr(a, dt, vm))
    }
}
