//! Interpreter-independent array machinery: dtypes, broadcasting, indexing, reductions
//! and matrix products. Everything here works on `ndarray` values and reports errors as
//! [`NpErr`] carrying NumPy's wording; `native/` maps them to Python exceptions.
//!
//! Most functions here work on f64 values: the storage (`storage.rs`) keeps each dtype in
//! its own element type, and code without a typed kernel reads an f64 copy (exact for
//! float32 and bool, for int64 to 2**53); [`DType::cast`] is the storage cast of a value
//! computed in f64. The generic ones (`zip_with`, `map_*`, `lanes`/`reduce`, `matmul`
//! over [`MatElem`], `reshape`, `concatenate`, `stack`) also run on f32 and i64.

use crate::storage::Element;
use ndarray::{ArrayBase, ArrayD, ArrayViewD, Axis, Data, IxDyn, Slice};
/// NumPy's sign of a float (shared with the native code).
pub use tangent_fastmath::sign;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DType {
    Bool,
    Int64,
    Float32,
    Float64,
}

impl DType {
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::Int64 => "int64",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
        }
    }

    pub fn from_name(name: &str) -> Option<DType> {
        Some(match name {
            "bool" | "bool_" | "?" | "b1" => DType::Bool,
            "int" | "int64" | "i8" | "int32" | "i4" | "l" | "q" | "intp" | "int_" => DType::Int64,
            "float32" | "f4" | "f" | "single" => DType::Float32,
            "float" | "float64" | "f8" | "d" | "double" | "float_" => DType::Float64,
            _ => return None,
        })
    }

    /// 0 for bool, 1 for integers, 2 for floats (NumPy's kind order).
    pub fn kind_rank(self) -> u8 {
        match self {
            DType::Bool => 0,
            DType::Int64 => 1,
            DType::Float32 | DType::Float64 => 2,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::Float32 | DType::Float64)
    }

    /// NumPy's result type for two array operands of these dtypes
    /// (`int64` with `float32` gives `float64`).
    pub fn promote(self, other: DType) -> DType {
        match (self, other) {
            (DType::Int64, DType::Float32) | (DType::Float32, DType::Int64) => DType::Float64,
            _ => self.max(other),
        }
    }

    /// NEP 50 promotion when `weak` is a Python scalar (bool/int/float) and `strong` an
    /// array: the array's dtype wins unless the scalar is of a higher kind.
    pub fn promote_weak(strong: DType, weak: DType) -> DType {
        if weak.kind_rank() <= strong.kind_rank() {
            strong
        } else {
            strong.promote(weak)
        }
    }

    /// The dtype of a floating-point function of this dtype (float32 stays float32).
    pub fn float_result(self) -> DType {
        if self == DType::Float32 {
            DType::Float32
        } else {
            DType::Float64
        }
    }

    /// Whether stored values must be rounded after an f64 computation.
    #[inline]
    pub fn needs_rounding(self) -> bool {
        self == DType::Float32
    }

    /// Converts a value into this dtype (truncation for ints, `!= 0` for bools, rounding
    /// to the nearest f32 for float32).
    #[inline]
    pub fn cast(self, x: f64) -> f64 {
        match self {
            DType::Bool => (x != 0.0) as u8 as f64,
            DType::Int64 => {
                if x.is_finite() {
                    x.trunc()
                } else {
                    // NumPy gives INT64_MIN with a warning; keep something deterministic.
                    i64::MIN as f64
                }
            }
            DType::Float32 => x as f32 as f64,
            DType::Float64 => x,
        }
    }

    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool => 1,
            DType::Float32 => 4,
            DType::Int64 | DType::Float64 => 8,
        }
    }

    pub fn kind(self) -> &'static str {
        match self {
            DType::Bool => "b",
            DType::Int64 => "i",
            DType::Float32 | DType::Float64 => "f",
        }
    }
}

#[derive(Debug, Clone)]
pub enum NpErr {
    Value(String),
    Index(String),
    Type(String),
    /// `numpy.linalg.LinAlgError`
    LinAlg(String),
    /// Something NumPy does that this module refuses (`NotImplementedError`).
    Unsupported(String),
}

/// Why complex numbers are refused, and what to do instead. Also the mark of the
/// refusal: a native function given complex input raises a NotImplementedError with
/// exactly this text, which the wrapper of the functions that have a complex
/// implementation recognises (`native/complex.rs`).
pub const COMPLEX_UNSUPPORTED: &str = "this function of the embedded numpy does not take \
    complex numbers (complex arrays there have arithmetic, indexing, numpy.fft and the \
    functions the README lists); run the script under CPython with real NumPy: \
    `tangent run --python PYTHON script.py`";

/// Whether a dtype name is one of NumPy's complex types.
pub fn is_complex_name(name: &str) -> bool {
    matches!(
        name,
        "complex"
            | "complex128"
            | "complex64"
            | "complex256"
            | "complex_"
            | "cdouble"
            | "csingle"
            | "clongdouble"
            | "c16"
            | "c8"
            | "D"
            | "F"
            | "G"
    )
}

pub type NpResult<T> = Result<T, NpErr>;

pub fn value_err<T>(msg: impl Into<String>) -> NpResult<T> {
    Err(NpErr::Value(msg.into()))
}

/// A shape as Python prints a tuple: `(2, 3)`, `(4,)`, `()`.
pub fn shape_tuple(s: &[usize]) -> String {
    shape_text(s, ", ")
}

/// A shape with `sep` between its sizes (a 1-tuple keeps its comma).
fn shape_text(s: &[usize], sep: &str) -> String {
    match s.len() {
        0 => "()".to_owned(),
        1 => format!("({},)", s[0]),
        _ => format!(
            "({})",
            s.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(sep)
        ),
    }
}

/// A shape as NumPy's broadcasting errors print it: `(2,3)`, `(4,)`.
pub fn shape_compact(s: &[usize]) -> String {
    shape_text(s, ",")
}

/// The broadcast shape of two shapes, or `None`.
pub fn broadcast_pair(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i < n - a.len() {
            1
        } else {
            a[i - (n - a.len())]
        };
        let db = if i < n - b.len() {
            1
        } else {
            b[i - (n - b.len())]
        };
        out[i] = if da == db {
            da
        } else if da == 1 {
            db
        } else if db == 1 {
            da
        } else {
            return None;
        };
    }
    Some(out)
}

pub fn broadcast_shapes(shapes: &[&[usize]]) -> NpResult<Vec<usize>> {
    let mut out: Vec<usize> = Vec::new();
    for s in shapes {
        match broadcast_pair(&out, s) {
            Some(o) => out = o,
            None => {
                let all: Vec<String> = shapes.iter().map(|s| shape_compact(s)).collect();
                return value_err(format!(
                    "operands could not be broadcast together with shapes {} ",
                    all.join(" ")
                ));
            }
        }
    }
    Ok(out)
}

/// Copies a view into a new C-ordered array.
pub fn to_standard<T: Clone>(v: ArrayViewD<'_, T>) -> ArrayD<T> {
    if v.is_standard_layout() {
        return v.to_owned();
    }
    let Some(first) = v.first().cloned() else {
        return ArrayD::from_shape_vec(v.raw_dim(), Vec::new()).unwrap();
    };
    if v.ndim() == 1 {
        // A strided vector (`a[::2]`, a column): one read per element.
        let (n, stride, base) = (v.len(), v.strides()[0], v.as_ptr());
        let data: Vec<T> = (0..n as isize)
            // SAFETY: positions 0..n of the 1-d view `v`.
            .map(|i| unsafe { (*base.offset(i * stride)).clone() })
            .collect();
        // SAFETY: n elements in C order for the shape (n,).
        return unsafe { ArrayD::from_shape_vec_unchecked(v.raw_dim(), data) };
    }
    if v.ndim() == 2 {
        // In square tiles (a transpose reads across rows: a tile's rows and columns stay
        // in the first-level cache while it is copied).
        const TILE: usize = 32;
        let (rows, cols) = (v.shape()[0], v.shape()[1]);
        let (s0, s1, base) = (v.strides()[0], v.strides()[1], v.as_ptr());
        let mut out: Vec<T> = Vec::with_capacity(rows * cols);
        let dst = out.as_mut_ptr();
        for r0 in (0..rows).step_by(TILE) {
            for c0 in (0..cols).step_by(TILE) {
                let c1 = (c0 + TILE).min(cols);
                for r in r0..(r0 + TILE).min(rows) {
                    // SAFETY: (r, c) for c in c0..c1 is an element of `v`, and place
                    // r * cols + c of the result's rows * cols is within its capacity.
                    unsafe {
                        let src = base.offset(r as isize * s0);
                        let row = dst.add(r * cols);
                        for c in c0..c1 {
                            row.add(c).write((*src.offset(c as isize * s1)).clone());
                        }
                    }
                }
            }
        }
        // SAFETY: the tiles cover every (r, c) once: all rows * cols places are written.
        unsafe { out.set_len(rows * cols) };
        // SAFETY: rows * cols elements in C order for the shape (rows, cols).
        return unsafe { ArrayD::from_shape_vec_unchecked(v.raw_dim(), out) };
    }
    // `assign` walks both arrays lane by lane; collecting `v.iter()` over a dynamic-rank
    // view pays a multi-index update per element (measured 20 ns/element on a transpose).
    let mut out = ArrayD::from_elem(v.raw_dim(), first);
    out.assign(&v);
    out
}

