//! Sorting and searching: sort, argsort, searchsorted, unique, where, nonzero.

pub(crate) use self::_sort::*;

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _sort {
    use crate::native::prelude::*;
    /// `axis=` for sort-like functions: missing means `default`, None means flattened.
    pub(crate) fn axis_or(
        arg: &OptionalArg<PyObjectRef>,
        default: Option<isize>,
        ndim: usize,
        vm: &VirtualMachine,
    ) -> PyResult<Option<usize>> {
        let req = match arg.as_option() {
            None => default,
            Some(o) if vm.is_none(o) => None,
            Some(o) => Some(to_isize(o, vm)?),
        };
        match req {
            None => Ok(None),
            Some(a) => Ok(Some(
                core::norm_axis(a, ndim.max(1)).map_err(|e| axis_err(e, vm))?,
            )),
        }
    }

    #[derive(FromArgs)]
    pub(crate) struct SortArgs {
        #[pyarg(any, optional)]
        pub(crate) axis: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        kind: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        order: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        stable: OptionalArg<PyObjectRef>,
    }

    #[pyfunction]
    pub(crate) fn sort(a: PyObjectRef, args: SortArgs, vm: &VirtualMachine) -> PyResult {
        let _ = (&args.kind, &args.order, &args.stable);
        if let Some(arr) = a.downcast_ref::<PyNdArray>() {
            // Sorted in the element type (int64 past 2**53 keeps every bit).
            let nd = arr.n_dims();
            let ax = axis_or(&args.axis, Some(-1), nd, vm)?;
            if nd == 0 && ax.is_some() {
                return Err(axis_err(
                    core::NpErr::Index("axis -1 is out of bounds for array of dimension 0".into()),
                    vm,
                ));
            }
            let g = arr.read_typed();
            let e = with_elems!(ElemView, g.typed(), v => Elements::from(ops::sort(v, ax)));
            return Ok(PyNdArray::from_elements(e).into_pyobject(vm));
        }
        with_arr(&a, vm, |v, d| {
            let ax = axis_or(&args.axis, Some(-1), v.ndim(), vm)?;
            if v.ndim() == 0 && ax.is_some() {
                return Err(axis_err(
                    core::NpErr::Index("axis -1 is out of bounds for array of dimension 0".into()),
                    vm,
                ));
            }
            Ok(new_arr(ops::sort(v, ax), d, vm))
        })
    }

    #[pyfunction]
    pub(crate) fn argsort(a: PyObjectRef, args: SortArgs, vm: &VirtualMachine) -> PyResult {
        let _ = (&args.kind, &args.order, &args.stable);
        if let Some(arr) = a.downcast_ref::<PyNdArray>() {
            // int64 ordered in its own type (past 2**53 every bit counts).
            if let ElemView::I64(v) = arr.read_typed().typed() {
                if v.ndim() > 0 {
                    let ax = axis_or(&args.axis, Some(-1), v.ndim(), vm)?;
                    let order = ops::argsort(v, ax, crate::radix::argsort_i64);
                    return Ok(new_arr(order, DType::Int64, vm));
                }
            }
        }
        with_arr(&a, vm, |v, _| {
            // NumPy sorts a scalar as a one-element array: `argsort(3.0)` is `[0]`.
            if v.ndim() == 0 {
                return Ok(new_arr(ArrayD::zeros(IxDyn(&[1])), DType::Int64, vm));
            }
            let ax = axis_or(&args.axis, Some(-1), v.ndim(), vm)?;
            Ok(new_arr(
                ops::argsort(v, ax, crate::radix::argsort_f64),
                DType::Int64,
                vm,
            ))
        })
    }

    #[derive(FromArgs)]
    pub(crate) struct SearchArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any)]
        v: PyObjectRef,
        #[pyarg(any, optional)]
        side: OptionalArg<PyStrRef>,
    }

    /// `searchsorted` of int64 values in an int64 array, compared as integers (past 2**53
    /// float64 would merge neighbours); None for other types (compared as NumPy does, in
    /// float64).
    fn searchsorted_ints(
        args: &SearchArgs,
        right: bool,
        vm: &VirtualMachine,
    ) -> PyResult<Option<PyObjectRef>> {
        let Some(arr) = args.a.downcast_ref::<PyNdArray>() else {
            return Ok(None);
        };
        let sorted: Vec<i64> = match arr.read_typed().typed() {
            ElemView::I64(s) if s.ndim() == 1 => s.iter().copied().collect(),
            _ => return Ok(None),
        };
        let find = |x: i64| {
            let p = if right {
                sorted.partition_point(|&y| y <= x)
            } else {
                sorted.partition_point(|&y| y < x)
            };
            p as i64
        };
        let v = &args.v;
        if let Some(i) = v.downcast_ref_if_exact::<PyInt>(vm) {
            return Ok(i
                .as_bigint()
                .to_i64()
                .map(|x| vm.ctx.new_int(find(x)).into()));
        }
        let ints = match v.downcast_ref::<PyNdArray>() {
            Some(a) => a.dtype == DType::Int64,
            None => matches!(to_array(v, vm), Ok((_, DType::Int64))),
        };
        if !ints {
            return Ok(None);
        }
        let xs = exact_i64(v, vm)?;
        let out = xs.mapv(find);
        Ok(Some(if out.ndim() == 0 {
            vm.ctx
                .new_int(out.iter().next().copied().unwrap_or(0))
                .into()
        } else {
            PyNdArray::from_elements(Elements::I64(out)).into_pyobject(vm)
        }))
    }

    #[pyfunction]
    pub(crate) fn searchsorted(args: SearchArgs, vm: &VirtualMachine) -> PyResult {
        let right = match args
            .side
            .as_option()
            .map(|s| s.to_string_lossy().to_string())
            .as_deref()
        {
            None | Some("left") => false,
            Some("right") => true,
            Some(s) => {
                return Err(vm
                    .new_value_error(format!("search side must be 'left' or 'right' (got '{s}')")))
            }
        };
        if let Some(found) = searchsorted_ints(&args, right, vm)? {
            return Ok(found);
        }
        let (sorted, _) = to_array(&args.a, vm)?;
        if sorted.ndim() != 1 {
            return Err(vm.new_value_error("object too deep for desired array"));
        }
        let s: Vec<f64> = sorted.iter().copied().collect();
        let find = |x: f64| -> f64 {
            let p = if right {
                s.partition_point(|y| ops::nan_last_cmp(y, &x) != std::cmp::Ordering::Greater)
            } else {
                s.partition_point(|y| ops::nan_last_cmp(y, &x) == std::cmp::Ordering::Less)
            };
            p as f64
        };
        if let Some((x, _)) = scalar_of(&args.v, vm) {
            return Ok(vm.ctx.new_int(find(x) as i64).into());
        }
        with_arr(&args.v, vm, |v, _| {
            Ok(arr_or_scalar(v.mapv(find), DType::Int64, vm))
        })
    }

    /// `np.where(c, x, y)` for the common case: a bool array and two float64 arrays of
    /// its shape, all in C order: one pass over the three buffers (None otherwise).
    fn where_same_shape_f64(c: &PyObject, x: &PyObject, y: &PyObject) -> Option<ArrayD<f64>> {
        let (c, x, y) = (
            c.downcast_ref::<PyNdArray>()?,
            x.downcast_ref::<PyNdArray>()?,
            y.downcast_ref::<PyNdArray>()?,
        );
        let (gc, gx, gy) = (c.read_typed(), x.read_typed(), y.read_typed());
        let (ElemView::Bool(c), ElemView::F64(x), ElemView::F64(y)) =
            (gc.typed(), gx.typed(), gy.typed())
        else {
            return None;
        };
        if c.shape() != x.shape() || c.shape() != y.shape() {
            return None;
        }
        let (cs, xs, ys) = (c.as_slice()?, x.as_slice()?, y.as_slice()?);
        let out: Vec<f64> = cs
            .iter()
            .zip(xs.iter().zip(ys))
            .map(|(&c, (&x, &y))| if c { x } else { y })
            .collect();
        Some(ArrayD::from_shape_vec(c.raw_dim(), out).expect("same size"))
    }

    #[pyfunction(name = "where")]
    pub(crate) fn where_(
        cond: PyObjectRef,
        x: OptionalArg<PyObjectRef>,
        y: OptionalArg<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> PyResult {
        let (OptionalArg::Present(x), OptionalArg::Present(y)) = (x, y) else {
            // np.where(cond): tuple of index arrays (nonzero)
            return nonzero(cond, vm);
        };
        if let Some(out) = where_same_shape_f64(&cond, &x, &y) {
            return Ok(PyNdArray::from_elements(Elements::F64(out)).into_pyobject(vm));
        }
        let (c, _) = to_array(&cond, vm)?;
        let (xa, dx) = to_array(&x, vm)?;
        let (ya, dy) = to_array(&y, vm)?;
        let (xw, yw) = (is_weak_scalar(&x, vm), is_weak_scalar(&y, vm));
        let rd = match (xw, yw) {
            (true, false) => DType::promote_weak(dy, dx),
            (false, true) => DType::promote_weak(dx, dy),
            _ => dx.promote(dy),
        };
        let shape = core::broadcast_shapes(&[c.shape(), xa.shape(), ya.shape()]).py(vm)?;
        let sh = IxDyn(&shape);
        if rd == DType::Int64 {
            // Selected elements keep every bit.
            let (xi, yi) = (exact_i64(&x, vm)?, exact_i64(&y, vm)?);
            let out = ndarray::Zip::from(&c.broadcast(sh.clone()).unwrap())
                .and(&xi.broadcast(sh.clone()).unwrap())
                .and(&yi.broadcast(sh).unwrap())
                .map_collect(|&c, &x, &y| if c != 0.0 { x } else { y });
            return Ok(PyNdArray::from_elements(Elements::I64(out)).into_pyobject(vm));
        }
        let cb = c.broadcast(sh.clone()).unwrap();
        let xb = xa.broadcast(sh.clone()).unwrap();
        let yb = ya.broadcast(sh).unwrap();
        let out = ndarray::Zip::from(&cb)
            .and(&xb)
            .and(&yb)
            .map_collect(|&c, &x, &y| if c != 0.0 { x } else { y });
        let out = if rd.kind_rank() < 2 || rd == DType::Float32 {
            out.mapv(|v| rd.cast(v))
        } else {
            out
        };
        Ok(new_arr(out, rd, vm))
    }

    #[pyfunction]
    pub(crate) fn nonzero(a: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let (x, _) = to_array(&a, vm)?;
        let x = if x.ndim() == 0 {
            x.insert_axis(Axis(0))
        } else {
            x
        };
        let mut cols: Vec<Vec<f64>> = vec![Vec::new(); x.ndim()];
        for (idx, &v) in x.indexed_iter() {
            if v != 0.0 {
                for (k, c) in cols.iter_mut().enumerate() {
                    c.push(idx[k] as f64);
                }
            }
        }
        let items: Vec<PyObjectRef> = cols
            .into_iter()
            .map(|c| {
                let n = c.len();
                new_arr(
                    ArrayD::from_shape_vec(IxDyn(&[n]), c).unwrap(),
                    DType::Int64,
                    vm,
                )
            })
            .collect();
        Ok(vm.ctx.new_tuple(items).into())
    }

    #[derive(FromArgs)]
    pub(crate) struct UniqueArgs {
        #[pyarg(any, default = false)]
        return_index: bool,
        #[pyarg(any, default = false)]
        return_inverse: bool,
        #[pyarg(any, default = false)]
        return_counts: bool,
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
        #[pyarg(named, default = true)]
        equal_nan: bool,
        #[pyarg(named, default = true)]
        sorted: bool,
    }

    /// `np.unique(ar, return_index, return_inverse, return_counts)`: the sorted distinct
    /// values of the flattened array (NaNs last, one NaN unless `equal_nan=False`), with
    /// the first index of each, the inverse (in the input's shape, as NumPy 2) and the
    /// counts as requested.
    /// `np.unique`'s groups of `vals`: the distinct values in order, the first index of
    /// each, their counts, and each value's group (as f64 indices).
    #[allow(clippy::type_complexity)]
    fn group_sorted<T: Copy>(
        vals: &[T],
        cmp: impl Fn(&T, &T) -> std::cmp::Ordering,
        same: impl Fn(T, T) -> bool,
    ) -> (Vec<T>, Vec<f64>, Vec<f64>, Vec<f64>) {
        let mut order: Vec<usize> = (0..vals.len()).collect();
        // Stable, so the first of equal values is the first index.
        order.sort_by(|&i, &j| cmp(&vals[i], &vals[j]).then(i.cmp(&j)));
        let mut uniq: Vec<T> = Vec::new();
        let mut first = Vec::new();
        let mut counts: Vec<f64> = Vec::new();
        let mut inverse = vec![0.0; vals.len()];
        for &i in &order {
            let x = vals[i];
            match uniq.last() {
                Some(&u) if same(u, x) => *counts.last_mut().unwrap() += 1.0,
                _ => {
                    uniq.push(x);
                    first.push(i as f64);
                    counts.push(1.0);
                }
            }
            inverse[i] = (uniq.len() - 1) as f64;
        }
        (uniq, first, counts, inverse)
    }

    /// The distinct values of an int64 array, ascending: a radix sort of a copy, then
    /// each run of equal values once (None for any other argument).
    fn unique_values_i64(ar: &PyObject) -> Option<PyNdArray> {
        let a = ar.downcast_ref::<PyNdArray>()?;
        let g = a.read_typed();
        let ElemView::I64(v) = g.typed() else {
            return None;
        };
        let mut vals: Vec<i64> = match v.as_slice() {
            Some(s) => s.to_vec(),
            None => v.iter().copied().collect(),
        };
        crate::radix::sort_i64(&mut vals);
        vals.dedup();
        let n = vals.len();
        let arr = ArrayD::from_shape_vec(IxDyn(&[n]), vals).expect("one axis");
        Some(PyNdArray::from_elements(Elements::I64(arr)))
    }

    #[pyfunction]
    pub(crate) fn unique(ar: PyObjectRef, args: UniqueArgs, vm: &VirtualMachine) -> PyResult {
        if args.axis.as_option().is_some_and(|o| !vm.is_none(o)) {
            return Err(vm.new_type_error(
                "numpy.unique(axis=...) is not supported by the embedded NumPy; \
                 unique rows can be found with sorted() over tuples of rows"
                    .to_owned(),
            ));
        }
        let _ = args.sorted;
        if !(args.return_index || args.return_inverse || args.return_counts) {
            if let Some(values) = unique_values_i64(&ar) {
                return Ok(values.into_pyobject(vm));
            }
        }
        let (a, d) = to_array(&ar, vm)?;
        let (values, first, counts, inverse) = if d == DType::Int64 {
            // int64 grouped exactly (two ints past 2**53 may round to one f64).
            let vals: Vec<i64> = exact_i64(&ar, vm)?.iter().copied().collect();
            let g = group_sorted(&vals, |x, y| x.cmp(y), |x, y| x == y);
            let n = g.0.len();
            let arr = ArrayD::from_shape_vec(IxDyn(&[n]), g.0).unwrap();
            (
                PyNdArray::from_elements(Elements::I64(arr)).into_pyobject(vm),
                g.1,
                g.2,
                g.3,
            )
        } else {
            let vals: Vec<f64> = a.iter().copied().collect();
            // NaNs sort last; -0.0 and 0.0 are equal values: total_cmp orders them but
            // they are one group.
            let g = group_sorted(
                &vals,
                |x, y| x.total_cmp(y),
                |x, y| x == y || (args.equal_nan && x.is_nan() && y.is_nan()),
            );
            let n = g.0.len();
            let arr = ArrayD::from_shape_vec(IxDyn(&[n]), g.0).unwrap();
            (new_arr(arr, d, vm), g.1, g.2, g.3)
        };
        let n = first.len();
        if !(args.return_index || args.return_inverse || args.return_counts) {
            return Ok(values);
        }
        let ints = |v: Vec<f64>, shape: &[usize]| {
            new_arr(
                ArrayD::from_shape_vec(IxDyn(shape), v).unwrap(),
                DType::Int64,
                vm,
            )
        };
        let mut out = vec![values];
        if args.return_index {
            out.push(ints(first, &[n]));
        }
        if args.return_inverse {
            let shape = if a.ndim() == 0 {
                vec![1]
            } else {
                a.shape().to_vec()
            };
            out.push(ints(inverse, &shape));
        }
        if args.return_counts {
            out.push(ints(counts, &[n]));
        }
        Ok(vm.ctx.new_tuple(out).into())
    }
}
