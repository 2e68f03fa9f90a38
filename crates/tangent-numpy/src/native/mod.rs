//! `_numpy_native`: the `ndarray` type and NumPy's functions, implemented over
//! `ndarray` arrays of each dtype's element type (`storage.rs`; `ops.rs` for sorting,
//! einsum/tensordot and shape functions; `linalg.rs` for the faer-backed linear algebra;
//! `random.rs` for the bit generator behind `numpy.random`).
//!
//! Differences from NumPy worth knowing (all deliberate for now):
//! - Views follow NumPy: basic indexing (ints, slices, `None`, `...`), `a[i]` and
//!   iteration rows of an N-d array, `.T`, `transpose`, `swapaxes`, `moveaxis`,
//!   `reshape`/`ravel` when no copy is needed (NumPy's rule), `squeeze`,
//!   `expand_dims`, `atleast_*d`, `view()`, `.real` and `broadcast_to` (read-only)
//!   share memory with their base (`.base`), and writes through them (item
//!   assignment, in-place operators, `fill`, `sort`) change it. Advanced indexing,
//!   `copy`, `flatten`, `.flat`, `astype`, arithmetic and ufuncs give new arrays.
//!   `split`/`array_split` parts and `flip` (also `fliplr`/`flipud`) are views too, and
//!   `diagonal` is a read-only view as in NumPy. A 0-d result of basic indexing is a
//!   Python scalar here, not a 0-d view.
//! - Scalars: float64 ones come back as `numpy.float64` (a `float` subclass with NumPy's
//!   IEEE arithmetic, `scalar.rs`) where NumPy returns them (`a[0]`, full reductions,
//!   `np.exp(2.0)`, iteration); the other dtypes' as Python `float`/`int`/`bool`.
//! - Every dtype is stored in its own element type (`storage.rs`). float32 arithmetic,
//!   products and comparisons run in f32; float32 transcendental functions are computed
//!   in f64 and rounded once (which can differ from NumPy's float32 kernels in the last
//!   ulp); float32 sums, means and products accumulate in float32 in NumPy's order
//!   (`core::reduce_ordered`). Promotion follows NumPy 2 (NEP 50: Python
//!   scalars are weak, a Python float is cast to float32 first).
//! - `int32` maps to int64. There is no float16 or int8: where NumPy gives them (float
//!   functions of bools, `square`/`**` of bools) the results are float64 and int64.
//! - int64 is exact over its whole range, with NumPy's wrap-around, in arithmetic,
//!   comparisons, `@`, sum/prod/max/min/ptp, argmax/argmin, cumsum/cumprod,
//!   negative/abs/square/sign/invert, sort, unique, concatenate/stack/where,
//!   tile/repeat/roll/diag, indexing (get and set), views, copies, astype, arange,
//!   full, iteration, item, tolist and printing. The functions without an int64 kernel
//!   (dot/inner/tensordot/einsum, var/std, the statistics functions, the ufuncs, ...)
//!   compute in f64 and refuse an int64 array holding a value past 2**53 (a
//!   NotImplementedError naming CPython) rather than round it. Python ints outside
//!   int64 raise NumPy's OverflowError (NumPy would make uint64 or object arrays,
//!   which this module does not have).
//! - No complex dtype: complex numbers, complex dtypes and complex eigenvalues are
//!   refused (`core::COMPLEX_UNSUPPORTED`, a NotImplementedError).
//! - Not supported, with a clear error: `out=` of the statistics functions, the
//!   quantile methods other than linear/lower/higher/nearest/midpoint, `weights=`,
//!   `interp(period=...)`. (`unique(axis=...)` is numpy/_array_api.py's, over the
//!   native `unique`.)
//! - `numpy.random`: NumPy's PCG64 and SeedSequence streams (`random`, `integers`, raw
//!   words, permutations) and legacy MT19937 ones; the Generator's other distributions
//!   draw from them by textbook methods, not NumPy's.
//! - Eigen/singular vector signs follow faer, not LAPACK.
//!
//! One concern per file, each a `#[pymodule(sub)]` whose functions and types the module
//! `_numpy_native` gathers (`with(...)`); [`prelude`] is what every file sees.