/// Elementwise `f(a, b)` with broadcasting.
/// `zip_with` whose result keeps `a`'s memory order when `a` is laid out in Fortran
/// order (NumPy's results follow their operands' layout, and its reductions of them the
/// memory order).
pub fn zip_with_in_order<T: Copy, U: Clone>(
    a: ArrayViewD<'_, T>,
    b: ArrayViewD<'_, T>,
    f: impl Fn(T, T) -> U,
) -> NpResult<ArrayD<U>> {
    // NumPy's order='K': the result's memory runs the way `a`'s strides do (Fortran
    // when they grow along the axes, C otherwise), whatever `b`'s broadcast strides are.
    let strides = a.strides();
    let fortran = a.ndim() > 1
        && strides.windows(2).all(|w| w[0].abs() <= w[1].abs())
        && strides[0].abs() < strides[a.ndim() - 1].abs();
    let c_order = |r: ArrayD<U>| {
        if r.is_standard_layout() {
            r
        } else {
            r.as_standard_layout().into_owned()
        }
    };
    if fortran && b.ndim() == a.ndim() {
        let r = zip_with(a.reversed_axes(), b.reversed_axes(), f)?;
        return Ok(c_order(r).reversed_axes());
    }
    Ok(c_order(zip_with(a, b, f)?))
}

pub fn zip_with<T: Copy, U>(
    a: ArrayViewD<'_, T>,
    b: ArrayViewD<'_, T>,
    f: impl Fn(T, T) -> U,
) -> NpResult<ArrayD<U>> {
    if a.shape() == b.shape() {
        if let (Some(sa), Some(sb)) = (a.as_slice(), b.as_slice()) {
            let v = crate::fastmath::map2(sa, sb, &f);
            return Ok(ArrayD::from_shape_vec(a.raw_dim(), v).unwrap());
        }
        return Ok(ndarray::Zip::from(&a).and(&b).map_collect(|&x, &y| f(x, y)));
    }
    let shape = broadcast_shapes(&[a.shape(), b.shape()])?;
    let av = a.broadcast(IxDyn(&shape)).unwrap();
    let bv = b.broadcast(IxDyn(&shape)).unwrap();
    Ok(ndarray::Zip::from(&av)
        .and(&bv)
        .map_collect(|&x, &y| f(x, y)))
}

pub fn map_scalar_right<T: Copy, U>(
    a: ArrayViewD<'_, T>,
    s: T,
    f: impl Fn(T, T) -> U,
) -> ArrayD<U> {
    if let Some(sa) = a.as_slice() {
        let v = crate::fastmath::map1(sa, |x| f(x, s));
        return ArrayD::from_shape_vec(a.raw_dim(), v).unwrap();
    }
    a.map(|&x| f(x, s))
}

pub fn map_scalar_left<T: Copy, U>(s: T, a: ArrayViewD<'_, T>, f: impl Fn(T, T) -> U) -> ArrayD<U> {
    if let Some(sa) = a.as_slice() {
        let v = crate::fastmath::map1(sa, |x| f(s, x));
        return ArrayD::from_shape_vec(a.raw_dim(), v).unwrap();
    }
    a.map(|&x| f(s, x))
}

pub fn map_unary<T: Copy, U>(a: ArrayViewD<'_, T>, f: impl Fn(T) -> U) -> ArrayD<U> {
    if let Some(sa) = a.as_slice() {
        let v = crate::fastmath::map1(sa, &f);
        return ArrayD::from_shape_vec(a.raw_dim(), v).unwrap();
    }
    a.map(|&x| f(x))
}

// ---------------------------------------------------------------- scalar kernels

/// Python/NumPy floor division for floats (NumPy's `npy_divmod` is CPython's
/// `_float_div_mod`).
#[inline]
pub fn floordiv(a: f64, b: f64) -> f64 {
    match tangent_pyfloat::floordiv(a, b) {
        Ok(q) => q,
        Err(_) => a / b, // zero divisor: inf/nan like NumPy (with a warning there)
    }
}

/// NumPy's int64 floor division: rounds toward negative infinity; 0 for a zero
/// divisor and INT64_MIN for INT64_MIN // -1 (NumPy's results, with a warning there).
#[inline]
pub fn floordiv_i64(a: i64, b: i64) -> i64 {
    if b == 0 {
        return 0;
    }
    if b == -1 {
        return a.wrapping_neg();
    }
    let q = a / b;
    if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// NumPy's int64 remainder: the sign of the divisor; 0 for a zero divisor.
#[inline]
pub fn mod_i64(a: i64, b: i64) -> i64 {
    if b == 0 {
        return 0;
    }
    let r = a.wrapping_rem(b);
    if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    }
}

/// NumPy's int64 power for a non-negative exponent (callers refuse negative ones),
/// wrapping around on overflow.
#[inline]
pub fn pow_i64(a: i64, b: i64) -> i64 {
    let (mut base, mut e, mut acc) = (a, b as u64, 1i64);
    while e > 0 {
        if e & 1 == 1 {
            acc = acc.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        e >>= 1;
    }
    acc
}

/// Python/NumPy modulo (result has the sign of the divisor).
#[inline]
pub fn fmod_py(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        return f64::NAN;
    }
    let m = a % b;
    if m != 0.0 {
        if (b < 0.0) != (m < 0.0) {
            m + b
        } else {
            m
        }
    } else {
        0.0f64.copysign(b)
    }
}

#[inline]
pub fn np_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a >= b {
        a
    } else {
        b
    }
}

#[inline]
pub fn np_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a <= b {
        a
    } else {
        b
    }
}

/// Integer power for int64 arrays (NumPy raises for negative exponents).
pub fn int_pow(a: f64, b: f64) -> NpResult<f64> {
    if b < 0.0 {
        return value_err("Integers to negative integer powers are not allowed.");
    }
    Ok(a.powf(b))
}

// ---------------------------------------------------------------- axes

/// Normalizes one axis (`-1` is the last); NumPy's AxisError is a ValueError and IndexError.
pub fn norm_axis(axis: isize, ndim: usize) -> NpResult<usize> {
    let n = ndim as isize;
    if axis < -n || axis >= n {
        return Err(NpErr::Index(format!(
            "axis {axis} is out of bounds for array of dimension {ndim}"
        )));
    }
    Ok(if axis < 0 {
        (axis + n) as usize
    } else {
        axis as usize
    })
}

pub fn norm_axes(axes: &[isize], ndim: usize) -> NpResult<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let a = norm_axis(a, ndim)?;
        if out.contains(&a) {
            return value_err("duplicate value in 'axis'");
        }
        out.push(a);
    }
    Ok(out)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduce {
    Sum,
    Prod,
    Max,
    Min,
    Mean,
    All,
    Any,
}

impl Reduce {
    fn ufunc_name(self) -> &'static str {
        match self {
            Reduce::Max => "maximum",
            Reduce::Min => "minimum",
            _ => "",
        }
    }
}

/// A reduction of contiguous values: sums take NumPy's pairwise path (accumulated in
/// f64 for every element type).
/// The reductions whose result does not depend on the order of the values (sums,
/// means and products go through `reduce_ordered`).
fn reduce_slice<T: Element>(s: &[T], kind: Reduce) -> f64 {
    let mut it = s.iter().map(|x| x.to_f64());
    match kind {
        Reduce::Max => extreme::<T, true>(s),
        Reduce::Min => extreme::<T, false>(s),
        Reduce::All => it.all(|x| x != 0.0) as u8 as f64,
        Reduce::Any => it.any(|x| x != 0.0) as u8 as f64,
        Reduce::Sum | Reduce::Mean | Reduce::Prod => {
            unreachable!("order-dependent reductions go through reduce_ordered")
        }
    }
}

/// NumPy's maximum (`MAX`) or minimum of `s`: NaN if there is one, else by eight
/// independent lanes (no serial chain of compares, so it vectorises). Any order gives
/// the same number but for the sign of a zero result, which follows the serial order.
fn extreme<T: Element, const MAX: bool>(s: &[T]) -> f64 {
    let (start, pick): (f64, fn(f64, f64) -> f64) = if MAX {
        (f64::NEG_INFINITY, np_max)
    } else {
        (f64::INFINITY, np_min)
    };
    let (r, nan) = if std::any::TypeId::of::<T>() == std::any::TypeId::of::<f64>() {
        // SAFETY: T is f64 (checked just above).
        let f = unsafe { std::slice::from_raw_parts(s.as_ptr() as *const f64, s.len()) };
        extreme_lanes_f64(f, MAX)
    } else {
        crate::fastmath::on_wide_vectors(|| extreme_lanes::<T, MAX>(s, start))
    };
    if nan {
        return f64::NAN;
    }
    if r == 0.0 {
        return s.iter().fold(start, |r, x| pick(r, x.to_f64()));
    }
    r
}

tangent_fastmath::simd_kernel! {
    /// `extreme_lanes` of float64 numbers, compiled for the widest vector unit present
    /// (a closure given to `on_wide_vectors` that holds the loop is compiled apart, for
    /// the baseline instruction set).
    fn extreme_lanes_f64(s: &[f64], is_max: bool) -> (f64, bool) |_FMA| {
        if is_max {
            extreme_lanes::<f64, true>(s, f64::NEG_INFINITY)
        } else {
            extreme_lanes::<f64, false>(s, f64::INFINITY)
        }
    }
}

/// `extreme`'s lanes: the extreme of the numbers (`f64::max`, which passes over NaN, a
/// plain vector instruction) and whether a NaN was seen.
#[inline(always)]
fn extreme_lanes<T: Element, const MAX: bool>(s: &[T], start: f64) -> (f64, bool) {
    let mut acc = [start; 8];
    let mut nan = [false; 8];
    let mut chunks = s.chunks_exact(8);
    for c in &mut chunks {
        for k in 0..8 {
            let x = c[k].to_f64();
            nan[k] |= x.is_nan();
            acc[k] = if MAX { acc[k].max(x) } else { acc[k].min(x) };
        }
    }
    let mut r = start;
    let mut seen_nan = nan.iter().any(|&n| n);
    for x in acc
        .into_iter()
        .chain(chunks.remainder().iter().map(|x| x.to_f64()))
    {
        seen_nan |= x.is_nan();
        r = if MAX { r.max(x) } else { r.min(x) };
    }
    (r, seen_nan)
}

