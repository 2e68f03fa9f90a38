//! Shape functions and introspection: reshape, transpose, concatenate, stack, split, tile, pad, shape, ndim, size.

pub(crate) use self::_shape::*;

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _shape {
    use crate::native::prelude::*;
    /// `reshape`: a view when the window can be re-strided (NumPy's rule), else a copy.
    pub(crate) fn reshape_impl(obj: &PyObject, req: Vec<isize>, vm: &VirtualMachine) -> PyResult {
        view_op(obj, false, vm, |v, _| {
            let shape = core::resolve_shape(&req, v.len()).py(vm)?;
            if v.is_empty() {
                return Ok(Derived::Copy(ArrayD::zeros(IxDyn(&shape))));
            }
            Ok(match core::nocopy_reshape(v.shape(), v.strides(), &shape) {
                Some(strides) => Derived::View {
                    ptr: v.as_ptr() as usize,
                    shape,
                    strides,
                },
                None => Derived::Copy(core::reshape(v, &shape)),
            })
        })
    }

    /// A C-ordered 1-D copy (`flatten`, `flat`).
    pub(crate) fn flatten_impl(obj: &PyObject, vm: &VirtualMachine) -> PyResult {
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            let g = a.read_typed();
            let n = a.len();
            let e = with_elems!(ElemView, g.typed(), v => Elements::from(core::reshape(v, &[n])));
            return Ok(PyNdArray::from_elements(e).into_pyobject(vm));
        }
        with_arr(obj, vm, |v, d| {
            let n = v.len();
            Ok(new_arr(core::reshape(v, &[n]), d, vm))
        })
    }

    /// `shape` given as one tuple/int or as several ints.
    pub(crate) fn shape_from_args(
        args: &[PyObjectRef],
        vm: &VirtualMachine,
    ) -> PyResult<Vec<isize>> {
        if args.len() == 1 {
            parse_shape_req(&args[0], vm)
        } else {
            args.iter().map(|o| to_isize(o, vm)).collect()
        }
    }

    #[pyfunction]
    pub(crate) fn reshape(a: PyObjectRef, newshape: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let req = parse_shape_req(&newshape, vm)?;
        reshape_impl(&a, req, vm)
    }

    pub(crate) fn transpose_impl(
        obj: &PyObject,
        axes: Option<Vec<isize>>,
        vm: &VirtualMachine,
    ) -> PyResult {
        view_op(obj, false, vm, |v, _| {
            let nd = v.ndim();
            let perm: Vec<usize> = match axes {
                None => (0..nd).rev().collect(),
                Some(ax) => {
                    if ax.len() != nd {
                        return Err(vm.new_value_error("axes don't match array"));
                    }
                    core::norm_axes(&ax, nd).map_err(|e| axis_err(e, vm))?
                }
            };
            Ok(derived(&v.permuted_axes(IxDyn(&perm))))
        })
    }

    #[pyfunction]
    pub(crate) fn transpose(a: PyObjectRef, kw: AxesKw, vm: &VirtualMachine) -> PyResult {
        let axes = kw.axes;
        let axes = match axes.as_option() {
            Some(o) if !vm.is_none(o) => Some(parse_shape_req(o, vm)?),
            _ => None,
        };
        transpose_impl(&a, axes, vm)
    }

    /// The `order=` of `ravel` and `flatten`, by position or by name.
    #[derive(FromArgs)]
    pub(crate) struct OrderArg {
        #[pyarg(any, optional)]
        pub(crate) order: OptionalArg<PyStrRef>,
    }

    #[pyfunction]
    pub(crate) fn ravel(a: PyObjectRef, order: OrderArg, vm: &VirtualMachine) -> PyResult {
        ravel_in(&a, order.order.into_option(), false, vm)
    }

    /// `ravel(order=)` (a view where NumPy gives one) or, with `copy`, `flatten(order=)`:
    /// 'C' row-major, 'F' column-major, 'A' column-major for an array laid out so and
    /// 'K' memory order (for C- and F-contiguous arrays; others are refused).
    pub(crate) fn ravel_in(
        a: &PyObject,
        order: Option<PyStrRef>,
        copy: bool,
        vm: &VirtualMachine,
    ) -> PyResult {
        let order = order.map_or_else(|| "C".to_owned(), |o| o.to_string_lossy().into_owned());
        let (c, f) = match a.downcast_ref::<PyNdArray>() {
            Some(arr) => {
                let (c, f, ..) = arr.flag_values();
                (c, f)
            }
            None => (true, false),
        };
        let column_major = match order.as_str() {
            "C" | "c" => false,
            "F" | "f" => true,
            "A" | "a" => f && !c,
            "K" | "k" if c || f => !c,
            "K" | "k" => {
                return Err(vm.new_not_implemented_error(
                    "ravel(order='K') of an array that is neither C- nor F-contiguous is not \
                     supported by the embedded numpy (use order='C')",
                ))
            }
            other => {
                return Err(vm.new_value_error(format!(
                    "order must be one of 'C', 'F', 'A', or 'K' (got '{other}')"
                )))
            }
        };
        let source = if column_major {
            transpose_impl(a, None, vm)?
        } else {
            a.to_owned()
        };
        if copy {
            flatten_impl(&source, vm)
        } else {
            reshape_impl(&source, vec![-1], vm)
        }
    }

    pub(crate) fn squeeze_impl(
        obj: &PyObject,
        axis: Option<&PyObject>,
        vm: &VirtualMachine,
    ) -> PyResult {
        view_op(obj, false, vm, |v, _| {
            let axes = parse_axes(axis, v.ndim(), vm)?;
            let mut shape = Vec::new();
            let mut removed = Vec::new();
            for (i, &n) in v.shape().iter().enumerate() {
                let selected = axes.as_ref().is_none_or(|ax| ax.contains(&i));
                if selected && n == 1 {
                    removed.push(i);
                    continue;
                }
                if selected && axes.is_some() {
                    return Err(vm.new_value_error(
                        "cannot select an axis to squeeze out which has size not equal to one",
                    ));
                }
                shape.push(n);
            }
            let mut w = v;
            for &i in removed.iter().rev() {
                w = w.index_axis_move(Axis(i), 0);
            }
            Ok(derived(&w))
        })
    }

    #[pyfunction]
    pub(crate) fn squeeze(a: PyObjectRef, kw: AxisKw, vm: &VirtualMachine) -> PyResult {
        let axis = kw.axis;
        squeeze_impl(&a, axis.as_option().map(|o| &**o), vm)
    }

    /// `expand_dims(a, axis)`, both also by keyword as in NumPy.
    #[derive(FromArgs)]
    pub(crate) struct ExpandDimsArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any)]
        axis: PyObjectRef,
    }

    #[pyfunction]
    pub(crate) fn expand_dims(args: ExpandDimsArgs, vm: &VirtualMachine) -> PyResult {
        let ExpandDimsArgs { a, axis } = args;
        view_op(&a, false, vm, |v, _| {
            let req: Vec<isize> = match seq_items(&axis) {
                Some(items) => items
                    .iter()
                    .map(|o| to_isize(o, vm))
                    .collect::<PyResult<_>>()?,
                None => vec![to_isize(&axis, vm)?],
            };
            let out_nd = v.ndim() + req.len();
            let mut axes = core::norm_axes(&req, out_nd).map_err(|e| axis_err(e, vm))?;
            axes.sort_unstable();
            let mut w = v;
            for &i in &axes {
                w = w.insert_axis(Axis(i));
            }
            Ok(derived(&w))
        })
    }

    #[pyfunction]
    pub(crate) fn broadcast_to(
        a: PyObjectRef,
        shape: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult {
        let shape = parse_shape(&shape, vm)?;
        view_op(&a, true, vm, |v, _| {
            let b = v.broadcast(IxDyn(&shape)).ok_or_else(|| {
                vm.new_value_error(format!(
                    "operands could not be broadcast together with remapped shapes [original->remapped]: {}  and requested shape {}",
                    core::shape_compact(v.shape()),
                    core::shape_compact(&shape)
                ))
            })?;
            Ok(derived(&b))
        })
    }

    pub(crate) fn arrays_of(
        seq: &PyObject,
        vm: &VirtualMachine,
    ) -> PyResult<Vec<(ArrayD<f64>, DType)>> {
        let items = match seq_items(seq) {
            Some(items) => items,
            None => {
                if let Some(a) = seq.downcast_ref::<PyNdArray>() {
                    let g_lock = a.read();
                    let g = g_lock.view();
                    if g.ndim() == 0 {
                        return Err(
                            vm.new_value_error("zero-dimensional arrays cannot be concatenated")
                        );
                    }
                    return Ok(g.outer_iter().map(|s| (s.to_owned(), a.dtype)).collect());
                }
                let it = seq.get_iter(vm)?;
                let mut v = Vec::new();
                while let rustpython_vm::protocol::PyIterReturn::Return(o) = it.next(vm)? {
                    v.push(o);
                }
                v
            }
        };
        items.iter().map(|o| to_array(o, vm)).collect()
    }

    /// `concatenate` along axis 0 of float64 arrays in C order whose other axes agree:
    /// their buffers one after another (None for anything else).
    fn concatenate_f64_rows(
        seq: &PyObject,
        axis: &OptionalArg<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> Option<PyObjectRef> {
        match axis {
            OptionalArg::Missing => {}
            OptionalArg::Present(o)
                if o.downcast_ref::<PyInt>().is_some() && !o.class().is(vm.ctx.types.bool_type) =>
            {
                if o.downcast_ref::<PyInt>()?
                    .try_to_primitive::<i64>(vm)
                    .ok()?
                    != 0
                {
                    return None;
                }
            }
            OptionalArg::Present(_) => return None,
        }
        let items: Vec<PyObjectRef> = if let Some(l) = seq.downcast_ref::<PyList>() {
            l.borrow_vec().to_vec()
        } else {
            seq.downcast_ref::<PyTuple>()?.as_slice().to_vec()
        };
        let arrays: Vec<&PyNdArray> = items
            .iter()
            .map(|a| a.downcast_ref::<PyNdArray>().map(|a| &**a))
            .collect::<Option<_>>()?;
        let locks: Vec<_> = arrays.iter().map(|a| a.read_typed()).collect();
        let mut views = Vec::with_capacity(locks.len());
        for g in &locks {
            let ElemView::F64(v) = g.typed() else {
                return None;
            };
            views.push(v);
        }
        let first = views.first()?;
        if first.ndim() == 0
            || views
                .iter()
                .any(|v| v.ndim() != first.ndim() || v.shape()[1..] != first.shape()[1..])
        {
            return None;
        }
        let mut data = Vec::with_capacity(views.iter().map(|v| v.len()).sum());
        for v in &views {
            data.extend_from_slice(v.as_slice()?);
        }
        let mut shape = first.shape().to_vec();
        shape[0] = views.iter().map(|v| v.shape()[0]).sum();
        let out = ArrayD::from_shape_vec(IxDyn(&shape), data).ok()?;
        Some(PyNdArray::from_elements(Elements::F64(out)).into_pyobject(vm))
    }

    #[pyfunction]
    pub(crate) fn concatenate(seq: PyObjectRef, kw: AxisKw, vm: &VirtualMachine) -> PyResult {
        if let Some(r) = concatenate_f64_rows(&seq, &kw.axis, vm) {
            return Ok(r);
        }
        let axis = kw.axis;
        let arrs = arrays_of(&seq, vm)?;
        let dt = arrs
            .iter()
            .map(|(_, d)| *d)
            .reduce(DType::promote)
            .unwrap_or(DType::Float64);
        let axis = match axis {
            OptionalArg::Present(o) if vm.is_none(&o) => None,
            OptionalArg::Present(o) => Some(to_isize(&o, vm)?),
            OptionalArg::Missing => Some(0),
        };
        if dt == DType::Int64 {
            let ints = exact_i64_all(&seq, vm)?;
            let flat: Vec<ArrayD<i64>>;
            let views: Vec<ArrayViewD<'_, i64>> = match axis {
                None => {
                    flat = ints
                        .iter()
                        .map(|a| core::reshape(a.view(), &[a.len()]))
                        .collect();
                    flat.iter().map(|a| a.view()).collect()
                }
                Some(_) => ints.iter().map(|a| a.view()).collect(),
            };
            let out = core::concatenate(&views, axis.unwrap_or(0)).map_err(|e| axis_err(e, vm))?;
            return Ok(PyNdArray::from_elements(Elements::I64(out)).into_pyobject(vm));
        }
        let flat: Vec<ArrayD<f64>>;
        let views: Vec<ArrayViewD<'_, f64>> = match axis {
            None => {
                flat = arrs
                    .iter()
                    .map(|(a, _)| core::reshape(a.view(), &[a.len()]))
                    .collect();
                flat.iter().map(|a| a.view()).collect()
            }
            Some(_) => arrs.iter().map(|(a, _)| a.view()).collect(),
        };
        let out = core::concatenate(&views, axis.unwrap_or(0)).map_err(|e| axis_err(e, vm))?;
        Ok(new_arr(out, dt, vm))
    }

    #[pyfunction]
    pub(crate) fn stack(seq: PyObjectRef, kw: AxisKw, vm: &VirtualMachine) -> PyResult {
        let axis = match kw.axis {
            OptionalArg::Present(o) => to_isize(&o, vm)?,
            OptionalArg::Missing => 0,
        };
        let arrs = arrays_of(&seq, vm)?;
        let dt = arrs
            .iter()
            .map(|(_, d)| *d)
            .reduce(DType::promote)
            .unwrap_or(DType::Float64);
        if dt == DType::Int64 {
            let ints = exact_i64_all(&seq, vm)?;
            let views: Vec<ArrayViewD<'_, i64>> = ints.iter().map(|a| a.view()).collect();
            let out = core::stack(&views, axis).map_err(|e| axis_err(e, vm))?;
            return Ok(PyNdArray::from_elements(Elements::I64(out)).into_pyobject(vm));
        }
        let views: Vec<ArrayViewD<'_, f64>> = arrs.iter().map(|(a, _)| a.view()).collect();
        let out = core::stack(&views, axis).map_err(|e| axis_err(e, vm))?;
        Ok(new_arr(out, dt, vm))
    }

    // ------------------------------------------------------------------ introspection

    #[pyfunction]
    pub(crate) fn shape(a: PyObjectRef, vm: &VirtualMachine) -> PyResult<PyTupleRef> {
        match a.downcast_ref::<PyNdArray>() {
            Some(arr) => Ok(arr.shape_tuple(vm)),
            None => Ok(shape_tuple_obj(to_array(&a, vm)?.0.shape(), vm)),
        }
    }
    #[pyfunction]
    pub(crate) fn ndim(a: PyObjectRef, vm: &VirtualMachine) -> PyResult<usize> {
        Ok(match a.downcast_ref::<PyNdArray>() {
            Some(arr) => arr.ndim(),
            None => to_array(&a, vm)?.0.ndim(),
        })
    }
    #[pyfunction]
    pub(crate) fn size(
        a: PyObjectRef,
        axis: OptionalArg<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> PyResult<usize> {
        let shape = match a.downcast_ref::<PyNdArray>() {
            Some(arr) => arr.shape_vec(),
            None => to_array(&a, vm)?.0.shape().to_vec(),
        };
        match axis.into_option().filter(|ax| !vm.is_none(ax)) {
            None => Ok(shape.iter().product()),
            Some(ax) => {
                let axes = parse_axes(Some(&ax), shape.len(), vm)?.unwrap_or_default();
                Ok(axes.iter().map(|&k| shape[k]).product())
            }
        }
    }
    #[pyfunction]
    pub(crate) fn isscalar(a: PyObjectRef, vm: &VirtualMachine) -> bool {
        let t = &vm.ctx.types;
        a.downcast_ref::<PyFloat>().is_some()
            || a.downcast_ref::<PyInt>().is_some()
            || a.class().fast_issubclass(t.complex_type)
            || a.class().fast_issubclass(t.str_type)
            || a.class().fast_issubclass(t.bytes_type)
    }

    pub(crate) fn shape_tuple_obj(s: &[usize], vm: &VirtualMachine) -> PyTupleRef {
        vm.ctx
            .new_tuple(s.iter().map(|&d| vm.ctx.new_int(d).into()).collect())
    }

    /// NumPy's `AxisError(axis, ndim, msg_prefix)` wording: "axis1: axis 2 is out of ...".
    pub(crate) fn prefix_err(e: core::NpErr, prefix: &str) -> core::NpErr {
        match e {
            core::NpErr::Index(m) => core::NpErr::Index(format!("{prefix}: {m}")),
            other => other,
        }
    }

    pub(crate) fn prefixed_axis(
        obj: &PyObject,
        ndim: usize,
        prefix: &str,
        vm: &VirtualMachine,
    ) -> PyResult<usize> {
        let a = to_isize(obj, vm)?;
        core::norm_axis(a, ndim).map_err(|e| axis_err(prefix_err(e, prefix), vm))
    }

    #[derive(FromArgs)]
    pub(crate) struct SwapArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any)]
        axis1: PyObjectRef,
        #[pyarg(any)]
        axis2: PyObjectRef,
    }
    #[pyfunction(name = "swapaxes")]
    pub(crate) fn swapaxes_fn(args: SwapArgs, vm: &VirtualMachine) -> PyResult {
        swapaxes(args.a, args.axis1, args.axis2, vm)
    }
    pub(crate) fn swapaxes(
        a: PyObjectRef,
        axis1: PyObjectRef,
        axis2: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult {
        view_op(&a, false, vm, |v, _| {
            let a1 = prefixed_axis(&axis1, v.ndim(), "axis1", vm)?;
            let a2 = prefixed_axis(&axis2, v.ndim(), "axis2", vm)?;
            let mut perm: Vec<usize> = (0..v.ndim()).collect();
            perm.swap(a1, a2);
            Ok(derived(&v.permuted_axes(IxDyn(&perm))))
        })
    }

    #[derive(FromArgs)]
    pub(crate) struct MoveArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any)]
        source: PyObjectRef,
        #[pyarg(any)]
        destination: PyObjectRef,
    }
    #[pyfunction]
    pub(crate) fn moveaxis(args: MoveArgs, vm: &VirtualMachine) -> PyResult {
        let MoveArgs {
            a,
            source,
            destination,
        } = args;
        view_op(&a, false, vm, |v, _| {
            let nd = v.ndim();
            let src = core::norm_axes(&parse_shape_req(&source, vm)?, nd)
                .map_err(|e| axis_err(prefix_err(e, "source"), vm))?;
            let dst = core::norm_axes(&parse_shape_req(&destination, vm)?, nd)
                .map_err(|e| axis_err(prefix_err(e, "destination"), vm))?;
            let order = ops::moveaxis_order(nd, &src, &dst).py(vm)?;
            Ok(derived(&v.permuted_axes(IxDyn(&order))))
        })
    }

    pub(crate) fn split_impl(
        a: &PyObject,
        ios: &PyObject,
        axis: isize,
        strict: bool,
        vm: &VirtualMachine,
    ) -> PyResult {
        let obj = array_obj(a, vm)?;
        let arr = obj.downcast_ref::<PyNdArray>().unwrap();
        let parts = {
            let g = arr.read();
            let v = g.view();
            if v.ndim() == 0 {
                return Err(axis_err(
                    core::NpErr::Index(format!(
                        "axis {axis} is out of bounds for array of dimension 0"
                    )),
                    vm,
                ));
            }
            let ax = core::norm_axis(axis, v.ndim()).map_err(|e| axis_err(e, vm))?;
            let n = v.shape()[ax];
            let indices: Vec<isize> = if seq_items(ios).is_some()
                || ios
                    .downcast_ref::<PyNdArray>()
                    .is_some_and(|x| x.ndim() > 0)
            {
                parse_shape_req(ios, vm)?
            } else {
                let sections = to_isize(ios, vm)?;
                if sections <= 0 {
                    return Err(vm.new_value_error("number sections must be larger than 0."));
                }
                if strict && n % sections as usize != 0 {
                    return Err(
                        vm.new_value_error("array split does not result in an equal division")
                    );
                }
                ops::section_indices(n, sections as usize)
            };
            (ax, ops::split_bounds(n, &indices))
        };
        // the parts are views, as in NumPy
        let (ax, bounds) = parts;
        let items: Vec<PyObjectRef> = bounds
            .into_iter()
            .map(|(s, e)| {
                arr.derive(&obj, false, |v| {
                    Ok(derived(&v.slice_axis(Axis(ax), ndarray::Slice::from(s..e))))
                })
                .map(|p| p.into_pyobject(vm))
            })
            .collect::<PyResult<_>>()?;
        Ok(vm.ctx.new_list(items).into())
    }

    /// The arrays of a sequence as int64, exactly (arrays read in their own type,
    /// Python ints past 2**53 read exactly).
    pub(crate) fn exact_i64_all(seq: &PyObject, vm: &VirtualMachine) -> PyResult<Vec<ArrayD<i64>>> {
        let items = match seq_items(seq) {
            Some(items) => items,
            None => vec![seq.to_owned()],
        };
        items.iter().map(|o| exact_i64(o, vm)).collect()
    }

    /// An array-like as int64 elements, exactly.
    pub(crate) fn exact_i64(obj: &PyObject, vm: &VirtualMachine) -> PyResult<ArrayD<i64>> {
        let arr = make_array(obj, Some(DType::Int64), 0, vm)?;
        let a = arr.downcast_ref::<PyNdArray>().expect("an ndarray");
        let g = a.read_typed();
        Ok(g.typed().cast_to::<i64>().into_owned())
    }

    /// `obj` itself if it is an ndarray, else a new array of it.
    pub(crate) fn array_obj(obj: &PyObject, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        if obj.downcast_ref::<PyNdArray>().is_some() {
            return Ok(obj.to_owned());
        }
        // `np.array`'s reading: Python ints past 2**53 keep every bit.
        make_array(obj, None, 0, vm)
    }

    #[derive(FromArgs)]
    pub(crate) struct SplitArgs {
        #[pyarg(any)]
        ary: PyObjectRef,
        #[pyarg(any)]
        indices_or_sections: PyObjectRef,
        #[pyarg(any, default = 0)]
        axis: isize,
    }
    #[pyfunction]
    pub(crate) fn split(args: SplitArgs, vm: &VirtualMachine) -> PyResult {
        split_impl(&args.ary, &args.indices_or_sections, args.axis, true, vm)
    }
    #[pyfunction]
    pub(crate) fn array_split(args: SplitArgs, vm: &VirtualMachine) -> PyResult {
        split_impl(&args.ary, &args.indices_or_sections, args.axis, false, vm)
    }

    #[pyfunction]
    pub(crate) fn tile(a: PyObjectRef, reps: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let reps = parse_shape(&reps, vm)?;
        moved(&a, vm, |v, _| Ok(ops::tile(v, &reps)))
    }

    pub(crate) fn repeat_impl(
        a: &PyObject,
        repeats: &PyObject,
        axis: &OptionalArg<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> PyResult {
        let counts = parse_shape_req(repeats, vm)?;
        if counts.iter().any(|&c| c < 0) {
            return Err(vm.new_value_error("repeats may not contain negative values."));
        }
        let counts: Vec<usize> = counts.iter().map(|&c| c as usize).collect();
        moved(a, vm, |v, _| {
            let ax = axis_or(axis, None, v.ndim(), vm)?;
            ops::repeat(v, &counts, ax).py(vm)
        })
    }

    #[pyfunction]
    pub(crate) fn repeat(
        a: PyObjectRef,
        repeats: PyObjectRef,
        kw: AxisKw,
        vm: &VirtualMachine,
    ) -> PyResult {
        repeat_impl(&a, &repeats, &kw.axis, vm)
    }

    #[pyfunction]
    pub(crate) fn flip(m: PyObjectRef, kw: AxisKw, vm: &VirtualMachine) -> PyResult {
        view_op(&m, false, vm, |v, _| {
            let axes = match parse_axes(kw.axis.as_option().map(|o| &**o), v.ndim(), vm)? {
                Some(ax) => ax,
                None => (0..v.ndim()).collect(),
            };
            let mut w = v;
            for &ax in &axes {
                w.invert_axis(Axis(ax));
            }
            Ok(derived(&w))
        })
    }

    #[pyfunction]
    pub(crate) fn roll(
        a: PyObjectRef,
        shift: PyObjectRef,
        kw: AxisKw,
        vm: &VirtualMachine,
    ) -> PyResult {
        let shifts = parse_shape_req(&shift, vm)?;
        moved(&a, vm, |v, _| {
            let axes = match kw.axis.as_option() {
                Some(o) if !vm.is_none(o) => axis_list(o, v.ndim(), vm)?,
                _ => Vec::new(),
            };
            if axes.is_empty() {
                let total: isize = shifts.iter().sum();
                return Ok(ops::roll(v, &[total], &[]));
            }
            let (sh, ax): (Vec<isize>, Vec<usize>) = if shifts.len() == axes.len() {
                (shifts, axes)
            } else if shifts.len() == 1 {
                (vec![shifts[0]; axes.len()], axes)
            } else if axes.len() == 1 {
                (shifts.clone(), vec![axes[0]; shifts.len()])
            } else {
                return Err(vm.new_value_error(format!(
                    "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape ({},) and arg 1 with shape ({},).",
                    shifts.len(),
                    axes.len()
                )));
            };
            Ok(ops::roll(v, &sh, &ax))
        })
    }

    /// `pad_width`/`constant_values`-style argument as rows of values.
    pub(crate) fn pair_rows(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Vec<Vec<f64>>> {
        let (a, _) = to_array(obj, vm)?;
        Ok(match a.ndim() {
            0 => vec![vec![*a.iter().next().unwrap()]],
            1 => vec![a.iter().copied().collect()],
            2 => a
                .outer_iter()
                .map(|r| r.iter().copied().collect())
                .collect(),
            _ => {
                return Err(
                    vm.new_value_error("Unable to create correctly shaped tuple from pad_width")
                )
            }
        })
    }

    #[derive(FromArgs)]
    pub(crate) struct PadArgs {
        #[pyarg(any)]
        array: PyObjectRef,
        #[pyarg(any)]
        pad_width: PyObjectRef,
        #[pyarg(any, optional)]
        mode: OptionalArg<PyStrRef>,
        #[pyarg(any, optional)]
        constant_values: OptionalArg<PyObjectRef>,
    }

    #[pyfunction]
    pub(crate) fn pad(args: PadArgs, vm: &VirtualMachine) -> PyResult {
        let mode = match args
            .mode
            .as_option()
            .map(|s| s.to_string_lossy().to_string())
            .as_deref()
        {
            None | Some("constant") => ops::PadMode::Constant,
            Some("edge") => ops::PadMode::Edge,
            Some("reflect") => ops::PadMode::Reflect,
            Some("symmetric") => ops::PadMode::Symmetric,
            Some("wrap") => ops::PadMode::Wrap,
            Some(m) => return Err(vm.new_value_error(format!("mode '{m}' is not supported"))),
        };
        with_arr(&args.array, vm, |v, d| {
            let nd = v.ndim();
            let rows = pair_rows(&args.pad_width, vm)?;
            if rows.iter().flatten().any(|&x| x < 0.0) {
                return Err(vm.new_value_error("index can't contain negative values"));
            }
            if rows.iter().flatten().any(|&x| x.fract() != 0.0) {
                return Err(vm.new_type_error("`pad_width` must be of integral type."));
            }
            let widths: Vec<(usize, usize)> = ops::broadcast_pairs(&rows, nd)
                .py(vm)?
                .into_iter()
                .map(|(a, b)| (a as usize, b as usize))
                .collect();
            let cvals = match args.constant_values.as_option() {
                Some(o) => ops::broadcast_pairs(&pair_rows(o, vm)?, nd).py(vm)?,
                None => vec![(0.0, 0.0); nd],
            };
            let cvals: Vec<(f64, f64)> = cvals
                .into_iter()
                .map(|(a, b)| (d.cast(a), d.cast(b)))
                .collect();
            Ok(new_arr(ops::pad(v, &widths, mode, &cvals).py(vm)?, d, vm))
        })
    }
}
