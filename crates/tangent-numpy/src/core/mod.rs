//! Interpreter-independent array machinery: dtypes, broadcasting, indexing, reductions
//! and matrix products. Everything here works on `ndarray` values and reports errors as
//! [`NpErr`] carrying NumPy's wording; `native/` maps them to Python exceptions.
//!
//! Most functions here work on f64 values: the storage (`storage.rs`) keeps each dtype in
//! its own element type, and code without a typed kernel reads an f64 copy (exact for
//! float32 and bool, for int64 to 2**53); [`DType::cast`] is the storage cast of a value
//! computed in f64. The generic ones (`zip_with`, `map_*`, `lanes`/`reduce`, `matmul`
//! over [`MatElem`], `reshape`, `concatenate`, `stack`) also run on f32 and i64.

mod indexing;
mod kernels;
mod products;
mod reduce;

pub use indexing::*;
pub use kernels::*;
pub use products::*;
pub use reduce::*;

use ndarray::{ArrayD, ArrayViewD, IxDyn};
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