/// NumPy's empty-reduction error for the reductions without an identity.
fn check_identity(count: usize, kind: Reduce) -> NpResult<()> {
    if count == 0 && matches!(kind, Reduce::Max | Reduce::Min) {
        return value_err(format!(
            "zero-size array to reduction operation {} which has no identity",
            kind.ufunc_name()
        ));
    }
    Ok(())
}

/// The lanes of a reduction over some axes: every reduced lane's `count` values,
/// contiguous, one lane after another (borrowed when the array is laid out that way),
/// and the shape of the result.
pub struct Lanes<'a, T: Clone> {
    pub count: usize,
    pub flat: std::borrow::Cow<'a, [T]>,
    out_shape: Vec<usize>,
    kept_shape: Vec<usize>,
}

impl<T: Clone> Lanes<'_, T> {
    /// How many lanes (the size of the result).
    pub fn outer(&self) -> usize {
        self.out_shape.iter().product()
    }
    /// One value per lane, in the reduced shape (ones kept for the axes with `keepdims`).
    pub fn finish<R>(&self, vals: Vec<R>, keepdims: bool) -> ArrayD<R> {
        let shape = if keepdims {
            &self.kept_shape
        } else {
            &self.out_shape
        };
        ArrayD::from_shape_vec(IxDyn(shape), vals).unwrap()
    }
    /// `f` of every lane (of `&[]` for each lane of an empty reduction).
    pub fn map<R>(&self, mut f: impl FnMut(&[T]) -> R) -> Vec<R> {
        if self.count == 0 {
            return (0..self.outer()).map(|_| f(&[])).collect();
        }
        self.flat.chunks(self.count).map(f).collect()
    }
}

/// The lanes of `a` over `axes` (`None`: all axes).
pub fn lanes<'a, T: Clone>(a: ArrayViewD<'a, T>, axes: Option<&[usize]>) -> Lanes<'a, T> {
    let ndim = a.ndim();
    let axes: Vec<usize> = match axes {
        Some(ax) => ax.to_vec(),
        None => (0..ndim).collect(),
    };
    let count: usize = axes.iter().map(|&ax| a.shape()[ax]).product();
    let mut out_shape: Vec<usize> = Vec::new();
    let mut kept_shape: Vec<usize> = Vec::new();
    for (i, &d) in a.shape().iter().enumerate() {
        if axes.contains(&i) {
            kept_shape.push(1);
        } else {
            kept_shape.push(d);
            out_shape.push(d);
        }
    }
    // Move the reduced axes last; then each lane is contiguous in C order.
    let mut perm: Vec<usize> = (0..ndim).filter(|i| !axes.contains(i)).collect();
    perm.extend(axes.iter().copied());
    let p = a.permuted_axes(IxDyn(&perm));
    let flat = match p.to_slice() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(to_standard(p).into_raw_vec_and_offset().0),
    };
    Lanes {
        count,
        flat,
        out_shape,
        kept_shape,
    }
}

/// Reduces over `axes` (`None`: all axes). Returns an array of the reduced shape
/// (0-d for a full reduction without keepdims), computed in f64; sums, means and
/// products of float32 values in float32, in NumPy's order (`reduce_ordered`).
pub fn reduce<T: Element>(
    a: ArrayViewD<'_, T>,
    axes: Option<&[usize]>,
    keepdims: bool,
    kind: Reduce,
) -> NpResult<ArrayD<f64>> {
    if matches!(kind, Reduce::Sum | Reduce::Mean | Reduce::Prod) {
        let single = T::DTYPE == DType::Float32;
        return reduce_ordered(a, axes, keepdims, kind, single);
    }
    let l = lanes(a, axes);
    check_identity(l.count, kind)?;
    Ok(l.finish(l.map(|lane| reduce_slice(lane, kind)), keepdims))
}

/// The elements NumPy's reductions copy into a buffer at a time (its default `bufsize`).
use tangent_fastmath::REDUCE_BUFFER;

/// Steps `index` to the next index of `dims` (the last axis fastest); false after the last.
fn next_index(index: &mut [usize], dims: &[(usize, isize, usize, bool)]) -> bool {
    for k in (0..index.len()).rev() {
        index[k] += 1;
        if index[k] < dims[k].0 {
            return true;
        }
        index[k] = 0;
    }
    false
}

/// A number a reduction accumulates in: f64, or f32 for NumPy's float32 reductions.
trait Accumulator: Copy + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> {
    const ZERO: Self;
    const ONE: Self;
    fn of(x: f64) -> Self;
    fn wide(self) -> f64;
    /// An array element in this precision.
    #[inline]
    fn from_element<T: Element>(x: T) -> Self {
        Self::of(x.to_f64())
    }
}

impl Accumulator for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    fn of(x: f64) -> f64 {
        x
    }
    fn wide(self) -> f64 {
        self
    }
}

impl Accumulator for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    fn of(x: f64) -> f32 {
        x as f32
    }
    fn wide(self) -> f64 {
        f64::from(self)
    }
}

/// A sum, mean or product over `axes` (`None`: all) as NumPy computes it: in the
/// precision of the elements (`single`: float32; else f64), along NumPy's iteration
/// order, which visits the axes by decreasing stride (memory order, not the view's C
/// order). When the innermost axis is reduced, each run of it (with the reduced axes
/// contiguous with it) is summed pairwise and added to its result; when it is kept, the
/// results gather element by element, in order. Products multiply in order. The result
/// starts at the identity (0 or 1); a mean divides in the same precision.
pub fn reduce_ordered<T: Element>(
    a: ArrayViewD<'_, T>,
    axes: Option<&[usize]>,
    keepdims: bool,
    kind: Reduce,
    single: bool,
) -> NpResult<ArrayD<f64>> {
    if single {
        ordered::<T, f32>(a, axes, keepdims, kind)
    } else {
        ordered::<T, f64>(a, axes, keepdims, kind)
    }
}

fn ordered<T: Element, A: Accumulator>(
    a: ArrayViewD<'_, T>,
    axes: Option<&[usize]>,
    keepdims: bool,
    kind: Reduce,
) -> NpResult<ArrayD<f64>> {
    let ndim = a.ndim();
    let reduced: Vec<bool> = (0..ndim)
        .map(|k| axes.is_none_or(|ax| ax.contains(&k)))
        .collect();
    let count: usize = (0..ndim)
        .filter(|&k| reduced[k])
        .map(|k| a.shape()[k])
        .product();
    check_identity(count, kind)?;
    let out_shape: Vec<usize> = (0..ndim)
        .filter(|&k| !reduced[k])
        .map(|k| a.shape()[k])
        .collect();
    let kept_shape: Vec<usize> = (0..ndim)
        .map(|k| if reduced[k] { 1 } else { a.shape()[k] })
        .collect();
    // The result's C-order strides on the kept axes (0 on the reduced ones).
    let mut out_strides = vec![0usize; ndim];
    let mut step = 1;
    for k in (0..ndim).rev() {
        if !reduced[k] {
            out_strides[k] = step;
            step *= a.shape()[k];
        }
    }
    let identity = if kind == Reduce::Prod {
        A::ONE
    } else {
        A::ZERO
    };
    let mut out = vec![identity; out_shape.iter().product()];
    let combine = |x: A, y: A| if kind == Reduce::Prod { x * y } else { x + y };
    let base = a.as_ptr();
    // SAFETY: every offset is an element of `a` (indices within its shape).
    let read = |off: isize| A::of(unsafe { *base.offset(off) }.to_f64());
    // A sum of the whole array: the function native code's `np.sum` shares.
    let whole = out.len() == 1 && reduced.iter().all(|&r| r) && kind != Reduce::Prod;
    if whole {
        out[0] = tangent_fastmath::strided_sum_in(a.shape(), a.strides(), read, A::ZERO);
    }
    // (length, input stride, result stride, reduced) of every axis longer than 1, in
    // NumPy's iteration order: decreasing |stride|, C order among equals.
    let mut dims: Vec<(usize, isize, usize, bool)> = (0..ndim)
        .filter(|&k| a.shape()[k] > 1)
        .map(|k| (a.shape()[k], a.strides()[k], out_strides[k], reduced[k]))
        .collect();
    dims.sort_by_key(|d| std::cmp::Reverse(d.1.unsigned_abs()));
    if count > 0 && !out.is_empty() && !whole {
        // The innermost run: a reduced innermost axis joined by the reduced axes that
        // continue it in memory (one pairwise sum over all of them).
        let mut inner = dims.pop();
        let mut buffered: Vec<(usize, isize, usize, bool)> = Vec::new();
        if let Some((mut len, stride, _, true)) = inner {
            while let Some(&(l, s, _, true)) = dims.last() {
                if s != stride * len as isize {
                    break;
                }
                len *= l;
                dims.pop();
            }
            inner = Some((len, stride, 0, true));
            // Reduced axes around the run that do not continue it in memory: NumPy
            // copies their runs into its buffer (8192 elements, whole runs) and sums
            // each buffer pairwise.
            let outer_reduced = dims.iter().rev().take_while(|d| d.3).count();
            buffered = dims.split_off(dims.len() - outer_reduced);
        }
        let rows_per_buffer = match inner {
            Some((len, _, _, true)) => (REDUCE_BUFFER / len.max(1)).max(1),
            _ => 1,
        };
        // Adds (or multiplies in, in order) the buffered values to result `o`.
        let flush = |out: &mut Vec<A>, o: usize, run: &mut Vec<A>| {
            out[o] = if kind == Reduce::Prod {
                run.iter().fold(out[o], |p, &x| p * x)
            } else {
                out[o] + tangent_fastmath::pairwise_sum_in(run, A::ZERO, |x| x)
            };
            run.clear();
        };
        let mut run: Vec<A> = Vec::new();
        let mut index = vec![0usize; dims.len()];
        let mut held = vec![0usize; buffered.len()];
        loop {
            let (mut off, mut o) = (0isize, 0usize);
            for (k, &(_, s, os, _)) in dims.iter().enumerate() {
                off += index[k] as isize * s;
                o += index[k] * os;
            }
            match inner {
                None => out[o] = combine(out[o], read(off)),
                Some((len, 1, _, true)) if buffered.is_empty() && kind != Reduce::Prod => {
                    // One contiguous run per result: its pairwise sum read in place (the
                    // buffer would hold just this run).
                    // SAFETY: the run's `len` elements from `off` are elements of `a`.
                    let src = unsafe { std::slice::from_raw_parts(base.offset(off), len) };
                    out[o] =
                        out[o] + tangent_fastmath::pairwise_sum_in(src, A::ZERO, A::from_element);
                }
                Some((len, s, _, true)) => {
                    let mut rows = 0;
                    loop {
                        let start = off
                            + buffered
                                .iter()
                                .zip(&held)
                                .map(|(d, &i)| i as isize * d.1)
                                .sum::<isize>();
                        run.extend((0..len).map(|j| read(start + j as isize * s)));
                        rows += 1;
                        if rows == rows_per_buffer {
                            flush(&mut out, o, &mut run);
                            rows = 0;
                        }
                        if !next_index(&mut held, &buffered) {
                            break;
                        }
                    }
                    if !run.is_empty() {
                        flush(&mut out, o, &mut run);
                    }
                }
                Some((len, 1, 1, false)) => {
                    // Contiguous in both (a C array's leading axes): a loop that vectorises.
                    let row = &mut out[o..o + len];
                    // SAFETY: the `len` elements from `off` are elements of `a`.
                    let src = unsafe { std::slice::from_raw_parts(base.offset(off), len) };
                    tangent_fastmath::on_wide_vectors(|| {
                        if kind == Reduce::Prod {
                            for (y, &x) in row.iter_mut().zip(src) {
                                *y = *y * A::from_element(x);
                            }
                        } else {
                            for (y, &x) in row.iter_mut().zip(src) {
                                *y = *y + A::from_element(x);
                            }
                        }
                    });
                }
                Some((len, s, os, false)) => {
                    for j in 0..len {
                        out[o + j * os] = combine(out[o + j * os], read(off + j as isize * s));
                    }
                }
            }
            if !next_index(&mut index, &dims) {
                break;
            }
        }
    }
    let vals: Vec<f64> = out
        .into_iter()
        .map(|v| match kind {
            // NumPy divides the sum by the count in the sum's type (an empty mean is NaN).
            Reduce::Mean if count == 0 => f64::NAN,
            Reduce::Mean => A::of(v.wide() / count as f64).wide(),
            _ => v.wide(),
        })
        .collect();
    let shape = if keepdims { &kept_shape } else { &out_shape };
    Ok(ArrayD::from_shape_vec(IxDyn(shape), vals).unwrap())
}

