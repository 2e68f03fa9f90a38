//! `numpy.linalg`: norms, solves, inverses and decompositions over faer.

pub(crate) use self::_linalg::*;

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _linalg {
    use crate::native::prelude::*;
    #[derive(FromArgs)]
    pub(crate) struct NormArgs {
        #[pyarg(any)]
        x: PyObjectRef,
        #[pyarg(any, optional)]
        ord: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = false)]
        keepdims: bool,
    }

    pub(crate) fn vec_norm(it: &mut dyn Iterator<Item = f64>, ord: Option<f64>) -> f64 {
        match ord {
            None => it.map(|x| x * x).sum::<f64>().sqrt(),
            Some(p) if p == f64::INFINITY => it.map(f64::abs).fold(0.0, core::np_max),
            Some(p) if p == f64::NEG_INFINITY => it.map(f64::abs).fold(f64::INFINITY, core::np_min),
            Some(0.0) => it.filter(|&x| x != 0.0).count() as f64,
            Some(1.0) => it.map(f64::abs).sum(),
            Some(2.0) => it.map(|x| x * x).sum::<f64>().sqrt(),
            Some(p) => it.map(|x| x.abs().powf(p)).sum::<f64>().powf(1.0 / p),
        }
    }

    #[pyfunction]
    pub(crate) fn norm(args: NormArgs, vm: &VirtualMachine) -> PyResult {
        let ord: Option<f64> = match args.ord.as_option() {
            None => None,
            Some(o) if vm.is_none(o) => None,
            Some(o) => {
                if let Some(s) = o.downcast_ref::<PyStr>() {
                    if s.to_string_lossy() == "fro" {
                        None
                    } else {
                        return Err(vm.new_value_error(format!(
                            "Invalid norm order '{}' for vectors",
                            s.to_string_lossy()
                        )));
                    }
                } else {
                    Some(o.try_float(vm)?.to_f64())
                }
            }
        };
        with_arr(&args.x, vm, |v, d| {
            let fd = float_dt(d);
            let axes = parse_axes(args.axis.as_option().map(|o| &**o), v.ndim(), vm)?;
            match axes {
                None => {
                    if v.ndim() == 2 && ord.is_some() {
                        return Err(
                            vm.new_value_error("only the Frobenius norm is supported for matrices")
                        );
                    }
                    let r = vec_norm(&mut v.iter().copied(), ord);
                    if args.keepdims {
                        let s = vec![1; v.ndim()];
                        return Ok(new_arr(ArrayD::from_elem(IxDyn(&s), fd.cast(r)), fd, vm));
                    }
                    Ok(vm.ctx.new_float(fd.cast(r)).into())
                }
                Some(ax) if ax.len() == 1 => {
                    let mut r =
                        v.map_axis(Axis(ax[0]), |lane| vec_norm(&mut lane.iter().copied(), ord));
                    if args.keepdims {
                        r.insert_axis_inplace(Axis(ax[0]));
                    }
                    Ok(arr_or_scalar(round_to(r, fd), fd, vm))
                }
                Some(ax) => {
                    if ord.is_some() {
                        return Err(
                            vm.new_value_error("only the Frobenius norm is supported for matrices")
                        );
                    }
                    let sq = core::map_unary(v, |x| x * x);
                    let r =
                        core::reduce(sq.view(), Some(&ax), args.keepdims, Reduce::Sum).py(vm)?;
                    Ok(arr_or_scalar(round_to(r.mapv(f64::sqrt), fd), fd, vm))
                }
            }
        })
    }

    // ------------------------------------------------------------------ linalg (faer)

    /// `numpy.linalg.LinAlgError` (defined by the shim; a ValueError subclass as in NumPy).
    pub(crate) fn linalg_error(
        m: String,
        vm: &VirtualMachine,
    ) -> rustpython_vm::builtins::PyBaseExceptionRef {
        if let Ok(np) = vm.import("numpy", 0) {
            if let Ok(la) = np.get_attr("linalg", vm) {
                if let Ok(cls) = la.get_attr("LinAlgError", vm) {
                    if let Ok(cls) = cls.downcast::<PyType>() {
                        return vm.new_exception_msg(cls, m.into());
                    }
                }
            }
        }
        vm.new_value_error(m)
    }

    /// Result dtype of a floating-point computation on `d` (float32 stays float32).
    pub(crate) fn float_dt(d: DType) -> DType {
        d.float_result()
    }

    /// Rounds a float result to its dtype's precision.
    pub(crate) fn round_to(mut a: ArrayD<f64>, dt: DType) -> ArrayD<f64> {
        if dt.needs_rounding() {
            match a.as_slice_mut() {
                Some(s) => crate::fastmath::round_to_f32(s),
                None => a.mapv_inplace(|x| dt.cast(x)),
            }
        }
        a
    }

    pub(crate) fn float_arr(a: ArrayD<f64>, d: DType, vm: &VirtualMachine) -> PyObjectRef {
        let dt = float_dt(d);
        arr_or_scalar(round_to(a, dt), dt, vm)
    }

    pub(crate) fn lin1(
        a: &PyObject,
        vm: &VirtualMachine,
        f: impl FnOnce(ArrayViewD<'_, f64>) -> core::NpResult<ArrayD<f64>>,
    ) -> PyResult {
        with_arr(a, vm, |v, d| {
            let r = f(v).py(vm)?;
            Ok(float_arr(r, d, vm))
        })
    }

    #[pyfunction(name = "inv")]
    pub(crate) fn linalg_inv(a: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        lin1(&a, vm, linalg::inv)
    }
    #[pyfunction(name = "det")]
    pub(crate) fn linalg_det(a: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        lin1(&a, vm, linalg::det)
    }
    #[pyfunction(name = "slogdet")]
    pub(crate) fn linalg_slogdet(a: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        with_arr(&a, vm, |v, d| {
            let (s, l) = linalg::slogdet(v).py(vm)?;
            Ok(vm
                .ctx
                .new_tuple(vec![float_arr(s, d, vm), float_arr(l, d, vm)])
                .into())
        })
    }
    #[pyfunction(name = "solve")]
    pub(crate) fn linalg_solve(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        with_arr(&a, vm, |va, da| {
            with_arr(&b, vm, |vb, db| {
                let r = linalg::solve(va, vb).py(vm)?;
                Ok(float_arr(r, da.promote(db), vm))
            })
        })
    }
    #[derive(FromArgs)]
    pub(crate) struct CholArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any, default = false)]
        upper: bool,
    }
    #[pyfunction(name = "cholesky")]
    pub(crate) fn linalg_cholesky(args: CholArgs, vm: &VirtualMachine) -> PyResult {
        lin1(&args.a, vm, |v| linalg::cholesky(v, args.upper))
    }
    #[derive(FromArgs)]
    pub(crate) struct EighArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any, optional, name = "UPLO")]
        uplo: OptionalArg<PyStrRef>,
    }
    pub(crate) fn uplo_upper(u: &OptionalArg<PyStrRef>, vm: &VirtualMachine) -> PyResult<bool> {
        match u.as_option().map(|s| s.to_string_lossy().to_string()) {
            None => Ok(false),
            Some(s) if s == "L" || s == "l" => Ok(false),
            Some(s) if s == "U" || s == "u" => Ok(true),
            Some(_) => Err(vm.new_value_error("UPLO argument must be 'L' or 'U'")),
        }
    }
    #[pyfunction(name = "eigh")]
    pub(crate) fn linalg_eigh(args: EighArgs, vm: &VirtualMachine) -> PyResult {
        let upper = uplo_upper(&args.uplo, vm)?;
        with_arr(&args.a, vm, |v, d| {
            let (w, vecs) = linalg::eigh(v, upper, true).py(vm)?;
            Ok(vm
                .ctx
                .new_tuple(vec![float_arr(w, d, vm), float_arr(vecs.unwrap(), d, vm)])
                .into())
        })
    }
    #[pyfunction(name = "eig")]
    pub(crate) fn linalg_eig(a: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        with_arr(&a, vm, |v, d| {
            let (w, vecs) = linalg::eig(v, true).py(vm)?;
            Ok(vm
                .ctx
                .new_tuple(vec![float_arr(w, d, vm), float_arr(vecs.unwrap(), d, vm)])
                .into())
        })
    }
    #[pyfunction(name = "eigvals")]
    pub(crate) fn linalg_eigvals(a: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        lin1(&a, vm, |v| Ok(linalg::eig(v, false)?.0))
    }
    #[pyfunction(name = "eigvalsh")]
    pub(crate) fn linalg_eigvalsh(args: EighArgs, vm: &VirtualMachine) -> PyResult {
        let upper = uplo_upper(&args.uplo, vm)?;
        lin1(&args.a, vm, |v| Ok(linalg::eigh(v, upper, false)?.0))
    }
    #[derive(FromArgs)]
    pub(crate) struct QrArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any, optional)]
        mode: OptionalArg<PyStrRef>,
    }
    #[pyfunction(name = "qr")]
    pub(crate) fn linalg_qr(args: QrArgs, vm: &VirtualMachine) -> PyResult {
        let mode = match args
            .mode
            .as_option()
            .map(|s| s.to_string_lossy().to_string())
            .as_deref()
        {
            None | Some("reduced") => linalg::QrMode::Reduced,
            Some("complete") => linalg::QrMode::Complete,
            Some("r") => linalg::QrMode::R,
            Some(m) => return Err(vm.new_value_error(format!("Unrecognized mode '{m}'"))),
        };
        with_arr(&args.a, vm, |v, d| {
            let (q, r) = linalg::qr(v, mode).py(vm)?;
            match q {
                Some(q) => Ok(vm
                    .ctx
                    .new_tuple(vec![float_arr(q, d, vm), float_arr(r, d, vm)])
                    .into()),
                None => Ok(float_arr(r, d, vm)),
            }
        })
    }
    #[derive(FromArgs)]
    pub(crate) struct SvdArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any, default = true)]
        full_matrices: bool,
        #[pyarg(any, default = true)]
        compute_uv: bool,
        #[pyarg(any, default = false)]
        hermitian: bool,
    }
    #[pyfunction(name = "svd")]
    pub(crate) fn linalg_svd(args: SvdArgs, vm: &VirtualMachine) -> PyResult {
        let _ = args.hermitian;
        with_arr(&args.a, vm, |v, d| {
            let (u, s, vh) = linalg::svd(v, args.full_matrices, args.compute_uv).py(vm)?;
            match (u, vh) {
                (Some(u), Some(vh)) => Ok(vm
                    .ctx
                    .new_tuple(vec![
                        float_arr(u, d, vm),
                        float_arr(s, d, vm),
                        float_arr(vh, d, vm),
                    ])
                    .into()),
                _ => Ok(float_arr(s, d, vm)),
            }
        })
    }
    #[derive(FromArgs)]
    pub(crate) struct PinvArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any, optional)]
        rcond: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = false)]
        hermitian: bool,
    }
    #[pyfunction(name = "pinv")]
    pub(crate) fn linalg_pinv(args: PinvArgs, vm: &VirtualMachine) -> PyResult {
        let _ = args.hermitian;
        let rcond = match args.rcond.as_option() {
            Some(o) if !vm.is_none(o) => o.try_float(vm)?.to_f64(),
            _ => 1e-15,
        };
        lin1(&args.a, vm, |v| linalg::pinv(v, rcond))
    }
    #[derive(FromArgs)]
    pub(crate) struct RankArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any, optional)]
        tol: OptionalArg<PyObjectRef>,
    }
    #[pyfunction(name = "matrix_rank")]
    pub(crate) fn linalg_matrix_rank(args: RankArgs, vm: &VirtualMachine) -> PyResult {
        let tol = match args.tol.as_option() {
            Some(o) if !vm.is_none(o) => Some(o.try_float(vm)?.to_f64()),
            _ => None,
        };
        with_arr(&args.a, vm, |v, _| {
            let r = linalg::matrix_rank(v, tol).py(vm)?;
            Ok(arr_or_scalar(r, DType::Int64, vm))
        })
    }
    #[pyfunction(name = "matrix_power")]
    pub(crate) fn linalg_matrix_power(
        a: PyObjectRef,
        n: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult {
        let p = to_isize(&n, vm)? as i64;
        with_arr(&a, vm, |v, d| {
            let r = linalg::matrix_power(v, p).py(vm)?;
            let dt = if p < 0 {
                float_dt(d)
            } else if d == DType::Bool {
                DType::Bool
            } else {
                d
            };
            let r = if dt == DType::Bool {
                r.mapv(|x| (x != 0.0) as u8 as f64)
            } else {
                round_to(r, dt)
            };
            Ok(arr_or_scalar(r, dt, vm))
        })
    }
    #[derive(FromArgs)]
    pub(crate) struct LstsqArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any)]
        b: PyObjectRef,
        #[pyarg(any, optional)]
        rcond: OptionalArg<PyObjectRef>,
    }
    #[pyfunction(name = "lstsq")]
    pub(crate) fn linalg_lstsq(args: LstsqArgs, vm: &VirtualMachine) -> PyResult {
        let rcond = match args.rcond.as_option() {
            Some(o) if !vm.is_none(o) => Some(o.try_float(vm)?.to_f64()),
            _ => None,
        };
        with_arr(&args.a, vm, |va, da| {
            with_arr(&args.b, vm, |vb, db| {
                let (x, res, rank, s) = linalg::lstsq(va, vb, rcond).py(vm)?;
                let d = da.promote(db);
                Ok(vm
                    .ctx
                    .new_tuple(vec![
                        float_arr(x, d, vm),
                        new_arr(round_to(res, float_dt(d)), float_dt(d), vm),
                        vm.ctx.new_int(rank).into(),
                        new_arr(round_to(s, float_dt(d)), float_dt(d), vm),
                    ])
                    .into())
            })
        })
    }
}
