//! Per-dtype element storage: an array's elements are kept in their own type
//! (`f64`, `f32`, `i64`, `bool`), and kernels that matter run in that type.
//!
//! [`Elements`] is an owner's buffer. Code that has a kernel for an element type reads
//! it as an [`ElemView`] (a typed window); code that does not yet reads a converted
//! `f64` copy (exact for float32 and bool, and for int64 up to 2**53; see
//! `ArrRead::view` in native/array.rs).

use crate::core::DType;
use ndarray::{ArrayD, ArrayViewD, ArrayViewMutD, IxDyn};

/// An element type of the storage, with its dtype and NumPy's casts from and to f64.
pub trait Element: Copy + Send + Sync + std::fmt::Debug + PartialEq + 'static {
    const DTYPE: DType;
    fn to_f64(self) -> f64;
    /// NumPy's cast (`astype`): rounding to nearest for float32, truncation for int64
    /// (INT64_MIN for NaN, infinities and values out of range, as NumPy on x86), `!= 0`
    /// for bool.
    fn from_f64(x: f64) -> Self;
    fn zero() -> Self;
    /// The typed window if it holds this type.
    fn view_of(v: ElemView<'_>) -> Option<ArrayViewD<'_, Self>>;
    /// An owned array of this type as storage.
    fn wrap(a: ArrayD<Self>) -> Elements;
}