/// Sums, products and extrema of int64 lanes in i64 (wrapping around on overflow, as
/// NumPy); `None` for the other reductions (means and truth tests are exact in f64).
pub fn reduce_int(
    a: ArrayViewD<'_, i64>,
    axes: Option<&[usize]>,
    keepdims: bool,
    kind: Reduce,
) -> NpResult<Option<ArrayD<i64>>> {
    let l = lanes(a, axes);
    check_identity(l.count, kind)?;
    let vals = match kind {
        Reduce::Sum => l.map(|s| s.iter().fold(0i64, |acc, &x| acc.wrapping_add(x))),
        Reduce::Prod => l.map(|s| s.iter().fold(1i64, |acc, &x| acc.wrapping_mul(x))),
        Reduce::Max => l.map(|s| s.iter().copied().max().unwrap_or(i64::MIN)),
        Reduce::Min => l.map(|s| s.iter().copied().min().unwrap_or(i64::MAX)),
        _ => return Ok(None),
    };
    Ok(Some(l.finish(vals, keepdims)))
}

/// Applies `f` to every lane of the reduced `axes` (`None`: all axes), each copied into
/// a contiguous buffer `f` may reorder (the order statistics sort it), and returns the
/// values in the reduced shape (kept as ones with `keepdims`).
pub fn reduce_lanes(
    a: ArrayViewD<'_, f64>,
    axes: Option<&[usize]>,
    keepdims: bool,
    mut f: impl FnMut(&mut [f64]) -> f64,
) -> ArrayD<f64> {
    let l = lanes(a, axes);
    let mut flat = l.flat.to_vec();
    let vals: Vec<f64> = if l.count == 0 {
        (0..l.outer()).map(|_| f(&mut [])).collect()
    } else {
        flat.chunks_mut(l.count).map(&mut f).collect()
    };
    l.finish(vals, keepdims)
}

/// The interpolation methods of `np.quantile` this module has (NumPy's default first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuantileMethod {
    Linear,
    Lower,
    Higher,
    Nearest,
    Midpoint,
}

impl QuantileMethod {
    pub fn from_name(name: &str) -> Option<QuantileMethod> {
        Some(match name {
            "linear" => QuantileMethod::Linear,
            "lower" => QuantileMethod::Lower,
            "higher" => QuantileMethod::Higher,
            "nearest" => QuantileMethod::Nearest,
            "midpoint" => QuantileMethod::Midpoint,
            _ => return None,
        })
    }

    /// The sorted positions a quantile `q` of `n` values reads and their weights
    /// (`(lo, hi, weight of hi)`), as NumPy's methods define them.
    pub fn positions(self, q: f64, n: usize) -> (usize, usize, f64) {
        let pos = q * (n - 1) as f64;
        let lo = (pos.floor() as usize).min(n - 1);
        let hi = (lo + 1).min(n - 1);
        let frac = pos - lo as f64;
        match self {
            QuantileMethod::Linear => (lo, hi, frac),
            QuantileMethod::Lower => (lo, lo, 0.0),
            QuantileMethod::Higher => {
                let h = (pos.ceil() as usize).min(n - 1);
                (h, h, 0.0)
            }
            QuantileMethod::Nearest => {
                // Ties round to the even position, as NumPy's `around`.
                let r = pos.round_ties_even() as usize;
                (r.min(n - 1), r.min(n - 1), 0.0)
            }
            QuantileMethod::Midpoint => {
                if frac == 0.0 {
                    (lo, lo, 0.0)
                } else {
                    (lo, hi, 0.5)
                }
            }
        }
    }
}

/// The median of a lane (reordered in place): the mean of the middle two values of an
/// even count, as NumPy's `median`; NaN if the lane holds a NaN or is empty.
pub fn median_of(lane: &mut [f64]) -> f64 {
    let n = lane.len();
    if n == 0 || lane.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    let (below, &mut hi_v, _) = lane.select_nth_unstable_by(n / 2, |a, b| a.total_cmp(b));
    if n % 2 == 1 {
        return hi_v;
    }
    let lo_v = below.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lo_v + hi_v) / 2.0
}

/// The `q`-quantile of a lane (reordered in place); NaN if it holds a NaN, as NumPy.
pub fn quantile_of(lane: &mut [f64], q: f64, method: QuantileMethod) -> f64 {
    let n = lane.len();
    if n == 0 || lane.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    let (lo, hi, w) = method.positions(q, n);
    let (_, &mut lo_v, rest) = lane.select_nth_unstable_by(lo, |a, b| a.total_cmp(b));
    if hi == lo || w == 0.0 {
        return lo_v;
    }
    // The next order statistic is the smallest of what lies above `lo`.
    let hi_v = rest.iter().copied().fold(f64::INFINITY, f64::min);
    // NumPy's `_lerp`: exact at both ends.
    let d = hi_v - lo_v;
    let v = lo_v + d * w;
    if w >= 0.5 {
        hi_v - d * (1.0 - w)
    } else {
        v
    }
}

tangent_fastmath::simd_kernel! {
    /// The first position of the maximum (or minimum) of a float64 slice, or of its first
    /// NaN, compiled for the widest vector unit present, in one pass.
    fn arg_extreme_f64(s: &[f64], is_max: bool) -> usize |_FMA| {
        if is_max {
            arg_extreme_lanes::<true>(s)
        } else {
            arg_extreme_lanes::<false>(s)
        }
    }
}