mod array;
mod binary;
mod complex;
mod construct;
mod contract;
mod convert;
mod dtype;
mod index;
mod linalg;
mod methods;
mod printing;
mod random;
mod reduce;
mod scalar;
mod shape;
mod sort;
mod stats;
mod ufunc;
mod unary;

/// The names every file of the module uses: the interpreter's types, ndarray, the
/// interpreter-independent array code and every file's own items.
pub(crate) mod prelude {
    pub(crate) use super::array::*;
    pub(crate) use super::binary::*;
    pub(crate) use super::construct::*;
    pub(crate) use super::contract::*;
    pub(crate) use super::convert::*;
    pub(crate) use super::dtype::*;
    pub(crate) use super::index::*;
    pub(crate) use super::linalg::*;
    pub(crate) use super::reduce::*;
    pub(crate) use super::scalar::*;
    pub(crate) use super::shape::*;
    pub(crate) use super::sort::*;
    pub(crate) use super::unary::*;
    pub(crate) use crate::core::{self, DType, IndexItem, NpErr, Reduce};
    pub(crate) use crate::format;
    pub(crate) use crate::storage::{ElemView, ElemViewMut, Element, Elements};
    pub(crate) use crate::with_elems;
    pub(crate) use crate::{linalg, ops, random};
    pub(crate) use ndarray::{
        ArrayD, ArrayViewD, ArrayViewMutD, Axis, Dimension, IxDyn, ShapeBuilder,
    };
    pub(crate) use num_traits::ToPrimitive;
    pub(crate) use rustpython_vm::{
        atomic_func,
        builtins::{PyFloat, PyInt, PyList, PySlice, PyStr, PyStrRef, PyTuple, PyTupleRef, PyType},
        common::lock::{PyRwLock, PyRwLockReadGuard, PyRwLockWriteGuard},
        function::{Either, OptionalArg, PosArgs, PyComparisonValue},
        protocol::{PyMappingMethods, PyNumberMethods},
        pyclass,
        types::{
            AsMapping, AsNumber, Comparable, Constructor, Hashable, Iterable, PyComparisonOp,
            Representable,
        },
        AsObject, FromArgs, Py, PyObject, PyObjectRef, PyPayload, PyRef, PyResult, VirtualMachine,
    };
}

/// What the host's native helpers (tangent's `fast_helper`) read and build: arrays'
/// dtypes and shapes, filled arrays, and the transposed products of `@`'s gradients.
pub mod host_api {
    pub use super::array::_array::PyNdArray;
    pub use super::contract::_contract::_matmul_t as matmul_t;
    pub use crate::core::DType;
    use rustpython_vm::{builtins::PyFloat, AsObject, PyObject, PyObjectRef, VirtualMachine};

