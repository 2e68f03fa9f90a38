//! Reductions: sum, mean, prod, max, min, any, all, arg-extrema, cumulative ones, var and std.

pub(crate) use self::_reduce::*;

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _reduce {
    use super::super::complex::_complex::shim_attr;
    use crate::native::prelude::*;
    /// A reduction's arguments, whichever function's signature they came by.
    pub(crate) struct ReduceArgs {
        axis: OptionalArg<PyObjectRef>,
        dtype: OptionalArg<PyObjectRef>,
        out: OptionalArg<PyObjectRef>,
        keepdims: bool,
        initial: OptionalArg<PyObjectRef>,
        where_: OptionalArg<PyObjectRef>,
    }

    /// NumPy's `sum(a, axis, dtype, out, keepdims, initial, where)` (and `prod`).
    #[derive(FromArgs)]
    pub(crate) struct SumArgs {
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        dtype: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        out: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = false)]
        keepdims: bool,
        #[pyarg(any, optional)]
        initial: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional, name = "where")]
        where_: OptionalArg<PyObjectRef>,
    }

    /// NumPy's `mean(a, axis, dtype, out, keepdims, *, where)`.
    #[derive(FromArgs)]
    pub(crate) struct MeanArgs {
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        dtype: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        out: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = false)]
        keepdims: bool,
        #[pyarg(named, optional, name = "where")]
        where_: OptionalArg<PyObjectRef>,
    }

    /// NumPy's `max(a, axis, out, keepdims, initial, where)` (and `min`, `amax`, `amin`).
    #[derive(FromArgs)]
    pub(crate) struct ExtremeArgs {
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        out: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = false)]
        keepdims: bool,
        #[pyarg(any, optional)]
        initial: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional, name = "where")]
        where_: OptionalArg<PyObjectRef>,
    }

    /// NumPy's `all(a, axis, out, keepdims, *, where)` (and `any`).
    #[derive(FromArgs)]
    pub(crate) struct TruthArgs {
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        out: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = false)]
        keepdims: bool,
        #[pyarg(named, optional, name = "where")]
        where_: OptionalArg<PyObjectRef>,
    }

    impl From<SumArgs> for ReduceArgs {
        fn from(a: SumArgs) -> Self {
            ReduceArgs {
                axis: a.axis,
                dtype: a.dtype,
                out: a.out,
                keepdims: a.keepdims,
                initial: a.initial,
                where_: a.where_,
            }
        }
    }

    impl From<MeanArgs> for ReduceArgs {
        fn from(a: MeanArgs) -> Self {
            ReduceArgs {
                axis: a.axis,
                dtype: a.dtype,
                out: a.out,
                keepdims: a.keepdims,
                initial: OptionalArg::Missing,
                where_: a.where_,
            }
        }
    }

    impl From<ExtremeArgs> for ReduceArgs {
        fn from(a: ExtremeArgs) -> Self {
            ReduceArgs {
                axis: a.axis,
                dtype: OptionalArg::Missing,
                out: a.out,
                keepdims: a.keepdims,
                initial: a.initial,
                where_: a.where_,
            }
        }
    }

    impl From<TruthArgs> for ReduceArgs {
        fn from(a: TruthArgs) -> Self {
            ReduceArgs {
                axis: a.axis,
                dtype: OptionalArg::Missing,
                out: a.out,
                keepdims: a.keepdims,
                initial: OptionalArg::Missing,
                where_: a.where_,
            }
        }
    }

    /// The argument if given and not None.
    fn given<'a>(
        arg: &'a OptionalArg<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> Option<&'a PyObjectRef> {
        arg.as_option().filter(|v| !vm.is_none(v))
    }

    /// A reduction with `out=`, `initial=` or `where=`: numpy/_function_base.py's
    /// `_reduce_with` over the native one (the common calls never come here).
    fn reduce_with(
        obj: &PyObject,
        args: &ReduceArgs,
        kind: Reduce,
        vm: &VirtualMachine,
    ) -> PyResult {
        let name = match kind {
            Reduce::Sum => "sum",
            Reduce::Prod => "prod",
            Reduce::Mean => "mean",
            Reduce::Max => "max",
            Reduce::Min => "min",
            Reduce::All => "all",
            Reduce::Any => "any",
        };
        let arg =
            |a: &OptionalArg<PyObjectRef>| given(a, vm).cloned().unwrap_or_else(|| vm.ctx.none());
        let where_ = given(&args.where_, vm)
            .cloned()
            .unwrap_or_else(|| vm.ctx.new_bool(true).into());
        let helper = shim_attr("numpy._function_base", "_reduce_with", vm)?;
        let call: Vec<PyObjectRef> = vec![
            vm.ctx.new_str(name).into(),
            obj.to_owned(),
            arg(&args.axis),
            arg(&args.dtype),
            arg(&args.out),
            vm.ctx.new_bool(args.keepdims).into(),
            arg(&args.initial),
            where_,
        ];
        helper.call(call, vm)
    }

    pub(crate) fn reduce_dtype(kind: Reduce, d: DType) -> DType {
        match kind {
            Reduce::Sum | Reduce::Prod => {
                if d == DType::Bool {
                    DType::Int64
                } else {
                    d
                }
            }
            Reduce::Max | Reduce::Min => d,
            Reduce::Mean => d.float_result(),
            Reduce::All | Reduce::Any => DType::Bool,
        }
    }

    pub(crate) fn do_reduce(
        obj: &PyObject,
        args: &ReduceArgs,
        kind: Reduce,
        vm: &VirtualMachine,
    ) -> PyResult {
        if given(&args.out, vm).is_some()
            || given(&args.initial, vm).is_some()
            || given(&args.where_, vm).is_some()
        {
            return reduce_with(obj, args, kind, vm);
        }
        let want = opt_dtype(&args.dtype, vm)?;
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            // Typed lanes: float32 read in place (accumulated in f64, stored as float32),
            // int64 sums, products and extrema exact in i64.
            let rd = want.unwrap_or(reduce_dtype(kind, a.dtype));
            let g = a.read_typed();
            let axes = || parse_axes(args.axis.as_option().map(|o| &**o), a.n_dims(), vm);
            if let ElemView::I64(v) = g.typed() {
                if rd == DType::Int64 {
                    if let Some(r) =
                        core::reduce_int(v, axes()?.as_deref(), args.keepdims, kind).py(vm)?
                    {
                        return Ok(typed_arr_or_scalar(r, vm));
                    }
                }
            }
            // Every other case reads the elements in place; sums, means and products
            // accumulate in the result's precision (float32 in float32) in NumPy's
            // order, the rest in f64 (exact for int64 means and truth tests); the
            // result is stored in its dtype.
            let single = rd == DType::Float32;
            let ordered = matches!(kind, Reduce::Sum | Reduce::Mean | Reduce::Prod);
            let r = with_elems!(ElemView, g.typed(), v => {
                if ordered {
                    core::reduce_ordered(v, axes()?.as_deref(), args.keepdims, kind, single)
                        .py(vm)?
                } else {
                    core::reduce(v, axes()?.as_deref(), args.keepdims, kind).py(vm)?
                }
            });
            return Ok(arr_or_scalar(r, rd, vm));
        }
        with_arr(obj, vm, |v, d| {
            let axes = parse_axes(args.axis.as_option().map(|o| &**o), v.ndim(), vm)?;
            let r = core::reduce(v, axes.as_deref(), args.keepdims, kind).py(vm)?;
            let rd = want.unwrap_or(reduce_dtype(kind, d));
            let r = if rd != DType::Float64 {
                r.mapv(|x| rd.cast(x))
            } else {
                r
            };
            Ok(arr_or_scalar(r, rd, vm))
        })
    }

    #[pyfunction]
    pub(crate) fn sum(a: PyObjectRef, args: SumArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args.into(), Reduce::Sum, vm)
    }
    #[pyfunction]
    pub(crate) fn prod(a: PyObjectRef, args: SumArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args.into(), Reduce::Prod, vm)
    }
    #[pyfunction]
    pub(crate) fn mean(a: PyObjectRef, args: MeanArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args.into(), Reduce::Mean, vm)
    }
    #[pyfunction]
    pub(crate) fn max(a: PyObjectRef, args: ExtremeArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args.into(), Reduce::Max, vm)
    }
    #[pyfunction]
    pub(crate) fn min(a: PyObjectRef, args: ExtremeArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args.into(), Reduce::Min, vm)
    }
    #[pyfunction]
    pub(crate) fn amax(a: PyObjectRef, args: ExtremeArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args.into(), Reduce::Max, vm)
    }
    #[pyfunction]
    pub(crate) fn amin(a: PyObjectRef, args: ExtremeArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args.into(), Reduce::Min, vm)
    }
    #[pyfunction]
    pub(crate) fn all(a: PyObjectRef, args: TruthArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args.into(), Reduce::All, vm)
    }
    #[pyfunction]
    pub(crate) fn any(a: PyObjectRef, args: TruthArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args.into(), Reduce::Any, vm)
    }

    #[derive(FromArgs)]
    pub(crate) struct ArgReduceArgs {
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = false)]
        keepdims: bool,
    }

    pub(crate) fn do_argreduce(
        obj: &PyObject,
        args: &ArgReduceArgs,
        is_max: bool,
        vm: &VirtualMachine,
    ) -> PyResult {
        let typed;
        let g = match obj.downcast_ref::<PyNdArray>() {
            Some(a) => {
                typed = a.read_typed();
                typed.typed()
            }
            None => {
                let (x, _) = to_array(obj, vm)?;
                return do_argreduce(&new_arr(x, DType::Float64, vm), args, is_max, vm);
            }
        };
        // Compared in the element type (int64 past 2**53 too).
        with_elems!(ElemView, g, v => {
            let axis = match args.axis.as_option() {
                Some(o) if !vm.is_none(o) => Some(one_axis(o, v.ndim(), vm)?),
                _ => None,
            };
            let mut r = core::arg_reduce(v.view(), axis, is_max).py(vm)?;
            if args.keepdims {
                let mut s = v.shape().to_vec();
                match axis {
                    Some(ax) => s[ax] = 1,
                    None => s.iter_mut().for_each(|d| *d = 1),
                }
                r = r.into_shape_with_order(IxDyn(&s)).unwrap();
            }
            Ok(arr_or_scalar(r, DType::Int64, vm))
        })
    }

    #[pyfunction]
    pub(crate) fn argmax(a: PyObjectRef, args: ArgReduceArgs, vm: &VirtualMachine) -> PyResult {
        do_argreduce(&a, &args, true, vm)
    }
    #[pyfunction]
    pub(crate) fn argmin(a: PyObjectRef, args: ArgReduceArgs, vm: &VirtualMachine) -> PyResult {
        do_argreduce(&a, &args, false, vm)
    }

    #[pyfunction]
    pub(crate) fn cumsum(a: PyObjectRef, kw: AxisKw, vm: &VirtualMachine) -> PyResult {
        let axis = kw.axis;
        cum(&a, axis, false, vm)
    }
    #[pyfunction]
    pub(crate) fn cumprod(a: PyObjectRef, kw: AxisKw, vm: &VirtualMachine) -> PyResult {
        let axis = kw.axis;
        cum(&a, axis, true, vm)
    }

    pub(crate) fn cum(
        a: &PyObject,
        axis: OptionalArg<PyObjectRef>,
        prod: bool,
        vm: &VirtualMachine,
    ) -> PyResult {
        if let Some(arr) = a.downcast_ref::<PyNdArray>() {
            if matches!(arr.dtype, DType::Int64 | DType::Bool) {
                // Integer running sums and products in i64, wrapping like NumPy.
                let g = arr.read_typed();
                let v = g.typed().cast_to::<i64>();
                let (mut out, ax) = match axis.as_option() {
                    Some(o) if !vm.is_none(o) => {
                        (core::to_standard(v.view()), one_axis(o, v.ndim(), vm)?)
                    }
                    _ => (core::reshape(v.view(), &[v.len()]), 0),
                };
                out.accumulate_axis_inplace(Axis(ax), |&prev, cur| {
                    *cur = if prod {
                        cur.wrapping_mul(prev)
                    } else {
                        cur.wrapping_add(prev)
                    }
                });
                return Ok(PyNdArray::from_elements(Elements::I64(out)).into_pyobject(vm));
            }
        }
        with_arr(a, vm, |v, d| {
            let rd = if d == DType::Bool { DType::Int64 } else { d };
            let single = rd == DType::Float32;
            let (mut arr, ax) = match axis.as_option() {
                Some(o) if !vm.is_none(o) => {
                    (core::to_standard(v.view()), one_axis(o, v.ndim(), vm)?)
                }
                _ => {
                    let flat: Vec<f64> = match v.as_slice() {
                        Some(s) => s.to_vec(),
                        None => v.iter().copied().collect(),
                    };
                    let n = flat.len();
                    (ArrayD::from_shape_vec(IxDyn(&[n]), flat).unwrap(), 0)
                }
            };
            if let (1, Some(s)) = (arr.ndim(), arr.as_slice_mut()) {
                // One lane in memory: the running value in a register, in the same
                // order and rounding as the general path below.
                running(s, prod, single);
                return Ok(new_arr(arr, rd, vm));
            }
            arr.accumulate_axis_inplace(Axis(ax), |&prev, cur| {
                if prod {
                    *cur *= prev
                } else {
                    *cur += prev
                }
                if single {
                    *cur = *cur as f32 as f64;
                }
            });
            Ok(new_arr(arr, rd, vm))
        })
    }

    /// Running sums or products of a slice in place (float32 ones rounded at every
    /// step, as NumPy's float32 loop).
    fn running(s: &mut [f64], prod: bool, single: bool) {
        let Some((first, rest)) = s.split_first_mut() else {
            return;
        };
        let mut acc = *first;
        for x in rest {
            acc = if prod { *x * acc } else { *x + acc };
            if single {
                acc = acc as f32 as f64;
            }
            *x = acc;
        }
    }

    // ------------------------------------------------------------------ var / std

    #[derive(FromArgs)]
    pub(crate) struct VarArgs {
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        dtype: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        out: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        ddof: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = false)]
        keepdims: bool,
        #[pyarg(named, optional, name = "where")]
        where_: OptionalArg<PyObjectRef>,
        #[pyarg(named, optional)]
        mean: OptionalArg<PyObjectRef>,
        #[pyarg(named, optional)]
        correction: OptionalArg<PyObjectRef>,
    }

    pub(crate) fn var_impl(
        a: &PyObject,
        args: &VarArgs,
        sqrt: bool,
        vm: &VirtualMachine,
    ) -> PyResult {
        if [&args.out, &args.where_, &args.mean, &args.correction]
            .into_iter()
            .any(|a| given(a, vm).is_some())
        {
            // numpy/_function_base.py's `_var_with` over the native steps.
            let arg = |a: &OptionalArg<PyObjectRef>| {
                given(a, vm).cloned().unwrap_or_else(|| vm.ctx.none())
            };
            let helper = shim_attr("numpy._function_base", "_var_with", vm)?;
            let call: Vec<PyObjectRef> = vec![
                vm.ctx.new_bool(sqrt).into(),
                a.to_owned(),
                arg(&args.axis),
                arg(&args.dtype),
                arg(&args.out),
                arg(&args.ddof),
                vm.ctx.new_bool(args.keepdims).into(),
                given(&args.where_, vm)
                    .cloned()
                    .unwrap_or_else(|| vm.ctx.new_bool(true).into()),
                arg(&args.mean),
                arg(&args.correction),
            ];
            return helper.call(call, vm);
        }
        let want = opt_dtype(&args.dtype, vm)?;
        with_arr(a, vm, |v, d| {
            let axes = parse_axes(args.axis.as_option().map(|o| &**o), v.ndim(), vm)?;
            let n: usize = match &axes {
                Some(ax) => ax.iter().map(|&i| v.shape()[i]).product(),
                None => v.len(),
            };
            // NumPy's steps, each in the float type of the result: float32 values give
            // a float32 mean, deviations, squares, sum and quotient.
            let single = want.map(|w| w.float_result()).unwrap_or(float_dt(d)) == DType::Float32;
            let r32 = |x: f64| if single { x as f32 as f64 } else { x };
            let axes_ = axes.as_deref();
            let m = core::reduce_ordered(v.view(), axes_, true, Reduce::Mean, single).py(vm)?;
            let sq = core::zip_with_in_order(v.view(), m.view(), |x, mu| {
                let dev = r32(x - mu);
                r32(dev * dev)
            })
            .py(vm)?;
            let s = core::reduce_ordered(sq.view(), axes_, args.keepdims, Reduce::Sum, single)
                .py(vm)?;
            let ddof = match args.ddof.as_option() {
                Some(o) => o.try_float(vm)?.to_f64(),
                None => 0.0,
            };
            let denom = n as f64 - ddof;
            let r = s.mapv(|x| {
                let q = r32(x / denom.max(0.0));
                if sqrt {
                    r32(q.sqrt())
                } else {
                    q
                }
            });
            let rd = want.map(|w| w.float_result()).unwrap_or(float_dt(d));
            Ok(arr_or_scalar(round_to(r, rd), rd, vm))
        })
    }

    #[pyfunction]
    pub(crate) fn var(a: PyObjectRef, args: VarArgs, vm: &VirtualMachine) -> PyResult {
        var_impl(&a, &args, false, vm)
    }
    #[pyfunction]
    pub(crate) fn std(a: PyObjectRef, args: VarArgs, vm: &VirtualMachine) -> PyResult {
        var_impl(&a, &args, true, vm)
    }
}