/// `arg_extreme_f64`: eight lanes each keep their best value and the chunk it came from
/// (a strict comparison keeps the first of equals; one compare and two blends per vector,
/// no serial chain), and whether a NaN was seen; then the best lane, the earliest of
/// equal ones, and the elements after the last whole chunk.
#[inline(always)]
fn arg_extreme_lanes<const MAX: bool>(s: &[f64]) -> usize {
    let better = |x: f64, b: f64| if MAX { x > b } else { x < b };
    let start = if MAX {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    let (mut best, mut at, mut nan) = ([start; 8], [0u64; 8], false);
    let mut chunks = s.chunks_exact(8);
    for (c, chunk) in (&mut chunks).enumerate() {
        for k in 0..8 {
            let x = chunk[k];
            let b = better(x, best[k]);
            best[k] = if b { x } else { best[k] };
            at[k] = if b { c as u64 } else { at[k] };
            nan |= x.is_nan();
        }
    }
    let tail = s.len() - chunks.remainder().len();
    if nan || chunks.remainder().iter().any(|x| x.is_nan()) {
        return s.iter().position(|x| x.is_nan()).unwrap_or(0);
    }
    // The winner among the lanes: the best value, the earliest position among equals (a
    // lane that never moved from `start` holds position k of the first chunk, where a
    // value equal to `start` also is when every value is `start`).
    let (mut value, mut index) = (start, usize::MAX);
    for k in 0..8 {
        let i = at[k] as usize * 8 + k;
        if tail > 0 && (better(best[k], value) || (best[k] == value && i < index)) {
            value = best[k];
            index = i;
        }
    }
    if tail == 0 {
        index = 0;
    }
    for (j, &x) in chunks.remainder().iter().enumerate() {
        if tail == 0 && j == 0 || better(x, value) {
            value = x;
            index = tail + j;
        }
    }
    index
}

/// argmax/argmin over all elements (flat C index) or along one axis.
pub fn arg_reduce<T: Copy + PartialOrd + 'static>(
    a: ArrayViewD<'_, T>,
    axis: Option<usize>,
    is_max: bool,
) -> NpResult<ArrayD<f64>> {
    let name = if is_max { "argmax" } else { "argmin" };
    // NaN (the value unequal to itself) wins, the first one.
    #[allow(clippy::eq_op)]
    let is_nan = |x: T| x != x;
    let better = |x: T, best: T| {
        if is_nan(best) {
            false
        } else if is_nan(x) {
            true
        } else if is_max {
            x > best
        } else {
            x < best
        }
    };
    // A contiguous lane: eight interleaved scans keep their first best element (no
    // serial chain, so it vectorises); the winner is the best of the eight, the
    // earliest among equals: the serial scan's answer (the first NaN, else the first
    // element equal to the extreme, a zero of either sign for a zero).
    let arg_slice = |s: &[T]| -> f64 {
        if std::any::TypeId::of::<T>() == std::any::TypeId::of::<f64>() {
            // SAFETY: T is f64 (checked just above).
            let f = unsafe { std::slice::from_raw_parts(s.as_ptr() as *const f64, s.len()) };
            return arg_extreme_f64(f, is_max) as f64;
        }
        let (mut value, mut at) = ([s[0]; 8], [0usize; 8]);
        let mut chunks = s.chunks_exact(8);
        for (c, chunk) in (&mut chunks).enumerate() {
            for k in 0..8 {
                if better(chunk[k], value[k]) {
                    value[k] = chunk[k];
                    at[k] = c * 8 + k;
                }
            }
        }
        let tail = s.len() - chunks.remainder().len();
        let (mut bv, mut bi) = (s[0], 0usize);
        for (k, &x) in chunks.remainder().iter().enumerate() {
            if better(x, bv) {
                (bv, bi) = (x, tail + k);
            }
        }
        for k in 0..8 {
            let tie = (value[k] == bv || (is_nan(value[k]) && is_nan(bv))) && at[k] < bi;
            if better(value[k], bv) || tie {
                (bv, bi) = (value[k], at[k]);
            }
        }
        bi as f64
    };
    let arg = |it: &mut dyn Iterator<Item = T>| -> f64 {
        let mut best: Option<T> = None;
        let mut bi = 0usize;
        for (i, x) in it.enumerate() {
            if best.is_none_or(|b| better(x, b)) {
                best = Some(x);
                bi = i;
            }
        }
        bi as f64
    };
    match axis {
        None => {
            if a.is_empty() {
                return value_err(format!("attempt to get {name} of an empty sequence"));
            }
            let v = match a.as_slice() {
                Some(s) => arg_slice(s),
                None => arg(&mut a.iter().copied()),
            };
            Ok(ArrayD::from_elem(IxDyn(&[]), v))
        }
        Some(ax) => {
            if a.shape()[ax] == 0 {
                return value_err(format!("attempt to get {name} of an empty sequence"));
            }
            let mut out_shape = a.shape().to_vec();
            out_shape.remove(ax);
            let res = a.map_axis(Axis(ax), |lane| match lane.as_slice() {
                Some(s) => arg_slice(s),
                None => arg(&mut lane.iter().copied()),
            });
            Ok(res.into_shape_with_order(IxDyn(&out_shape)).unwrap())
        }
    }
}

// ---------------------------------------------------------------- reshape

/// Resolves a requested shape (with at most one -1) for `size` elements.
pub fn resolve_shape(req: &[isize], size: usize) -> NpResult<Vec<usize>> {
    let mut unknown = None;
    let mut known: usize = 1;
    for (i, &d) in req.iter().enumerate() {
        if d == -1 {
            if unknown.is_some() {
                return value_err("can only specify one unknown dimension");
            }
            unknown = Some(i);
        } else if d < 0 {
            return value_err("negative dimensions not allowed");
        } else {
            known *= d as usize;
        }
    }
    let fmt_req = || {
        let s: Vec<String> = req.iter().map(|d| d.to_string()).collect();
        match s.len() {
            1 => format!("({},)", s[0]),
            _ => format!("({})", s.join(",")),
        }
    };
    let mut out: Vec<usize> = req.iter().map(|&d| d.max(0) as usize).collect();
    if let Some(i) = unknown {
        if known == 0 || !size.is_multiple_of(known) {
            return value_err(format!(
                "cannot reshape array of size {size} into shape {}",
                fmt_req()
            ));
        }
        out[i] = size / known;
    } else if known != size {
        return value_err(format!(
            "cannot reshape array of size {size} into shape {}",
            fmt_req()
        ));
    }
    Ok(out)
}

pub fn reshape<T: Clone>(a: ArrayViewD<'_, T>, shape: &[usize]) -> ArrayD<T> {
    let std = to_standard(a);
    std.into_shape_with_order(IxDyn(shape)).unwrap()
}

// ---------------------------------------------------------------- indexing

#[derive(Debug, Clone)]
pub enum IndexItem {
    Int(isize),
    Slice(Option<isize>, Option<isize>, Option<isize>),
    NewAxis,
    Ellipsis,
    /// Integer index array (values may be negative); shared, since indexing passes it
    /// along several steps.
    Array(std::sync::Arc<ArrayD<isize>>),
    /// Boolean mask.
    Mask(ArrayD<bool>),
}

/// Python slice semantics: (first index, step, length).
pub fn slice_indices(
    start: Option<isize>,
    stop: Option<isize>,
    step: Option<isize>,
    n: usize,
) -> NpResult<(isize, isize, usize)> {
    let n = n as isize;
    let step = step.unwrap_or(1);
    if step == 0 {
        return value_err("slice step cannot be zero");
    }
    let (lo, hi) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let fix = |v: Option<isize>, default: isize| -> isize {
        match v {
            None => default,
            Some(mut v) => {
                if v < 0 {
                    v += n;
                    if v < lo {
                        v = lo;
                    }
                } else if v > hi {
                    v = hi;
                }
                v
            }
        }
    };
    let start = fix(start, if step > 0 { 0 } else { n - 1 });
    let stop = fix(stop, if step > 0 { n } else { -1 });
    let len = if step > 0 {
        if stop > start {
            (stop - start + step - 1) / step
        } else {
            0
        }
    } else if start > stop {
        (start - stop - step - 1) / (-step)
    } else {
        0
    };
    Ok((start, step, len as usize))
}

fn nd_slice(start: isize, step: isize, len: usize) -> Slice {
    if len == 0 {
        return Slice::new(0, Some(0), 1);
    }
    let last = start + (len as isize - 1) * step;
    if step > 0 {
        Slice::new(start, Some(last + 1), step)
    } else {
        Slice::new(last, Some(start + 1), step)
    }
}

fn norm_index(i: isize, n: usize, axis: usize) -> NpResult<usize> {
    let ni = n as isize;
    if i < -ni || i >= ni {
        return Err(NpErr::Index(format!(
            "index {i} is out of bounds for axis {axis} with size {n}"
        )));
    }
    Ok(if i < 0 { (i + ni) as usize } else { i as usize })
}

/// Whether every index is in `-n..n`, and whether any is negative, in one pass without
/// a branch per index (so the compiler vectorises it): `i + n` as an unsigned number is
/// below `2n` exactly when `i` is in range, and the indices or'ed together are negative
/// when one is.
fn index_bounds(indices: &[isize], n: usize) -> (bool, bool) {
    let (ni, limit) = (n as isize, 2 * n);
    let (out, signs) = crate::fastmath::on_wide_vectors(|| {
        indices.iter().fold((0usize, 0isize), |(out, signs), &i| {
            (
                out | usize::from(i.wrapping_add(ni) as usize >= limit),
                signs | i,
            )
        })
    });
    (out == 0, signs < 0)
}

/// Expands `...`, masks and missing trailing axes; returns the items and whether any
/// advanced (array) index is present.
fn normalize_items(items: &[IndexItem], shape: &[usize]) -> NpResult<(Vec<IndexItem>, bool)> {
    let ndim = shape.len();
    let mut consumed = 0usize;
    let mut ellipses = 0;
    for it in items {
        match it {
            IndexItem::Int(_) | IndexItem::Slice(..) | IndexItem::Array(_) => consumed += 1,
            IndexItem::Mask(m) => consumed += m.ndim(),
            IndexItem::Ellipsis => ellipses += 1,
            IndexItem::NewAxis => {}
        }
    }
    if ellipses > 1 {
        return Err(NpErr::Index(
            "an index can only have a single ellipsis ('...')".into(),
        ));
    }
    if consumed > ndim {
        return Err(NpErr::Index(format!(
            "too many indices for array: array is {ndim}-dimensional, but {consumed} were indexed"
        )));
    }
    let mut out = Vec::with_capacity(ndim + 2);
    let mut axis = 0usize;
    let mut adv = false;
    for it in items {
        match it {
            IndexItem::Ellipsis => {
                for _ in 0..(ndim - consumed) {
                    out.push(IndexItem::Slice(None, None, None));
                    axis += 1;
                }
            }
            IndexItem::Mask(m) => {
                adv = true;
                if m.ndim() == 0 {
                    return Err(NpErr::Index("0-d boolean indices are not supported".into()));
                }
                for (k, &d) in m.shape().iter().enumerate() {
                    if shape[axis + k] != d {
                        return Err(NpErr::Index(format!(
                            "boolean index did not match indexed array along axis {}; size of axis is {} but size of corresponding boolean axis is {}",
                            axis + k,
                            shape[axis + k],
                            d
                        )));
                    }
                }
                // nonzero: one index array per mask dimension
                let mut cols: Vec<Vec<isize>> = vec![Vec::new(); m.ndim()];
                if let (1, Some(flat)) = (m.ndim(), m.as_slice()) {
                    // The common `a[a > 0]`: positions straight from the slice.
                    cols[0] = (0..flat.len())
                        .filter(|&i| flat[i])
                        .map(|i| i as isize)
                        .collect();
                } else {
                    for (idx, &v) in m.indexed_iter() {
                        if v {
                            for (k, c) in cols.iter_mut().enumerate() {
                                c.push(idx[k] as isize);
                            }
                        }
                    }
                }
                for c in cols {
                    let n = c.len();
                    out.push(IndexItem::Array(std::sync::Arc::new(
                        ArrayD::from_shape_vec(IxDyn(&[n]), c).unwrap(),
                    )));
                }
                axis += m.ndim();
            }
            IndexItem::Array(_) => {
                adv = true;
                out.push(it.clone());
                axis += 1;
            }
            IndexItem::NewAxis => out.push(IndexItem::NewAxis),
            _ => {
                out.push(it.clone());
                axis += 1;
            }
        }
    }
    while axis < ndim {
        out.push(IndexItem::Slice(None, None, None));
        axis += 1;
    }
    Ok((out, adv))
}