    /// An array's elements as the native code reads them: the address of the first
    /// element, the shape and the strides in elements, valid while this value (which
    /// holds the array's read lock) lives. Float64, int64 and float32 arrays only.
    pub struct ElementWindow<'a> {
        _lock: super::array::ArrTyped<'a>,
        pub data: Elements,
        /// Inline for up to four dimensions: a native call reads windows of every
        /// array argument, and allocates nothing for them.
        pub shape: smallvec::SmallVec<[usize; 4]>,
        pub strides: smallvec::SmallVec<[isize; 4]>,
    }

    /// The first element of an `ElementWindow`, by element type.
    #[derive(Clone, Copy, Debug)]
    pub enum Elements {
        F64(*const f64),
        I64(*const i64),
        F32(*const f32),
    }

    /// The window of a float64 or int64 array (None for the other dtypes).
    pub fn element_window(a: &PyNdArray) -> Option<ElementWindow<'_>> {
        let lock = a.read_typed();
        let (data, shape, strides) = match lock.typed() {
            crate::storage::ElemView::F64(v) => (
                Elements::F64(v.as_ptr()),
                v.shape().into(),
                v.strides().into(),
            ),
            crate::storage::ElemView::I64(v) => (
                Elements::I64(v.as_ptr()),
                v.shape().into(),
                v.strides().into(),
            ),
            crate::storage::ElemView::F32(v) => (
                Elements::F32(v.as_ptr()),
                v.shape().into(),
                v.strides().into(),
            ),
            _ => return None,
        };
        Some(ElementWindow {
            _lock: lock,
            data,
            shape,
            strides,
        })
    }

    /// A float64 array of `shape` holding `data` (C order).
    pub fn f64_array(data: Vec<f64>, shape: &[usize], vm: &VirtualMachine) -> Option<PyObjectRef> {
        use rustpython_vm::convert::ToPyObject;
        let a = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(shape), data).ok()?;
        Some(
            super::array::PyNdArray::from_elements(crate::storage::Elements::F64(a))
                .to_pyobject(vm),
        )
    }

    /// A float32 array of `shape` holding `data` (C order, each value exact in float32).
    pub fn f32_array(data: Vec<f64>, shape: &[usize], vm: &VirtualMachine) -> Option<PyObjectRef> {
        use rustpython_vm::convert::ToPyObject;
        let data: Vec<f32> = data.into_iter().map(|v| v as f32).collect();
        let a = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(shape), data).ok()?;
        Some(
            super::array::PyNdArray::from_elements(crate::storage::Elements::F32(a))
                .to_pyobject(vm),
        )
    }

    /// NumPy's scalar types: a float's value and its type.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum NumpyFloat {
        /// A Python float (exactly).
        Python(f64),
        Float64(f64),
        Float32(f32),
    }

    /// `obj` as a float of one of NumPy's scalar types (None for anything else, other
    /// float subclasses among them, whose operators may differ).
    pub fn numpy_float(obj: &PyObject, vm: &VirtualMachine) -> Option<NumpyFloat> {
        if let Some(v) = super::scalar::float32_value(obj) {
            return Some(NumpyFloat::Float32(v));
        }
        let f = obj.downcast_ref::<PyFloat>()?;
        if obj.class().is(vm.ctx.types.float_type) {
            Some(NumpyFloat::Python(f.to_f64()))
        } else if super::scalar::is_float64(obj) {
            Some(NumpyFloat::Float64(f.to_f64()))
        } else {
            None
        }
    }

    /// The object of a `NumpyFloat`.
    pub fn numpy_float_object(v: NumpyFloat, vm: &VirtualMachine) -> PyObjectRef {
        match v {
            NumpyFloat::Python(v) => vm.ctx.new_float(v).into(),
            NumpyFloat::Float64(v) => super::scalar::new_float64(v, vm),
            NumpyFloat::Float32(v) => super::scalar::new_float32(v, vm),
        }
    }

    /// The value of a Python float or a `numpy.float64` (not of other float subclasses,
    /// whose operators may differ).
    pub fn float_value(obj: &PyObject, vm: &VirtualMachine) -> Option<f64> {
        match numpy_float(obj, vm)? {
            NumpyFloat::Python(v) | NumpyFloat::Float64(v) => Some(v),
            NumpyFloat::Float32(_) => None,
        }
    }

    /// `numpy.full(shape, value, dtype)` (the value converted to the dtype).
    pub fn full(shape: &[usize], value: f64, dtype: DType, vm: &VirtualMachine) -> PyObjectRef {
        use rustpython_vm::convert::ToPyObject;
        super::array::PyNdArray::from_elements(crate::storage::Elements::full(shape, value, dtype))
            .to_pyobject(vm)
    }
}

#[rustpython_vm::pymodule(with(
    array::_array,
    convert::_convert,
    binary::_binary,
    complex::_complex,
    unary::_unary,
    reduce::_reduce,
    scalar::_scalar,
    construct::_construct,
    shape::_shape,
    linalg::_linalg,
    contract::_contract,
    sort::_sort,
    stats::_stats,
    random::_random,
    dtype::_dtype,
    index::_index,
    methods::_methods,
    printing::_printing,
    ufunc::_ufunc
))]
pub mod _numpy_native {}
