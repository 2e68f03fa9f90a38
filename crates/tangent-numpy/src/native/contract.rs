//! Contractions and diagonals: dot, matmul, tensordot, einsum, outer, trace, diagonal.

pub(crate) use self::_contract::*;

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _contract {
    use crate::native::prelude::*;
    #[derive(FromArgs)]
    pub(crate) struct DiagonalArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any, default = 0)]
        offset: isize,
        #[pyarg(any, default = 0)]
        axis1: isize,
        #[pyarg(any, default = 1)]
        axis2: isize,
        #[pyarg(any, optional)]
        dtype: OptionalArg<PyObjectRef>,
    }

    pub(crate) fn diagonal_impl(args: &DiagonalArgs, trace: bool, vm: &VirtualMachine) -> PyResult {
        let want = opt_dtype(&args.dtype, vm)?;
        with_arr(&args.a, vm, |v, d| {
            if v.ndim() < 2 {
                return Err(vm.new_value_error("diag requires an array of at least two dimensions"));
            }
            let a1 = core::norm_axis(args.axis1, v.ndim()).map_err(|e| axis_err(e, vm))?;
            let a2 = core::norm_axis(args.axis2, v.ndim()).map_err(|e| axis_err(e, vm))?;
            let diag = ops::diagonal(v, args.offset, a1, a2).py(vm)?;
            if !trace {
                return Ok(new_arr(diag, d, vm));
            }
            let nd = diag.ndim();
            let r = diag.sum_axis(Axis(nd - 1));
            let rd = want.unwrap_or(reduce_dtype(Reduce::Sum, d));
            Ok(arr_or_scalar(round_to(r.mapv(|x| rd.cast(x)), rd), rd, vm))
        })
    }

    #[derive(FromArgs)]
    pub(crate) struct MethodDiagArgs {
        #[pyarg(any, default = 0)]
        offset: isize,
        #[pyarg(any, default = 0)]
        axis1: isize,
        #[pyarg(any, default = 1)]
        axis2: isize,
        #[pyarg(any, optional)]
        dtype: OptionalArg<PyObjectRef>,
    }
    impl MethodDiagArgs {
        pub(crate) fn with(self, a: PyObjectRef) -> DiagonalArgs {
            DiagonalArgs {
                a,
                offset: self.offset,
                axis1: self.axis1,
                axis2: self.axis2,
                dtype: self.dtype,
            }
        }
    }

    #[pyfunction]
    pub(crate) fn trace(args: DiagonalArgs, vm: &VirtualMachine) -> PyResult {
        diagonal_impl(&args, true, vm)
    }
    #[pyfunction]
    pub(crate) fn diagonal(args: DiagonalArgs, vm: &VirtualMachine) -> PyResult {
        if opt_dtype(&args.dtype, vm)?.is_some() {
            return diagonal_impl(&args, false, vm);
        }
        // NumPy returns a read-only view: the other axes, then the diagonal as one axis
        // whose stride is the sum of the two strides.
        view_op(&args.a, true, vm, |v, _| {
            if v.ndim() < 2 {
                return Err(vm.new_value_error("diag requires an array of at least two dimensions"));
            }
            let a1 = core::norm_axis(args.axis1, v.ndim()).map_err(|e| axis_err(e, vm))?;
            let a2 = core::norm_axis(args.axis2, v.ndim()).map_err(|e| axis_err(e, vm))?;
            if a1 == a2 {
                return Err(vm.new_value_error("axis1 and axis2 cannot be the same"));
            }
            let (n1, n2) = (v.shape()[a1] as isize, v.shape()[a2] as isize);
            let (s1, s2) = (v.strides()[a1], v.strides()[a2]);
            let k = args.offset;
            let len = if k >= 0 {
                n1.min(n2 - k)
            } else {
                (n1 + k).min(n2)
            }
            .max(0) as usize;
            let start = if len == 0 {
                0
            } else if k >= 0 {
                k * s2
            } else {
                -k * s1
            };
            let mut shape = Vec::new();
            let mut strides = Vec::new();
            for i in 0..v.ndim() {
                if i != a1 && i != a2 {
                    shape.push(v.shape()[i]);
                    strides.push(v.strides()[i]);
                }
            }
            shape.push(len);
            strides.push(s1 + s2);
            // SAFETY: `start` is within the view (offset k < n2, or -k < n1, when len > 0).
            let ptr = unsafe { v.as_ptr().offset(start) } as usize;
            Ok(Derived::View {
                ptr,
                shape,
                strides,
            })
        })
    }
    #[derive(FromArgs)]
    pub(crate) struct DiagArgs {
        #[pyarg(any)]
        v: PyObjectRef,
        #[pyarg(any, default = 0)]
        k: isize,
    }
    #[pyfunction]
    pub(crate) fn diag(args: DiagArgs, vm: &VirtualMachine) -> PyResult {
        let DiagArgs { v, k } = args;
        moved(&v, vm, |a, _| ops::diag(a, k).py(vm))
    }

    pub(crate) fn contraction_dtype(da: DType, db: DType) -> DType {
        da.promote(db)
    }

    #[pyfunction]
    pub(crate) fn inner(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        with_arr(&a, vm, |va, da| {
            with_arr(&b, vm, |vb, db| {
                let rd = contraction_dtype(da, db);
                if va.ndim() == 0 || vb.ndim() == 0 {
                    let r = core::zip_with(va, vb, |x, y| x * y).py(vm)?;
                    return Ok(arr_or_scalar(round_to(r, rd), rd, vm));
                }
                let (ka, kb) = (va.shape()[va.ndim() - 1], vb.shape()[vb.ndim() - 1]);
                if ka != kb {
                    return Err(vm.new_value_error(format!(
                        "shapes {} and {} not aligned: {} (dim {}) != {} (dim {})",
                        core::shape_compact(va.shape()),
                        core::shape_compact(vb.shape()),
                        ka,
                        va.ndim() - 1,
                        kb,
                        vb.ndim() - 1
                    )));
                }
                let (la, lb) = (va.ndim() - 1, vb.ndim() - 1);
                let r = ops::tensordot(va, vb, &[la], &[lb]).py(vm)?;
                Ok(arr_or_scalar(round_to(r, rd), rd, vm))
            })
        })
    }

    pub(crate) fn axis_list(
        obj: &PyObject,
        ndim: usize,
        vm: &VirtualMachine,
    ) -> PyResult<Vec<usize>> {
        let req = parse_shape_req(obj, vm)?;
        req.iter()
            .map(|&a| core::norm_axis(a, ndim).map_err(|e| axis_err(e, vm)))
            .collect()
    }

    #[derive(FromArgs)]
    pub(crate) struct TensordotArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any)]
        b: PyObjectRef,
        #[pyarg(any, optional)]
        axes: OptionalArg<PyObjectRef>,
    }

    #[pyfunction]
    pub(crate) fn tensordot(args: TensordotArgs, vm: &VirtualMachine) -> PyResult {
        let TensordotArgs { a, b, axes } = args;
        with_arr(&a, vm, |va, da| {
            with_arr(&b, vm, |vb, db| {
                let (axa, axb) = match axes.as_option() {
                    Some(o) if seq_items(o).is_some() => {
                        let items = seq_items(o).unwrap();
                        if items.len() != 2 {
                            return Err(vm.new_value_error(
                                "axes must be an integer or a pair of sequences",
                            ));
                        }
                        (
                            axis_list(&items[0], va.ndim(), vm)?,
                            axis_list(&items[1], vb.ndim(), vm)?,
                        )
                    }
                    other => {
                        let n = match other {
                            Some(o) => to_isize(o, vm)?,
                            None => 2,
                        };
                        if n < 0 || n as usize > va.ndim() || n as usize > vb.ndim() {
                            return Err(vm.new_value_error("shape-mismatch for sum"));
                        }
                        let n = n as usize;
                        ((va.ndim() - n..va.ndim()).collect(), (0..n).collect())
                    }
                };
                let rd = contraction_dtype(da, db);
                let r = ops::tensordot(va, vb, &axa, &axb).py(vm)?;
                Ok(arr_or_scalar(round_to(r, rd), rd, vm))
            })
        })
    }

    #[pyfunction]
    pub(crate) fn einsum(args: rustpython_vm::function::FuncArgs, vm: &VirtualMachine) -> PyResult {
        let mut it = args.args.into_iter();
        let subs = it.next().ok_or_else(|| {
            vm.new_type_error("einsum() missing required argument 'subscripts' (pos 0)")
        })?;
        let subs = subs
            .downcast::<PyStr>()
            .map_err(|_| vm.new_type_error("einsum: the sublist form (einsum(op0, sublist0, ...)) is not supported; pass a subscripts string"))?;
        let ops_: Vec<(ArrayD<f64>, DType)> =
            it.map(|o| to_array(&o, vm)).collect::<PyResult<_>>()?;
        let rd = ops_
            .iter()
            .map(|(_, d)| *d)
            .reduce(DType::promote)
            .unwrap_or(DType::Float64);
        let views: Vec<ArrayViewD<'_, f64>> = ops_.iter().map(|(a, _)| a.view()).collect();
        if rd == DType::Int64 {
            // Computed in float64: exact while no partial sum passes 2**53, which the same
            // contraction of the magnitudes bounds (with a bit to spare for its rounding).
            let magnitudes: Vec<ArrayD<f64>> = ops_.iter().map(|(a, _)| a.mapv(f64::abs)).collect();
            let views: Vec<ArrayViewD<'_, f64>> = magnitudes.iter().map(|a| a.view()).collect();
            let bound = ops::einsum(&subs.to_string_lossy(), &views).py(vm)?;
            if bound
                .iter()
                .any(|x| !x.is_finite() || *x >= 4.503_599_627_370_496e15)
            {
                return Err(vm.new_not_implemented_error(
                    "einsum of int64 arrays computes in float64, where these operands' sums \
                     pass 2**52 and could round; it refuses rather than give a rounded result \
                     (`@` and `np.matmul` of int64 arrays are exact)",
                ));
            }
        }
        let r = ops::einsum(&subs.to_string_lossy(), &views).py(vm)?;
        let r = if rd == DType::Bool {
            r.mapv(|x| (x != 0.0) as u8 as f64)
        } else {
            round_to(r, rd)
        };
        Ok(arr_or_scalar(r, rd, vm))
    }

    #[pyfunction]
    pub(crate) fn matmul(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        matmul_objs(&a, &b, vm)
    }

    /// `_matmul_t(a, b, ta, tb)`: `op(a) @ op(b)` for 2-D arrays, where `op` transposes
    /// when the flag is set, without copying the transposed operand (the gradients of
    /// `@` need `g @ b.T` and `a.T @ g`).
    #[pyfunction]
    pub fn _matmul_t(
        a: PyRef<PyNdArray>,
        b: PyRef<PyNdArray>,
        ta: bool,
        tb: bool,
        vm: &VirtualMachine,
    ) -> PyResult {
        let dt = a.dtype.promote(b.dtype).float_result();
        if dt == DType::Float32 {
            let (ga, gb) = (a.read_typed(), b.read_typed());
            let (x, y) = (ga.typed().cast_to::<f32>(), gb.typed().cast_to::<f32>());
            let out = matmul_t_2d(x.view(), y.view(), ta, tb, vm)?;
            return Ok(PyNdArray::from_elements(Elements::F32(out)).into_pyobject(vm));
        }
        let ga_lock = a.read();
        let ga = ga_lock.view();
        let gb_lock = b.read();
        let gb = gb_lock.view();
        let out = matmul_t_2d(ga, gb, ta, tb, vm)?;
        Ok(new_arr(out, dt, vm))
    }

    /// `op(a) @ op(b)` of two 2-D views.
    fn matmul_t_2d<T: core::MatElem>(
        ga: ArrayViewD<'_, T>,
        gb: ArrayViewD<'_, T>,
        ta: bool,
        tb: bool,
        vm: &VirtualMachine,
    ) -> PyResult<ArrayD<T>> {
        let (Ok(va), Ok(vb)) = (
            ga.view().into_dimensionality::<ndarray::Ix2>(),
            gb.view().into_dimensionality::<ndarray::Ix2>(),
        ) else {
            return Err(vm.new_value_error("_matmul_t: both operands must be 2-D"));
        };
        let va = if ta { va.reversed_axes() } else { va };
        let vb = if tb { vb.reversed_axes() } else { vb };
        if va.ncols() != vb.nrows() {
            return Err(vm.new_value_error(format!(
                "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {} is different from {})",
                vb.nrows(),
                va.ncols()
            )));
        }
        Ok(core::mm2(va, vb).into_dyn())
    }

    #[pyfunction]
    pub(crate) fn dot(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        if let Some(s) = vector_dot_f64(&a, &b, vm) {
            return Ok(s);
        }
        let sa = src_arg(&a, vm)?;
        let sb = src_arg(&b, vm)?;
        if matches!(sa, Src::Sc(..)) || matches!(sb, Src::Sc(..)) {
            return binop_src(Op::Mul, &sa, &sb, vm);
        }
        let rd = promote_srcs(&sa, &sb);
        let (Src::Arr(_) | Src::Own(..)) = &sa else {
            unreachable!()
        };
        if rd == DType::Int64 {
            // Up to 2-D, `dot` is `matmul`, whose int64 products are exact (in i64,
            // wrapping as NumPy's).
            let shape = |s: &Src| match s {
                Src::Arr(r) => r.shape_vec(),
                Src::Own(x, _) => x.shape().to_vec(),
                Src::Sc(..) => vec![],
            };
            let (ka, kb) = (shape(&sa), shape(&sb));
            let aligned = match (ka.len(), kb.len()) {
                (1 | 2, 1 | 2) => ka[ka.len() - 1] == kb[0],
                _ => false,
            };
            if aligned {
                return matmul_objs(&a, &b, vm);
            }
            if ka.len() > 2 || kb.len() > 2 {
                for s in [&sa, &sb] {
                    if let Src::Arr(r) = s {
                        refuse_inexact_ints(r, vm)?;
                    }
                }
            }
        }
        let av = src_owned_view(&sa);
        let bv = src_owned_view(&sb);
        let ga = av.as_ref().map(|r| r.read());
        let gb = bv.as_ref().map(|r| r.read());
        let va = match (&sa, &ga) {
            (Src::Own(x, _), _) => x.view(),
            (_, Some(g)) => g.view(),
            _ => unreachable!(),
        };
        let vb = match (&sb, &gb) {
            (Src::Own(x, _), _) => x.view(),
            (_, Some(g)) => g.view(),
            _ => unreachable!(),
        };
        let out = core::dot(va, vb).py(vm)?;
        let out = if rd == DType::Bool {
            out.mapv(|x| (x != 0.0) as u8 as f64)
        } else {
            round_to(out, rd)
        };
        Ok(arr_or_scalar(out, rd, vm))
    }

    /// `np.dot(x, y)` or `x @ y` of two contiguous float64 vectors of one length: the
    /// pairwise sum of the products read from the buffers (`core::dot`'s result, without
    /// its general conversions); None for any other operands.
    pub(crate) fn vector_dot_f64(
        a: &PyObject,
        b: &PyObject,
        vm: &VirtualMachine,
    ) -> Option<PyObjectRef> {
        let (x, y) = (
            a.downcast_ref::<PyNdArray>()?,
            b.downcast_ref::<PyNdArray>()?,
        );
        let s = x.with_f64_slice(|xs, dx| {
            y.with_f64_slice(|ys, dy| {
                (dx.ndim() == 1 && dy.ndim() == 1 && xs.len() == ys.len())
                    .then(|| crate::fastmath::pairwise_dot(xs, ys))
            })
        })???;
        Some(py_scalar(s, DType::Float64, vm))
    }

    pub(crate) fn src_owned_view(s: &Src) -> Option<PyRef<PyNdArray>> {
        match s {
            Src::Arr(r) => Some(r.clone()),
            _ => None,
        }
    }

    #[pyfunction]
    pub(crate) fn outer(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let (x, dx) = to_array(&a, vm)?;
        let (y, dy) = to_array(&b, vm)?;
        if Op::Mul.result_dtype(dx, dy) == DType::Int64 {
            // Products in int64 (wrapping as NumPy's), every bit kept.
            let (xs, ys) = (exact_i64(&a, vm)?, exact_i64(&b, vm)?);
            let data: Vec<i64> = xs
                .iter()
                .flat_map(|&u| ys.iter().map(move |&v| u.wrapping_mul(v)))
                .collect();
            let out = ArrayD::from_shape_vec(IxDyn(&[xs.len(), ys.len()]), data).unwrap();
            return Ok(PyNdArray::from_elements(Elements::I64(out)).into_pyobject(vm));
        }
        let xs: Vec<f64> = x.iter().copied().collect();
        let ys: Vec<f64> = y.iter().copied().collect();
        let mut data = Vec::with_capacity(xs.len() * ys.len());
        for &u in &xs {
            for &v in &ys {
                data.push(u * v);
            }
        }
        let arr = ArrayD::from_shape_vec(IxDyn(&[xs.len(), ys.len()]), data).unwrap();
        let rd = Op::Mul.result_dtype(dx, dy);
        Ok(new_arr(round_to(arr, rd), rd, vm))
    }
}