/// Advanced (integer-array) indices left for later: (result axis, indices).
type AdvancedIndices = Vec<(usize, std::sync::Arc<ArrayD<isize>>)>;

/// Applies ints, slices and new axes to a view (owned or mutable alike). Array items
/// are treated as full slices; their positions in the result are returned.
fn apply_basic<S: Data>(
    mut v: ArrayBase<S, IxDyn>,
    items: &[IndexItem],
    ints_are_advanced: bool,
) -> NpResult<(ArrayBase<S, IxDyn>, AdvancedIndices)> {
    let mut ax = 0usize; // axis in the result being built
    let mut src_axis = 0usize; // axis of the original array (for messages)
    let mut adv = Vec::new();
    for it in items {
        match it {
            IndexItem::Int(i) if !ints_are_advanced => {
                let n = v.shape()[ax];
                let i = norm_index(*i, n, src_axis)?;
                v = v.index_axis_move(Axis(ax), i);
                src_axis += 1;
            }
            IndexItem::Int(i) => {
                adv.push((ax, std::sync::Arc::new(ArrayD::from_elem(IxDyn(&[]), *i))));
                ax += 1;
                src_axis += 1;
            }
            IndexItem::Slice(a, b, c) => {
                let n = v.shape()[ax];
                let (start, step, len) = slice_indices(*a, *b, *c, n)?;
                v.slice_axis_inplace(Axis(ax), nd_slice(start, step, len));
                ax += 1;
                src_axis += 1;
            }
            IndexItem::NewAxis => {
                v.insert_axis_inplace(Axis(ax));
                ax += 1;
            }
            IndexItem::Array(arr) => {
                adv.push((ax, arr.clone()));
                ax += 1;
                src_axis += 1;
            }
            IndexItem::Ellipsis | IndexItem::Mask(_) => unreachable!("normalized"),
        }
    }
    Ok((v, adv))
}

/// Basic indexing as a view of `a` (`None` when an advanced index is present: NumPy
/// copies then).
pub fn index_view<'a, T>(
    a: ArrayViewD<'a, T>,
    items: &[IndexItem],
) -> NpResult<Option<ArrayViewD<'a, T>>> {
    // An index array or a mask makes a copy (`index_get`, which also reports their
    // errors): no view, and no positions worked out here for nothing.
    if items
        .iter()
        .any(|it| matches!(it, IndexItem::Mask(_) | IndexItem::Array(_)))
    {
        return Ok(None);
    }
    let (items, adv) = normalize_items(items, a.shape())?;
    if adv {
        return Ok(None);
    }
    let (v, _) = apply_basic(a, &items, false)?;
    Ok(Some(v))
}

/// NumPy's `_attempt_nocopy_reshape` (C order): strides (in elements) that give `new`
/// the same elements as `old` with `old_strides` without copying, or `None`. Both
/// shapes have the same non-zero size.
pub fn nocopy_reshape(old: &[usize], old_strides: &[isize], new: &[usize]) -> Option<Vec<isize>> {
    let (od, os): (Vec<usize>, Vec<isize>) = old
        .iter()
        .zip(old_strides)
        .filter(|(&d, _)| d != 1)
        .map(|(&d, &s)| (d, s))
        .unzip();
    let (oldnd, newnd) = (od.len(), new.len());
    let mut ns = vec![0isize; newnd];
    let (mut oi, mut oj, mut ni, mut nj) = (0usize, 1usize, 0usize, 1usize);
    while ni < newnd && oi < oldnd {
        let mut np_ = new[ni];
        let mut op = od[oi];
        while np_ != op {
            if np_ < op {
                np_ *= new[nj];
                nj += 1;
            } else {
                op *= od[oj];
                oj += 1;
            }
        }
        for ok in oi..oj - 1 {
            if os[ok] != od[ok + 1] as isize * os[ok + 1] {
                return None;
            }
        }
        ns[nj - 1] = os[oj - 1];
        for nk in (ni + 1..nj).rev() {
            ns[nk - 1] = ns[nk] * new[nk] as isize;
        }
        ni = nj;
        nj += 1;
        oi = oj;
        oj += 1;
    }
    let last = if ni >= 1 { ns[ni - 1] } else { 1 };
    for s in ns.iter_mut().skip(ni) {
        *s = last;
    }
    Some(ns)
}

/// Basic + advanced indexing read on any element type.
pub fn index_get<T: Copy>(a: ArrayViewD<'_, T>, items: &[IndexItem]) -> NpResult<ArrayD<T>> {
    // The common `a[a > 0]`: a mask of the array's own shape over C-ordered elements
    // keeps the chosen ones in order, without a position array.
    if let [IndexItem::Mask(m)] = items {
        if m.ndim() > 0 && m.shape() == a.shape() {
            if let (Some(data), Some(mask)) = (a.as_slice(), m.as_slice()) {
                return Ok(compress_by_mask(data, mask));
            }
        }
    }
    // The common `a[idx]` of a 1-d array by a contiguous index: gathered directly.
    if let ([IndexItem::Array(ix)], 1) = (items, a.ndim()) {
        if let Some(is) = ix.as_slice() {
            return gather_1d(a, is, ix.raw_dim(), 0);
        }
    }
    let (items, adv) = normalize_items(items, a.shape())?;
    let (v, advs) = apply_basic(a, &items, adv)?;
    if advs.is_empty() {
        return Ok(to_standard(v));
    }
    gather(v, advs)
}

/// The elements of `data` where `mask` is true, in order, as a 1-d array: each element is
/// written at the next free place and the place moves on only for a true one (no branch
/// per element, which a mask of mixed values would mispredict half the time); the
/// vector has room for one element past the kept ones, the last place written.
fn compress_by_mask<T: Copy>(data: &[T], mask: &[bool]) -> ArrayD<T> {
    let count = mask.iter().map(|&b| usize::from(b)).sum::<usize>();
    let mut out: Vec<T> = Vec::with_capacity(count + 1);
    let spare = out.spare_capacity_mut();
    let mut j = 0usize;
    for (&x, &b) in data.iter().zip(mask) {
        spare[j].write(x);
        j += usize::from(b);
    }
    debug_assert_eq!(j, count);
    // SAFETY: the first `count` places hold the kept elements, each written last by the
    // true element that moved past it (T is Copy: nothing overwritten needs dropping).
    unsafe { out.set_len(count) };
    ArrayD::from_shape_vec(IxDyn(&[count]), out).expect("one axis of the kept length")
}

/// `v[idx]` of a 1-d view by the indices `flat`, as an array of `shape` (the index's);
/// `axis` is the one an out-of-range index is reported on. Every index is checked
/// first in one pass (no branch per element), then the reads (independent of each
/// other, so their cache misses overlap).
fn gather_1d<T: Clone>(
    v: ArrayViewD<'_, T>,
    flat: &[isize],
    shape: IxDyn,
    axis: usize,
) -> NpResult<ArrayD<T>> {
    let (n, stride, base) = (v.shape()[0], v.strides()[0], v.as_ptr());
    let ni = n as isize;
    let (in_bounds, negative) = index_bounds(flat, n);
    if !in_bounds {
        for &i in flat {
            norm_index(i, n, axis)?;
        }
    }
    if !negative && stride == 1 {
        // Contiguous, no index to wrap: one load per element.
        // Compiled for the widest vectors: their gather instructions.
        let data: Vec<T> = crate::fastmath::on_wide_vectors(|| {
            flat.iter()
                // SAFETY: every index is in 0..n (checked above), an element of `v`.
                .map(|&i| unsafe { (*base.add(i as usize)).clone() })
                .collect()
        });
        return Ok(ArrayD::from_shape_vec(shape, data).expect("one element per index"));
    }
    let data: Vec<T> = flat
        .iter()
        .map(|&i| {
            let i = if i < 0 { i + ni } else { i };
            // SAFETY: an in-bounds element of the 1-d view `v` (checked above).
            unsafe { (*base.offset(i * stride)).clone() }
        })
        .collect();
    Ok(ArrayD::from_shape_vec(shape, data).expect("one element per index"))
}

