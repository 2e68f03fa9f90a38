//! Binary operations: arithmetic, comparisons and two-argument ufuncs with broadcasting and promotion.

pub(crate) use self::_binary::*;

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _binary {
    use crate::native::prelude::*;
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) enum Op {
        Add,
        Sub,
        Mul,
        Div,
        FloorDiv,
        Mod,
        Pow,
        Max,
        Min,
        /// `fmax`/`fmin`: NaN only when both are NaN.
        FMax,
        FMin,
        Atan2,
        Hypot,
        Lt,
        Le,
        Gt,
        Ge,
        Eq,
        Ne,
        And,
        Or,
        Xor,
        Fmod,
        Copysign,
        Logaddexp,
        Logaddexp2,
        Heaviside,
    }

    impl Op {
        fn is_cmp(self) -> bool {
            matches!(self, Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq | Op::Ne)
        }
        pub(crate) fn result_dtype(self, a: DType, b: DType) -> DType {
            self.result_dtype_p(a.promote(b))
        }
        /// Result dtype given the promoted operand dtype.
        fn result_dtype_p(self, p: DType) -> DType {
            match self {
                Op::Div
                | Op::Atan2
                | Op::Hypot
                | Op::Copysign
                | Op::Logaddexp
                | Op::Logaddexp2
                | Op::Heaviside => p.float_result(),
                _ if self.is_cmp() => DType::Bool,
                Op::Sub | Op::FloorDiv | Op::Mod | Op::Fmod | Op::Pow if p == DType::Bool => {
                    DType::Int64
                }
                _ => p,
            }
        }
        fn ufunc(self) -> &'static str {
            match self {
                Op::Add => "add",
                Op::Sub => "subtract",
                Op::Mul => "multiply",
                Op::Div => "divide",
                Op::FloorDiv => "floor_divide",
                Op::Mod => "remainder",
                Op::Pow => "power",
                Op::Fmod => "fmod",
                _ => "ufunc",
            }
        }
    }

    /// Expands `$body` once per operator with `$f` bound to a monomorphic kernel.
    macro_rules! with_op {
        ($op:expr, $f:ident => $body:expr) => {
            match $op {
                Op::Add => {
                    let $f = |x: f64, y: f64| x + y;
                    $body
                }
                Op::Sub => {
                    let $f = |x: f64, y: f64| x - y;
                    $body
                }
                Op::Mul => {
                    let $f = |x: f64, y: f64| x * y;
                    $body
                }
                Op::Div => {
                    let $f = |x: f64, y: f64| x / y;
                    $body
                }
                Op::FloorDiv => {
                    let $f = core::floordiv;
                    $body
                }
                Op::Mod => {
                    let $f = core::fmod_py;
                    $body
                }
                Op::Pow => {
                    let $f = |x: f64, y: f64| x.powf(y);
                    $body
                }
                Op::Max => {
                    let $f = core::np_max;
                    $body
                }
                Op::Min => {
                    let $f = core::np_min;
                    $body
                }
                Op::FMax => {
                    let $f = f64::max;
                    $body
                }
                Op::FMin => {
                    let $f = f64::min;
                    $body
                }
                Op::Atan2 => {
                    let $f = |x: f64, y: f64| x.atan2(y);
                    $body
                }
                Op::Hypot => {
                    let $f = |x: f64, y: f64| x.hypot(y);
                    $body
                }
                Op::Lt => {
                    let $f = |x: f64, y: f64| (x < y) as u8 as f64;
                    $body
                }
                Op::Le => {
                    let $f = |x: f64, y: f64| (x <= y) as u8 as f64;
                    $body
                }
                Op::Gt => {
                    let $f = |x: f64, y: f64| (x > y) as u8 as f64;
                    $body
                }
                Op::Ge => {
                    let $f = |x: f64, y: f64| (x >= y) as u8 as f64;
                    $body
                }
                Op::Eq => {
                    let $f = |x: f64, y: f64| (x == y) as u8 as f64;
                    $body
                }
                Op::Ne => {
                    let $f = |x: f64, y: f64| (x != y) as u8 as f64;
                    $body
                }
                Op::And => {
                    let $f = |x: f64, y: f64| ((x as i64) & (y as i64)) as f64;
                    $body
                }
                Op::Or => {
                    let $f = |x: f64, y: f64| ((x as i64) | (y as i64)) as f64;
                    $body
                }
                Op::Xor => {
                    let $f = |x: f64, y: f64| ((x as i64) ^ (y as i64)) as f64;
                    $body
                }
                Op::Fmod => {
                    let $f = |x: f64, y: f64| if y == 0.0 { f64::NAN } else { x % y };
                    $body
                }
                Op::Copysign => {
                    let $f = f64::copysign;
                    $body
                }
                Op::Logaddexp => {
                    let $f = core::logaddexp;
                    $body
                }
                Op::Logaddexp2 => {
                    let $f = core::logaddexp2;
                    $body
                }
                Op::Heaviside => {
                    let $f = core::heaviside;
                    $body
                }
            }
        };
    }

    pub(crate) enum Src {
        Arr(PyRef<PyNdArray>),
        Own(ArrayD<f64>, DType),
        /// A scalar: its value as f64, for an int that fits exactly, and whether it is a
        /// weak Python scalar (a `numpy.float64` is not).
        Sc(f64, DType, Option<i64>, bool),
    }

    impl Src {
        fn dtype(&self) -> DType {
            match self {
                Src::Arr(a) => a.dtype,
                Src::Own(_, d) | Src::Sc(_, d, ..) => *d,
            }
        }
        /// Python scalars are "weak" (NEP 50): they do not raise an array's precision.
        fn is_weak(&self) -> bool {
            matches!(self, Src::Sc(.., true))
        }
    }

    /// Promoted dtype of two operands with NumPy 2's weak-scalar rule.
    pub(crate) fn promote_srcs(a: &Src, b: &Src) -> DType {
        match (a.is_weak(), b.is_weak()) {
            (true, false) => DType::promote_weak(b.dtype(), a.dtype()),
            (false, true) => DType::promote_weak(a.dtype(), b.dtype()),
            _ => a.dtype().promote(b.dtype()),
        }
    }

    /// Operand conversion for operators: `None` if the object is not array-like.
    pub(crate) fn to_src(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Option<Src>> {
        if let Some((v, d)) = scalar_of(obj, vm) {
            let exact = obj
                .downcast_ref::<PyInt>()
                .and_then(|i| i.as_bigint().to_i64());
            return Ok(Some(Src::Sc(v, d, exact, is_weak_scalar(obj, vm))));
        }
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            return Ok(Some(Src::Arr(a.to_owned())));
        }
        if obj.downcast_ref::<PyList>().is_some() || obj.downcast_ref::<PyTuple>().is_some() {
            let (a, d) = to_array(obj, vm)?;
            if d == DType::Int64 && a.iter().any(|x| x.abs() >= 9.007_199_254_740_992e15) {
                // Python ints past 2**53: read again exactly, as `np.array` does.
                let arr = make_array(obj, None, 0, vm)?;
                let arr = arr.downcast::<PyNdArray>().expect("an ndarray");
                return Ok(Some(Src::Arr(arr)));
            }
            return Ok(Some(Src::Own(a, d)));
        }
        if obj
            .downcast_ref::<rustpython_vm::builtins::PyComplex>()
            .is_some()
        {
            return Err(vm.new_not_implemented_error(core::COMPLEX_UNSUPPORTED));
        }
        Ok(None)
    }

    pub(crate) fn src_arg(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Src> {
        match to_src(obj, vm)? {
            Some(s) => Ok(s),
            None => {
                let (a, d) = to_array(obj, vm)?;
                Ok(Src::Own(a, d))
            }
        }
    }

    pub(crate) enum Val<'a> {
        S(f64),
        A(ArrayViewD<'a, f64>),
    }

    pub(crate) enum Out {
        S(f64),
        A(ArrayD<f64>),
    }

    /// `op` on two operands; with `round_f32` each result is rounded to float32 in the
    /// same pass (float32 arithmetic, without a second sweep over the result).
    pub(crate) fn compute(op: Op, a: Val<'_>, b: Val<'_>, round_f32: bool) -> core::NpResult<Out> {
        with_op!(op, f => {
            if round_f32 {
                compute_with(a, b, move |x, y| f(x, y) as f32 as f64)
            } else {
                compute_with(a, b, f)
            }
        })
    }

    pub(crate) fn compute_with(
        a: Val<'_>,
        b: Val<'_>,
        f: impl Fn(f64, f64) -> f64 + Copy,
    ) -> core::NpResult<Out> {
        Ok(match (a, b) {
            (Val::S(x), Val::S(y)) => Out::S(f(x, y)),
            (Val::A(x), Val::S(y)) => Out::A(core::map_scalar_right(x, y, f)),
            (Val::S(x), Val::A(y)) => Out::A(core::map_scalar_left(x, y, f)),
            (Val::A(x), Val::A(y)) => Out::A(core::zip_with(x, y, f)?),
        })
    }

    pub(crate) fn check_int_pow(b: &Src, rd: DType, vm: &VirtualMachine) -> PyResult<()> {
        if rd != DType::Int64 {
            return Ok(());
        }
        let neg = match b {
            Src::Sc(v, ..) => *v < 0.0,
            Src::Own(a, _) => a.iter().any(|&x| x < 0.0),
            Src::Arr(a) => a.read().view().iter().any(|&x| x < 0.0),
        };
        if neg {
            return Err(vm.new_value_error("Integers to negative integer powers are not allowed."));
        }
        Ok(())
    }

    /// Casts an integer or bool result (float32 is rounded inside `compute`).
    pub(crate) fn fix_result(out: &mut Out, op: Op, rd: DType) {
        if rd.is_float() || op.is_cmp() {
            return;
        }
        let fix = |v: f64| if v.is_finite() { rd.cast(v) } else { 0.0 };
        match out {
            Out::S(v) => *v = fix(*v),
            Out::A(a) => a.mapv_inplace(fix),
        }
    }

    pub(crate) fn binop_src(
        op: Op,
        a: &Src,
        b: &Src,
        vm: &VirtualMachine,
    ) -> PyResult<PyObjectRef> {
        let rd = op.result_dtype_p(promote_srcs(a, b));
        if op == Op::Pow {
            check_int_pow(b, rd, vm)?;
        }
        if let Some(r) = typed_binop(op, a, b, promote_srcs(a, b), vm)? {
            return Ok(r);
        }
        if rd == DType::Int64 {
            // An int64 result through float64 (an operation without an int64 kernel):
            // exact only for operands within 2**53.
            for s in [a, b] {
                if let Src::Arr(r) = s {
                    refuse_inexact_ints(r, vm)?;
                }
            }
        }
        let ga;
        let va = match a {
            Src::Arr(r) => {
                ga = r.read();
                Val::A(ga.view())
            }
            Src::Own(x, _) => Val::A(x.view()),
            Src::Sc(s, ..) => Val::S(*s),
        };
        let gb;
        let vb = match b {
            Src::Arr(r) => {
                gb = r.read();
                Val::A(gb.view())
            }
            Src::Own(x, _) => Val::A(x.view()),
            Src::Sc(s, ..) => Val::S(*s),
        };
        // Comparisons give bools; float32 arithmetic is rounded inside `compute`.
        let round_f32 = rd == DType::Float32 && !op.is_cmp();
        let mut out = compute(op, va, vb, round_f32).py(vm)?;
        if !round_f32 {
            fix_result(&mut out, op, rd);
        }
        // A 0-d result is a scalar, as NumPy's ufuncs give for 0-d operands.
        Ok(match out {
            Out::S(v) => py_scalar(v, rd, vm),
            Out::A(arr) => arr_or_scalar(arr, rd, vm),
        })
    }

    /// An operand of a typed kernel: a scalar or a window in the kernel's type.
    pub(crate) enum TVal<'a, T> {
        S(T),
        A(ndarray::CowArray<'a, T, IxDyn>),
    }

    pub(crate) fn typed_operand<'a, T: Element>(
        s: &'a Src,
        g: Option<&'a ArrTyped<'a>>,
    ) -> TVal<'a, T> {
        match s {
            Src::Sc(v, _, exact, _) => TVal::S(match exact {
                Some(i) => crate::storage::cast_elem(*i),
                None => T::from_f64(*v),
            }),
            Src::Own(x, _) => TVal::A(crate::storage::cast_view::<f64, T>(x.view()).into()),
            Src::Arr(_) => TVal::A(g.expect("array operands are locked").typed().cast_to::<T>()),
        }
    }

    /// `f` over two operands with broadcasting, as a Python object of `U`'s dtype.
    fn typed_apply<T: Element, U: Element + ToPyScalar>(
        a: &TVal<'_, T>,
        b: &TVal<'_, T>,
        f: impl Fn(T, T) -> U + Copy,
        vm: &VirtualMachine,
    ) -> PyResult<PyObjectRef> {
        let arr = |x: ArrayD<U>| typed_arr_or_scalar(x, vm);
        Ok(match (a, b) {
            (TVal::S(x), TVal::S(y)) => f(*x, *y).to_np(vm),
            (TVal::A(x), TVal::S(y)) => arr(core::map_scalar_right(x.view(), *y, f)),
            (TVal::S(x), TVal::A(y)) => arr(core::map_scalar_left(*x, y.view(), f)),
            (TVal::A(x), TVal::A(y)) => arr(core::zip_with(x.view(), y.view(), f).py(vm)?),
        })
    }

    /// Binary operations that run in the operands' own type: float32 arithmetic in f32
    /// (a weak Python scalar is cast to float32 first, as NumPy 2 does) and int64
    /// arithmetic in i64 (wrapping around on overflow, as NumPy). `None` sends the
    /// operator to the f64 path (other dtypes and operators, whose f64 results are
    /// exact or rounded once).
    fn typed_binop(
        op: Op,
        a: &Src,
        b: &Src,
        p: DType,
        vm: &VirtualMachine,
    ) -> PyResult<Option<PyObjectRef>> {
        // Float64 comparisons too: their bool results straight from the float64 values.
        let typed =
            matches!(p, DType::Float32 | DType::Int64) || p == DType::Float64 && op.is_cmp();
        if !typed {
            return Ok(None);
        }
        for s in [a, b] {
            if let Src::Sc(v, DType::Int64, None, _) = s {
                if p == DType::Int64 {
                    return Err(vm.new_overflow_error(format!(
                        "Python integer {v:.0} out of bounds for int64"
                    )));
                }
            }
        }
        let (ga, gb) = (typed_lock(a), typed_lock(b));
        macro_rules! run {
            ($t:ty, $f:expr) => {{
                let x = typed_operand::<$t>(a, ga.as_ref());
                let y = typed_operand::<$t>(b, gb.as_ref());
                Some(typed_apply(&x, &y, $f, vm)?)
            }};
        }
        macro_rules! compare {
            ($t:ty) => {
                match op {
                    Op::Lt => run!($t, |x: $t, y: $t| x < y),
                    Op::Le => run!($t, |x: $t, y: $t| x <= y),
                    Op::Gt => run!($t, |x: $t, y: $t| x > y),
                    Op::Ge => run!($t, |x: $t, y: $t| x >= y),
                    Op::Eq => run!($t, |x: $t, y: $t| x == y),
                    Op::Ne => run!($t, |x: $t, y: $t| x != y),
                    _ => None,
                }
            };
        }
        Ok(match p {
            DType::Float32 => match op {
                Op::Add => run!(f32, |x: f32, y: f32| x + y),
                Op::Sub => run!(f32, |x: f32, y: f32| x - y),
                Op::Mul => run!(f32, |x: f32, y: f32| x * y),
                Op::Div => run!(f32, |x: f32, y: f32| x / y),
                Op::Pow => run!(f32, |x: f32, y: f32| x.powf(y)),
                Op::Max => run!(f32, |x: f32, y: f32| if x.is_nan() || y.is_nan() {
                    f32::NAN
                } else {
                    x.max(y)
                }),
                Op::Min => run!(f32, |x: f32, y: f32| if x.is_nan() || y.is_nan() {
                    f32::NAN
                } else {
                    x.min(y)
                }),
                Op::FMax => run!(f32, f32::max),
                Op::FMin => run!(f32, f32::min),
                _ => compare!(f32),
            },
            DType::Float64 => compare!(f64),
            _ => match op {
                Op::Add => run!(i64, i64::wrapping_add),
                Op::Sub => run!(i64, i64::wrapping_sub),
                Op::Mul => run!(i64, i64::wrapping_mul),
                Op::FloorDiv => run!(i64, core::floordiv_i64),
                Op::Mod => run!(i64, core::mod_i64),
                Op::Pow => run!(i64, core::pow_i64),
                // Integers have no NaN: fmax/fmin are max/min.
                Op::Max | Op::FMax => run!(i64, i64::max),
                Op::Min | Op::FMin => run!(i64, i64::min),
                Op::And => run!(i64, |x: i64, y: i64| x & y),
                Op::Or => run!(i64, |x: i64, y: i64| x | y),
                Op::Xor => run!(i64, |x: i64, y: i64| x ^ y),
                _ => compare!(i64),
            },
        })
    }

    /// The most common case of an arithmetic operation, without the general path's
    /// conversions: float64 arithmetic (not a comparison or a bitwise operation) on two
    /// C-contiguous float64 arrays of one shape, or on one and a Python float (a weak
    /// scalar: the result is float64, as NumPy 2's). The same kernels as `compute`, so
    /// the same numbers; None leaves the operands to the general path.
    fn float64_fast(
        op: Op,
        a: &PyObject,
        b: &PyObject,
        vm: &VirtualMachine,
    ) -> Option<PyObjectRef> {
        use Op::*;
        if !matches!(op, Add | Sub | Mul | Div | Pow | Max | Min | FMax | FMin) {
            return None;
        }
        fn array(o: &PyObject) -> Option<&Py<PyNdArray>> {
            o.downcast_ref::<PyNdArray>()
        }
        let scalar = |o: &PyObject| o.downcast_ref::<PyFloat>().map(|f| f.to_f64());
        let (out, dims) = match (array(a), array(b)) {
            (Some(x), Some(y)) => x.with_f64_slice(|xs, dx| {
                y.with_f64_slice(|ys, dy| {
                    (dx.ndim() > 0 && dx == dy)
                        .then(|| (with_op!(op, f => crate::fastmath::map2(xs, ys, f)), dx))
                })
            })???,
            (Some(x), None) | (None, Some(x)) => {
                let scalar_first = array(a).is_none();
                let t = scalar(if scalar_first { a } else { b })?;
                x.with_f64_slice(|xs, dims| {
                    (dims.ndim() > 0).then(|| {
                        let out = if scalar_first {
                            with_op!(op, f => crate::fastmath::map1(xs, |v| f(t, v)))
                        } else {
                            with_op!(op, f => crate::fastmath::map1(xs, |v| f(v, t)))
                        };
                        (out, dims)
                    })
                })??
            }
            (None, None) => return None,
        };
        let arr = ArrayD::from_shape_vec(dims, out).expect("one element per input element");
        Some(new_arr(arr, DType::Float64, vm))
    }

    /// Operator slot: NotImplemented unless both sides are array-like; an operand that
    /// is a complex number sends the operation to the complex arrays' version.
    pub(crate) fn bin_slot(a: &PyObject, b: &PyObject, op: Op, vm: &VirtualMachine) -> PyResult {
        if let Some(r) = float64_fast(op, a, b, vm) {
            return Ok(r);
        }
        let (sa, sb) = match (to_src(a, vm), to_src(b, vm)) {
            (Ok(Some(sa)), Ok(Some(sb))) => (sa, sb),
            (Err(e), _) | (_, Err(e)) => return complex_or(e, op, a, b, vm),
            _ => return Ok(vm.ctx.not_implemented()),
        };
        binop_src(op, &sa, &sb, vm)
    }

    /// The complex version of `op` (`numpy/_complex.py`) after a refusal `e` of complex
    /// input, or `e` for the operators complex numbers do not have.
    pub(crate) fn complex_or(
        e: rustpython_vm::builtins::PyBaseExceptionRef,
        op: Op,
        a: &PyObject,
        b: &PyObject,
        vm: &VirtualMachine,
    ) -> PyResult {
        let name = match op {
            Op::Add => "add",
            Op::Sub => "subtract",
            Op::Mul => "multiply",
            Op::Div => "divide",
            Op::Pow => "power",
            Op::Eq => "equal",
            Op::Ne => "not_equal",
            _ => return Err(e),
        };
        if !super::super::complex::_complex::is_complex_refusal(&e, vm) {
            return Err(e);
        }
        super::super::complex::_complex::shim_attr("numpy._complex", name, vm)?
            .call((a.to_owned(), b.to_owned()), vm)
    }

    /// Function form (`np.maximum(a, b)`): any array-likes; scalars in, scalar out.
    pub(crate) fn bin_fn(a: &PyObject, b: &PyObject, op: Op, vm: &VirtualMachine) -> PyResult {
        if let Some(r) = float64_fast(op, a, b, vm) {
            return Ok(r);
        }
        let sa = src_arg(a, vm)?;
        let sb = src_arg(b, vm)?;
        binop_src(op, &sa, &sb, vm)
    }

    pub(crate) fn inplace_slot(
        a: &PyObject,
        b: &PyObject,
        op: Op,
        vm: &VirtualMachine,
    ) -> PyResult {
        let Some(zelf) = a.downcast_ref::<PyNdArray>() else {
            return Ok(vm.ctx.not_implemented());
        };
        let sb = match b.downcast_ref::<PyNdArray>() {
            Some(bb) if bb.shares_buffer(zelf) => {
                Src::Own(core::to_standard(bb.read().view()), bb.dtype)
            }
            _ => match to_src(b, vm)? {
                Some(s) => s,
                None => return Ok(vm.ctx.not_implemented()),
            },
        };
        let rd = op.result_dtype_p(if sb.is_weak() {
            DType::promote_weak(zelf.dtype, sb.dtype())
        } else {
            zelf.dtype.promote(sb.dtype())
        });
        if rd.kind_rank() > zelf.dtype.kind_rank()
            || (rd != zelf.dtype && !op.is_cmp() && zelf.dtype == DType::Bool)
        {
            return Err(vm.new_type_error(format!(
                "Cannot cast ufunc '{}' output from dtype('{}') to dtype('{}') with casting rule 'same_kind'",
                op.ufunc(),
                rd.name(),
                zelf.dtype.name()
            )));
        }
        if op == Op::Pow {
            check_int_pow(&sb, rd, vm)?;
        }
        let dt = zelf.dtype;
        if matches!(dt, DType::Float32 | DType::Int64) && rd == dt {
            // The typed kernel into a new array, then copied into place (exact for
            // int64, float32 arithmetic for float32).
            let this = Src::Arr(a.to_owned().downcast::<PyNdArray>().expect("an ndarray"));
            if let Some(r) = typed_binop(op, &this, &sb, dt, vm)? {
                if let Some(r) = r.downcast_ref::<PyNdArray>() {
                    if r.shape_vec() == zelf.shape_vec() && r.dtype == dt {
                        let src = r.read_typed();
                        let mut w = zelf.write_or("output array is read-only", vm)?;
                        match (w.typed_mut(), src.typed()) {
                            (ElemViewMut::F32(mut t), ElemView::F32(s)) => t.assign(&s),
                            (ElemViewMut::I64(mut t), ElemView::I64(s)) => t.assign(&s),
                            _ => unreachable!("same dtype"),
                        }
                        return Ok(a.to_owned());
                    }
                }
            }
        }
        {
            let mut w = zelf.write_or("output array is read-only", vm)?;
            let mut g = w.view_mut();
            with_op!(op, f => {
                match &sb {
                    Src::Sc(y, ..) => {
                        let y = *y;
                        g.mapv_inplace(|x| f(x, y));
                    }
                    Src::Own(bv, _) => inplace_arr(&mut g, bv.view(), f, vm)?,
                    Src::Arr(r) => {
                        let gb = r.read();
                        inplace_arr(&mut g, gb.view(), f, vm)?
                    }
                }
            });
            if dt == DType::Float32 {
                g.mapv_inplace(|v| dt.cast(v));
            } else if dt != DType::Float64 {
                g.mapv_inplace(|v| if v.is_finite() { dt.cast(v) } else { 0.0 });
            }
        }
        Ok(a.to_owned())
    }

    pub(crate) fn inplace_arr(
        g: &mut ArrayViewMutD<'_, f64>,
        b: ArrayViewD<'_, f64>,
        f: impl Fn(f64, f64) -> f64,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        if g.shape() == b.shape() {
            ndarray::Zip::from(&mut *g)
                .and(&b)
                .for_each(|x, &y| *x = f(*x, y));
            return Ok(());
        }
        match b.broadcast(g.raw_dim()) {
            Some(bv) => {
                ndarray::Zip::from(&mut *g)
                    .and(&bv)
                    .for_each(|x, &y| *x = f(*x, y));
                Ok(())
            }
            None => {
                let full = core::broadcast_pair(g.shape(), b.shape());
                Err(vm.new_value_error(match full {
                    Some(s) => format!(
                        "non-broadcastable output operand with shape {} doesn't match the broadcast shape {}",
                        core::shape_compact(g.shape()),
                        core::shape_compact(&s)
                    ),
                    None => format!(
                        "operands could not be broadcast together with shapes {} {} ",
                        core::shape_compact(g.shape()),
                        core::shape_compact(b.shape())
                    ),
                }))
            }
        }
    }

    /// A typed read lock of an array operand (None for the others).
    fn typed_lock(s: &Src) -> Option<ArrTyped<'_>> {
        match s {
            Src::Arr(r) => Some(r.read_typed()),
            _ => None,
        }
    }

    /// `a @ b` of two array operands in the element type `T`.
    fn typed_matmul<T: Element + ToPyScalar + core::MatElem>(
        sa: &Src,
        sb: &Src,
        vm: &VirtualMachine,
    ) -> PyResult {
        let (ga, gb) = (typed_lock(sa), typed_lock(sb));
        let (TVal::A(x), TVal::A(y)) = (
            typed_operand::<T>(sa, ga.as_ref()),
            typed_operand::<T>(sb, gb.as_ref()),
        ) else {
            unreachable!("array operands (scalars are refused before)")
        };
        let out = core::matmul(x.view(), y.view()).py(vm)?;
        Ok(typed_arr_or_scalar(out, vm))
    }

    pub(crate) fn matmul_objs(a: &PyObject, b: &PyObject, vm: &VirtualMachine) -> PyResult {
        // Two float64 vectors: `np.dot`'s product (the matrix kernel's setup would cost
        // several times the sum).
        if let Some(s) = vector_dot_f64(a, b, vm) {
            return Ok(s);
        }
        let sa = src_arg(a, vm)?;
        let sb = src_arg(b, vm)?;
        let rd = promote_srcs(&sa, &sb);
        let not_enough = |i: usize| {
            vm.new_value_error(format!(
                "matmul: Input operand {i} does not have enough dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)"
            ))
        };
        if matches!(rd, DType::Float32 | DType::Int64) {
            if matches!(sa, Src::Sc(..)) {
                return Err(not_enough(0));
            }
            if matches!(sb, Src::Sc(..)) {
                return Err(not_enough(1));
            }
            // float32 products in faer's f32 kernels, int64 ones exact in i64 (wrapping
            // like NumPy).
            return if rd == DType::Float32 {
                typed_matmul::<f32>(&sa, &sb, vm)
            } else {
                typed_matmul::<i64>(&sa, &sb, vm)
            };
        }
        let ga;
        let va = match &sa {
            Src::Arr(r) => {
                ga = r.read();
                ga.view()
            }
            Src::Own(x, _) => x.view(),
            Src::Sc(..) => return Err(not_enough(0)),
        };
        let gb;
        let vb = match &sb {
            Src::Arr(r) => {
                gb = r.read();
                gb.view()
            }
            Src::Own(x, _) => x.view(),
            Src::Sc(..) => return Err(not_enough(1)),
        };
        let out = core::matmul(va, vb).py(vm)?;
        let out = if rd == DType::Bool {
            out.mapv(|x| (x != 0.0) as u8 as f64)
        } else {
            round_to(out, rd)
        };
        Ok(arr_or_scalar(out, rd, vm))
    }

    /// The operator of each function below that is exactly `bin_fn(a, b, op)`: the
    /// ufunc objects (`native::ufunc`) call `bin_fn` for them without binding arguments.
    pub(crate) fn function_op(name: &str) -> Option<Op> {
        Some(match name {
            "add" => Op::Add,
            "subtract" => Op::Sub,
            "multiply" => Op::Mul,
            "divide" | "true_divide" => Op::Div,
            "floor_divide" => Op::FloorDiv,
            "remainder" | "mod" => Op::Mod,
            "power" => Op::Pow,
            "maximum" => Op::Max,
            "minimum" => Op::Min,
            "fmax" => Op::FMax,
            "fmin" => Op::FMin,
            "arctan2" => Op::Atan2,
            "hypot" => Op::Hypot,
            "greater" => Op::Gt,
            "greater_equal" => Op::Ge,
            "less" => Op::Lt,
            "less_equal" => Op::Le,
            "equal" => Op::Eq,
            "not_equal" => Op::Ne,
            "fmod" => Op::Fmod,
            "copysign" => Op::Copysign,
            "logaddexp" => Op::Logaddexp,
            "logaddexp2" => Op::Logaddexp2,
            "heaviside" => Op::Heaviside,
            _ => return None,
        })
    }

    // binary functions
    #[pyfunction]
    pub(crate) fn add(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Add, vm)
    }

    #[pyfunction]
    pub(crate) fn subtract(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Sub, vm)
    }

    #[pyfunction]
    pub(crate) fn multiply(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Mul, vm)
    }

    #[pyfunction]
    pub(crate) fn divide(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Div, vm)
    }

    #[pyfunction]
    pub(crate) fn true_divide(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Div, vm)
    }

    #[pyfunction]
    pub(crate) fn floor_divide(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::FloorDiv, vm)
    }

    #[pyfunction]
    pub(crate) fn remainder(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Mod, vm)
    }

    #[pyfunction(name = "mod")]
    pub(crate) fn mod_(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Mod, vm)
    }

    #[pyfunction]
    pub(crate) fn power(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Pow, vm)
    }

    #[pyfunction]
    pub(crate) fn maximum(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Max, vm)
    }

    #[pyfunction]
    pub(crate) fn minimum(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Min, vm)
    }

    /// `np.fmax`: the larger, ignoring a NaN (NaN when both are).
    #[pyfunction]
    pub(crate) fn fmax(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::FMax, vm)
    }

    /// `np.fmin`: the smaller, ignoring a NaN (NaN when both are).
    #[pyfunction]
    pub(crate) fn fmin(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::FMin, vm)
    }

    #[pyfunction]
    pub(crate) fn arctan2(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Atan2, vm)
    }

    #[pyfunction]
    pub(crate) fn hypot(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Hypot, vm)
    }

    #[pyfunction]
    pub(crate) fn greater(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Gt, vm)
    }

    #[pyfunction]
    pub(crate) fn greater_equal(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Ge, vm)
    }

    #[pyfunction]
    pub(crate) fn less(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Lt, vm)
    }

    #[pyfunction]
    pub(crate) fn less_equal(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Le, vm)
    }

    #[pyfunction]
    pub(crate) fn equal(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Eq, vm)
    }

    #[pyfunction]
    pub(crate) fn not_equal(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Ne, vm)
    }

    #[pyfunction]
    pub(crate) fn logical_and(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let r = bin_fn(&a, &b, Op::Mul, vm)?;
        unary(&r, Some(DType::Bool), |v| (v != 0.0) as u8 as f64, vm)
    }

    #[pyfunction]
    pub(crate) fn logical_or(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let a = unary(&a, Some(DType::Bool), |v| (v != 0.0) as u8 as f64, vm)?;
        let b = unary(&b, Some(DType::Bool), |v| (v != 0.0) as u8 as f64, vm)?;
        bin_fn(&a, &b, Op::Or, vm)
    }

    #[pyfunction]
    pub(crate) fn fmod(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Fmod, vm)
    }

    #[pyfunction]
    pub(crate) fn copysign(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Copysign, vm)
    }

    #[pyfunction]
    pub(crate) fn logaddexp(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Logaddexp, vm)
    }

    #[pyfunction]
    pub(crate) fn logaddexp2(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Logaddexp2, vm)
    }

    #[pyfunction]
    pub(crate) fn heaviside(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Heaviside, vm)
    }

    #[derive(FromArgs)]
    pub(crate) struct CloseArgs {
        // Any real number (`atol=0` is common), as NumPy takes them.
        #[pyarg(any, optional)]
        rtol: OptionalArg<rustpython_vm::function::ArgIntoFloat>,
        #[pyarg(any, optional)]
        atol: OptionalArg<rustpython_vm::function::ArgIntoFloat>,
        #[pyarg(any, default = false)]
        equal_nan: bool,
    }

    impl CloseArgs {
        fn kernel(self) -> impl Fn(f64, f64) -> f64 {
            let rtol = self.rtol.map_or(1e-5, f64::from);
            let atol = self.atol.map_or(1e-8, f64::from);
            close_kernel(rtol, atol, self.equal_nan)
        }
    }

    pub(crate) fn close_kernel(rtol: f64, atol: f64, equal_nan: bool) -> impl Fn(f64, f64) -> f64 {
        move |x: f64, y: f64| {
            let ok = if x.is_finite() && y.is_finite() {
                (x - y).abs() <= atol + rtol * y.abs()
            } else if x.is_nan() || y.is_nan() {
                equal_nan && x.is_nan() && y.is_nan()
            } else {
                x == y
            };
            ok as u8 as f64
        }
    }

    #[pyfunction]
    pub(crate) fn isclose(
        a: PyObjectRef,
        b: PyObjectRef,
        args: CloseArgs,
        vm: &VirtualMachine,
    ) -> PyResult {
        let f = args.kernel();
        if let (Some((x, _)), Some((y, _))) = (scalar_of(&a, vm), scalar_of(&b, vm)) {
            return Ok(vm.ctx.new_bool(f(x, y) != 0.0).into());
        }
        let out = with_arr(&a, vm, |x, _| {
            with_arr(&b, vm, |y, _| core::zip_with(x, y, &f).py(vm))
        })?;
        Ok(new_arr(out, DType::Bool, vm))
    }

    #[pyfunction]
    pub(crate) fn allclose(
        a: PyObjectRef,
        b: PyObjectRef,
        args: CloseArgs,
        vm: &VirtualMachine,
    ) -> PyResult<bool> {
        let f = args.kernel();
        let out = with_arr(&a, vm, |x, _| {
            with_arr(&b, vm, |y, _| core::zip_with(x, y, &f).py(vm))
        })?;
        Ok(out.iter().all(|&v| v != 0.0))
    }

    #[derive(FromArgs)]
    pub(crate) struct ArrayEqualArgs {
        #[pyarg(any, default = false)]
        equal_nan: bool,
    }

    /// `np.array_equal(a, b, equal_nan=False)`: one shape, equal elements (with
    /// `equal_nan`, NaN equal to NaN).
    #[pyfunction]
    pub(crate) fn array_equal(
        a: PyObjectRef,
        b: PyObjectRef,
        args: ArrayEqualArgs,
        vm: &VirtualMachine,
    ) -> PyResult<bool> {
        let (x, _) = to_array(&a, vm)?;
        let (y, _) = to_array(&b, vm)?;
        let same = |p: &f64, q: &f64| p == q || (args.equal_nan && p.is_nan() && q.is_nan());
        Ok(x.shape() == y.shape() && x.iter().zip(y.iter()).all(|(p, q)| same(p, q)))
    }
}
