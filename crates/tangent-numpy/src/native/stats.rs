//! Statistics: order statistics (median, percentile, quantile), the NaN-ignoring
//! reductions, ptp, count_nonzero, histogram and interp.

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _stats {
    use crate::core::QuantileMethod;
    use crate::native::prelude::*;

    /// The reduced axes of an `axis=` argument (`None` or missing: all).
    fn axes_arg(
        axis: &OptionalArg<PyObjectRef>,
        ndim: usize,
        vm: &VirtualMachine,
    ) -> PyResult<Option<Vec<usize>>> {
        parse_axes(axis.as_option().map(|o| &**o), ndim, vm)
    }

    /// Refuses an `out=` array: results are always new here.
    fn no_out(out: &OptionalArg<PyObjectRef>, name: &str, vm: &VirtualMachine) -> PyResult<()> {
        match out.as_option() {
            Some(o) if !vm.is_none(o) => Err(vm.new_type_error(format!(
                "numpy.{name}(out=...) is not supported by the embedded NumPy; use the result"
            ))),
            _ => Ok(()),
        }
    }

    fn bool_subtract_error(vm: &VirtualMachine) -> rustpython_vm::builtins::PyBaseExceptionRef {
        vm.new_type_error(
            "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, \
             the `^` operator, or the logical_xor function instead."
                .to_owned(),
        )
    }

    // ---------------------------------------------------------------- order statistics

    #[derive(FromArgs)]
    pub(crate) struct MedianArgs {
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        out: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = false)]
        overwrite_input: bool,
        #[pyarg(any, default = false)]
        keepdims: bool,
    }

    /// `np.median`: the mean of the middle values; NaN for a lane holding a NaN.
    #[pyfunction]
    pub(crate) fn median(a: PyObjectRef, args: MedianArgs, vm: &VirtualMachine) -> PyResult {
        no_out(&args.out, "median", vm)?;
        let _ = args.overwrite_input;
        with_arr(&a, vm, |v, d| {
            let axes = axes_arg(&args.axis, v.ndim(), vm)?;
            let r = core::reduce_lanes(v, axes.as_deref(), args.keepdims, core::median_of);
            let rd = d.float_result();
            Ok(arr_or_scalar(r.mapv(|x| rd.cast(x)), rd, vm))
        })
    }

    #[derive(FromArgs)]
    pub(crate) struct QuantileArgs {
        #[pyarg(any)]
        q: PyObjectRef,
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        out: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = false)]
        overwrite_input: bool,
        #[pyarg(any, optional)]
        method: OptionalArg<PyStrRef>,
        #[pyarg(any, default = false)]
        keepdims: bool,
        #[pyarg(named, optional)]
        weights: OptionalArg<PyObjectRef>,
        #[pyarg(named, optional)]
        interpolation: OptionalArg<PyObjectRef>,
    }

    /// `np.quantile(a, q)` (`scale` 1) and `np.percentile(a, q)` (`scale` 100).
    fn quantiles(
        a: &PyObject,
        args: &QuantileArgs,
        name: &str,
        scale: f64,
        vm: &VirtualMachine,
    ) -> PyResult {
        no_out(&args.out, name, vm)?;
        let _ = args.overwrite_input;
        for (arg, what) in [
            (&args.weights, "weights"),
            (&args.interpolation, "interpolation"),
        ] {
            if arg.as_option().is_some_and(|o| !vm.is_none(o)) {
                return Err(vm.new_type_error(format!(
                    "numpy.{name}({what}=...) is not supported by the embedded NumPy"
                )));
            }
        }
        let method = match args.method.as_option() {
            None => QuantileMethod::Linear,
            Some(m) => {
                let m = m.to_string_lossy();
                QuantileMethod::from_name(&m).ok_or_else(|| {
                    vm.new_value_error(format!(
                        "numpy.{name}(method={m:?}) is not supported by the embedded NumPy \
                         (it has 'linear', 'lower', 'higher', 'nearest' and 'midpoint')"
                    ))
                })?
            }
        };
        // A Python number is weak (float32 data stays float32); an array of q is not.
        let q_weak = is_weak_scalar(&args.q, vm);
        let (q, qd) = to_array(&args.q, vm)?;
        let q = q.mapv(|x| x / scale);
        if q.iter().any(|&x| !(0.0..=1.0).contains(&x)) {
            let what = if scale == 1.0 {
                "Quantiles must be in the range [0, 1]"
            } else {
                "Percentiles must be in the range [0, 100]"
            };
            return Err(vm.new_value_error(what.to_owned()));
        }
        with_arr(a, vm, |v, d| {
            if d == DType::Bool {
                return Err(bool_subtract_error(vm));
            }
            let axes = axes_arg(&args.axis, v.ndim(), vm)?;
            // The methods that pick a sample keep an integer input's dtype (NumPy).
            let picks = matches!(
                method,
                QuantileMethod::Lower | QuantileMethod::Higher | QuantileMethod::Nearest
            );
            let rd = if picks && d == DType::Int64 {
                DType::Int64
            } else if q_weak {
                d.float_result()
            } else {
                d.promote(qd).float_result()
            };
            let mut parts = Vec::with_capacity(q.len());
            for &qi in q.iter() {
                let r = core::reduce_lanes(v.view(), axes.as_deref(), args.keepdims, |lane| {
                    core::quantile_of(lane, qi, method)
                });
                parts.push(r.mapv(|x| rd.cast(x)));
            }
            if q.ndim() == 0 {
                return Ok(arr_or_scalar(parts.pop().unwrap(), rd, vm));
            }
            let inner = parts
                .first()
                .map(|p| p.shape().to_vec())
                .unwrap_or_default();
            let mut shape = q.shape().to_vec();
            shape.extend(&inner);
            let flat: Vec<f64> = parts.iter().flat_map(|p| p.iter().copied()).collect();
            Ok(new_arr(
                ArrayD::from_shape_vec(IxDyn(&shape), flat).unwrap(),
                rd,
                vm,
            ))
        })
    }

    #[pyfunction]
    pub(crate) fn quantile(a: PyObjectRef, args: QuantileArgs, vm: &VirtualMachine) -> PyResult {
        quantiles(&a, &args, "quantile", 1.0, vm)
    }

    #[pyfunction]
    pub(crate) fn percentile(a: PyObjectRef, args: QuantileArgs, vm: &VirtualMachine) -> PyResult {
        quantiles(&a, &args, "percentile", 100.0, vm)
    }

    // ---------------------------------------------------------------- NaN-ignoring reductions

    #[derive(Clone, Copy, PartialEq, Eq)]
    enum NanReduce {
        Sum,
        Mean,
        Max,
        Min,
    }

    #[derive(FromArgs)]
    pub(crate) struct NanArgs {
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        dtype: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        out: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = false)]
        keepdims: bool,
    }

    fn nan_reduce(a: &PyObject, args: &NanArgs, kind: NanReduce, vm: &VirtualMachine) -> PyResult {
        let name = match kind {
            NanReduce::Sum => "nansum",
            NanReduce::Mean => "nanmean",
            NanReduce::Max => "nanmax",
            NanReduce::Min => "nanmin",
        };
        no_out(&args.out, name, vm)?;
        let want = opt_dtype(&args.dtype, vm)?;
        with_arr(a, vm, |v, d| {
            let axes = axes_arg(&args.axis, v.ndim(), vm)?;
            let count: usize = match &axes {
                Some(ax) => ax.iter().map(|&i| v.shape()[i]).product(),
                None => v.len(),
            };
            if count == 0 && matches!(kind, NanReduce::Max | NanReduce::Min) {
                let ufunc = if kind == NanReduce::Max {
                    "fmax"
                } else {
                    "fmin"
                };
                return Err(vm.new_value_error(format!(
                    "zero-size array to reduction operation {ufunc} which has no identity"
                )));
            }
            let rd = want.unwrap_or(match kind {
                NanReduce::Sum if d == DType::Bool => DType::Int64,
                NanReduce::Mean => d.float_result(),
                _ => d,
            });
            let r = match kind {
                // NumPy's: NaNs replaced by 0 in a copy (of the same layout), summed as
                // `np.sum` sums; the mean divides by the count of the others.
                NanReduce::Sum | NanReduce::Mean => {
                    let single = rd == DType::Float32;
                    let mut zeroed = v.to_owned();
                    zeroed.mapv_inplace(|x| if x.is_nan() { 0.0 } else { x });
                    let ax = axes.as_deref();
                    let keep = args.keepdims;
                    let tot = core::reduce_ordered(zeroed.view(), ax, keep, Reduce::Sum, single)
                        .py(vm)?;
                    if kind == NanReduce::Sum {
                        tot
                    } else {
                        let seen = v.mapv(|x| f64::from(u8::from(!x.is_nan())));
                        let cnt = core::reduce_ordered(seen.view(), ax, keep, Reduce::Sum, false)
                            .py(vm)?;
                        let r32 = |x: f64| if single { x as f32 as f64 } else { x };
                        core::zip_with(tot.view(), cnt.view(), |t, c| r32(t / c)).py(vm)?
                    }
                }
                _ => core::reduce_lanes(v, axes.as_deref(), args.keepdims, |lane| {
                    let kept = lane.iter().copied().filter(|x| !x.is_nan());
                    // An all-NaN lane gives NaN, as NumPy (which also warns).
                    if kind == NanReduce::Max {
                        kept.fold(f64::NAN, f64::max)
                    } else {
                        kept.fold(f64::NAN, f64::min)
                    }
                }),
            };
            Ok(arr_or_scalar(r.mapv(|x| rd.cast(x)), rd, vm))
        })
    }

    /// `np.nansum`: the sum with NaNs counted as zero.
    #[pyfunction]
    pub(crate) fn nansum(a: PyObjectRef, args: NanArgs, vm: &VirtualMachine) -> PyResult {
        nan_reduce(&a, &args, NanReduce::Sum, vm)
    }

    /// `np.nanmean`: the mean of the values that are not NaN.
    #[pyfunction]
    pub(crate) fn nanmean(a: PyObjectRef, args: NanArgs, vm: &VirtualMachine) -> PyResult {
        nan_reduce(&a, &args, NanReduce::Mean, vm)
    }

    /// `np.nanmax`: the largest value that is not NaN.
    #[pyfunction]
    pub(crate) fn nanmax(a: PyObjectRef, args: NanArgs, vm: &VirtualMachine) -> PyResult {
        nan_reduce(&a, &args, NanReduce::Max, vm)
    }

    /// `np.nanmin`: the smallest value that is not NaN.
    #[pyfunction]
    pub(crate) fn nanmin(a: PyObjectRef, args: NanArgs, vm: &VirtualMachine) -> PyResult {
        nan_reduce(&a, &args, NanReduce::Min, vm)
    }

    // ---------------------------------------------------------------- ptp, count_nonzero

    #[derive(FromArgs)]
    pub(crate) struct PtpArgs {
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        out: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = false)]
        keepdims: bool,
    }

    /// `np.ptp`: maximum minus minimum (NaN if a lane holds a NaN).
    #[pyfunction]
    pub(crate) fn ptp(a: PyObjectRef, args: PtpArgs, vm: &VirtualMachine) -> PyResult {
        no_out(&args.out, "ptp", vm)?;
        if let Some(arr) = a.downcast_ref::<PyNdArray>() {
            if let ElemView::I64(v) = arr.read_typed().typed() {
                // int64: max - min in i64, wrapping like NumPy.
                let axes = axes_arg(&args.axis, v.ndim(), vm)?;
                let ext = |kind| {
                    core::reduce_int(v.view(), axes.as_deref(), args.keepdims, kind)
                        .py(vm)
                        .map(|r| r.expect("max and min have int64 kernels"))
                };
                let (hi, lo) = (ext(Reduce::Max)?, ext(Reduce::Min)?);
                let r = ndarray::Zip::from(&hi)
                    .and(&lo)
                    .map_collect(|&h, &l| h.wrapping_sub(l));
                return Ok(typed_arr_or_scalar(r, vm));
            }
        }
        with_arr(&a, vm, |v, d| {
            if d == DType::Bool {
                return Err(bool_subtract_error(vm));
            }
            let axes = axes_arg(&args.axis, v.ndim(), vm)?;
            let hi = core::reduce(v.view(), axes.as_deref(), args.keepdims, Reduce::Max).py(vm)?;
            let lo = core::reduce(v, axes.as_deref(), args.keepdims, Reduce::Min).py(vm)?;
            Ok(arr_or_scalar((hi - lo).mapv(|x| d.cast(x)), d, vm))
        })
    }

    #[derive(FromArgs)]
    pub(crate) struct CountArgs {
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
        #[pyarg(named, default = false)]
        keepdims: bool,
    }

    /// `np.count_nonzero`: how many elements are not zero (an int, or int64 per lane).
    #[pyfunction]
    pub(crate) fn count_nonzero(a: PyObjectRef, args: CountArgs, vm: &VirtualMachine) -> PyResult {
        // Read in float64 without the int64 refusal: no nonzero integer rounds to zero.
        let (v, _) = to_array(&a, vm)?;
        let axes = axes_arg(&args.axis, v.ndim(), vm)?;
        let r = core::reduce_lanes(v.view(), axes.as_deref(), args.keepdims, |lane| {
            lane.iter().filter(|&&x| x != 0.0).count() as f64
        });
        Ok(arr_or_scalar(r, DType::Int64, vm))
    }

    // ---------------------------------------------------------------- histogram

    #[derive(FromArgs)]
    pub(crate) struct HistogramArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any, optional)]
        bins: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        range: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        density: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        weights: OptionalArg<PyObjectRef>,
    }

    /// A float as Python prints it in a message (`nan`, `inf`, `1.0`).
    fn py_float(x: f64) -> String {
        if x.is_nan() {
            "nan".to_owned()
        } else {
            format!("{x:?}")
        }
    }

    /// NumPy's bin of `x` among `n` equal bins from `lo` to `hi` (the last bin is closed),
    /// corrected against the edges as `np.histogram` does.
    fn equal_bin(x: f64, lo: f64, hi: f64, n: usize, edges: &[f64]) -> usize {
        let norm = n as f64 / (hi - lo);
        let mut i = (((x - lo) * norm) as usize).min(n - 1);
        if x < edges[i] && i > 0 {
            i -= 1;
        } else if i + 1 < n && x >= edges[i + 1] {
            i += 1;
        }
        i
    }

    /// `np.histogram(a, bins=10, range=None, density=None, weights=None)`:
    /// `(counts, edges)`; counts are int64 unless weighted or a density.
    #[pyfunction]
    pub(crate) fn histogram(args: HistogramArgs, vm: &VirtualMachine) -> PyResult {
        let (a, ad) = to_array(&args.a, vm)?;
        let vals: Vec<f64> = a.iter().copied().collect();
        let weights = match args.weights.as_option() {
            Some(w) if !vm.is_none(w) => {
                let (w, _) = to_array(w, vm)?;
                if w.shape() != a.shape() {
                    return Err(
                        vm.new_value_error("weights should have the same shape as a.".to_owned())
                    );
                }
                Some(w.iter().copied().collect::<Vec<f64>>())
            }
            _ => None,
        };
        let density = match args.density.as_option() {
            Some(o) => o.clone().try_to_bool(vm)?,
            None => false,
        };
        let edge_dt = if ad == DType::Float32 {
            DType::Float32
        } else {
            DType::Float64
        };
        let bins = args.bins.as_option().cloned();
        let explicit_edges = match &bins {
            Some(b) if scalar_of(b, vm).is_none() => Some(to_array(b, vm)?.0),
            _ => None,
        };
        let (edges, uniform): (Vec<f64>, Option<(f64, f64, usize)>) = match explicit_edges {
            Some(e) => {
                let e: Vec<f64> = e.iter().copied().collect();
                if e.len() < 2 || e.windows(2).any(|w| w[1] < w[0]) {
                    return Err(vm.new_value_error(
                        "`bins` must increase monotonically, when an array".to_owned(),
                    ));
                }
                (e, None)
            }
            None => {
                let n = match &bins {
                    Some(b) => {
                        let n = to_isize(b, vm)?;
                        if n < 1 {
                            return Err(vm.new_value_error(
                                "`bins` must be positive, when an integer".to_owned(),
                            ));
                        }
                        n as usize
                    }
                    None => 10,
                };
                let (mut lo, mut hi) = match args.range.as_option() {
                    Some(r) if !vm.is_none(r) => {
                        let r: Vec<f64> = to_array(r, vm)?.0.iter().copied().collect();
                        if r.len() != 2 || r[0] > r[1] {
                            return Err(vm.new_value_error(
                                "max must be larger than min in range parameter.".to_owned(),
                            ));
                        }
                        (r[0], r[1])
                    }
                    _ if vals.is_empty() => (0.0, 1.0),
                    // NaN-propagating, so a NaN makes the range not finite, as NumPy.
                    _ => (
                        vals.iter().copied().fold(f64::INFINITY, core::np_min),
                        vals.iter().copied().fold(f64::NEG_INFINITY, core::np_max),
                    ),
                };
                if !(lo.is_finite() && hi.is_finite()) {
                    let what = if args.range.as_option().is_none_or(|r| vm.is_none(r)) {
                        "autodetected"
                    } else {
                        "supplied"
                    };
                    return Err(vm.new_value_error(format!(
                        "{what} range of [{}, {}] is not finite",
                        py_float(lo),
                        py_float(hi)
                    )));
                }
                if lo == hi {
                    lo -= 0.5;
                    hi += 0.5;
                }
                let step = (hi - lo) / n as f64;
                let e: Vec<f64> = (0..=n)
                    .map(|i| if i == n { hi } else { lo + step * i as f64 })
                    .map(|x| edge_dt.cast(x))
                    .collect();
                (e, Some((lo, hi, n)))
            }
        };
        let nbins = edges.len() - 1;
        let mut counts = vec![0.0f64; nbins];
        let (first, last) = (edges[0], edges[nbins]);
        for (i, &x) in vals.iter().enumerate() {
            if !(x >= first && x <= last) {
                continue;
            }
            let b = match uniform {
                Some((lo, hi, n)) => equal_bin(x, lo, hi, n, &edges),
                // The last bin is closed: x == last counts in it.
                None => edges[1..].partition_point(|&e| e <= x).min(nbins - 1),
            };
            counts[b] += weights.as_ref().map_or(1.0, |w| w[i]);
        }
        let count_dt = if weights.is_some() || density {
            DType::Float64
        } else {
            DType::Int64
        };
        if density {
            let total: f64 = counts.iter().sum();
            for (c, w) in counts.iter_mut().zip(edges.windows(2)) {
                *c /= total * (w[1] - w[0]);
            }
        }
        let counts = new_arr(
            ArrayD::from_shape_vec(IxDyn(&[nbins]), counts).unwrap(),
            count_dt,
            vm,
        );
        let edges = new_arr(
            ArrayD::from_shape_vec(IxDyn(&[nbins + 1]), edges).unwrap(),
            edge_dt,
            vm,
        );
        Ok(vm.ctx.new_tuple(vec![counts, edges]).into())
    }

    // ---------------------------------------------------------------- interp

    #[derive(FromArgs)]
    pub(crate) struct InterpArgs {
        #[pyarg(any)]
        x: PyObjectRef,
        #[pyarg(any)]
        xp: PyObjectRef,
        #[pyarg(any)]
        fp: PyObjectRef,
        #[pyarg(any, optional)]
        left: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        right: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        period: OptionalArg<PyObjectRef>,
    }

    /// NumPy's `interp` of one point (numpy/_core/src/multiarray/compiled_base.c): the
    /// segment's line from its left end, from its right end if that gives NaN.
    fn interp_one(x: f64, xp: &[f64], fp: &[f64], left: f64, right: f64) -> f64 {
        let n = xp.len();
        if x.is_nan() {
            return x;
        }
        if x > xp[n - 1] {
            return right;
        }
        if x < xp[0] {
            return left;
        }
        if x == xp[n - 1] {
            return fp[n - 1];
        }
        let j = xp.partition_point(|&e| e <= x) - 1;
        if x == xp[j] {
            return fp[j];
        }
        let slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
        let mut y = slope * (x - xp[j]) + fp[j];
        if y.is_nan() {
            y = slope * (x - xp[j + 1]) + fp[j + 1];
            if y.is_nan() && fp[j] == fp[j + 1] {
                y = fp[j];
            }
        }
        y
    }

    /// `np.interp(x, xp, fp, left=None, right=None)`: piecewise-linear interpolation
    /// (float64; `xp` increasing, as NumPy assumes without checking).
    #[pyfunction]
    pub(crate) fn interp(args: InterpArgs, vm: &VirtualMachine) -> PyResult {
        if args.period.as_option().is_some_and(|p| !vm.is_none(p)) {
            return Err(vm.new_type_error(
                "numpy.interp(period=...) is not supported by the embedded NumPy".to_owned(),
            ));
        }
        let (x, _) = to_array(&args.x, vm)?;
        let (xp, _) = to_array(&args.xp, vm)?;
        let (fp, _) = to_array(&args.fp, vm)?;
        if xp.ndim() != 1 || fp.ndim() != 1 {
            return Err(vm.new_value_error("object too deep for desired array".to_owned()));
        }
        if xp.len() != fp.len() {
            return Err(vm.new_value_error("fp and xp are not of the same length.".to_owned()));
        }
        if xp.is_empty() {
            return Err(vm.new_value_error("array of sample points is empty".to_owned()));
        }
        let xp: Vec<f64> = xp.iter().copied().collect();
        let fp: Vec<f64> = fp.iter().copied().collect();
        let end = |arg: &OptionalArg<PyObjectRef>, default: f64| -> PyResult<f64> {
            match arg.as_option() {
                Some(o) if !vm.is_none(o) => {
                    let (v, _) = to_array(o, vm)?;
                    if v.len() != 1 {
                        return Err(vm.new_value_error(
                            "numpy.interp: left and right must be scalars".to_owned(),
                        ));
                    }
                    Ok(*v.iter().next().unwrap())
                }
                _ => Ok(default),
            }
        };
        let left = end(&args.left, fp[0])?;
        let right = end(&args.right, fp[fp.len() - 1])?;
        let y = x.mapv(|xi| interp_one(xi, &xp, &fp, left, right));
        Ok(arr_or_scalar(y, DType::Float64, vm))
    }
}