fn gather<T: Clone>(v: ArrayViewD<'_, T>, advs: AdvancedIndices) -> NpResult<ArrayD<T>> {
    let shapes: Vec<&[usize]> = advs.iter().map(|(_, a)| a.shape()).collect();
    let bshape = match broadcast_shapes(&shapes) {
        Ok(s) => s,
        Err(_) => {
            let all: Vec<String> = shapes.iter().map(|s| shape_compact(s)).collect();
            return Err(NpErr::Index(format!(
                "shape mismatch: indexing arrays could not be broadcast together with shapes {} ",
                all.join(" ")
            )));
        }
    };
    let adv_axes: Vec<usize> = advs.iter().map(|(ax, _)| *ax).collect();
    let adjacent = adv_axes.windows(2).all(|w| w[1] == w[0] + 1);
    let rest: Vec<usize> = (0..v.ndim()).filter(|i| !adv_axes.contains(i)).collect();
    let rest_shape: Vec<usize> = rest.iter().map(|&i| v.shape()[i]).collect();
    let mut perm = adv_axes.clone();
    perm.extend(rest.iter().copied());
    let p = v.permuted_axes(IxDyn(&perm));
    let rest_size: usize = rest_shape.iter().product();
    if let ([(_, ix)], true, Some(flat)) = (&advs[..], rest.is_empty(), advs[0].1.as_slice()) {
        return gather_1d(p, flat, ix.raw_dim(), adv_axes[0]);
    }
    // broadcast and bounds-check the index arrays
    let mut idx_arrays: Vec<ArrayD<usize>> = Vec::new();
    for (k, (_, arr)) in advs.iter().enumerate() {
        let n = p.shape()[k];
        let b = arr.broadcast(IxDyn(&bshape)).unwrap();
        let mut conv = Vec::with_capacity(b.len());
        match b.as_slice() {
            // Already of the result's shape, in C order: read as a slice.
            Some(flat) => {
                for &i in flat {
                    conv.push(norm_index(i, n, adv_axes[k])?);
                }
            }
            None => {
                for &i in b.iter() {
                    conv.push(norm_index(i, n, adv_axes[k])?);
                }
            }
        }
        idx_arrays.push(ArrayD::from_shape_vec(IxDyn(&bshape), conv).unwrap());
    }
    let nb: usize = bshape.iter().product();
    let mut data: Vec<T> = Vec::with_capacity(nb * rest_size);
    let flat: Vec<&[usize]> = idx_arrays.iter().map(|a| a.as_slice().unwrap()).collect();
    // One element per selection (no other axes): by its offset from the view's first
    // (the indices are in bounds: checked above).
    let strides = &p.strides()[..flat.len()];
    let offset = |j: usize| -> isize {
        flat.iter()
            .zip(strides)
            .map(|(f, &s)| f[j] as isize * s)
            .sum()
    };
    if rest_size == 1 || nb == 0 {
        let base = p.as_ptr();
        for j in 0..nb {
            // SAFETY: an in-bounds element of `p` (every index was checked against its
            // axis; the other axes have one element, at offset 0).
            data.push(unsafe { (*base.offset(offset(j))).clone() });
        }
    } else {
        for j in 0..nb {
            let mut sub = p.view();
            for f in &flat {
                sub = sub.index_axis_move(Axis(0), f[j]);
            }
            data.extend(sub.iter().cloned());
        }
    }
    let mut out_shape = bshape.clone();
    out_shape.extend(rest_shape.iter().copied());
    let out = ArrayD::from_shape_vec(IxDyn(&out_shape), data).unwrap();
    let first = adv_axes[0];
    if adjacent && first > 0 {
        // move the broadcast dims to where the indexed axes were
        let nbd = bshape.len();
        let nr = rest_shape.len();
        let mut perm: Vec<usize> = Vec::new();
        perm.extend(nbd..nbd + first);
        perm.extend(0..nbd);
        perm.extend(nbd + first..nbd + nr);
        return Ok(to_standard(out.view().permuted_axes(IxDyn(&perm))));
    }
    Ok(out)
}

/// Indexing write: `a[items] = value` (value broadcast to the selection), through a
/// mutable view (the array itself or a window on a shared buffer).
pub fn index_set<T: Copy>(
    mut a: ndarray::ArrayViewMutD<'_, T>,
    items: &[IndexItem],
    value: ArrayViewD<'_, T>,
) -> NpResult<()> {
    let (norm, adv) = normalize_items(items, a.shape())?;
    if !adv {
        let (mut v, _) = apply_basic(a, &norm, false)?;
        let b = value.broadcast(v.raw_dim()).ok_or_else(|| {
            NpErr::Value(format!(
                "could not broadcast input array from shape {} into shape {}",
                shape_compact(value.shape()),
                shape_compact(v.shape())
            ))
        })?;
        v.assign(&b);
        return Ok(());
    }
    // The common `a[idx] = v` of a contiguous 1-d array by a contiguous index, `v` of the
    // index's length or one value: every index checked in one pass (no branch per
    // element) before anything is written, then the writes in the index's order (the
    // last of equal indices wins, as in NumPy).
    if let ([IndexItem::Array(ix)], 1, 1) = (&norm[..], a.ndim(), value.ndim().max(1)) {
        let len = a.len();
        let ni = len as isize;
        if let (Some(s), Some(is), Some(xs)) = (a.as_slice_mut(), ix.as_slice(), value.as_slice()) {
            let fits = xs.len() == is.len() || xs.len() == 1;
            if fits && ix.ndim() == 1 {
                let (in_bounds, negative) = index_bounds(is, len);
                if !in_bounds {
                    for &i in is {
                        norm_index(i, len, 0)?;
                    }
                }
                let at = |i: isize| (if negative && i < 0 { i + ni } else { i }) as usize;
                if xs.len() == is.len() {
                    for (&i, &x) in is.iter().zip(xs) {
                        s[at(i)] = x;
                    }
                } else {
                    for &i in is {
                        s[at(i)] = xs[0];
                    }
                }
                return Ok(());
            }
        }
    }
    // Advanced: the C-order positions the index selects (every index checked before
    // anything is written), then a scatter.
    let n = a.len();
    let pos = match (&norm[..], a.ndim()) {
        // The common `a[idx] = v` of a 1-d array: the indices themselves.
        ([IndexItem::Array(ix)], 1) => {
            let p: Vec<usize> = ix
                .iter()
                .map(|&i| norm_index(i, n, 0))
                .collect::<NpResult<_>>()?;
            ArrayD::from_shape_vec(ix.raw_dim(), p).expect("the index's shape")
        }
        _ => {
            let lin = ArrayD::from_shape_vec(a.raw_dim(), (0..n).collect::<Vec<usize>>()).unwrap();
            index_get(lin.view(), items)?
        }
    };
    let b = value.broadcast(pos.raw_dim()).ok_or_else(|| {
        NpErr::Value(format!(
            "shape mismatch: value array of shape {} could not be broadcast to indexing result of shape {}",
            shape_compact(value.shape()),
            shape_compact(pos.shape())
        ))
    })?;
    if let Some(s) = a.as_slice_mut() {
        match (pos.as_slice(), b.as_slice()) {
            // Positions and values in C order: read as slices.
            (Some(ps), Some(xs)) => {
                for (&p, &x) in ps.iter().zip(xs) {
                    s[p] = x;
                }
            }
            _ => {
                for (&p, &x) in pos.iter().zip(b.iter()) {
                    s[p] = x;
                }
            }
        }
        return Ok(());
    }
    let mut cells: Vec<&mut T> = a.iter_mut().collect();
    for (&p, &x) in pos.iter().zip(b.iter()) {
        *cells[p] = x;
    }
    Ok(())
}

// ---------------------------------------------------------------- matmul

pub fn mm2<T: MatElem>(
    a: ndarray::ArrayView2<'_, T>,
    b: ndarray::ArrayView2<'_, T>,
) -> ndarray::Array2<T> {
    let (m, k) = a.dim();
    let n = b.ncols();
    let mut out = ndarray::Array2::<T>::from_elem((m, n), T::ZERO);
    if m == 0 || n == 0 || k == 0 {
        return out;
    }
    T::gemm(&mut out, a, b);
    clear_upper_simd_state();
    out
}

/// The element types with a matrix product kernel (faer's f64 and f32 kernels).
pub trait MatElem: Copy + Send + Sync + 'static {
    const ZERO: Self;
    /// `out = a @ b` (shapes checked by the caller, all dimensions non-zero).
    fn gemm(
        out: &mut ndarray::Array2<Self>,
        a: ndarray::ArrayView2<'_, Self>,
        b: ndarray::ArrayView2<'_, Self>,
    );
}

macro_rules! faer_mat_elem {
    ($t:ty) => {
        impl MatElem for $t {
            const ZERO: Self = 0.0;
            fn gemm(
                out: &mut ndarray::Array2<Self>,
                a: ndarray::ArrayView2<'_, Self>,
                b: ndarray::ArrayView2<'_, Self>,
            ) {
                let (m, k) = a.dim();
                let n = b.ncols();
                // SAFETY: the pointers and strides describe the live ndarray views, which
                // outlive the faer views created here; faer only reads `a`/`b` and
                // writes `out`.
                unsafe {
                    let ar = faer::MatRef::<$t>::from_raw_parts(
                        a.as_ptr(),
                        m,
                        k,
                        a.strides()[0],
                        a.strides()[1],
                    );
                    let br = faer::MatRef::<$t>::from_raw_parts(
                        b.as_ptr(),
                        k,
                        n,
                        b.strides()[0],
                        b.strides()[1],
                    );
                    let s0 = out.strides()[0];
                    let s1 = out.strides()[1];
                    let cm = faer::MatMut::<$t>::from_raw_parts_mut(out.as_mut_ptr(), m, n, s0, s1);
                    faer::linalg::matmul::matmul(
                        cm,
                        faer::Accum::Replace,
                        ar,
                        br,
                        1.0,
                        faer::Par::Seq,
                    );
                }
            }
        }
    };
}
faer_mat_elem!(f64);
faer_mat_elem!(f32);

/// int64 products as NumPy computes them: exact, wrapping around on overflow.
impl MatElem for i64 {
    const ZERO: Self = 0;
    fn gemm(
        out: &mut ndarray::Array2<Self>,
        a: ndarray::ArrayView2<'_, Self>,
        b: ndarray::ArrayView2<'_, Self>,
    ) {
        for ((i, j), o) in out.indexed_iter_mut() {
            *o = a
                .row(i)
                .iter()
                .zip(b.column(j))
                .fold(0i64, |acc, (&x, &y)| acc.wrapping_add(x.wrapping_mul(y)));
        }
    }
}