impl Element for f64 {
    const DTYPE: DType = DType::Float64;
    fn view_of(v: ElemView<'_>) -> Option<ArrayViewD<'_, Self>> {
        match v {
            ElemView::F64(a) => Some(a),
            _ => None,
        }
    }
    fn wrap(a: ArrayD<Self>) -> Elements {
        Elements::F64(a)
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        x
    }
    fn zero() -> Self {
        0.0
    }
}

impl Element for f32 {
    const DTYPE: DType = DType::Float32;
    fn view_of(v: ElemView<'_>) -> Option<ArrayViewD<'_, Self>> {
        match v {
            ElemView::F32(a) => Some(a),
            _ => None,
        }
    }
    fn wrap(a: ArrayD<Self>) -> Elements {
        Elements::F32(a)
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn zero() -> Self {
        0.0
    }
}

/// 2**63, exactly: the first f64 past int64's range.
const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;

impl Element for i64 {
    const DTYPE: DType = DType::Int64;
    fn view_of(v: ElemView<'_>) -> Option<ArrayViewD<'_, Self>> {
        match v {
            ElemView::I64(a) => Some(a),
            _ => None,
        }
    }
    fn wrap(a: ArrayD<Self>) -> Elements {
        Elements::I64(a)
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        // 2**63 is exactly representable; anything at or past it is out of range.
        if x.is_finite() && (-TWO_POW_63..TWO_POW_63).contains(&x) {
            x as i64
        } else {
            i64::MIN
        }
    }
    fn zero() -> Self {
        0
    }
}

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn view_of(v: ElemView<'_>) -> Option<ArrayViewD<'_, Self>> {
        match v {
            ElemView::Bool(a) => Some(a),
            _ => None,
        }
    }
    fn wrap(a: ArrayD<Self>) -> Elements {
        Elements::Bool(a)
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self as u8 as f64
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        x != 0.0
    }
    fn zero() -> Self {
        false
    }
}

/// An owner's elements, C-ordered, in their dtype's type.
#[derive(Debug, Clone)]
pub enum Elements {
    F64(ArrayD<f64>),
    F32(ArrayD<f32>),
    I64(ArrayD<i64>),
    Bool(ArrayD<bool>),
}

/// A typed window on an array's elements.
#[derive(Debug, Clone)]
pub enum ElemView<'a> {
    F64(ArrayViewD<'a, f64>),
    F32(ArrayViewD<'a, f32>),
    I64(ArrayViewD<'a, i64>),
    Bool(ArrayViewD<'a, bool>),
}

/// A typed, writeable window on an array's elements.
#[derive(Debug)]
pub enum ElemViewMut<'a> {
    F64(ArrayViewMutD<'a, f64>),
    F32(ArrayViewMutD<'a, f32>),
    I64(ArrayViewMutD<'a, i64>),
    Bool(ArrayViewMutD<'a, bool>),
}

/// `$body` with `$a` bound to the typed array inside any of the storage enums (the
/// body is compiled once per element type).
#[macro_export]
macro_rules! with_elems {
    ($kind:ident, $e:expr, $a:ident => $body:expr) => {
        match $e {
            $crate::storage::$kind::F64($a) => $body,
            $crate::storage::$kind::F32($a) => $body,
            $crate::storage::$kind::I64($a) => $body,
            $crate::storage::$kind::Bool($a) => $body,
        }
    };
    ($kind:ident, $e:expr, mut $a:ident => $body:expr) => {
        match $e {
            $crate::storage::$kind::F64(mut $a) => $body,
            $crate::storage::$kind::F32(mut $a) => $body,
            $crate::storage::$kind::I64(mut $a) => $body,
            $crate::storage::$kind::Bool(mut $a) => $body,
        }
    };
}

/// Converts any typed array to `T` with NumPy's casts.
pub fn cast_view<S: Element, T: Element>(a: ArrayViewD<'_, S>) -> ArrayD<T> {
    if let Some(s) = a.as_slice() {
        let v: Vec<T> = s.iter().map(|&x| cast_elem(x)).collect();
        return ArrayD::from_shape_vec(a.raw_dim(), v).unwrap();
    }
    crate::core::to_standard(a).mapv(cast_elem)
}

/// One element cast from `S` to `T` (int64 to float through f64 rounding, floats to
/// int64 by truncation, anything to bool by `!= 0`).
#[inline]
pub fn cast_elem<S: Element, T: Element>(x: S) -> T {
    use std::any::Any;
    // Exact integer paths that a detour through f64 would round.
    if let Some(&i) = (&x as &dyn Any).downcast_ref::<i64>() {
        if let Some(t) = (&i as &dyn Any).downcast_ref::<T>() {
            return *t;
        }
        if T::DTYPE == DType::Bool {
            return T::from_f64((i != 0) as u8 as f64);
        }
    }
    T::from_f64(x.to_f64())
}

impl From<ArrayD<f64>> for Elements {
    fn from(a: ArrayD<f64>) -> Self {
        Elements::F64(a)
    }
}
impl From<ArrayD<f32>> for Elements {
    fn from(a: ArrayD<f32>) -> Self {
        Elements::F32(a)
    }
}
impl From<ArrayD<i64>> for Elements {
    fn from(a: ArrayD<i64>) -> Self {
        Elements::I64(a)
    }
}
impl From<ArrayD<bool>> for Elements {
    fn from(a: ArrayD<bool>) -> Self {
        Elements::Bool(a)
    }
}

impl Elements {
    /// Values computed in f64, stored in `dtype` (cast as NumPy's `astype`).
    pub fn from_f64(a: ArrayD<f64>, dtype: DType) -> Elements {
        match dtype {
            DType::Float64 => Elements::F64(a),
            DType::Float32 => Elements::F32(a.mapv(|x| x as f32)),
            DType::Int64 => Elements::I64(a.mapv(i64::from_f64)),
            DType::Bool => Elements::Bool(a.mapv(|x| x != 0.0)),
        }
    }

    /// `shape` filled with `value` cast to `dtype`.
    pub fn full(shape: &[usize], value: f64, dtype: DType) -> Elements {
        let sh = IxDyn(shape);
        match dtype {
            DType::Float64 => Elements::F64(ArrayD::from_elem(sh, value)),
            DType::Float32 => Elements::F32(ArrayD::from_elem(sh, f32::from_f64(value))),
            DType::Int64 => Elements::I64(ArrayD::from_elem(sh, i64::from_f64(value))),
            DType::Bool => Elements::Bool(ArrayD::from_elem(sh, bool::from_f64(value))),
        }
    }

    pub fn dtype(&self) -> DType {
        match self {
            Elements::F64(_) => DType::Float64,
            Elements::F32(_) => DType::Float32,
            Elements::I64(_) => DType::Int64,
            Elements::Bool(_) => DType::Bool,
        }
    }

    pub fn len(&self) -> usize {
        with_elems!(Elements, self, a => a.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn raw_dim(&self) -> IxDyn {
        with_elems!(Elements, self, a => a.raw_dim())
    }

    pub fn shape(&self) -> &[usize] {
        with_elems!(Elements, self, a => a.shape())
    }

    pub fn view(&self) -> ElemView<'_> {
        match self {
            Elements::F64(a) => ElemView::F64(a.view()),
            Elements::F32(a) => ElemView::F32(a.view()),
            Elements::I64(a) => ElemView::I64(a.view()),
            Elements::Bool(a) => ElemView::Bool(a.view()),
        }
    }

    /// The elements in `dtype` (a copy when it differs).
    pub fn astype(self, dtype: DType) -> Elements {
        if self.dtype() == dtype {
            return self;
        }
        self.view().astype(dtype)
    }
}

impl<'a> ElemView<'a> {
    pub fn dtype(&self) -> DType {
        match self {
            ElemView::F64(_) => DType::Float64,
            ElemView::F32(_) => DType::Float32,
            ElemView::I64(_) => DType::Int64,
            ElemView::Bool(_) => DType::Bool,
        }
    }

    pub fn shape(&self) -> &[usize] {
        with_elems!(ElemView, self, a => a.shape())
    }

    /// The window in `T`: the elements themselves if they are `T`, else a cast copy.
    pub fn cast_to<T: Element>(self) -> ndarray::CowArray<'a, T, IxDyn> {
        if self.dtype() == T::DTYPE {
            return T::view_of(self).expect("same dtype").into();
        }
        with_elems!(ElemView, self, a => cast_view::<_, T>(a)).into()
    }

    /// The values as f64 (exact except int64 past 2**53).
    /// The elements as f64, laid out as the window is when it is contiguous in memory
    /// (a transposed array stays in its memory order, which NumPy's reductions follow).
    pub fn to_f64(&self) -> ArrayD<f64> {
        with_elems!(ElemView, self, a => a.mapv(cast_elem::<_, f64>))
    }

    /// A C-ordered copy in `dtype`.
    pub fn astype(&self, dtype: DType) -> Elements {
        if dtype == self.dtype() {
            // A copy: no element cast.
            return self.to_owned_elements();
        }
        match dtype {
            DType::Float64 => Elements::F64(with_elems!(ElemView, self, a => cast_view(a.view()))),
            DType::Float32 => Elements::F32(with_elems!(ElemView, self, a => cast_view(a.view()))),
            DType::Int64 => Elements::I64(with_elems!(ElemView, self, a => cast_view(a.view()))),
            DType::Bool => Elements::Bool(with_elems!(ElemView, self, a => cast_view(a.view()))),
        }
    }

    /// A C-ordered copy in the same type.
    pub fn to_owned_elements(&self) -> Elements {
        match self {
            ElemView::F64(a) => Elements::F64(crate::core::to_standard(a.view())),
            ElemView::F32(a) => Elements::F32(crate::core::to_standard(a.view())),
            ElemView::I64(a) => Elements::I64(crate::core::to_standard(a.view())),
            ElemView::Bool(a) => Elements::Bool(crate::core::to_standard(a.view())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int64_casts_are_exact_and_wrap_like_numpy() {
        let big = (1i64 << 62) + 1;
        let a = ArrayD::from_shape_vec(IxDyn(&[2]), vec![big, -big]).unwrap();
        let back: ArrayD<i64> = cast_view(a.view());
        assert_eq!(back, a);
        assert_eq!(i64::from_f64(f64::NAN), i64::MIN);
        assert_eq!(i64::from_f64(9.3e18), i64::MIN);
        assert_eq!(i64::from_f64(-2.7), -2);
        let b: ArrayD<bool> = cast_view(a.view());
        assert!(b.iter().all(|&x| x));
        assert!(!cast_elem::<i64, bool>(0));
        assert_eq!(cast_elem::<f32, f64>(0.1f32), 0.1f32 as f64);
    }
}