/// faer's kernels use 256/512-bit registers and can leave their upper halves dirty;
/// until a `vzeroupper`, the SSE code that follows (libm's `tanh`, `exp`, ...) runs
/// several times slower (measured: `np.tanh` on 64x128 went from 75 us to 255 us after
/// a product).
#[inline]
fn clear_upper_simd_state() {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: AVX is available (checked above); vzeroupper only clears the upper
            // halves of the vector registers, which no live value here occupies.
            unsafe { avx_zeroupper() }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn avx_zeroupper() {
    std::arch::x86_64::_mm256_zeroupper();
}

fn as2<'a, T>(v: &'a ArrayViewD<'_, T>) -> ndarray::ArrayView2<'a, T> {
    v.view().into_dimensionality::<ndarray::Ix2>().unwrap()
}

/// `a @ b` with NumPy's matmul rules (1-D promotion, batch broadcasting).
pub fn matmul<T: MatElem>(a: ArrayViewD<'_, T>, b: ArrayViewD<'_, T>) -> NpResult<ArrayD<T>> {
    if a.ndim() == 0 || b.ndim() == 0 {
        return value_err(
            "matmul: Input operand 0 does not have enough dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)",
        );
    }
    let a1 = a.ndim() == 1;
    let b1 = b.ndim() == 1;
    let a2 = if a1 {
        a.clone().insert_axis(Axis(0))
    } else {
        a.clone()
    };
    let b2 = if b1 {
        b.clone().insert_axis(Axis(1))
    } else {
        b.clone()
    };
    let ka = a2.shape()[a2.ndim() - 1];
    let kb = b2.shape()[b2.ndim() - 2];
    if ka != kb {
        return value_err(format!(
            "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {kb} is different from {ka})"
        ));
    }
    let m = a2.shape()[a2.ndim() - 2];
    let n = b2.shape()[b2.ndim() - 1];
    let mut out = if a2.ndim() == 2 && b2.ndim() == 2 {
        mm2(as2(&a2), as2(&b2)).into_dyn()
    } else {
        let ba = &a2.shape()[..a2.ndim() - 2];
        let bb = &b2.shape()[..b2.ndim() - 2];
        let batch = broadcast_pair(ba, bb).ok_or_else(|| {
            NpErr::Value(format!(
                "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {} is different from {})",
                kb, ka
            ))
        })?;
        let mut sa = batch.clone();
        sa.extend([m, ka]);
        let mut sb = batch.clone();
        sb.extend([kb, n]);
        let av = a2.broadcast(IxDyn(&sa)).unwrap();
        let bv = b2.broadcast(IxDyn(&sb)).unwrap();
        let nbatch: usize = batch.iter().product();
        let mut data = Vec::with_capacity(nbatch * m * n);
        let av = av
            .into_shape_with_order(IxDyn(&[nbatch, m, ka]))
            .map(|x| x.to_owned())
            .unwrap_or_else(|_| {
                to_standard(a2.broadcast(IxDyn(&sa)).unwrap())
                    .into_shape_with_order(IxDyn(&[nbatch, m, ka]))
                    .unwrap()
            });
        let bv = bv
            .into_shape_with_order(IxDyn(&[nbatch, kb, n]))
            .map(|x| x.to_owned())
            .unwrap_or_else(|_| {
                to_standard(b2.broadcast(IxDyn(&sb)).unwrap())
                    .into_shape_with_order(IxDyn(&[nbatch, kb, n]))
                    .unwrap()
            });
        for i in 0..nbatch {
            let x = av.index_axis(Axis(0), i);
            let y = bv.index_axis(Axis(0), i);
            let r = mm2(
                x.into_dimensionality::<ndarray::Ix2>().unwrap(),
                y.into_dimensionality::<ndarray::Ix2>().unwrap(),
            );
            data.extend(r.iter().copied());
        }
        let mut s = batch.clone();
        s.extend([m, n]);
        ArrayD::from_shape_vec(IxDyn(&s), data).unwrap()
    };
    if b1 {
        let nd = out.ndim();
        out = out.index_axis_move(Axis(nd - 1), 0);
    }
    if a1 {
        let nd = out.ndim();
        out = out.index_axis_move(Axis(nd - 1 - if b1 { 0 } else { 1 }), 0);
    }
    Ok(out)
}

/// `np.dot` for up to 2-D operands.
pub fn dot(a: ArrayViewD<'_, f64>, b: ArrayViewD<'_, f64>) -> NpResult<ArrayD<f64>> {
    if a.ndim() <= 2 && b.ndim() <= 2 && a.ndim() >= 1 && b.ndim() >= 1 {
        let ka = a.shape()[a.ndim() - 1];
        let kb = b.shape()[if b.ndim() == 1 { 0 } else { b.ndim() - 2 }];
        if ka != kb {
            return value_err(format!(
                "shapes {} and {} not aligned: {} (dim {}) != {} (dim {})",
                shape_compact(a.shape()),
                shape_compact(b.shape()),
                ka,
                a.ndim() - 1,
                kb,
                if b.ndim() == 1 { 0 } else { b.ndim() - 2 }
            ));
        }
        if a.ndim() == 1 && b.ndim() == 1 {
            // Summed pairwise (as the native code's `np.dot`), in a loop that vectorises.
            let (xo, yo);
            let x = match a.as_slice() {
                Some(x) => x,
                None => {
                    xo = to_standard(a.view());
                    xo.as_slice().expect("C order")
                }
            };
            let y = match b.as_slice() {
                Some(y) => y,
                None => {
                    yo = to_standard(b.view());
                    yo.as_slice().expect("C order")
                }
            };
            let s = crate::fastmath::pairwise_dot(x, y);
            return Ok(ArrayD::from_elem(IxDyn(&[]), s));
        }
        return matmul(a, b);
    }
    if a.ndim() == 0 || b.ndim() == 0 {
        return zip_with(a, b, |x, y| x * y);
    }
    // N-D dot: sum over last axis of a and second-to-last of b (its only axis if 1-D).
    let kb_axis = b.ndim().saturating_sub(2);
    let ka = a.shape()[a.ndim() - 1];
    let kb = b.shape()[kb_axis];
    if ka != kb {
        return value_err(format!(
            "shapes {} and {} not aligned: {} (dim {}) != {} (dim {})",
            shape_tuple(a.shape()),
            shape_tuple(b.shape()),
            ka,
            a.ndim() - 1,
            kb,
            kb_axis
        ));
    }
    let am = reshape(a.view(), &[a.len() / ka.max(1), ka]);
    // b: move axis -2 to front then flatten the rest
    let mut perm: Vec<usize> = vec![kb_axis];
    perm.extend((0..b.ndim()).filter(|&i| i != kb_axis));
    let bp = to_standard(b.view().permuted_axes(IxDyn(&perm)));
    let bm = bp
        .into_shape_with_order(IxDyn(&[kb, b.len() / kb.max(1)]))
        .unwrap();
    let r = mm2(as2(&am.view()), as2(&bm.view()));
    let mut shape: Vec<usize> = a.shape()[..a.ndim() - 1].to_vec();
    shape.extend(perm[1..].iter().map(|&i| b.shape()[i]));
    Ok(r.into_dyn().into_shape_with_order(IxDyn(&shape)).unwrap())
}

pub fn concatenate<T: Clone>(arrs: &[ArrayViewD<'_, T>], axis: isize) -> NpResult<ArrayD<T>> {
    if arrs.is_empty() {
        return value_err("need at least one array to concatenate");
    }
    let nd = arrs[0].ndim();
    if nd == 0 {
        return value_err("zero-dimensional arrays cannot be concatenated");
    }
    let ax = norm_axis(axis, nd)?;
    for (i, a) in arrs.iter().enumerate().skip(1) {
        if a.ndim() != nd {
            return value_err(format!(
                "all the input arrays must have same number of dimensions, but the array at index 0 has {} dimension(s) and the array at index {} has {} dimension(s)",
                nd, i, a.ndim()
            ));
        }
        for d in 0..nd {
            if d != ax && a.shape()[d] != arrs[0].shape()[d] {
                return value_err(format!(
                    "all the input array dimensions except for the concatenation axis must match exactly, but along dimension {}, the array at index 0 has size {} and the array at index {} has size {}",
                    d, arrs[0].shape()[d], i, a.shape()[d]
                ));
            }
        }
    }
    Ok(ndarray::concatenate(Axis(ax), arrs).unwrap())
}

pub fn stack<T: Clone>(arrs: &[ArrayViewD<'_, T>], axis: isize) -> NpResult<ArrayD<T>> {
    if arrs.is_empty() {
        return value_err("need at least one array to stack");
    }
    for a in arrs {
        if a.shape() != arrs[0].shape() {
            return value_err("all input arrays must have the same shape");
        }
    }
    let ax = norm_axis(axis, arrs[0].ndim() + 1)?;
    let expanded: Vec<ArrayViewD<'_, T>> = arrs
        .iter()
        .map(|a| a.clone().insert_axis(Axis(ax)))
        .collect();
    Ok(ndarray::concatenate(Axis(ax), &expanded).unwrap())
}

// ---------------------------------------------------------------- more scalar kernels

/// `log(exp(a) + exp(b))` without overflow.
#[inline]
pub fn logaddexp(a: f64, b: f64) -> f64 {
    if a == b {
        return a + std::f64::consts::LN_2;
    }
    let m = a.max(b);
    if m.is_nan() {
        return f64::NAN;
    }
    m + (-(a - b).abs()).exp().ln_1p()
}

/// `log2(2**a + 2**b)` without overflow.
#[inline]
pub fn logaddexp2(a: f64, b: f64) -> f64 {
    if a == b {
        return a + 1.0;
    }
    let m = a.max(b);
    if m.is_nan() {
        return f64::NAN;
    }
    m + (-(a - b).abs()).exp2().ln_1p() / std::f64::consts::LN_2
}

/// NumPy's heaviside(x, h0).
#[inline]
pub fn heaviside(x: f64, h0: f64) -> f64 {
    if x.is_nan() {
        f64::NAN
    } else if x < 0.0 {
        0.0
    } else if x > 0.0 {
        1.0
    } else {
        h0
    }
}

/// Normalized sinc: sin(pi x) / (pi x).
#[inline]
pub fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        let y = std::f64::consts::PI * x;
        y.sin() / y
    }
}
