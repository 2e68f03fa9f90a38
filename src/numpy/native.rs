//! `_numpy_native`: the `ndarray` type and NumPy's functions, implemented over
//! `ndarray::ArrayD<f64>` (see `core.rs` for the storage model; `ops.rs` for sorting,
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
//! - Scalars come back as Python `float`/`int`/`bool` where NumPy returns NumPy scalars
//!   (`a[0]`, full reductions, `np.exp(2.0)`), also for float32 arrays.
//! - float32 is a storage tag: values are kept exactly representable in f32, every
//!   result is computed in f64 and rounded once (so transcendental functions and
//!   reductions can differ from NumPy's own float32 kernels in the last ulp).
//!   Promotion follows NumPy 2 (NEP 50: Python scalars are weak).
//! - `int32` maps to int64.
//! - `numpy.random` streams are reproducible per seed but are not NumPy's bit streams.
//! - Eigen/singular vector signs follow faer, not LAPACK.

#[rustpython_vm::pymodule]
pub mod _numpy_native {
    use crate::numpy::core::{self, DType, IndexItem, NpErr, Reduce};
    use crate::numpy::format;
    use crate::numpy::{linalg, ops, random};
    use ndarray::{ArrayD, ArrayViewD, ArrayViewMutD, Axis, Dimension, IxDyn, ShapeBuilder};
    use num_traits::ToPrimitive;
    use rustpython_vm::{
        atomic_func,
        builtins::{PyFloat, PyInt, PyList, PySlice, PyStr, PyStrRef, PyTuple, PyTupleRef, PyType},
        common::lock::{PyRwLock, PyRwLockReadGuard, PyRwLockWriteGuard},
        function::{Either, FuncArgs, OptionalArg, PosArgs, PyComparisonValue},
        protocol::{PyMappingMethods, PyNumberMethods},
        pyclass,
        types::{
            AsMapping, AsNumber, Callable, Comparable, Constructor, Hashable, Iterable,
            PyComparisonOp, Representable,
        },
        AsObject, FromArgs, Py, PyObject, PyObjectRef, PyPayload, PyRef, PyResult, VirtualMachine,
    };

    // ------------------------------------------------------------------ the array type

    /// An array: an owner of its elements, or a view (a window: offset, shape and
    /// strides in elements) on the elements of an owner.
    ///
    /// Owners (results of constructors, arithmetic, copies) keep their elements in
    /// `data`, a C-ordered (standard layout) `ArrayD`. Views (basic indexing, `.T`,
    /// `reshape` when no copy is needed, ...) keep the owner as their base, as NumPy
    /// does, and read and write the owner's `data` through their window (`data` of a
    /// view is empty and unused). Invariants: an owner's `data` keeps its shape and
    /// layout for its whole life (writes go through views of it), so a window checked
    /// once stays inside it; a writeable window never maps two indices to one element
    /// (zero strides only come from `broadcast_to`, which is read-only). The layout of
    /// an array never changes. The window is boxed so that owners, the common case,
    /// stay as small as a bare `ArrayD`.
    #[pyattr]
    #[pyclass(module = "numpy", name = "ndarray", unhashable = true)]
    #[derive(Debug, PyPayload)]
    pub struct PyNdArray {
        data: PyRwLock<ArrayD<f64>>,
        dtype: DType,
        view: Option<Box<Window>>,
    }

    /// A view's owner and window.
    #[derive(Debug)]
    struct Window {
        base: PyObjectRef,
        lay: Layout,
        writeable: bool,
    }

    /// Offset, shape and strides (in elements) of an array in its owner's memory
    /// (strides are `isize` values stored as `usize`, as ndarray keeps them).
    #[derive(Debug, Clone)]
    struct Layout {
        offset: usize,
        shape: IxDyn,
        strides: IxDyn,
    }

    impl Layout {
        #[inline]
        fn len(&self) -> usize {
            self.shape.size()
        }
        #[inline]
        fn stride(&self, axis: usize) -> isize {
            self.strides[axis] as isize
        }
        /// Lowest and highest positions the window touches (non-empty windows).
        fn extent(&self) -> (usize, usize) {
            let mut low = self.offset as isize;
            let mut high = self.offset as isize;
            for (&d, &s) in self.shape.slice().iter().zip(self.strides.slice()) {
                let s = s as isize;
                if d > 1 {
                    if s < 0 {
                        low += s * (d as isize - 1);
                    } else {
                        high += s * (d as isize - 1);
                    }
                }
            }
            (low as usize, high as usize)
        }
        /// The window on memory laid out as the owner's elements (`buf`).
        fn window<'b, T>(&self, buf: &'b [T]) -> ArrayViewD<'b, T> {
            if self.len() == 0 {
                return ArrayViewD::from_shape(self.shape.clone(), &[]).unwrap();
            }
            let (low, _) = self.extent();
            ArrayViewD::from_shape(
                self.shape.clone().strides(self.strides.clone()),
                &buf[low..],
            )
            .expect("array window inside its owner")
        }
    }

    /// A read lock on an array's elements; `view()` is the array's window.
    pub struct ArrRead<'a> {
        g: PyRwLockReadGuard<'a, ArrayD<f64>>,
        a: &'a PyNdArray,
    }

    impl ArrRead<'_> {
        #[inline]
        pub fn view(&self) -> ArrayViewD<'_, f64> {
            match &self.a.view {
                None => self.g.view(),
                Some(w) => w.lay.window(elements(&self.g)),
            }
        }
    }

    /// An owner's elements in memory (C) order.
    #[inline]
    fn elements(a: &ArrayD<f64>) -> &[f64] {
        a.as_slice()
            .expect("an owner's elements are in standard layout")
    }

    /// A write lock on an array's elements (only for writeable arrays).
    pub struct ArrWrite<'a> {
        g: PyRwLockWriteGuard<'a, ArrayD<f64>>,
        a: &'a PyNdArray,
    }

    impl ArrWrite<'_> {
        #[inline]
        pub fn view_mut(&mut self) -> ArrayViewMutD<'_, f64> {
            let Some(w) = &self.a.view else {
                return self.g.view_mut();
            };
            let lay = &w.lay;
            if lay.len() == 0 {
                return ArrayViewMutD::from_shape(lay.shape.clone(), &mut []).unwrap();
            }
            let (low, _) = lay.extent();
            let buf = self
                .g
                .as_slice_mut()
                .expect("an owner's elements are in standard layout");
            ArrayViewMutD::from_shape(
                lay.shape.clone().strides(lay.strides.clone()),
                &mut buf[low..],
            )
            .expect("array window inside its owner, without overlap")
        }
        /// The element at a position of the owner's memory.
        fn at(&mut self, pos: usize) -> &mut f64 {
            &mut self
                .g
                .as_slice_mut()
                .expect("an owner's elements are in standard layout")[pos]
        }
    }

    /// What a view-making operation produced: a window on the source's memory (the
    /// pointer of its first element, shape and strides), or a copy.
    enum Derived {
        View {
            ptr: usize,
            shape: Vec<usize>,
            strides: Vec<isize>,
        },
        Copy(ArrayD<f64>),
    }

    fn derived<S: ndarray::RawData<Elem = f64>>(v: &ndarray::ArrayBase<S, IxDyn>) -> Derived {
        Derived::View {
            ptr: v.as_ptr() as usize,
            shape: v.shape().to_vec(),
            strides: v.strides().to_vec(),
        }
    }

    impl PyNdArray {
        pub fn new(data: ArrayD<f64>, dtype: DType) -> Self {
            let data = if data.is_standard_layout() {
                data
            } else {
                core::to_standard(data.view())
            };
            PyNdArray {
                data: PyRwLock::new(data),
                dtype,
                view: None,
            }
        }
        /// The owner's elements.
        #[inline]
        fn buf(&self) -> &PyRwLock<ArrayD<f64>> {
            match &self.view {
                None => &self.data,
                Some(w) => {
                    &w.base
                        .downcast_ref::<PyNdArray>()
                        .expect("the base of a view is an ndarray")
                        .data
                }
            }
        }
        /// The owner of a view's memory.
        fn base_obj(&self) -> Option<&PyObjectRef> {
            self.view.as_ref().map(|w| &w.base)
        }
        fn writeable(&self) -> bool {
            self.view.as_ref().is_none_or(|w| w.writeable)
        }
        fn layout(&self) -> Layout {
            match &self.view {
                Some(w) => w.lay.clone(),
                None => {
                    let g = self.data.read();
                    Layout {
                        offset: 0,
                        shape: g.raw_dim(),
                        strides: g.raw_dim().default_strides(),
                    }
                }
            }
        }
        fn shape_vec(&self) -> Vec<usize> {
            match &self.view {
                Some(w) => w.lay.shape.slice().to_vec(),
                None => self.data.read().shape().to_vec(),
            }
        }
        #[inline]
        fn len(&self) -> usize {
            match &self.view {
                Some(w) => w.lay.len(),
                None => self.data.read().len(),
            }
        }
        #[inline]
        fn n_dims(&self) -> usize {
            match &self.view {
                Some(w) => w.lay.shape.ndim(),
                None => self.data.read().ndim(),
            }
        }
        #[inline]
        pub fn read(&self) -> ArrRead<'_> {
            ArrRead {
                g: self.buf().read(),
                a: self,
            }
        }
        /// The element at a position of the owner's memory.
        fn read_at(&self, pos: usize) -> f64 {
            elements(&self.buf().read())[pos]
        }
        /// Write access; `ValueError(msg)` for read-only arrays (`broadcast_to`).
        fn write_or(&self, msg: &str, vm: &VirtualMachine) -> PyResult<ArrWrite<'_>> {
            if !self.writeable() {
                return Err(vm.new_value_error(msg.to_owned()));
            }
            Ok(ArrWrite {
                g: self.buf().write(),
                a: self,
            })
        }
        fn write(&self, vm: &VirtualMachine) -> PyResult<ArrWrite<'_>> {
            self.write_or("assignment destination is read-only", vm)
        }
        /// Whether two arrays use the same owner's memory.
        fn shares_buffer(&self, other: &PyNdArray) -> bool {
            std::ptr::eq(self.buf(), other.buf())
        }
        /// A new array object for what `f` derived from this array's window: a view
        /// on the same owner (read-only if `readonly` or if this array is), or a copy.
        fn derive(
            &self,
            this: &PyObject,
            readonly: bool,
            f: impl FnOnce(ArrayViewD<'_, f64>) -> PyResult<Derived>,
        ) -> PyResult<PyNdArray> {
            let g = self.read();
            let d = f(g.view())?;
            let (ptr, shape, strides) = match d {
                Derived::Copy(a) => return Ok(PyNdArray::new(a, self.dtype)),
                Derived::View {
                    ptr,
                    shape,
                    strides,
                } => (ptr, shape, strides),
            };
            let n: usize = shape.iter().product();
            if n == 0 {
                return Ok(PyNdArray::new(ArrayD::zeros(IxDyn(&shape)), self.dtype));
            }
            let buf = elements(&g.g);
            let base_ptr = buf.as_ptr() as usize;
            let esz = std::mem::size_of::<f64>();
            assert!(
                ptr >= base_ptr && (ptr - base_ptr).is_multiple_of(esz),
                "derived view outside its owner"
            );
            let lay = Layout {
                offset: (ptr - base_ptr) / esz,
                shape: IxDyn(&shape),
                strides: IxDyn(&strides.iter().map(|&s| s as usize).collect::<Vec<_>>()),
            };
            // Checks the invariant (bounds) once, at creation.
            let _ = lay.window(buf);
            Ok(PyNdArray {
                data: PyRwLock::new(ArrayD::zeros(IxDyn(&[0]))),
                dtype: self.dtype,
                view: Some(Box::new(Window {
                    base: self.base_obj().cloned().unwrap_or_else(|| this.to_owned()),
                    lay,
                    writeable: self.writeable() && !readonly,
                })),
            })
        }
    }

    /// `f` applied to the window of `obj` (array-likes are converted to a new array
    /// first, which becomes the base).
    fn view_op(
        obj: &PyObject,
        readonly: bool,
        vm: &VirtualMachine,
        f: impl FnOnce(ArrayViewD<'_, f64>, DType) -> PyResult<Derived>,
    ) -> PyResult {
        let tmp;
        let (o, a): (&PyObject, &PyNdArray) = match obj.downcast_ref::<PyNdArray>() {
            Some(a) => (obj, a),
            None => {
                let (arr, d) = to_array(obj, vm)?;
                tmp = new_arr(arr, d, vm);
                (&*tmp, tmp.downcast_ref::<PyNdArray>().unwrap())
            }
        };
        let dt = a.dtype;
        Ok(a.derive(o, readonly, |v| f(v, dt))?.into_pyobject(vm))
    }

    /// Positions of an array's elements in its owner's memory.
    fn positions(a: &PyNdArray) -> Vec<usize> {
        let n = a.buf().read().len();
        let idx: Vec<usize> = (0..n).collect();
        a.layout().window(&idx).iter().copied().collect()
    }

    /// Extent (lowest, highest position) of a non-empty array in its owner's memory.
    fn extent(a: &PyNdArray) -> Option<(usize, usize)> {
        let lay = a.layout();
        if lay.len() == 0 {
            return None;
        }
        Some(lay.extent())
    }

    fn may_share(a: &PyObject, b: &PyObject, exact: bool) -> bool {
        let (Some(x), Some(y)) = (a.downcast_ref::<PyNdArray>(), b.downcast_ref::<PyNdArray>())
        else {
            return false;
        };
        if !x.shares_buffer(y) {
            return false;
        }
        let (Some((l1, h1)), Some((l2, h2))) = (extent(x), extent(y)) else {
            return false;
        };
        if h1 < l2 || h2 < l1 {
            return false;
        }
        if !exact {
            return true;
        }
        let mut mark = vec![false; x.buf().read().len()];
        for p in positions(x) {
            mark[p] = true;
        }
        positions(y).into_iter().any(|p| mark[p])
    }

    /// `np.may_share_memory(a, b)`: same buffer and overlapping extents.
    #[pyfunction]
    fn may_share_memory(
        a: PyObjectRef,
        b: PyObjectRef,
        _max_work: OptionalArg<PyObjectRef>,
    ) -> bool {
        may_share(&a, &b, false)
    }

    /// `np.shares_memory(a, b)`: whether some element is in both (exact).
    #[pyfunction]
    fn shares_memory(a: PyObjectRef, b: PyObjectRef, _max_work: OptionalArg<PyObjectRef>) -> bool {
        may_share(&a, &b, true)
    }

    fn new_arr(data: ArrayD<f64>, dtype: DType, vm: &VirtualMachine) -> PyObjectRef {
        PyNdArray::new(data, dtype).into_pyobject(vm)
    }

    fn py_scalar(x: f64, dtype: DType, vm: &VirtualMachine) -> PyObjectRef {
        match dtype {
            DType::Float64 | DType::Float32 => vm.ctx.new_float(x).into(),
            DType::Int64 => vm.ctx.new_int(x as i64).into(),
            DType::Bool => vm.ctx.new_bool(x != 0.0).into(),
        }
    }

    /// A 0-d result becomes a Python scalar, anything else an ndarray.
    fn arr_or_scalar(data: ArrayD<f64>, dtype: DType, vm: &VirtualMachine) -> PyObjectRef {
        if data.ndim() == 0 {
            py_scalar(*data.iter().next().unwrap(), dtype, vm)
        } else {
            new_arr(data, dtype, vm)
        }
    }

    fn np_err(e: NpErr, vm: &VirtualMachine) -> rustpython_vm::builtins::PyBaseExceptionRef {
        match e {
            NpErr::Value(m) => vm.new_value_error(m),
            NpErr::Index(m) => vm.new_index_error(m),
            NpErr::Type(m) => vm.new_type_error(m),
            NpErr::LinAlg(m) => linalg_error(m, vm),
        }
    }

    trait OrPyErr<T> {
        fn py(self, vm: &VirtualMachine) -> PyResult<T>;
    }
    impl<T> OrPyErr<T> for core::NpResult<T> {
        fn py(self, vm: &VirtualMachine) -> PyResult<T> {
            self.map_err(|e| np_err(e, vm))
        }
    }

    // ------------------------------------------------------------------ conversions

    /// A Python bool/int/float (or subclass) as a value and its dtype.
    #[inline]
    fn scalar_of(obj: &PyObject, vm: &VirtualMachine) -> Option<(f64, DType)> {
        if let Some(f) = obj.downcast_ref::<PyFloat>() {
            return Some((f.to_f64(), DType::Float64));
        }
        if let Some(i) = obj.downcast_ref::<PyInt>() {
            let dt = if obj.class().is(vm.ctx.types.bool_type) {
                DType::Bool
            } else {
                DType::Int64
            };
            return Some((i.as_bigint().to_f64().unwrap_or(f64::NAN), dt));
        }
        None
    }

    fn seq_items(obj: &PyObject) -> Option<Vec<PyObjectRef>> {
        if let Some(l) = obj.downcast_ref::<PyList>() {
            return Some(l.borrow_vec().to_vec());
        }
        if let Some(t) = obj.downcast_ref::<PyTuple>() {
            return Some(t.as_slice().to_vec());
        }
        None
    }

    fn inhomogeneous(
        shape: &[usize],
        depth: usize,
        vm: &VirtualMachine,
    ) -> rustpython_vm::builtins::PyBaseExceptionRef {
        vm.new_value_error(format!(
            "setting an array element with a sequence. The requested array has an inhomogeneous shape after {} dimensions. The detected shape was {} + inhomogeneous part.",
            depth,
            core::shape_tuple(&shape[..depth])
        ))
    }

    fn fill_nested(
        obj: &PyObject,
        depth: usize,
        shape: &[usize],
        data: &mut Vec<f64>,
        dt: &mut DType,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        if let Some((v, d)) = scalar_of(obj, vm) {
            if depth != shape.len() {
                return Err(inhomogeneous(shape, depth, vm));
            }
            data.push(v);
            *dt = (*dt).promote(d);
            return Ok(());
        }
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            let g_lock = a.read();
            let g = g_lock.view();
            if g.shape() != &shape[depth..] {
                return Err(inhomogeneous(shape, depth, vm));
            }
            data.extend(g.iter().copied());
            *dt = (*dt).promote(a.dtype);
            return Ok(());
        }
        if let Some(items) = seq_items(obj) {
            if depth == shape.len() || items.len() != shape[depth] {
                return Err(inhomogeneous(shape, depth.min(shape.len()), vm));
            }
            for it in &items {
                fill_nested(it, depth + 1, shape, data, dt, vm)?;
            }
            return Ok(());
        }
        if depth != shape.len() {
            return Err(inhomogeneous(shape, depth, vm));
        }
        // Other objects: anything float() accepts.
        let f = obj.try_float(vm).map_err(|_| {
            vm.new_type_error(format!(
                "float() argument must be a string or a real number, not '{}'",
                obj.class().name()
            ))
        })?;
        data.push(f.to_f64());
        *dt = (*dt).promote(DType::Float64);
        Ok(())
    }

    /// Any array-like (ndarray, scalar, nested lists/tuples) as an owned array.
    fn to_array(obj: &PyObject, vm: &VirtualMachine) -> PyResult<(ArrayD<f64>, DType)> {
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            return Ok((core::to_standard(a.read().view()), a.dtype));
        }
        if let Some((v, d)) = scalar_of(obj, vm) {
            return Ok((ArrayD::from_elem(IxDyn(&[]), v), d));
        }
        if seq_items(obj).is_none() && !obj.class().fast_issubclass(vm.ctx.types.str_type) {
            // other iterables (range, generators, map objects...): materialize first
            if let Ok(it) = obj.get_iter(vm) {
                let mut items = Vec::new();
                while let rustpython_vm::protocol::PyIterReturn::Return(o) = it.next(vm)? {
                    items.push(o);
                }
                let list: PyObjectRef = vm.ctx.new_list(items).into();
                return to_array(&list, vm);
            }
        }
        let mut shape = Vec::new();
        let mut cur = obj.to_owned();
        loop {
            if let Some(items) = seq_items(&cur) {
                shape.push(items.len());
                if items.is_empty() {
                    break;
                }
                cur = items[0].clone();
            } else if let Some(a) = cur.downcast_ref::<PyNdArray>() {
                shape.extend(a.shape_vec());
                break;
            } else {
                break;
            }
        }
        let n: usize = shape.iter().product();
        let mut data = Vec::with_capacity(n);
        let mut dt = if n == 0 { DType::Float64 } else { DType::Bool };
        fill_nested(obj, 0, &shape, &mut data, &mut dt, vm)?;
        Ok((ArrayD::from_shape_vec(IxDyn(&shape), data).unwrap(), dt))
    }

    /// Runs `f` on a borrowed view of any array-like.
    fn with_arr<R>(
        obj: &PyObject,
        vm: &VirtualMachine,
        f: impl FnOnce(ArrayViewD<'_, f64>, DType) -> PyResult<R>,
    ) -> PyResult<R> {
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            let g_lock = a.read();
            let g = g_lock.view();
            return f(g.view(), a.dtype);
        }
        let (arr, dt) = to_array(obj, vm)?;
        f(arr.view(), dt)
    }

    fn parse_dtype(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Option<DType>> {
        if vm.is_none(obj) {
            return Ok(None);
        }
        if let Some(d) = obj.downcast_ref::<PyDType>() {
            return Ok(Some(d.dt));
        }
        if obj.is(vm.ctx.types.float_type) {
            return Ok(Some(DType::Float64));
        }
        if obj.is(vm.ctx.types.int_type) {
            return Ok(Some(DType::Int64));
        }
        if obj.is(vm.ctx.types.bool_type) {
            return Ok(Some(DType::Bool));
        }
        if let Some(s) = obj.downcast_ref::<PyStr>() {
            if let Some(d) = DType::from_name(&s.to_string_lossy()) {
                return Ok(Some(d));
            }
            return Err(vm.new_type_error(format!(
                "data type '{}' not understood",
                s.to_string_lossy()
            )));
        }
        // classes carrying a dtype name, e.g. shim-defined scalar types
        if let Ok(name) = obj.get_attr("__name__", vm) {
            if let Some(s) = name.downcast_ref::<PyStr>() {
                if let Some(d) = DType::from_name(&s.to_string_lossy()) {
                    return Ok(Some(d));
                }
            }
        }
        Err(vm.new_type_error(format!(
            "data type {} not understood",
            obj.repr(vm)?.to_string_lossy()
        )))
    }

    fn opt_dtype(arg: &OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult<Option<DType>> {
        match arg {
            OptionalArg::Present(o) => parse_dtype(o, vm),
            OptionalArg::Missing => Ok(None),
        }
    }

    fn to_isize(obj: &PyObject, vm: &VirtualMachine) -> PyResult<isize> {
        if let Some(i) = obj.downcast_ref::<PyInt>() {
            return i.try_to_primitive::<isize>(vm);
        }
        if obj.downcast_ref::<PyFloat>().is_some() {
            return Err(vm.new_type_error("'float' object cannot be interpreted as an integer"));
        }
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            let g_lock = a.read();
            let g = g_lock.view();
            if g.len() == 1 && !a.dtype.is_float() {
                return Ok(*g.iter().next().unwrap() as isize);
            }
        }
        obj.try_index(vm)?.try_to_primitive::<isize>(vm)
    }

    /// A shape argument: an int or a sequence of ints (may contain -1 for reshape).
    fn parse_shape_req(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Vec<isize>> {
        if let Some(items) = seq_items(obj) {
            return items.iter().map(|o| to_isize(o, vm)).collect();
        }
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            if !a.dtype.is_float() {
                return Ok(a.read().view().iter().map(|&x| x as isize).collect());
            }
        }
        Ok(vec![to_isize(obj, vm)?])
    }

    fn parse_shape(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Vec<usize>> {
        let req = parse_shape_req(obj, vm)?;
        req.iter()
            .map(|&d| {
                if d < 0 {
                    Err(vm.new_value_error("negative dimensions are not allowed"))
                } else {
                    Ok(d as usize)
                }
            })
            .collect()
    }

    /// `axis=`: None, an int or a tuple of ints, normalized.
    fn parse_axes(
        obj: Option<&PyObject>,
        ndim: usize,
        vm: &VirtualMachine,
    ) -> PyResult<Option<Vec<usize>>> {
        let obj = match obj {
            None => return Ok(None),
            Some(o) if vm.is_none(o) => return Ok(None),
            Some(o) => o,
        };
        let req: Vec<isize> = match seq_items(obj) {
            Some(items) => items
                .iter()
                .map(|o| to_isize(o, vm))
                .collect::<PyResult<_>>()?,
            None => vec![to_isize(obj, vm)?],
        };
        Ok(Some(
            core::norm_axes(&req, ndim).map_err(|e| axis_err(e, vm))?,
        ))
    }

    /// Out-of-range axes raise `numpy.AxisError` (defined by the shim as a subclass of
    /// both ValueError and IndexError, like NumPy's).
    fn axis_err(e: NpErr, vm: &VirtualMachine) -> rustpython_vm::builtins::PyBaseExceptionRef {
        match e {
            NpErr::Index(m) => {
                // AxisError is defined by the shim (subclass of ValueError and IndexError).
                if let Ok(np) = vm.import("numpy", 0) {
                    if let Ok(cls) = np.get_attr("AxisError", vm) {
                        if let Ok(cls) = cls.downcast::<PyType>() {
                            return vm.new_exception_msg(cls, m.into());
                        }
                    }
                }
                vm.new_value_error(m)
            }
            other => np_err(other, vm),
        }
    }

    fn one_axis(obj: &PyObject, ndim: usize, vm: &VirtualMachine) -> PyResult<usize> {
        let a = to_isize(obj, vm)?;
        core::norm_axis(a, ndim).map_err(|e| axis_err(e, vm))
    }

    // ------------------------------------------------------------------ binary operations

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Op {
        Add,
        Sub,
        Mul,
        Div,
        FloorDiv,
        Mod,
        Pow,
        Max,
        Min,
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
        fn result_dtype(self, a: DType, b: DType) -> DType {
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

    enum Src {
        Arr(PyRef<PyNdArray>),
        Own(ArrayD<f64>, DType),
        Sc(f64, DType),
    }

    impl Src {
        fn dtype(&self) -> DType {
            match self {
                Src::Arr(a) => a.dtype,
                Src::Own(_, d) | Src::Sc(_, d) => *d,
            }
        }
        /// Python scalars are "weak" (NEP 50): they do not raise an array's precision.
        fn is_weak(&self) -> bool {
            matches!(self, Src::Sc(..))
        }
    }

    /// Promoted dtype of two operands with NumPy 2's weak-scalar rule.
    fn promote_srcs(a: &Src, b: &Src) -> DType {
        match (a.is_weak(), b.is_weak()) {
            (true, false) => DType::promote_weak(b.dtype(), a.dtype()),
            (false, true) => DType::promote_weak(a.dtype(), b.dtype()),
            _ => a.dtype().promote(b.dtype()),
        }
    }

    /// Operand conversion for operators: `None` if the object is not array-like.
    fn to_src(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Option<Src>> {
        if let Some((v, d)) = scalar_of(obj, vm) {
            return Ok(Some(Src::Sc(v, d)));
        }
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            return Ok(Some(Src::Arr(a.to_owned())));
        }
        if obj.downcast_ref::<PyList>().is_some() || obj.downcast_ref::<PyTuple>().is_some() {
            let (a, d) = to_array(obj, vm)?;
            return Ok(Some(Src::Own(a, d)));
        }
        Ok(None)
    }

    fn src_arg(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Src> {
        match to_src(obj, vm)? {
            Some(s) => Ok(s),
            None => {
                let (a, d) = to_array(obj, vm)?;
                Ok(Src::Own(a, d))
            }
        }
    }

    enum Val<'a> {
        S(f64),
        A(ArrayViewD<'a, f64>),
    }

    enum Out {
        S(f64),
        A(ArrayD<f64>),
    }

    /// `op` on two operands; with `round_f32` each result is rounded to float32 in the
    /// same pass (float32 arithmetic, without a second sweep over the result).
    fn compute(op: Op, a: Val<'_>, b: Val<'_>, round_f32: bool) -> core::NpResult<Out> {
        with_op!(op, f => {
            if round_f32 {
                compute_with(a, b, move |x, y| f(x, y) as f32 as f64)
            } else {
                compute_with(a, b, f)
            }
        })
    }

    fn compute_with(
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

    fn check_int_pow(b: &Src, rd: DType, vm: &VirtualMachine) -> PyResult<()> {
        if rd != DType::Int64 {
            return Ok(());
        }
        let neg = match b {
            Src::Sc(v, _) => *v < 0.0,
            Src::Own(a, _) => a.iter().any(|&x| x < 0.0),
            Src::Arr(a) => a.read().view().iter().any(|&x| x < 0.0),
        };
        if neg {
            return Err(vm.new_value_error("Integers to negative integer powers are not allowed."));
        }
        Ok(())
    }

    /// Casts an integer or bool result (float32 is rounded inside `compute`).
    fn fix_result(out: &mut Out, op: Op, rd: DType) {
        if rd.is_float() || op.is_cmp() {
            return;
        }
        let fix = |v: f64| if v.is_finite() { rd.cast(v) } else { 0.0 };
        match out {
            Out::S(v) => *v = fix(*v),
            Out::A(a) => a.mapv_inplace(fix),
        }
    }

    fn binop_src(op: Op, a: &Src, b: &Src, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        let rd = op.result_dtype_p(promote_srcs(a, b));
        if op == Op::Pow {
            check_int_pow(b, rd, vm)?;
        }
        let ga;
        let va = match a {
            Src::Arr(r) => {
                ga = r.read();
                Val::A(ga.view())
            }
            Src::Own(x, _) => Val::A(x.view()),
            Src::Sc(s, _) => Val::S(*s),
        };
        let gb;
        let vb = match b {
            Src::Arr(r) => {
                gb = r.read();
                Val::A(gb.view())
            }
            Src::Own(x, _) => Val::A(x.view()),
            Src::Sc(s, _) => Val::S(*s),
        };
        // Comparisons give bools; float32 arithmetic is rounded inside `compute`.
        let round_f32 = rd == DType::Float32 && !op.is_cmp();
        let mut out = compute(op, va, vb, round_f32).py(vm)?;
        if !round_f32 {
            fix_result(&mut out, op, rd);
        }
        Ok(match out {
            Out::S(v) => py_scalar(v, rd, vm),
            Out::A(arr) => new_arr(arr, rd, vm),
        })
    }

    /// Operator slot: NotImplemented unless both sides are array-like.
    fn bin_slot(a: &PyObject, b: &PyObject, op: Op, vm: &VirtualMachine) -> PyResult {
        let (Some(sa), Some(sb)) = (to_src(a, vm)?, to_src(b, vm)?) else {
            return Ok(vm.ctx.not_implemented());
        };
        binop_src(op, &sa, &sb, vm)
    }

    /// Function form (`np.maximum(a, b)`): any array-likes; scalars in, scalar out.
    fn bin_fn(a: &PyObject, b: &PyObject, op: Op, vm: &VirtualMachine) -> PyResult {
        let sa = src_arg(a, vm)?;
        let sb = src_arg(b, vm)?;
        binop_src(op, &sa, &sb, vm)
    }

    fn inplace_slot(a: &PyObject, b: &PyObject, op: Op, vm: &VirtualMachine) -> PyResult {
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
        {
            let mut w = zelf.write_or("output array is read-only", vm)?;
            let mut g = w.view_mut();
            with_op!(op, f => {
                match &sb {
                    Src::Sc(y, _) => {
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

    fn inplace_arr(
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

    fn matmul_objs(a: &PyObject, b: &PyObject, vm: &VirtualMachine) -> PyResult {
        let sa = src_arg(a, vm)?;
        let sb = src_arg(b, vm)?;
        let rd = promote_srcs(&sa, &sb);
        let not_enough = |i: usize| {
            vm.new_value_error(format!(
                "matmul: Input operand {i} does not have enough dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)"
            ))
        };
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

    // ------------------------------------------------------------------ unary functions

    /// Applies `f` elementwise; Python scalars in give a Python float out.
    /// `out_dt` None: a float function (float32 in, float32 out; ints give float64).
    fn unary(
        x: &PyObject,
        out_dt: Option<DType>,
        f: impl Fn(f64) -> f64,
        vm: &VirtualMachine,
    ) -> PyResult {
        if let Some((v, d)) = scalar_of(x, vm) {
            let dt = out_dt.unwrap_or(DType::Float64);
            let _ = d;
            return Ok(py_scalar(f(v), dt, vm));
        }
        with_arr(x, vm, |v, d| {
            let dt = out_dt.unwrap_or(d.float_result());
            Ok(new_arr(round_to(core::map_unary(v, f), dt), dt, vm))
        })
    }

    /// Like `unary` but keeps int/bool dtypes (NumPy's abs/negative/square/sign...).
    fn unary_keep(x: &PyObject, f: impl Fn(f64) -> f64, vm: &VirtualMachine) -> PyResult {
        if let Some((v, d)) = scalar_of(x, vm) {
            let dt = if d == DType::Bool { DType::Int64 } else { d };
            return Ok(py_scalar(f(v), dt, vm));
        }
        with_arr(x, vm, |v, d| {
            let dt = if d == DType::Bool { DType::Int64 } else { d };
            Ok(new_arr(round_to(core::map_unary(v, f), dt), dt, vm))
        })
    }

    fn ufunc_kernel(name: &str) -> Option<fn(f64) -> f64> {
        Some(match name {
            "exp" => f64::exp,
            "exp2" => f64::exp2,
            "log" => f64::ln,
            "log2" => f64::log2,
            "log10" => f64::log10,
            "sin" => f64::sin,
            "cos" => f64::cos,
            "tan" => f64::tan,
            "tanh" => crate::numpy::fastmath::tanh,
            "sinh" => f64::sinh,
            "cosh" => f64::cosh,
            "sqrt" => f64::sqrt,
            "cbrt" => f64::cbrt,
            "log1p" => f64::ln_1p,
            "expm1" => f64::exp_m1,
            "arcsin" => f64::asin,
            "arccos" => f64::acos,
            "arctan" => f64::atan,
            "arcsinh" => f64::asinh,
            "arccosh" => f64::acosh,
            "arctanh" => f64::atanh,
            "floor" => f64::floor,
            "ceil" => f64::ceil,
            "trunc" => f64::trunc,
            "rint" => f64::round_ties_even,
            "reciprocal" => |x| 1.0 / x,
            "deg2rad" => f64::to_radians,
            "rad2deg" => f64::to_degrees,
            "sinc" => core::sinc,
            "fix" => f64::trunc,
            // scipy.special (the embedded host's subset)
            "erf" => crate::numpy::special::erf,
            "erfc" => crate::numpy::special::erfc,
            "gammaln" => crate::numpy::special::gammaln,
            "gamma" => crate::numpy::special::gamma,
            "digamma" => crate::numpy::special::digamma,
            _ => return None,
        })
    }

    #[pyfunction]
    fn exp(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::exp, vm)
    }
    #[pyfunction]
    fn log(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::ln, vm)
    }
    #[pyfunction]
    fn sin(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::sin, vm)
    }
    #[pyfunction]
    fn cos(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::cos, vm)
    }
    #[pyfunction]
    fn tan(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::tan, vm)
    }
    #[pyfunction]
    fn tanh(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        use crate::numpy::fastmath;
        if let Some(a) = x.downcast_ref::<PyNdArray>() {
            let g_lock = a.read();
            let g = g_lock.view();
            if let Some(src) = g.as_slice() {
                // The hot path of tanh layers: a vectorised kernel over contiguous data.
                let mut out = vec![0.0; src.len()];
                let dt = a.dtype.float_result();
                fastmath::tanh_slice(src, &mut out, dt == DType::Float32);
                let arr = ArrayD::from_shape_vec(g.raw_dim(), out).expect("same size");
                return Ok(new_arr(arr, dt, vm));
            }
        }
        unary(&x, None, fastmath::tanh, vm)
    }
    #[pyfunction]
    fn sqrt(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::sqrt, vm)
    }
    #[pyfunction]
    fn log1p(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::ln_1p, vm)
    }
    #[pyfunction]
    fn expm1(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::exp_m1, vm)
    }
    #[pyfunction]
    fn arcsin(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::asin, vm)
    }
    #[pyfunction]
    fn arccos(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::acos, vm)
    }
    #[pyfunction]
    fn arctan(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::atan, vm)
    }
    #[pyfunction]
    fn sinh(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::sinh, vm)
    }
    #[pyfunction]
    fn cosh(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::cosh, vm)
    }
    #[pyfunction]
    fn floor(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::floor, vm)
    }
    #[pyfunction]
    fn ceil(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, None, f64::ceil, vm)
    }
    /// Less common float ufuncs by name (`np.log2 = partial(_ufunc1, "log2")` in the shim).
    #[pyfunction]
    fn _ufunc1(name: PyStrRef, x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let f = ufunc_kernel(&name.to_string_lossy()).ok_or_else(|| {
            vm.new_value_error(format!("unknown ufunc {}", name.to_string_lossy()))
        })?;
        unary(&x, None, f, vm)
    }
    /// scipy.special.polygamma(n, x) for an integer order n >= 0 (the embedded subset).
    #[pyfunction]
    fn _polygamma(n: i64, x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let n = u32::try_from(n).map_err(|_| {
            vm.new_value_error("polygamma: the order n must be a non-negative integer")
        })?;
        unary(&x, None, |v| crate::numpy::special::polygamma(n, v), vm)
    }
    #[pyfunction]
    fn isnan(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, Some(DType::Bool), |v| v.is_nan() as u8 as f64, vm)
    }
    #[pyfunction]
    fn isfinite(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, Some(DType::Bool), |v| v.is_finite() as u8 as f64, vm)
    }
    #[pyfunction]
    fn isinf(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, Some(DType::Bool), |v| v.is_infinite() as u8 as f64, vm)
    }
    #[pyfunction]
    fn logical_not(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary(&x, Some(DType::Bool), |v| (v == 0.0) as u8 as f64, vm)
    }
    #[pyfunction]
    fn abs(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary_keep(&x, f64::abs, vm)
    }
    #[pyfunction]
    fn absolute(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary_keep(&x, f64::abs, vm)
    }
    #[pyfunction]
    fn sign(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary_keep(&x, core::sign, vm)
    }
    #[pyfunction]
    fn square(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary_keep(&x, |v| v * v, vm)
    }
    #[pyfunction]
    fn negative(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary_keep(&x, |v| -v, vm)
    }
    #[pyfunction]
    fn positive(x: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        unary_keep(&x, |v| v, vm)
    }

    // binary functions
    #[pyfunction]
    fn add(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Add, vm)
    }
    #[pyfunction]
    fn subtract(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Sub, vm)
    }
    #[pyfunction]
    fn multiply(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Mul, vm)
    }
    #[pyfunction]
    fn divide(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Div, vm)
    }
    #[pyfunction]
    fn true_divide(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Div, vm)
    }
    #[pyfunction]
    fn floor_divide(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::FloorDiv, vm)
    }
    #[pyfunction]
    fn remainder(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Mod, vm)
    }
    #[pyfunction(name = "mod")]
    fn mod_(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Mod, vm)
    }
    #[pyfunction]
    fn power(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Pow, vm)
    }
    #[pyfunction]
    fn maximum(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Max, vm)
    }
    #[pyfunction]
    fn minimum(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Min, vm)
    }
    #[pyfunction]
    fn arctan2(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Atan2, vm)
    }
    #[pyfunction]
    fn hypot(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Hypot, vm)
    }
    #[pyfunction]
    fn greater(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Gt, vm)
    }
    #[pyfunction]
    fn greater_equal(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Ge, vm)
    }
    #[pyfunction]
    fn less(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Lt, vm)
    }
    #[pyfunction]
    fn less_equal(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Le, vm)
    }
    #[pyfunction]
    fn equal(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Eq, vm)
    }
    #[pyfunction]
    fn not_equal(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Ne, vm)
    }
    #[pyfunction]
    fn logical_and(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let r = bin_fn(&a, &b, Op::Mul, vm)?;
        unary(&r, Some(DType::Bool), |v| (v != 0.0) as u8 as f64, vm)
    }
    #[pyfunction]
    fn logical_or(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let a = unary(&a, Some(DType::Bool), |v| (v != 0.0) as u8 as f64, vm)?;
        let b = unary(&b, Some(DType::Bool), |v| (v != 0.0) as u8 as f64, vm)?;
        bin_fn(&a, &b, Op::Or, vm)
    }
    #[pyfunction]
    fn fmod(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Fmod, vm)
    }
    #[pyfunction]
    fn copysign(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Copysign, vm)
    }
    #[pyfunction]
    fn logaddexp(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Logaddexp, vm)
    }
    #[pyfunction]
    fn logaddexp2(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Logaddexp2, vm)
    }
    #[pyfunction]
    fn heaviside(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        bin_fn(&a, &b, Op::Heaviside, vm)
    }
    #[pyfunction]
    fn matmul(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        matmul_objs(&a, &b, vm)
    }

    /// `_matmul_t(a, b, ta, tb)`: `op(a) @ op(b)` for 2-D arrays, where `op` transposes
    /// when the flag is set, without copying the transposed operand (the gradients of
    /// `@` need `g @ b.T` and `a.T @ g`).
    #[pyfunction]
    fn _matmul_t(
        a: PyRef<PyNdArray>,
        b: PyRef<PyNdArray>,
        ta: bool,
        tb: bool,
        vm: &VirtualMachine,
    ) -> PyResult {
        let ga_lock = a.read();
        let ga = ga_lock.view();
        let gb_lock = b.read();
        let gb = gb_lock.view();
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
        let dt = a.dtype.promote(b.dtype).float_result();
        let out = core::mm2(va, vb).into_dyn();
        Ok(new_arr(round_to(out, dt), dt, vm))
    }

    #[pyfunction]
    fn dot(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let sa = src_arg(&a, vm)?;
        let sb = src_arg(&b, vm)?;
        if matches!(sa, Src::Sc(..)) || matches!(sb, Src::Sc(..)) {
            return binop_src(Op::Mul, &sa, &sb, vm);
        }
        let rd = promote_srcs(&sa, &sb);
        let (Src::Arr(_) | Src::Own(..)) = &sa else {
            unreachable!()
        };
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

    fn src_owned_view(s: &Src) -> Option<PyRef<PyNdArray>> {
        match s {
            Src::Arr(r) => Some(r.clone()),
            _ => None,
        }
    }

    #[pyfunction]
    fn outer(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let (x, dx) = to_array(&a, vm)?;
        let (y, dy) = to_array(&b, vm)?;
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

    #[pyfunction(name = "where")]
    fn where_(
        cond: PyObjectRef,
        x: OptionalArg<PyObjectRef>,
        y: OptionalArg<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> PyResult {
        let (c, _) = to_array(&cond, vm)?;
        let (OptionalArg::Present(x), OptionalArg::Present(y)) = (x, y) else {
            // np.where(cond): tuple of index arrays (nonzero)
            return nonzero(cond, vm);
        };
        let (xa, dx) = to_array(&x, vm)?;
        let (ya, dy) = to_array(&y, vm)?;
        let (xw, yw) = (scalar_of(&x, vm).is_some(), scalar_of(&y, vm).is_some());
        let rd = match (xw, yw) {
            (true, false) => DType::promote_weak(dy, dx),
            (false, true) => DType::promote_weak(dx, dy),
            _ => dx.promote(dy),
        };
        let shape = core::broadcast_shapes(&[c.shape(), xa.shape(), ya.shape()]).py(vm)?;
        let sh = IxDyn(&shape);
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
    fn nonzero(a: PyObjectRef, vm: &VirtualMachine) -> PyResult {
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

    /// `a_min` / `a_max`, by position or keyword (None: unbounded).
    #[derive(FromArgs)]
    struct ClipBounds {
        #[pyarg(any, optional)]
        a_min: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        a_max: OptionalArg<PyObjectRef>,
    }

    #[pyfunction(name = "clip")]
    fn clip_fn(a: PyObjectRef, bounds: ClipBounds, vm: &VirtualMachine) -> PyResult {
        clip(
            a,
            bounds.a_min.unwrap_or_none(vm),
            bounds.a_max.unwrap_or_none(vm),
            vm,
        )
    }

    fn clip(a: PyObjectRef, lo: PyObjectRef, hi: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let mut r = a;
        if !vm.is_none(&lo) {
            r = bin_fn(&r, &lo, Op::Max, vm)?;
        }
        if !vm.is_none(&hi) {
            r = bin_fn(&r, &hi, Op::Min, vm)?;
        }
        Ok(r)
    }

    #[derive(FromArgs)]
    struct DtypeKw {
        #[pyarg(any, optional)]
        dtype: OptionalArg<PyObjectRef>,
    }
    #[derive(FromArgs)]
    struct AxisKw {
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
    }
    #[derive(FromArgs)]
    struct AxesKw {
        #[pyarg(any, optional)]
        axes: OptionalArg<PyObjectRef>,
    }

    #[derive(FromArgs)]
    struct CloseArgs {
        #[pyarg(any, default = 1e-5)]
        rtol: f64,
        #[pyarg(any, default = 1e-8)]
        atol: f64,
        #[pyarg(any, default = false)]
        equal_nan: bool,
    }

    fn close_kernel(rtol: f64, atol: f64, equal_nan: bool) -> impl Fn(f64, f64) -> f64 {
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
    fn isclose(a: PyObjectRef, b: PyObjectRef, args: CloseArgs, vm: &VirtualMachine) -> PyResult {
        let f = close_kernel(args.rtol, args.atol, args.equal_nan);
        if let (Some((x, _)), Some((y, _))) = (scalar_of(&a, vm), scalar_of(&b, vm)) {
            return Ok(vm.ctx.new_bool(f(x, y) != 0.0).into());
        }
        let out = with_arr(&a, vm, |x, _| {
            with_arr(&b, vm, |y, _| core::zip_with(x, y, &f).py(vm))
        })?;
        Ok(new_arr(out, DType::Bool, vm))
    }

    #[pyfunction]
    fn allclose(
        a: PyObjectRef,
        b: PyObjectRef,
        args: CloseArgs,
        vm: &VirtualMachine,
    ) -> PyResult<bool> {
        let f = close_kernel(args.rtol, args.atol, args.equal_nan);
        let out = with_arr(&a, vm, |x, _| {
            with_arr(&b, vm, |y, _| core::zip_with(x, y, &f).py(vm))
        })?;
        Ok(out.iter().all(|&v| v != 0.0))
    }

    #[pyfunction]
    fn array_equal(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult<bool> {
        let (x, _) = to_array(&a, vm)?;
        let (y, _) = to_array(&b, vm)?;
        Ok(x.shape() == y.shape() && x.iter().zip(y.iter()).all(|(p, q)| p == q))
    }

    // ------------------------------------------------------------------ reductions

    #[derive(FromArgs)]
    struct ReduceArgs {
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        dtype: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = false)]
        keepdims: bool,
    }

    fn reduce_dtype(kind: Reduce, d: DType) -> DType {
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

    fn do_reduce(obj: &PyObject, args: &ReduceArgs, kind: Reduce, vm: &VirtualMachine) -> PyResult {
        let want = opt_dtype(&args.dtype, vm)?;
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
    fn sum(a: PyObjectRef, args: ReduceArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args, Reduce::Sum, vm)
    }
    #[pyfunction]
    fn prod(a: PyObjectRef, args: ReduceArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args, Reduce::Prod, vm)
    }
    #[pyfunction]
    fn mean(a: PyObjectRef, args: ReduceArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args, Reduce::Mean, vm)
    }
    #[pyfunction]
    fn max(a: PyObjectRef, args: ReduceArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args, Reduce::Max, vm)
    }
    #[pyfunction]
    fn min(a: PyObjectRef, args: ReduceArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args, Reduce::Min, vm)
    }
    #[pyfunction]
    fn amax(a: PyObjectRef, args: ReduceArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args, Reduce::Max, vm)
    }
    #[pyfunction]
    fn amin(a: PyObjectRef, args: ReduceArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args, Reduce::Min, vm)
    }
    #[pyfunction]
    fn all(a: PyObjectRef, args: ReduceArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args, Reduce::All, vm)
    }
    #[pyfunction]
    fn any(a: PyObjectRef, args: ReduceArgs, vm: &VirtualMachine) -> PyResult {
        do_reduce(&a, &args, Reduce::Any, vm)
    }

    #[derive(FromArgs)]
    struct ArgReduceArgs {
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = false)]
        keepdims: bool,
    }

    fn do_argreduce(
        obj: &PyObject,
        args: &ArgReduceArgs,
        is_max: bool,
        vm: &VirtualMachine,
    ) -> PyResult {
        with_arr(obj, vm, |v, _| {
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
    fn argmax(a: PyObjectRef, args: ArgReduceArgs, vm: &VirtualMachine) -> PyResult {
        do_argreduce(&a, &args, true, vm)
    }
    #[pyfunction]
    fn argmin(a: PyObjectRef, args: ArgReduceArgs, vm: &VirtualMachine) -> PyResult {
        do_argreduce(&a, &args, false, vm)
    }

    #[pyfunction]
    fn cumsum(a: PyObjectRef, kw: AxisKw, vm: &VirtualMachine) -> PyResult {
        let axis = kw.axis;
        cum(&a, axis, false, vm)
    }
    #[pyfunction]
    fn cumprod(a: PyObjectRef, kw: AxisKw, vm: &VirtualMachine) -> PyResult {
        let axis = kw.axis;
        cum(&a, axis, true, vm)
    }

    fn cum(
        a: &PyObject,
        axis: OptionalArg<PyObjectRef>,
        prod: bool,
        vm: &VirtualMachine,
    ) -> PyResult {
        with_arr(a, vm, |v, d| {
            let rd = if d == DType::Bool { DType::Int64 } else { d };
            let single = rd == DType::Float32;
            let (mut arr, ax) = match axis.as_option() {
                Some(o) if !vm.is_none(o) => {
                    (core::to_standard(v.view()), one_axis(o, v.ndim(), vm)?)
                }
                _ => {
                    let flat: Vec<f64> = v.iter().copied().collect();
                    let n = flat.len();
                    (ArrayD::from_shape_vec(IxDyn(&[n]), flat).unwrap(), 0)
                }
            };
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

    // ------------------------------------------------------------------ constructors

    #[derive(FromArgs)]
    struct ArrayArgs {
        #[pyarg(positional)]
        object: PyObjectRef,
        #[pyarg(any, optional)]
        dtype: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = true)]
        copy: bool,
        #[pyarg(any, default = 0)]
        ndmin: usize,
    }

    fn make_array(
        obj: &PyObject,
        want: Option<DType>,
        ndmin: usize,
        vm: &VirtualMachine,
    ) -> PyResult<PyObjectRef> {
        let (mut arr, d) = to_array(obj, vm)?;
        let dt = want.unwrap_or(d);
        if dt != d && dt != DType::Float64 {
            arr.mapv_inplace(|x| dt.cast(x));
        }
        while arr.ndim() < ndmin {
            arr.insert_axis_inplace(Axis(0));
        }
        Ok(new_arr(arr, dt, vm))
    }

    #[pyfunction]
    fn array(args: ArrayArgs, vm: &VirtualMachine) -> PyResult {
        let want = opt_dtype(&args.dtype, vm)?;
        let _ = args.copy;
        make_array(&args.object, want, args.ndmin, vm)
    }

    #[pyfunction]
    fn asarray(a: PyObjectRef, kw: DtypeKw, vm: &VirtualMachine) -> PyResult {
        let dtype = kw.dtype;
        let want = opt_dtype(&dtype, vm)?;
        if let Some(arr) = a.downcast_ref::<PyNdArray>() {
            if want.is_none() || want == Some(arr.dtype) {
                return Ok(a);
            }
        }
        make_array(&a, want, 0, vm)
    }

    #[pyfunction]
    fn copy(a: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        make_array(&a, None, 0, vm)
    }

    fn filled(
        shape: &PyObject,
        v: f64,
        dtype: &OptionalArg<PyObjectRef>,
        default: DType,
        vm: &VirtualMachine,
    ) -> PyResult {
        let shape = parse_shape(shape, vm)?;
        let dt = opt_dtype(dtype, vm)?.unwrap_or(default);
        Ok(new_arr(
            ArrayD::from_elem(IxDyn(&shape), dt.cast(v)),
            dt,
            vm,
        ))
    }

    #[pyfunction]
    fn zeros(shape: PyObjectRef, kw: DtypeKw, vm: &VirtualMachine) -> PyResult {
        let dtype = kw.dtype;
        filled(&shape, 0.0, &dtype, DType::Float64, vm)
    }
    #[pyfunction]
    fn ones(shape: PyObjectRef, kw: DtypeKw, vm: &VirtualMachine) -> PyResult {
        let dtype = kw.dtype;
        filled(&shape, 1.0, &dtype, DType::Float64, vm)
    }
    #[pyfunction]
    fn empty(shape: PyObjectRef, kw: DtypeKw, vm: &VirtualMachine) -> PyResult {
        let dtype = kw.dtype;
        filled(&shape, 0.0, &dtype, DType::Float64, vm)
    }
    #[pyfunction]
    fn full(
        shape: PyObjectRef,
        fill_value: PyObjectRef,
        kw: DtypeKw,
        vm: &VirtualMachine,
    ) -> PyResult {
        let dtype = kw.dtype;
        let (v, d) = scalar_of(&fill_value, vm)
            .ok_or_else(|| vm.new_type_error("full: fill_value must be a number"))?;
        filled(&shape, v, &dtype, d, vm)
    }

    fn like(
        a: &PyObject,
        v: f64,
        dtype: &OptionalArg<PyObjectRef>,
        // NumPy's `*_like` keep the prototype's dtype whatever the fill value's is.
        _fill_dtype: Option<DType>,
        vm: &VirtualMachine,
    ) -> PyResult {
        let (shape, d) = match a.downcast_ref::<PyNdArray>() {
            Some(arr) => (arr.shape_vec(), arr.dtype),
            None => {
                let (x, d) = to_array(a, vm)?;
                (x.shape().to_vec(), d)
            }
        };
        let dt = opt_dtype(dtype, vm)?.unwrap_or(d);
        Ok(new_arr(
            ArrayD::from_elem(IxDyn(&shape), dt.cast(v)),
            dt,
            vm,
        ))
    }

    #[pyfunction]
    fn zeros_like(a: PyObjectRef, kw: DtypeKw, vm: &VirtualMachine) -> PyResult {
        let dtype = kw.dtype;
        like(&a, 0.0, &dtype, None, vm)
    }
    #[pyfunction]
    fn ones_like(a: PyObjectRef, kw: DtypeKw, vm: &VirtualMachine) -> PyResult {
        let dtype = kw.dtype;
        like(&a, 1.0, &dtype, None, vm)
    }
    #[pyfunction]
    fn empty_like(a: PyObjectRef, kw: DtypeKw, vm: &VirtualMachine) -> PyResult {
        let dtype = kw.dtype;
        like(&a, 0.0, &dtype, None, vm)
    }
    #[pyfunction]
    fn full_like(
        a: PyObjectRef,
        fill_value: PyObjectRef,
        kw: DtypeKw,
        vm: &VirtualMachine,
    ) -> PyResult {
        let dtype = kw.dtype;
        let (v, d) = scalar_of(&fill_value, vm)
            .ok_or_else(|| vm.new_type_error("full_like: fill_value must be a number"))?;
        like(&a, v, &dtype, Some(d), vm)
    }

    #[derive(FromArgs)]
    struct ArangeArgs {
        #[pyarg(positional)]
        start: PyObjectRef,
        #[pyarg(positional, optional)]
        stop: OptionalArg<PyObjectRef>,
        #[pyarg(positional, optional)]
        step: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        dtype: OptionalArg<PyObjectRef>,
    }

    #[pyfunction]
    fn arange(args: ArangeArgs, vm: &VirtualMachine) -> PyResult {
        let num = |o: &PyObject| {
            scalar_of(o, vm).ok_or_else(|| vm.new_type_error("arange: arguments must be numbers"))
        };
        let (a, da) = num(&args.start)?;
        let (start, stop, mut dt) = match args.stop.as_option() {
            Some(s) if !vm.is_none(s) => {
                let (b, db) = num(s)?;
                (a, b, da.max(db))
            }
            _ => (0.0, a, da),
        };
        let step = match args.step.as_option() {
            Some(s) if !vm.is_none(s) => {
                let (c, dc) = num(s)?;
                dt = dt.max(dc);
                c
            }
            _ => 1.0,
        };
        if step == 0.0 {
            return Err(vm.new_exception_msg(
                vm.ctx.exceptions.zero_division_error.to_owned(),
                "division by zero".into(),
            ));
        }
        if dt == DType::Bool {
            dt = DType::Int64;
        }
        let dt = opt_dtype(&args.dtype, vm)?.unwrap_or(dt);
        let n = ((stop - start) / step).ceil().max(0.0) as usize;
        let data: Vec<f64> = (0..n).map(|i| dt.cast(start + i as f64 * step)).collect();
        Ok(new_arr(
            ArrayD::from_shape_vec(IxDyn(&[n]), data).unwrap(),
            dt,
            vm,
        ))
    }

    #[derive(FromArgs)]
    struct LinspaceArgs {
        #[pyarg(any)]
        start: rustpython_vm::function::ArgIntoFloat,
        #[pyarg(any)]
        stop: rustpython_vm::function::ArgIntoFloat,
        #[pyarg(any, default = 50)]
        num: usize,
        #[pyarg(any, default = true)]
        endpoint: bool,
        #[pyarg(any, default = false)]
        retstep: bool,
        #[pyarg(any, optional)]
        dtype: OptionalArg<PyObjectRef>,
    }

    #[pyfunction]
    fn linspace(args: LinspaceArgs, vm: &VirtualMachine) -> PyResult {
        let (start, stop) = (args.start.into_float(), args.stop.into_float());
        let n = args.num;
        let div = if args.endpoint {
            n.saturating_sub(1)
        } else {
            n
        };
        let step = if div > 0 {
            (stop - start) / div as f64
        } else {
            f64::NAN
        };
        let mut data: Vec<f64> = (0..n)
            .map(|i| {
                if div > 0 {
                    start + i as f64 * step
                } else {
                    start
                }
            })
            .collect();
        if args.endpoint && n > 1 {
            data[n - 1] = stop;
        }
        let dt = opt_dtype(&args.dtype, vm)?.unwrap_or(DType::Float64);
        if dt == DType::Float32 {
            data.iter_mut().for_each(|x| *x = dt.cast(*x));
        } else if dt != DType::Float64 {
            data.iter_mut().for_each(|x| *x = dt.cast(x.floor()));
        }
        let arr = new_arr(ArrayD::from_shape_vec(IxDyn(&[n]), data).unwrap(), dt, vm);
        if args.retstep {
            return Ok(vm
                .ctx
                .new_tuple(vec![arr, vm.ctx.new_float(step).into()])
                .into());
        }
        Ok(arr)
    }

    #[derive(FromArgs)]
    struct EyeArgs {
        #[pyarg(any)]
        n: usize,
        #[pyarg(any, optional)]
        m: OptionalArg<Option<usize>>,
        #[pyarg(any, default = 0)]
        k: isize,
        #[pyarg(any, optional)]
        dtype: OptionalArg<PyObjectRef>,
    }

    #[pyfunction]
    fn eye(args: EyeArgs, vm: &VirtualMachine) -> PyResult {
        let n = args.n;
        let m = args.m.flatten().unwrap_or(n);
        let dt = opt_dtype(&args.dtype, vm)?.unwrap_or(DType::Float64);
        let mut a = ArrayD::zeros(IxDyn(&[n, m]));
        for i in 0..n {
            let j = i as isize + args.k;
            if j >= 0 && (j as usize) < m {
                a[[i, j as usize]] = 1.0;
            }
        }
        Ok(new_arr(a, dt, vm))
    }

    #[pyfunction]
    fn identity(n: usize, kw: DtypeKw, vm: &VirtualMachine) -> PyResult {
        let dtype = kw.dtype;
        let dt = opt_dtype(&dtype, vm)?.unwrap_or(DType::Float64);
        let mut a = ArrayD::zeros(IxDyn(&[n, n]));
        for i in 0..n {
            a[[i, i]] = 1.0;
        }
        Ok(new_arr(a, dt, vm))
    }

    // ------------------------------------------------------------------ shape functions

    /// `reshape`: a view when the window can be re-strided (NumPy's rule), else a copy.
    fn reshape_impl(obj: &PyObject, req: Vec<isize>, vm: &VirtualMachine) -> PyResult {
        view_op(obj, false, vm, |v, _| {
            let shape = core::resolve_shape(&req, v.len()).py(vm)?;
            if v.is_empty() {
                return Ok(Derived::Copy(ArrayD::zeros(IxDyn(&shape))));
            }
            Ok(match core::nocopy_reshape(v.shape(), v.strides(), &shape) {
                Some(strides) => Derived::View {
                    ptr: v.as_ptr() as usize,
                    shape,
                    strides,
                },
                None => Derived::Copy(core::reshape(v, &shape)),
            })
        })
    }

    /// A C-ordered 1-D copy (`flatten`, `flat`).
    fn flatten_impl(obj: &PyObject, vm: &VirtualMachine) -> PyResult {
        with_arr(obj, vm, |v, d| {
            let n = v.len();
            Ok(new_arr(core::reshape(v, &[n]), d, vm))
        })
    }

    /// `shape` given as one tuple/int or as several ints.
    fn shape_from_args(args: &[PyObjectRef], vm: &VirtualMachine) -> PyResult<Vec<isize>> {
        if args.len() == 1 {
            parse_shape_req(&args[0], vm)
        } else {
            args.iter().map(|o| to_isize(o, vm)).collect()
        }
    }

    #[pyfunction]
    fn reshape(a: PyObjectRef, newshape: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let req = parse_shape_req(&newshape, vm)?;
        reshape_impl(&a, req, vm)
    }

    fn transpose_impl(obj: &PyObject, axes: Option<Vec<isize>>, vm: &VirtualMachine) -> PyResult {
        view_op(obj, false, vm, |v, _| {
            let nd = v.ndim();
            let perm: Vec<usize> = match axes {
                None => (0..nd).rev().collect(),
                Some(ax) => {
                    if ax.len() != nd {
                        return Err(vm.new_value_error("axes don't match array"));
                    }
                    core::norm_axes(&ax, nd).map_err(|e| axis_err(e, vm))?
                }
            };
            Ok(derived(&v.permuted_axes(IxDyn(&perm))))
        })
    }

    #[pyfunction]
    fn transpose(a: PyObjectRef, kw: AxesKw, vm: &VirtualMachine) -> PyResult {
        let axes = kw.axes;
        let axes = match axes.as_option() {
            Some(o) if !vm.is_none(o) => Some(parse_shape_req(o, vm)?),
            _ => None,
        };
        transpose_impl(&a, axes, vm)
    }

    #[pyfunction]
    fn ravel(a: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        reshape_impl(&a, vec![-1], vm)
    }

    fn squeeze_impl(obj: &PyObject, axis: Option<&PyObject>, vm: &VirtualMachine) -> PyResult {
        view_op(obj, false, vm, |v, _| {
            let axes = parse_axes(axis, v.ndim(), vm)?;
            let mut shape = Vec::new();
            let mut removed = Vec::new();
            for (i, &n) in v.shape().iter().enumerate() {
                let selected = axes.as_ref().is_none_or(|ax| ax.contains(&i));
                if selected && n == 1 {
                    removed.push(i);
                    continue;
                }
                if selected && axes.is_some() {
                    return Err(vm.new_value_error(
                        "cannot select an axis to squeeze out which has size not equal to one",
                    ));
                }
                shape.push(n);
            }
            let mut w = v;
            for &i in removed.iter().rev() {
                w = w.index_axis_move(Axis(i), 0);
            }
            Ok(derived(&w))
        })
    }

    #[pyfunction]
    fn squeeze(a: PyObjectRef, kw: AxisKw, vm: &VirtualMachine) -> PyResult {
        let axis = kw.axis;
        squeeze_impl(&a, axis.as_option().map(|o| &**o), vm)
    }

    #[pyfunction]
    fn expand_dims(a: PyObjectRef, axis: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        view_op(&a, false, vm, |v, _| {
            let req: Vec<isize> = match seq_items(&axis) {
                Some(items) => items
                    .iter()
                    .map(|o| to_isize(o, vm))
                    .collect::<PyResult<_>>()?,
                None => vec![to_isize(&axis, vm)?],
            };
            let out_nd = v.ndim() + req.len();
            let mut axes = core::norm_axes(&req, out_nd).map_err(|e| axis_err(e, vm))?;
            axes.sort_unstable();
            let mut w = v;
            for &i in &axes {
                w = w.insert_axis(Axis(i));
            }
            Ok(derived(&w))
        })
    }

    #[pyfunction]
    fn broadcast_to(a: PyObjectRef, shape: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let shape = parse_shape(&shape, vm)?;
        view_op(&a, true, vm, |v, _| {
            let b = v.broadcast(IxDyn(&shape)).ok_or_else(|| {
                vm.new_value_error(format!(
                    "operands could not be broadcast together with remapped shapes [original->remapped]: {}  and requested shape {}",
                    core::shape_compact(v.shape()),
                    core::shape_compact(&shape)
                ))
            })?;
            Ok(derived(&b))
        })
    }

    fn arrays_of(seq: &PyObject, vm: &VirtualMachine) -> PyResult<Vec<(ArrayD<f64>, DType)>> {
        let items = match seq_items(seq) {
            Some(items) => items,
            None => {
                if let Some(a) = seq.downcast_ref::<PyNdArray>() {
                    let g_lock = a.read();
                    let g = g_lock.view();
                    if g.ndim() == 0 {
                        return Err(
                            vm.new_value_error("zero-dimensional arrays cannot be concatenated")
                        );
                    }
                    return Ok(g.outer_iter().map(|s| (s.to_owned(), a.dtype)).collect());
                }
                let it = seq.get_iter(vm)?;
                let mut v = Vec::new();
                while let rustpython_vm::protocol::PyIterReturn::Return(o) = it.next(vm)? {
                    v.push(o);
                }
                v
            }
        };
        items.iter().map(|o| to_array(o, vm)).collect()
    }

    #[pyfunction]
    fn concatenate(seq: PyObjectRef, kw: AxisKw, vm: &VirtualMachine) -> PyResult {
        let axis = kw.axis;
        let arrs = arrays_of(&seq, vm)?;
        let dt = arrs
            .iter()
            .map(|(_, d)| *d)
            .reduce(DType::promote)
            .unwrap_or(DType::Float64);
        let axis = match axis {
            OptionalArg::Present(o) if vm.is_none(&o) => None,
            OptionalArg::Present(o) => Some(to_isize(&o, vm)?),
            OptionalArg::Missing => Some(0),
        };
        let flat: Vec<ArrayD<f64>>;
        let views: Vec<ArrayViewD<'_, f64>> = match axis {
            None => {
                flat = arrs
                    .iter()
                    .map(|(a, _)| core::reshape(a.view(), &[a.len()]))
                    .collect();
                flat.iter().map(|a| a.view()).collect()
            }
            Some(_) => arrs.iter().map(|(a, _)| a.view()).collect(),
        };
        let out = core::concatenate(&views, axis.unwrap_or(0)).map_err(|e| axis_err(e, vm))?;
        Ok(new_arr(out, dt, vm))
    }

    #[pyfunction]
    fn stack(seq: PyObjectRef, kw: AxisKw, vm: &VirtualMachine) -> PyResult {
        let axis = match kw.axis {
            OptionalArg::Present(o) => to_isize(&o, vm)?,
            OptionalArg::Missing => 0,
        };
        let arrs = arrays_of(&seq, vm)?;
        let dt = arrs
            .iter()
            .map(|(_, d)| *d)
            .reduce(DType::promote)
            .unwrap_or(DType::Float64);
        let views: Vec<ArrayViewD<'_, f64>> = arrs.iter().map(|(a, _)| a.view()).collect();
        let out = core::stack(&views, axis).map_err(|e| axis_err(e, vm))?;
        Ok(new_arr(out, dt, vm))
    }

    // ------------------------------------------------------------------ introspection

    #[pyfunction]
    fn shape(a: PyObjectRef, vm: &VirtualMachine) -> PyResult<PyTupleRef> {
        let s = match a.downcast_ref::<PyNdArray>() {
            Some(arr) => arr.shape_vec(),
            None => to_array(&a, vm)?.0.shape().to_vec(),
        };
        Ok(shape_tuple_obj(&s, vm))
    }
    #[pyfunction]
    fn ndim(a: PyObjectRef, vm: &VirtualMachine) -> PyResult<usize> {
        Ok(match a.downcast_ref::<PyNdArray>() {
            Some(arr) => arr.ndim(),
            None => to_array(&a, vm)?.0.ndim(),
        })
    }
    #[pyfunction]
    fn size(a: PyObjectRef, vm: &VirtualMachine) -> PyResult<usize> {
        Ok(match a.downcast_ref::<PyNdArray>() {
            Some(arr) => arr.len(),
            None => to_array(&a, vm)?.0.len(),
        })
    }
    #[pyfunction]
    fn isscalar(a: PyObjectRef, vm: &VirtualMachine) -> bool {
        let t = &vm.ctx.types;
        a.downcast_ref::<PyFloat>().is_some()
            || a.downcast_ref::<PyInt>().is_some()
            || a.class().fast_issubclass(t.complex_type)
            || a.class().fast_issubclass(t.str_type)
            || a.class().fast_issubclass(t.bytes_type)
    }

    fn shape_tuple_obj(s: &[usize], vm: &VirtualMachine) -> PyTupleRef {
        vm.ctx
            .new_tuple(s.iter().map(|&d| vm.ctx.new_int(d).into()).collect())
    }

    // ------------------------------------------------------------------ linalg

    #[derive(FromArgs)]
    struct NormArgs {
        #[pyarg(any)]
        x: PyObjectRef,
        #[pyarg(any, optional)]
        ord: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = false)]
        keepdims: bool,
    }

    fn vec_norm(it: &mut dyn Iterator<Item = f64>, ord: Option<f64>) -> f64 {
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
    fn norm(args: NormArgs, vm: &VirtualMachine) -> PyResult {
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
    fn linalg_error(m: String, vm: &VirtualMachine) -> rustpython_vm::builtins::PyBaseExceptionRef {
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
    fn float_dt(d: DType) -> DType {
        d.float_result()
    }

    /// Rounds a float result to its dtype's precision.
    fn round_to(mut a: ArrayD<f64>, dt: DType) -> ArrayD<f64> {
        if dt.needs_rounding() {
            match a.as_slice_mut() {
                Some(s) => crate::numpy::fastmath::round_to_f32(s),
                None => a.mapv_inplace(|x| dt.cast(x)),
            }
        }
        a
    }

    fn float_arr(a: ArrayD<f64>, d: DType, vm: &VirtualMachine) -> PyObjectRef {
        let dt = float_dt(d);
        arr_or_scalar(round_to(a, dt), dt, vm)
    }

    fn lin1(
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
    fn linalg_inv(a: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        lin1(&a, vm, linalg::inv)
    }
    #[pyfunction(name = "det")]
    fn linalg_det(a: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        lin1(&a, vm, linalg::det)
    }
    #[pyfunction(name = "slogdet")]
    fn linalg_slogdet(a: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        with_arr(&a, vm, |v, d| {
            let (s, l) = linalg::slogdet(v).py(vm)?;
            Ok(vm
                .ctx
                .new_tuple(vec![float_arr(s, d, vm), float_arr(l, d, vm)])
                .into())
        })
    }
    #[pyfunction(name = "solve")]
    fn linalg_solve(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        with_arr(&a, vm, |va, da| {
            with_arr(&b, vm, |vb, db| {
                let r = linalg::solve(va, vb).py(vm)?;
                Ok(float_arr(r, da.promote(db), vm))
            })
        })
    }
    #[derive(FromArgs)]
    struct CholArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any, default = false)]
        upper: bool,
    }
    #[pyfunction(name = "cholesky")]
    fn linalg_cholesky(args: CholArgs, vm: &VirtualMachine) -> PyResult {
        lin1(&args.a, vm, |v| linalg::cholesky(v, args.upper))
    }
    #[derive(FromArgs)]
    struct EighArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any, optional, name = "UPLO")]
        uplo: OptionalArg<PyStrRef>,
    }
    fn uplo_upper(u: &OptionalArg<PyStrRef>, vm: &VirtualMachine) -> PyResult<bool> {
        match u.as_option().map(|s| s.to_string_lossy().to_string()) {
            None => Ok(false),
            Some(s) if s == "L" || s == "l" => Ok(false),
            Some(s) if s == "U" || s == "u" => Ok(true),
            Some(_) => Err(vm.new_value_error("UPLO argument must be 'L' or 'U'")),
        }
    }
    #[pyfunction(name = "eigh")]
    fn linalg_eigh(args: EighArgs, vm: &VirtualMachine) -> PyResult {
        let upper = uplo_upper(&args.uplo, vm)?;
        with_arr(&args.a, vm, |v, d| {
            let (w, vecs) = linalg::eigh(v, upper, true).py(vm)?;
            Ok(vm
                .ctx
                .new_tuple(vec![float_arr(w, d, vm), float_arr(vecs.unwrap(), d, vm)])
                .into())
        })
    }
    #[pyfunction(name = "eigvalsh")]
    fn linalg_eigvalsh(args: EighArgs, vm: &VirtualMachine) -> PyResult {
        let upper = uplo_upper(&args.uplo, vm)?;
        lin1(&args.a, vm, |v| Ok(linalg::eigh(v, upper, false)?.0))
    }
    #[derive(FromArgs)]
    struct QrArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any, optional)]
        mode: OptionalArg<PyStrRef>,
    }
    #[pyfunction(name = "qr")]
    fn linalg_qr(args: QrArgs, vm: &VirtualMachine) -> PyResult {
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
    struct SvdArgs {
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
    fn linalg_svd(args: SvdArgs, vm: &VirtualMachine) -> PyResult {
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
    struct PinvArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any, optional)]
        rcond: OptionalArg<PyObjectRef>,
        #[pyarg(any, default = false)]
        hermitian: bool,
    }
    #[pyfunction(name = "pinv")]
    fn linalg_pinv(args: PinvArgs, vm: &VirtualMachine) -> PyResult {
        let _ = args.hermitian;
        let rcond = match args.rcond.as_option() {
            Some(o) if !vm.is_none(o) => o.try_float(vm)?.to_f64(),
            _ => 1e-15,
        };
        lin1(&args.a, vm, |v| linalg::pinv(v, rcond))
    }
    #[derive(FromArgs)]
    struct RankArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any, optional)]
        tol: OptionalArg<PyObjectRef>,
    }
    #[pyfunction(name = "matrix_rank")]
    fn linalg_matrix_rank(args: RankArgs, vm: &VirtualMachine) -> PyResult {
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
    fn linalg_matrix_power(a: PyObjectRef, n: PyObjectRef, vm: &VirtualMachine) -> PyResult {
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
    struct LstsqArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any)]
        b: PyObjectRef,
        #[pyarg(any, optional)]
        rcond: OptionalArg<PyObjectRef>,
    }
    #[pyfunction(name = "lstsq")]
    fn linalg_lstsq(args: LstsqArgs, vm: &VirtualMachine) -> PyResult {
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

    // ------------------------------------------------------------------ contractions, diagonals

    #[derive(FromArgs)]
    struct DiagonalArgs {
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

    fn diagonal_impl(args: &DiagonalArgs, trace: bool, vm: &VirtualMachine) -> PyResult {
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
    struct MethodDiagArgs {
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
        fn with(self, a: PyObjectRef) -> DiagonalArgs {
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
    fn trace(args: DiagonalArgs, vm: &VirtualMachine) -> PyResult {
        diagonal_impl(&args, true, vm)
    }
    #[pyfunction]
    fn diagonal(args: DiagonalArgs, vm: &VirtualMachine) -> PyResult {
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
    struct DiagArgs {
        #[pyarg(any)]
        v: PyObjectRef,
        #[pyarg(any, default = 0)]
        k: isize,
    }
    #[pyfunction]
    fn diag(args: DiagArgs, vm: &VirtualMachine) -> PyResult {
        let DiagArgs { v, k } = args;
        with_arr(&v, vm, |a, d| Ok(new_arr(ops::diag(a, k).py(vm)?, d, vm)))
    }

    fn contraction_dtype(da: DType, db: DType) -> DType {
        da.promote(db)
    }

    #[pyfunction]
    fn inner(a: PyObjectRef, b: PyObjectRef, vm: &VirtualMachine) -> PyResult {
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

    fn axis_list(obj: &PyObject, ndim: usize, vm: &VirtualMachine) -> PyResult<Vec<usize>> {
        let req = parse_shape_req(obj, vm)?;
        req.iter()
            .map(|&a| core::norm_axis(a, ndim).map_err(|e| axis_err(e, vm)))
            .collect()
    }

    #[derive(FromArgs)]
    struct TensordotArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any)]
        b: PyObjectRef,
        #[pyarg(any, optional)]
        axes: OptionalArg<PyObjectRef>,
    }

    #[pyfunction]
    fn tensordot(args: TensordotArgs, vm: &VirtualMachine) -> PyResult {
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
    fn einsum(args: rustpython_vm::function::FuncArgs, vm: &VirtualMachine) -> PyResult {
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
        let r = ops::einsum(&subs.to_string_lossy(), &views).py(vm)?;
        let r = if rd == DType::Bool {
            r.mapv(|x| (x != 0.0) as u8 as f64)
        } else {
            round_to(r, rd)
        };
        Ok(arr_or_scalar(r, rd, vm))
    }

    // ------------------------------------------------------------------ sorting, searching

    /// `axis=` for sort-like functions: missing means `default`, None means flattened.
    fn axis_or(
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
    struct SortArgs {
        #[pyarg(any, optional)]
        axis: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        kind: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        order: OptionalArg<PyObjectRef>,
        #[pyarg(any, optional)]
        stable: OptionalArg<PyObjectRef>,
    }

    #[pyfunction]
    fn sort(a: PyObjectRef, args: SortArgs, vm: &VirtualMachine) -> PyResult {
        let _ = (&args.kind, &args.order, &args.stable);
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
    fn argsort(a: PyObjectRef, args: SortArgs, vm: &VirtualMachine) -> PyResult {
        let _ = (&args.kind, &args.order, &args.stable);
        with_arr(&a, vm, |v, _| {
            let ax = axis_or(&args.axis, Some(-1), v.ndim(), vm)?;
            if v.ndim() == 0 && ax.is_some() {
                return Err(axis_err(
                    core::NpErr::Index("axis -1 is out of bounds for array of dimension 0".into()),
                    vm,
                ));
            }
            Ok(new_arr(ops::argsort(v, ax), DType::Int64, vm))
        })
    }

    #[derive(FromArgs)]
    struct SearchArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any)]
        v: PyObjectRef,
        #[pyarg(any, optional)]
        side: OptionalArg<PyStrRef>,
    }

    #[pyfunction]
    fn searchsorted(args: SearchArgs, vm: &VirtualMachine) -> PyResult {
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

    // ------------------------------------------------------------------ more shape functions

    /// NumPy's `AxisError(axis, ndim, msg_prefix)` wording: "axis1: axis 2 is out of ...".
    fn prefix_err(e: core::NpErr, prefix: &str) -> core::NpErr {
        match e {
            core::NpErr::Index(m) => core::NpErr::Index(format!("{prefix}: {m}")),
            other => other,
        }
    }

    fn prefixed_axis(
        obj: &PyObject,
        ndim: usize,
        prefix: &str,
        vm: &VirtualMachine,
    ) -> PyResult<usize> {
        let a = to_isize(obj, vm)?;
        core::norm_axis(a, ndim).map_err(|e| axis_err(prefix_err(e, prefix), vm))
    }

    #[derive(FromArgs)]
    struct SwapArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any)]
        axis1: PyObjectRef,
        #[pyarg(any)]
        axis2: PyObjectRef,
    }
    #[pyfunction(name = "swapaxes")]
    fn swapaxes_fn(args: SwapArgs, vm: &VirtualMachine) -> PyResult {
        swapaxes(args.a, args.axis1, args.axis2, vm)
    }
    fn swapaxes(
        a: PyObjectRef,
        axis1: PyObjectRef,
        axis2: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult {
        view_op(&a, false, vm, |v, _| {
            let a1 = prefixed_axis(&axis1, v.ndim(), "axis1", vm)?;
            let a2 = prefixed_axis(&axis2, v.ndim(), "axis2", vm)?;
            let mut perm: Vec<usize> = (0..v.ndim()).collect();
            perm.swap(a1, a2);
            Ok(derived(&v.permuted_axes(IxDyn(&perm))))
        })
    }

    #[derive(FromArgs)]
    struct MoveArgs {
        #[pyarg(any)]
        a: PyObjectRef,
        #[pyarg(any)]
        source: PyObjectRef,
        #[pyarg(any)]
        destination: PyObjectRef,
    }
    #[pyfunction]
    fn moveaxis(args: MoveArgs, vm: &VirtualMachine) -> PyResult {
        let MoveArgs {
            a,
            source,
            destination,
        } = args;
        view_op(&a, false, vm, |v, _| {
            let nd = v.ndim();
            let src = core::norm_axes(&parse_shape_req(&source, vm)?, nd)
                .map_err(|e| axis_err(prefix_err(e, "source"), vm))?;
            let dst = core::norm_axes(&parse_shape_req(&destination, vm)?, nd)
                .map_err(|e| axis_err(prefix_err(e, "destination"), vm))?;
            let order = ops::moveaxis_order(nd, &src, &dst).py(vm)?;
            Ok(derived(&v.permuted_axes(IxDyn(&order))))
        })
    }

    fn split_impl(
        a: &PyObject,
        ios: &PyObject,
        axis: isize,
        strict: bool,
        vm: &VirtualMachine,
    ) -> PyResult {
        let obj = array_obj(a, vm)?;
        let arr = obj.downcast_ref::<PyNdArray>().unwrap();
        let parts = {
            let g = arr.read();
            let v = g.view();
            if v.ndim() == 0 {
                return Err(axis_err(
                    core::NpErr::Index(format!(
                        "axis {axis} is out of bounds for array of dimension 0"
                    )),
                    vm,
                ));
            }
            let ax = core::norm_axis(axis, v.ndim()).map_err(|e| axis_err(e, vm))?;
            let n = v.shape()[ax];
            let indices: Vec<isize> = if seq_items(ios).is_some()
                || ios
                    .downcast_ref::<PyNdArray>()
                    .is_some_and(|x| x.ndim() > 0)
            {
                parse_shape_req(ios, vm)?
            } else {
                let sections = to_isize(ios, vm)?;
                if sections <= 0 {
                    return Err(vm.new_value_error("number sections must be larger than 0."));
                }
                if strict && n % sections as usize != 0 {
                    return Err(
                        vm.new_value_error("array split does not result in an equal division")
                    );
                }
                ops::section_indices(n, sections as usize)
            };
            (ax, ops::split_bounds(n, &indices))
        };
        // the parts are views, as in NumPy
        let (ax, bounds) = parts;
        let items: Vec<PyObjectRef> = bounds
            .into_iter()
            .map(|(s, e)| {
                arr.derive(&obj, false, |v| {
                    Ok(derived(&v.slice_axis(Axis(ax), ndarray::Slice::from(s..e))))
                })
                .map(|p| p.into_pyobject(vm))
            })
            .collect::<PyResult<_>>()?;
        Ok(vm.ctx.new_list(items).into())
    }

    /// `obj` itself if it is an ndarray, else a new array of it.
    fn array_obj(obj: &PyObject, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        if obj.downcast_ref::<PyNdArray>().is_some() {
            return Ok(obj.to_owned());
        }
        let (arr, d) = to_array(obj, vm)?;
        Ok(new_arr(arr, d, vm))
    }

    #[derive(FromArgs)]
    struct SplitArgs {
        #[pyarg(any)]
        ary: PyObjectRef,
        #[pyarg(any)]
        indices_or_sections: PyObjectRef,
        #[pyarg(any, default = 0)]
        axis: isize,
    }
    #[pyfunction]
    fn split(args: SplitArgs, vm: &VirtualMachine) -> PyResult {
        split_impl(&args.ary, &args.indices_or_sections, args.axis, true, vm)
    }
    #[pyfunction]
    fn array_split(args: SplitArgs, vm: &VirtualMachine) -> PyResult {
        split_impl(&args.ary, &args.indices_or_sections, args.axis, false, vm)
    }

    #[pyfunction]
    fn tile(a: PyObjectRef, reps: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let reps = parse_shape(&reps, vm)?;
        with_arr(&a, vm, |v, d| Ok(new_arr(ops::tile(v, &reps), d, vm)))
    }

    fn repeat_impl(
        a: &PyObject,
        repeats: &PyObject,
        axis: &OptionalArg<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> PyResult {
        let counts = parse_shape_req(repeats, vm)?;
        if counts.iter().any(|&c| c < 0) {
            return Err(vm.new_value_error("repeats may not contain negative values."));
        }
        let counts: Vec<usize> = counts.iter().map(|&c| c as usize).collect();
        with_arr(a, vm, |v, d| {
            let ax = axis_or(axis, None, v.ndim(), vm)?;
            Ok(new_arr(ops::repeat(v, &counts, ax).py(vm)?, d, vm))
        })
    }

    #[pyfunction]
    fn repeat(a: PyObjectRef, repeats: PyObjectRef, kw: AxisKw, vm: &VirtualMachine) -> PyResult {
        repeat_impl(&a, &repeats, &kw.axis, vm)
    }

    #[pyfunction]
    fn flip(m: PyObjectRef, kw: AxisKw, vm: &VirtualMachine) -> PyResult {
        view_op(&m, false, vm, |v, _| {
            let axes = match parse_axes(kw.axis.as_option().map(|o| &**o), v.ndim(), vm)? {
                Some(ax) => ax,
                None => (0..v.ndim()).collect(),
            };
            let mut w = v;
            for &ax in &axes {
                w.invert_axis(Axis(ax));
            }
            Ok(derived(&w))
        })
    }

    #[pyfunction]
    fn roll(a: PyObjectRef, shift: PyObjectRef, kw: AxisKw, vm: &VirtualMachine) -> PyResult {
        let shifts = parse_shape_req(&shift, vm)?;
        with_arr(&a, vm, |v, d| {
            let axes = match kw.axis.as_option() {
                Some(o) if !vm.is_none(o) => axis_list(o, v.ndim(), vm)?,
                _ => Vec::new(),
            };
            if axes.is_empty() {
                let total: isize = shifts.iter().sum();
                return Ok(new_arr(ops::roll(v, &[total], &[]), d, vm));
            }
            let (sh, ax): (Vec<isize>, Vec<usize>) = if shifts.len() == axes.len() {
                (shifts, axes)
            } else if shifts.len() == 1 {
                (vec![shifts[0]; axes.len()], axes)
            } else if axes.len() == 1 {
                (shifts.clone(), vec![axes[0]; shifts.len()])
            } else {
                return Err(vm.new_value_error(format!(
                    "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape ({},) and arg 1 with shape ({},).",
                    shifts.len(),
                    axes.len()
                )));
            };
            Ok(new_arr(ops::roll(v, &sh, &ax), d, vm))
        })
    }

    /// `pad_width`/`constant_values`-style argument as rows of values.
    fn pair_rows(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Vec<Vec<f64>>> {
        let (a, _) = to_array(obj, vm)?;
        Ok(match a.ndim() {
            0 => vec![vec![*a.iter().next().unwrap()]],
            1 => vec![a.iter().copied().collect()],
            2 => a
                .outer_iter()
                .map(|r| r.iter().copied().collect())
                .collect(),
            _ => {
                return Err(
                    vm.new_value_error("Unable to create correctly shaped tuple from pad_width")
                )
            }
        })
    }

    #[derive(FromArgs)]
    struct PadArgs {
        #[pyarg(any)]
        array: PyObjectRef,
        #[pyarg(any)]
        pad_width: PyObjectRef,
        #[pyarg(any, optional)]
        mode: OptionalArg<PyStrRef>,
        #[pyarg(any, optional)]
        constant_values: OptionalArg<PyObjectRef>,
    }

    #[pyfunction]
    fn pad(args: PadArgs, vm: &VirtualMachine) -> PyResult {
        let mode = match args
            .mode
            .as_option()
            .map(|s| s.to_string_lossy().to_string())
            .as_deref()
        {
            None | Some("constant") => ops::PadMode::Constant,
            Some("edge") => ops::PadMode::Edge,
            Some("reflect") => ops::PadMode::Reflect,
            Some("symmetric") => ops::PadMode::Symmetric,
            Some("wrap") => ops::PadMode::Wrap,
            Some(m) => return Err(vm.new_value_error(format!("mode '{m}' is not supported"))),
        };
        with_arr(&args.array, vm, |v, d| {
            let nd = v.ndim();
            let rows = pair_rows(&args.pad_width, vm)?;
            if rows.iter().flatten().any(|&x| x < 0.0) {
                return Err(vm.new_value_error("index can't contain negative values"));
            }
            if rows.iter().flatten().any(|&x| x.fract() != 0.0) {
                return Err(vm.new_type_error("`pad_width` must be of integral type."));
            }
            let widths: Vec<(usize, usize)> = ops::broadcast_pairs(&rows, nd)
                .py(vm)?
                .into_iter()
                .map(|(a, b)| (a as usize, b as usize))
                .collect();
            let cvals = match args.constant_values.as_option() {
                Some(o) => ops::broadcast_pairs(&pair_rows(o, vm)?, nd).py(vm)?,
                None => vec![(0.0, 0.0); nd],
            };
            let cvals: Vec<(f64, f64)> = cvals
                .into_iter()
                .map(|(a, b)| (d.cast(a), d.cast(b)))
                .collect();
            Ok(new_arr(ops::pad(v, &widths, mode, &cvals).py(vm)?, d, vm))
        })
    }

    // ------------------------------------------------------------------ var / std

    #[derive(FromArgs)]
    struct VarArgs {
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
    }

    fn var_impl(a: &PyObject, args: &VarArgs, sqrt: bool, vm: &VirtualMachine) -> PyResult {
        let _ = &args.out;
        let want = opt_dtype(&args.dtype, vm)?;
        with_arr(a, vm, |v, d| {
            let axes = parse_axes(args.axis.as_option().map(|o| &**o), v.ndim(), vm)?;
            let n: usize = match &axes {
                Some(ax) => ax.iter().map(|&i| v.shape()[i]).product(),
                None => v.len(),
            };
            let m = core::reduce(v.view(), axes.as_deref(), true, Reduce::Mean).py(vm)?;
            let sq = core::zip_with(v.view(), m.view(), |x, mu| (x - mu) * (x - mu)).py(vm)?;
            let s = core::reduce(sq.view(), axes.as_deref(), args.keepdims, Reduce::Sum).py(vm)?;
            let ddof = match args.ddof.as_option() {
                Some(o) => o.try_float(vm)?.to_f64(),
                None => 0.0,
            };
            let denom = n as f64 - ddof;
            let r = s.mapv(|x| {
                let q = x / denom.max(0.0);
                if sqrt {
                    q.sqrt()
                } else {
                    q
                }
            });
            let rd = want.map(|w| w.float_result()).unwrap_or(float_dt(d));
            Ok(arr_or_scalar(round_to(r, rd), rd, vm))
        })
    }

    #[pyfunction]
    fn var(a: PyObjectRef, args: VarArgs, vm: &VirtualMachine) -> PyResult {
        var_impl(&a, &args, false, vm)
    }
    #[pyfunction]
    fn std(a: PyObjectRef, args: VarArgs, vm: &VirtualMachine) -> PyResult {
        var_impl(&a, &args, true, vm)
    }

    // ------------------------------------------------------------------ random bit generator

    #[pyattr]
    #[pyclass(module = "numpy.random", name = "BitGenerator")]
    #[derive(Debug, PyPayload)]
    pub struct PyBitGen {
        rng: PyRwLock<random::Rng>,
    }

    fn rng_from_seed(seed: Option<&PyObject>, vm: &VirtualMachine) -> PyResult<random::Rng> {
        let Some(seed) = seed.filter(|s| !vm.is_none(s)) else {
            return Ok(random::Rng::from_entropy());
        };
        let words_of = |o: &PyObject| -> PyResult<Vec<u64>> {
            let i = o.try_index(vm)?;
            let b = i.as_bigint();
            if num_traits::Signed::is_negative(b) {
                return Err(vm.new_value_error("Seed must be between 0 and 2**32 - 1"));
            }
            let (_, digits) = b.to_u64_digits();
            Ok(if digits.is_empty() { vec![0] } else { digits })
        };
        if let Some(items) = seq_items(seed) {
            let mut words = vec![items.len() as u64];
            for it in &items {
                words.extend(words_of(it)?);
            }
            return Ok(random::Rng::from_words(&words));
        }
        if let Some(bg) = seed.downcast_ref::<PyBitGen>() {
            return Ok(bg.rng.read().clone());
        }
        let w = words_of(seed)?;
        if w.len() == 1 {
            return Ok(random::Rng::from_seed(w[0]));
        }
        Ok(random::Rng::from_words(&w))
    }

    impl Constructor for PyBitGen {
        type Args = OptionalArg<PyObjectRef>;
        fn py_new(_cls: &Py<PyType>, seed: Self::Args, vm: &VirtualMachine) -> PyResult<Self> {
            let rng = rng_from_seed(seed.as_option().map(|o| &**o), vm)?;
            Ok(PyBitGen {
                rng: PyRwLock::new(rng),
            })
        }
    }

    /// `size=` as an optional shape (None: one Python scalar).
    fn opt_size(
        size: &OptionalArg<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> PyResult<Option<Vec<usize>>> {
        match size.as_option() {
            Some(o) if !vm.is_none(o) => Ok(Some(parse_shape(o, vm)?)),
            _ => Ok(None),
        }
    }

    impl PyBitGen {
        fn draw(
            &self,
            size: &OptionalArg<PyObjectRef>,
            dt: DType,
            vm: &VirtualMachine,
            mut f: impl FnMut(&mut random::Rng) -> f64,
        ) -> PyResult {
            let shape = opt_size(size, vm)?;
            let mut rng = self.rng.write();
            match shape {
                None => Ok(py_scalar(f(&mut rng), dt, vm)),
                Some(s) => {
                    let n: usize = s.iter().product();
                    let data: Vec<f64> = (0..n).map(|_| f(&mut rng)).collect();
                    Ok(new_arr(
                        ArrayD::from_shape_vec(IxDyn(&s), data).unwrap(),
                        dt,
                        vm,
                    ))
                }
            }
        }
    }

    #[pyclass(with(Constructor))]
    impl PyBitGen {
        #[pymethod]
        fn random(&self, size: OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult {
            self.draw(&size, DType::Float64, vm, |r| r.random())
        }
        #[pymethod]
        fn standard_normal(&self, size: OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult {
            self.draw(&size, DType::Float64, vm, |r| r.standard_normal())
        }
        #[pymethod]
        fn standard_exponential(
            &self,
            size: OptionalArg<PyObjectRef>,
            vm: &VirtualMachine,
        ) -> PyResult {
            self.draw(&size, DType::Float64, vm, |r| r.standard_exponential())
        }
        #[pymethod]
        fn standard_gamma(
            &self,
            shape: f64,
            size: OptionalArg<PyObjectRef>,
            vm: &VirtualMachine,
        ) -> PyResult {
            if shape < 0.0 {
                return Err(vm.new_value_error("shape < 0"));
            }
            self.draw(&size, DType::Float64, vm, |r| {
                if shape == 0.0 {
                    0.0
                } else {
                    r.standard_gamma(shape)
                }
            })
        }
        /// Integers in [low, high) (both Python ints).
        #[pymethod]
        fn integers(
            &self,
            low: i64,
            high: i64,
            size: OptionalArg<PyObjectRef>,
            vm: &VirtualMachine,
        ) -> PyResult {
            if high <= low {
                return Err(vm.new_value_error("high <= 0"));
            }
            self.draw(&size, DType::Int64, vm, |r| r.integer(low, high) as f64)
        }
        /// A random permutation of range(n) as an int64 array.
        #[pymethod]
        fn permutation(&self, n: usize, vm: &VirtualMachine) -> PyResult {
            let mut v: Vec<f64> = (0..n).map(|i| i as f64).collect();
            self.rng.write().shuffle(&mut v);
            Ok(new_arr(
                ArrayD::from_shape_vec(IxDyn(&[n]), v).unwrap(),
                DType::Int64,
                vm,
            ))
        }
        /// Reseeds in place (for `np.random.seed`).
        #[pymethod]
        fn seed(&self, seed: OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult<()> {
            *self.rng.write() = rng_from_seed(seed.as_option().map(|o| &**o), vm)?;
            Ok(())
        }
        #[pymethod]
        fn spawn_one(&self, vm: &VirtualMachine) -> PyResult {
            let mut r = self.rng.write();
            let words = [r.next_u64(), r.next_u64()];
            Ok(PyBitGen {
                rng: PyRwLock::new(random::Rng::from_words(&words)),
            }
            .into_pyobject(vm))
        }
    }

    // ------------------------------------------------------------------ the dtype type

    #[pyattr]
    #[pyclass(module = "numpy", name = "dtype")]
    #[derive(Debug, PyPayload)]
    pub struct PyDType {
        dt: DType,
    }

    impl Constructor for PyDType {
        type Args = (PyObjectRef,);
        fn py_new(_cls: &Py<PyType>, (obj,): Self::Args, vm: &VirtualMachine) -> PyResult<Self> {
            let dt = parse_dtype(&obj, vm)?.unwrap_or(DType::Float64);
            Ok(PyDType { dt })
        }
    }

    #[pyclass(with(Constructor, Representable, Comparable, Hashable))]
    impl PyDType {
        #[pygetset]
        fn name(&self) -> &'static str {
            self.dt.name()
        }
        #[pygetset]
        fn kind(&self) -> &'static str {
            self.dt.kind()
        }
        #[pygetset]
        fn itemsize(&self) -> usize {
            self.dt.itemsize()
        }
        #[pygetset]
        fn char(&self) -> &'static str {
            match self.dt {
                DType::Bool => "?",
                DType::Int64 => "l",
                DType::Float32 => "f",
                DType::Float64 => "d",
            }
        }
        #[pygetset(name = "type")]
        fn type_(&self, vm: &VirtualMachine) -> PyObjectRef {
            match self.dt {
                DType::Bool => vm.ctx.types.bool_type.to_owned().into(),
                DType::Int64 => vm.ctx.types.int_type.to_owned().into(),
                DType::Float64 => vm.ctx.types.float_type.to_owned().into(),
                DType::Float32 => vm
                    .import("numpy", 0)
                    .and_then(|np| np.get_attr("float32", vm))
                    .unwrap_or_else(|_| vm.ctx.types.float_type.to_owned().into()),
            }
        }
        #[pyslot]
        fn slot_str(zelf: &PyObject, vm: &VirtualMachine) -> PyResult<PyStrRef> {
            let z = zelf.downcast_ref::<Self>().unwrap();
            Ok(vm.ctx.new_str(z.dt.name()))
        }
    }

    impl Representable for PyDType {
        fn repr_str(zelf: &Py<Self>, _vm: &VirtualMachine) -> PyResult<String> {
            Ok(format!("dtype('{}')", zelf.dt.name()))
        }
    }

    impl Comparable for PyDType {
        fn cmp(
            zelf: &Py<Self>,
            other: &PyObject,
            op: PyComparisonOp,
            vm: &VirtualMachine,
        ) -> PyResult<PyComparisonValue> {
            op.eq_only(|| {
                Ok(match parse_dtype(other, vm) {
                    Ok(Some(d)) => PyComparisonValue::Implemented(d == zelf.dt),
                    _ => PyComparisonValue::Implemented(false),
                })
            })
        }
    }

    impl Hashable for PyDType {
        fn hash(
            zelf: &Py<Self>,
            _vm: &VirtualMachine,
        ) -> PyResult<rustpython_vm::common::hash::PyHash> {
            Ok(zelf.dt as i64 + 7)
        }
    }

    fn dtype_obj(dt: DType, vm: &VirtualMachine) -> PyObjectRef {
        PyDType { dt }.into_pyobject(vm)
    }

    // ------------------------------------------------------------------ indexing helpers

    fn index_item(obj: &PyObject, vm: &VirtualMachine) -> PyResult<IndexItem> {
        if let Some(i) = obj.downcast_ref::<PyInt>() {
            if obj.class().is(vm.ctx.types.bool_type) {
                return Ok(IndexItem::Mask(ArrayD::from_elem(
                    IxDyn(&[]),
                    *i.as_bigint() != 0.into(),
                )));
            }
            return Ok(IndexItem::Int(i.try_to_primitive::<isize>(vm)?));
        }
        if let Some(s) = obj.downcast_ref::<PySlice>() {
            let conv = |o: Option<&PyObjectRef>| -> PyResult<Option<isize>> {
                match o {
                    None => Ok(None),
                    Some(o) if vm.is_none(o) => Ok(None),
                    Some(o) => Ok(Some(to_isize(o, vm)?)),
                }
            };
            return Ok(IndexItem::Slice(
                conv(s.start.as_ref())?,
                conv(Some(&s.stop))?,
                conv(s.step.as_ref())?,
            ));
        }
        if vm.is_none(obj) {
            return Ok(IndexItem::NewAxis);
        }
        if obj.is(&vm.ctx.ellipsis) {
            return Ok(IndexItem::Ellipsis);
        }
        let (arr, dt) = if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            (core::to_standard(a.read().view()), a.dtype)
        } else if obj.downcast_ref::<PyList>().is_some() {
            let (a, d) = to_array(obj, vm)?;
            (
                a,
                if a_is_empty_list(obj) {
                    DType::Int64
                } else {
                    d
                },
            )
        } else if obj.downcast_ref::<PyFloat>().is_some() {
            return Err(vm.new_index_error(
                "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices",
            ));
        } else {
            return Ok(IndexItem::Int(obj.try_index(vm).map_err(|_| {
                vm.new_index_error(
                    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices",
                )
            })?.try_to_primitive::<isize>(vm)?));
        };
        match dt {
            DType::Bool => Ok(IndexItem::Mask(arr.mapv(|x| x != 0.0))),
            DType::Int64 => Ok(IndexItem::Array(arr.mapv(|x| x as isize))),
            DType::Float64 | DType::Float32 => {
                Err(vm
                    .new_index_error("arrays used as indices must be of integer (or boolean) type"))
            }
        }
    }

    fn a_is_empty_list(obj: &PyObject) -> bool {
        obj.downcast_ref::<PyList>()
            .is_some_and(|l| l.borrow_vec().is_empty())
    }

    fn index_items(key: &PyObject, vm: &VirtualMachine) -> PyResult<Vec<IndexItem>> {
        if let Some(t) = key.downcast_ref::<PyTuple>() {
            return t.as_slice().iter().map(|o| index_item(o, vm)).collect();
        }
        Ok(vec![index_item(key, vm)?])
    }

    fn getitem(zelf: &Py<PyNdArray>, key: &PyObject, vm: &VirtualMachine) -> PyResult {
        // fast path: a[i]
        if let Some(i) = key.downcast_ref::<PyInt>() {
            if !key.class().is(vm.ctx.types.bool_type) {
                let i = i.try_to_primitive::<isize>(vm)?;
                let lay = zelf.layout();
                if lay.shape.ndim() == 0 {
                    return Err(vm.new_index_error(
                        "too many indices for array: array is 0-dimensional, but 1 were indexed",
                    ));
                }
                let n = lay.shape[0];
                let ni = n as isize;
                if i < -ni || i >= ni {
                    return Err(vm.new_index_error(format!(
                        "index {i} is out of bounds for axis 0 with size {n}"
                    )));
                }
                let iu = if i < 0 { (i + ni) as usize } else { i as usize };
                if lay.shape.ndim() == 1 {
                    let pos = lay.offset as isize + iu as isize * lay.stride(0);
                    let x = zelf.read_at(pos as usize);
                    return Ok(py_scalar(x, zelf.dtype, vm));
                }
                let sub = zelf.derive(zelf.as_object(), false, |v| {
                    Ok(derived(&v.index_axis_move(Axis(0), iu)))
                })?;
                return Ok(sub.into_pyobject(vm));
            }
        }
        let items = index_items(key, vm)?;
        // a[i, j, ...] with one int per axis: one element
        if items.len() == zelf.n_dims() && items.iter().all(|it| matches!(it, IndexItem::Int(_))) {
            let lay = zelf.layout();
            let mut pos = lay.offset as isize;
            for (ax, it) in items.iter().enumerate() {
                let IndexItem::Int(i) = *it else {
                    unreachable!()
                };
                let n = lay.shape[ax];
                let ni = n as isize;
                if i < -ni || i >= ni {
                    return Err(vm.new_index_error(format!(
                        "index {i} is out of bounds for axis {ax} with size {n}"
                    )));
                }
                let iu = if i < 0 { i + ni } else { i };
                pos += iu * lay.stride(ax);
            }
            let x = zelf.read_at(pos as usize);
            return Ok(py_scalar(x, zelf.dtype, vm));
        }
        // basic indexing gives a view, advanced indexing a copy
        let out = zelf.derive(zelf.as_object(), false, |v| {
            match core::index_view(v.clone(), &items).py(vm)? {
                Some(w) => Ok(derived(&w)),
                None => Ok(Derived::Copy(core::index_get(v, &items).py(vm)?)),
            }
        })?;
        if out.ndim() == 0 {
            let x = *out.read().view().iter().next().unwrap();
            return Ok(py_scalar(x, zelf.dtype, vm));
        }
        Ok(out.into_pyobject(vm))
    }

    fn setitem(
        zelf: &Py<PyNdArray>,
        key: &PyObject,
        value: &PyObject,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        let dt = zelf.dtype;
        let (val, _) = match value.downcast_ref::<PyNdArray>() {
            Some(v) if v.shares_buffer(zelf) => (core::to_standard(v.read().view()), v.dtype),
            _ => to_array(value, vm)?,
        };
        let val = if dt != DType::Float64 {
            val.mapv(|x| dt.cast(x))
        } else {
            val
        };
        // fast path: a[i] = scalar on 1-D
        if let (Some(i), 0, 1) = (key.downcast_ref::<PyInt>(), val.ndim(), zelf.n_dims()) {
            if !key.class().is(vm.ctx.types.bool_type) {
                let lay = zelf.layout();
                let mut w = zelf.write(vm)?;
                let i = i.try_to_primitive::<isize>(vm)?;
                let n = lay.shape[0];
                let ni = n as isize;
                if i < -ni || i >= ni {
                    return Err(vm.new_index_error(format!(
                        "index {i} is out of bounds for axis 0 with size {n}"
                    )));
                }
                let iu = if i < 0 { (i + ni) as usize } else { i as usize };
                let pos = lay.offset as isize + iu as isize * lay.stride(0);
                *w.at(pos as usize) = *val.iter().next().unwrap();
                return Ok(());
            }
        }
        let items = index_items(key, vm)?;
        let mut w = zelf.write(vm)?;
        core::index_set(w.view_mut(), &items, val.view()).py(vm)
    }

    fn tolist_rec(v: ArrayViewD<'_, f64>, dt: DType, vm: &VirtualMachine) -> PyObjectRef {
        if v.ndim() == 0 {
            return py_scalar(*v.iter().next().unwrap(), dt, vm);
        }
        let items: Vec<PyObjectRef> = v.outer_iter().map(|s| tolist_rec(s, dt, vm)).collect();
        vm.ctx.new_list(items).into()
    }

    /// The value of a 0-d array for `float()`/`int()` (NumPy 2 refuses other shapes,
    /// size-1 arrays included).
    fn scalar_value(zelf: &PyNdArray, vm: &VirtualMachine) -> PyResult<f64> {
        let g_lock = zelf.read();
        let g = g_lock.view();
        if g.ndim() != 0 {
            return Err(
                vm.new_type_error("only 0-dimensional arrays can be converted to Python scalars")
            );
        }
        Ok(*g.iter().next().unwrap())
    }

    // ------------------------------------------------------------------ ndarray methods

    #[derive(FromArgs)]
    pub struct NdNewArgs {
        #[pyarg(any)]
        shape: PyObjectRef,
        #[pyarg(any, optional)]
        dtype: OptionalArg<PyObjectRef>,
    }

    impl Constructor for PyNdArray {
        type Args = NdNewArgs;
        fn py_new(_cls: &Py<PyType>, args: Self::Args, vm: &VirtualMachine) -> PyResult<Self> {
            let shape = parse_shape(&args.shape, vm)?;
            let dt = opt_dtype(&args.dtype, vm)?.unwrap_or(DType::Float64);
            Ok(PyNdArray::new(ArrayD::zeros(IxDyn(&shape)), dt))
        }
    }

    #[pyclass(
        with(AsNumber, AsMapping, Comparable, Iterable, Representable, Constructor),
        flags(BASETYPE)
    )]
    impl PyNdArray {
        #[pygetset]
        fn shape(&self, vm: &VirtualMachine) -> PyTupleRef {
            match &self.view {
                Some(w) => shape_tuple_obj(w.lay.shape.slice(), vm),
                None => shape_tuple_obj(self.data.read().shape(), vm),
            }
        }
        #[pygetset]
        fn ndim(&self) -> usize {
            self.n_dims()
        }
        #[pygetset]
        fn size(&self) -> usize {
            self.len()
        }
        #[pygetset]
        fn dtype(&self, vm: &VirtualMachine) -> PyObjectRef {
            dtype_obj(self.dtype, vm)
        }
        #[pygetset]
        fn itemsize(&self) -> usize {
            self.dtype.itemsize()
        }
        #[pygetset]
        fn nbytes(&self) -> usize {
            self.dtype.itemsize() * self.len()
        }
        #[pygetset(name = "T")]
        fn t(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
            transpose_impl(zelf.as_object(), None, vm)
        }
        #[pygetset]
        fn real(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
            Self::view(zelf, vm)
        }
        #[pygetset]
        fn flat(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
            flatten_impl(zelf.as_object(), vm)
        }

        #[pyslot]
        fn slot_str(zelf: &PyObject, vm: &VirtualMachine) -> PyResult<PyStrRef> {
            let z = zelf.downcast_ref::<Self>().unwrap();
            let g_lock = z.read();
            let g = g_lock.view();
            if g.ndim() == 0 {
                let obj = py_scalar(*g.iter().next().unwrap(), z.dtype, vm);
                drop(g);
                return obj.str(vm);
            }
            Ok(vm.ctx.new_str(format::str(&g.view(), z.dtype)))
        }
        #[pymethod]
        fn tolist(&self, vm: &VirtualMachine) -> PyObjectRef {
            let g_lock = self.read();
            let g = g_lock.view();
            tolist_rec(g.view(), self.dtype, vm)
        }
        #[pymethod]
        fn copy(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
            make_array(zelf.as_object(), None, 0, vm)
        }
        #[pymethod]
        fn __copy__(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
            make_array(zelf.as_object(), None, 0, vm)
        }
        #[pymethod]
        fn __deepcopy__(zelf: PyRef<Self>, _memo: PyObjectRef, vm: &VirtualMachine) -> PyResult {
            make_array(zelf.as_object(), None, 0, vm)
        }
        #[pymethod]
        fn __reduce__(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
            // pickling: numpy.array(list, dtype)
            let np = vm.import("numpy", 0)?;
            let f = np.get_attr("array", vm)?;
            let args = vm.ctx.new_tuple(vec![
                zelf.tolist(vm),
                vm.ctx.new_str(zelf.dtype.name()).into(),
            ]);
            Ok(vm.ctx.new_tuple(vec![f, args.into()]).into())
        }
        #[pymethod]
        fn item(&self, args: PosArgs<PyObjectRef>, vm: &VirtualMachine) -> PyResult {
            let g_lock = self.read();
            let g = g_lock.view();
            let args = args.into_vec();
            if args.is_empty() {
                if g.len() != 1 {
                    return Err(vm.new_value_error(
                        "can only convert an array of size 1 to a Python scalar",
                    ));
                }
                return Ok(py_scalar(*g.iter().next().unwrap(), self.dtype, vm));
            }
            if args.len() == 1 {
                let i = to_isize(&args[0], vm)?;
                let n = g.len();
                let ni = n as isize;
                if i < -ni || i >= ni {
                    return Err(
                        vm.new_index_error(format!("index {i} is out of bounds for size {n}"))
                    );
                }
                let iu = if i < 0 { (i + ni) as usize } else { i as usize };
                let v = *g.iter().nth(iu).unwrap();
                return Ok(py_scalar(v, self.dtype, vm));
            }
            let items: Vec<IndexItem> = args
                .iter()
                .map(|o| to_isize(o, vm).map(IndexItem::Int))
                .collect::<PyResult<_>>()?;
            let out = core::index_get(g.view(), &items).py(vm)?;
            Ok(py_scalar(*out.iter().next().unwrap(), self.dtype, vm))
        }
        #[pymethod]
        fn astype(&self, dtype: PyObjectRef, vm: &VirtualMachine) -> PyResult {
            let dt = parse_dtype(&dtype, vm)?.unwrap_or(DType::Float64);
            let g_lock = self.read();
            let g = g_lock.view();
            let data = if dt == DType::Float64 {
                core::to_standard(g)
            } else {
                g.mapv(|x| dt.cast(x))
            };
            Ok(new_arr(data, dt, vm))
        }
        #[pymethod]
        fn fill(&self, value: PyObjectRef, vm: &VirtualMachine) -> PyResult<()> {
            let (v, _) = scalar_of(&value, vm)
                .ok_or_else(|| vm.new_type_error("fill: value must be a number"))?;
            let v = self.dtype.cast(v);
            self.write(vm)?.view_mut().fill(v);
            Ok(())
        }
        #[pymethod]
        fn sum(zelf: PyRef<Self>, args: ReduceArgs, vm: &VirtualMachine) -> PyResult {
            do_reduce(zelf.as_object(), &args, Reduce::Sum, vm)
        }
        #[pymethod]
        fn prod(zelf: PyRef<Self>, args: ReduceArgs, vm: &VirtualMachine) -> PyResult {
            do_reduce(zelf.as_object(), &args, Reduce::Prod, vm)
        }
        #[pymethod]
        fn mean(zelf: PyRef<Self>, args: ReduceArgs, vm: &VirtualMachine) -> PyResult {
            do_reduce(zelf.as_object(), &args, Reduce::Mean, vm)
        }
        #[pymethod]
        fn max(zelf: PyRef<Self>, args: ReduceArgs, vm: &VirtualMachine) -> PyResult {
            do_reduce(zelf.as_object(), &args, Reduce::Max, vm)
        }
        #[pymethod]
        fn min(zelf: PyRef<Self>, args: ReduceArgs, vm: &VirtualMachine) -> PyResult {
            do_reduce(zelf.as_object(), &args, Reduce::Min, vm)
        }
        #[pymethod]
        fn all(zelf: PyRef<Self>, args: ReduceArgs, vm: &VirtualMachine) -> PyResult {
            do_reduce(zelf.as_object(), &args, Reduce::All, vm)
        }
        #[pymethod]
        fn any(zelf: PyRef<Self>, args: ReduceArgs, vm: &VirtualMachine) -> PyResult {
            do_reduce(zelf.as_object(), &args, Reduce::Any, vm)
        }
        #[pymethod]
        fn argmax(zelf: PyRef<Self>, args: ArgReduceArgs, vm: &VirtualMachine) -> PyResult {
            do_argreduce(zelf.as_object(), &args, true, vm)
        }
        #[pymethod]
        fn argmin(zelf: PyRef<Self>, args: ArgReduceArgs, vm: &VirtualMachine) -> PyResult {
            do_argreduce(zelf.as_object(), &args, false, vm)
        }
        #[pymethod]
        fn cumsum(zelf: PyRef<Self>, kw: AxisKw, vm: &VirtualMachine) -> PyResult {
            let axis = kw.axis;
            cum(zelf.as_object(), axis, false, vm)
        }
        #[pymethod]
        fn cumprod(zelf: PyRef<Self>, kw: AxisKw, vm: &VirtualMachine) -> PyResult {
            let axis = kw.axis;
            cum(zelf.as_object(), axis, true, vm)
        }
        #[pymethod]
        fn dot(zelf: PyRef<Self>, other: PyObjectRef, vm: &VirtualMachine) -> PyResult {
            self::dot(zelf.into(), other, vm)
        }
        #[pymethod]
        fn clip(zelf: PyRef<Self>, bounds: ClipBounds, vm: &VirtualMachine) -> PyResult {
            self::clip(
                zelf.into(),
                bounds.a_min.unwrap_or_none(vm),
                bounds.a_max.unwrap_or_none(vm),
                vm,
            )
        }
        #[pymethod]
        fn reshape(zelf: PyRef<Self>, args: PosArgs<PyObjectRef>, vm: &VirtualMachine) -> PyResult {
            let req = shape_from_args(args.as_ref(), vm)?;
            reshape_impl(zelf.as_object(), req, vm)
        }
        #[pymethod]
        fn transpose(
            zelf: PyRef<Self>,
            args: PosArgs<PyObjectRef>,
            vm: &VirtualMachine,
        ) -> PyResult {
            let args = args.into_vec();
            let axes = if args.is_empty() || (args.len() == 1 && vm.is_none(&args[0])) {
                None
            } else {
                Some(shape_from_args(&args, vm)?)
            };
            transpose_impl(zelf.as_object(), axes, vm)
        }
        #[pymethod]
        fn ravel(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
            reshape_impl(zelf.as_object(), vec![-1], vm)
        }
        #[pymethod]
        fn flatten(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
            flatten_impl(zelf.as_object(), vm)
        }
        /// The array owning the memory of a view; `None` for an owner.
        #[pygetset]
        fn base(&self, vm: &VirtualMachine) -> PyObjectRef {
            self.base_obj().cloned().unwrap_or_else(|| vm.ctx.none())
        }
        /// A new array object on the same memory.
        #[pymethod]
        fn view(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
            let v = zelf.derive(zelf.as_object(), false, |v| Ok(derived(&v)))?;
            Ok(v.into_pyobject(vm))
        }
        #[pymethod]
        fn squeeze(zelf: PyRef<Self>, kw: AxisKw, vm: &VirtualMachine) -> PyResult {
            let axis = kw.axis;
            squeeze_impl(zelf.as_object(), axis.as_option().map(|o| &**o), vm)
        }
        /// In-place sort along `axis` (default -1).
        #[pymethod]
        fn sort(zelf: PyRef<Self>, args: SortArgs, vm: &VirtualMachine) -> PyResult<()> {
            let sorted = {
                let g_lock = zelf.read();
                let g = g_lock.view();
                if g.ndim() == 0 {
                    return Err(axis_err(
                        core::NpErr::Index(
                            "axis -1 is out of bounds for array of dimension 0".into(),
                        ),
                        vm,
                    ));
                }
                let ax = axis_or(&args.axis, Some(-1), g.ndim(), vm)?;
                match ax {
                    Some(ax) => ops::sort(g.view(), Some(ax)),
                    None => {
                        return Err(
                            vm.new_value_error("axis=None is not supported for ndarray.sort")
                        )
                    }
                }
            };
            zelf.write(vm)?.view_mut().assign(&sorted);
            Ok(())
        }
        #[pymethod]
        fn argsort(zelf: PyRef<Self>, args: SortArgs, vm: &VirtualMachine) -> PyResult {
            self::argsort(zelf.into(), args, vm)
        }
        #[pymethod]
        fn swapaxes(
            zelf: PyRef<Self>,
            axis1: PyObjectRef,
            axis2: PyObjectRef,
            vm: &VirtualMachine,
        ) -> PyResult {
            self::swapaxes(zelf.into(), axis1, axis2, vm)
        }
        #[pymethod]
        fn repeat(
            zelf: PyRef<Self>,
            repeats: PyObjectRef,
            kw: AxisKw,
            vm: &VirtualMachine,
        ) -> PyResult {
            repeat_impl(zelf.as_object(), &repeats, &kw.axis, vm)
        }
        #[pymethod]
        fn var(zelf: PyRef<Self>, args: VarArgs, vm: &VirtualMachine) -> PyResult {
            var_impl(zelf.as_object(), &args, false, vm)
        }
        #[pymethod]
        fn std(zelf: PyRef<Self>, args: VarArgs, vm: &VirtualMachine) -> PyResult {
            var_impl(zelf.as_object(), &args, true, vm)
        }
        #[pymethod]
        fn trace(zelf: PyRef<Self>, args: MethodDiagArgs, vm: &VirtualMachine) -> PyResult {
            diagonal_impl(&args.with(zelf.into()), true, vm)
        }
        #[pymethod]
        fn diagonal(zelf: PyRef<Self>, args: MethodDiagArgs, vm: &VirtualMachine) -> PyResult {
            self::diagonal(args.with(zelf.into()), vm)
        }
        #[pymethod]
        fn nonzero(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
            self::nonzero(zelf.into(), vm)
        }
        #[pymethod]
        fn __array_namespace__(&self, vm: &VirtualMachine) -> PyResult {
            vm.import("numpy", 0)
        }
        #[pymethod]
        fn round(zelf: PyRef<Self>, decimals: OptionalArg<i32>, vm: &VirtualMachine) -> PyResult {
            Self::__round__(zelf, decimals, vm)
        }
        #[pymethod]
        fn __round__(
            zelf: PyRef<Self>,
            ndigits: OptionalArg<i32>,
            vm: &VirtualMachine,
        ) -> PyResult {
            let nd = ndigits.unwrap_or(0);
            let g_lock = zelf.read();
            let g = g_lock.view();
            let dt = zelf.dtype;
            // NumPy: rint(x * 10**d) / 10**d, and rint(x / 10**-d) * 10**-d for d < 0
            let out = if nd >= 0 {
                if !dt.is_float() {
                    core::to_standard(g)
                } else {
                    let p = 10f64.powi(nd);
                    g.mapv(|x| dt.cast((x * p).round_ties_even() / p))
                }
            } else {
                let q = 10f64.powi(-nd);
                g.mapv(|x| dt.cast((x / q).round_ties_even() * q))
            };
            Ok(new_arr(out, dt, vm))
        }
    }

    impl PyNdArray {
        fn len_checked(&self, vm: &VirtualMachine) -> PyResult<usize> {
            let g_lock = self.read();
            let g = g_lock.view();
            if g.ndim() == 0 {
                return Err(vm.new_type_error("len() of unsized object"));
            }
            Ok(g.shape()[0])
        }
    }

    impl AsMapping for PyNdArray {
        fn as_mapping() -> &'static PyMappingMethods {
            static AS_MAPPING: PyMappingMethods = PyMappingMethods {
                length: atomic_func!(
                    |mapping, vm| PyNdArray::mapping_downcast(mapping).len_checked(vm)
                ),
                subscript: atomic_func!(|mapping, needle, vm| {
                    getitem(PyNdArray::mapping_downcast(mapping), needle, vm)
                }),
                ass_subscript: atomic_func!(|mapping, needle, value, vm| {
                    let zelf = PyNdArray::mapping_downcast(mapping);
                    match value {
                        Some(value) => setitem(zelf, needle, &value, vm),
                        None => Err(vm.new_value_error("cannot delete array elements")),
                    }
                }),
            };
            &AS_MAPPING
        }
    }

    impl Iterable for PyNdArray {
        fn iter(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
            let items: Vec<PyObjectRef> = {
                let g_lock = zelf.read();
                let g = g_lock.view();
                if g.ndim() == 0 {
                    return Err(vm.new_type_error("iteration over a 0-d array"));
                }
                if g.ndim() == 1 {
                    g.iter().map(|&x| py_scalar(x, zelf.dtype, vm)).collect()
                } else {
                    // rows are views, as in NumPy
                    let n = g.shape()[0];
                    drop(g);
                    drop(g_lock);
                    (0..n)
                        .map(|i| {
                            zelf.derive(zelf.as_object(), false, |v| {
                                Ok(derived(&v.index_axis_move(Axis(0), i)))
                            })
                            .map(|a| a.into_pyobject(vm))
                        })
                        .collect::<PyResult<_>>()?
                }
            };
            let list: PyObjectRef = vm.ctx.new_list(items).into();
            Ok(list.get_iter(vm)?.into())
        }
    }

    impl Representable for PyNdArray {
        fn repr_str(zelf: &Py<Self>, _vm: &VirtualMachine) -> PyResult<String> {
            let g_lock = zelf.read();
            let g = g_lock.view();
            Ok(format::repr(&g.view(), zelf.dtype))
        }
    }

    impl Comparable for PyNdArray {
        fn slot_richcompare(
            zelf: &PyObject,
            other: &PyObject,
            op: PyComparisonOp,
            vm: &VirtualMachine,
        ) -> PyResult<Either<PyObjectRef, PyComparisonValue>> {
            let o = match op {
                PyComparisonOp::Lt => Op::Lt,
                PyComparisonOp::Le => Op::Le,
                PyComparisonOp::Gt => Op::Gt,
                PyComparisonOp::Ge => Op::Ge,
                PyComparisonOp::Eq => Op::Eq,
                _ => Op::Ne,
            };
            let (Some(a), Some(b)) = (to_src(zelf, vm)?, to_src(other, vm)?) else {
                return Ok(Either::B(PyComparisonValue::NotImplemented));
            };
            Ok(Either::A(binop_src(o, &a, &b, vm)?))
        }

        fn cmp(
            _zelf: &Py<Self>,
            _other: &PyObject,
            _op: PyComparisonOp,
            _vm: &VirtualMachine,
        ) -> PyResult<PyComparisonValue> {
            unreachable!("slot_richcompare is overridden")
        }
    }

    fn unary_slot(obj: &PyObject, f: impl Fn(f64) -> f64, vm: &VirtualMachine) -> PyResult {
        let z = obj.downcast_ref::<PyNdArray>().unwrap();
        let dt = if z.dtype == DType::Bool {
            DType::Int64
        } else {
            z.dtype
        };
        let g_lock = z.read();
        let g = g_lock.view();
        Ok(new_arr(core::map_unary(g.view(), f), dt, vm))
    }

    impl AsNumber for PyNdArray {
        fn as_number() -> &'static PyNumberMethods {
            static AS_NUMBER: PyNumberMethods = PyNumberMethods {
                add: Some(|a, b, vm| bin_slot(a, b, Op::Add, vm)),
                subtract: Some(|a, b, vm| bin_slot(a, b, Op::Sub, vm)),
                multiply: Some(|a, b, vm| bin_slot(a, b, Op::Mul, vm)),
                remainder: Some(|a, b, vm| bin_slot(a, b, Op::Mod, vm)),
                power: Some(|a, b, c, vm| {
                    if !vm.is_none(c) {
                        return Err(
                            vm.new_type_error("pow() 3rd argument not supported for arrays")
                        );
                    }
                    bin_slot(a, b, Op::Pow, vm)
                }),
                negative: Some(|num, vm| unary_slot(num.obj, |x| -x, vm)),
                positive: Some(|num, vm| unary_slot(num.obj, |x| x, vm)),
                absolute: Some(|num, vm| unary_slot(num.obj, f64::abs, vm)),
                boolean: Some(|num, vm| {
                    let z = num.obj.downcast_ref::<PyNdArray>().unwrap();
                    let g_lock = z.read();
                    let g = g_lock.view();
                    match g.len() {
                        1 => Ok(*g.iter().next().unwrap() != 0.0),
                        0 => Err(vm.new_value_error(
                            "The truth value of an empty array is ambiguous. Use `array.size > 0` to check that an array is not empty.",
                        )),
                        _ => Err(vm.new_value_error(
                            "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()",
                        )),
                    }
                }),
                invert: Some(|num, vm| {
                    let z = num.obj.downcast_ref::<PyNdArray>().unwrap();
                    let g_lock = z.read();
                    let g = g_lock.view();
                    let dt = z.dtype;
                    if dt.is_float() {
                        return Err(vm.new_type_error(
                            "ufunc 'invert' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''",
                        ));
                    }
                    let f = move |x: f64| {
                        if dt == DType::Bool {
                            (x == 0.0) as u8 as f64
                        } else {
                            !(x as i64) as f64
                        }
                    };
                    Ok(new_arr(core::map_unary(g.view(), f), dt, vm))
                }),
                and: Some(|a, b, vm| bin_slot(a, b, Op::And, vm)),
                or: Some(|a, b, vm| bin_slot(a, b, Op::Or, vm)),
                xor: Some(|a, b, vm| bin_slot(a, b, Op::Xor, vm)),
                int: Some(|num, vm| {
                    let z = num.obj.downcast_ref::<PyNdArray>().unwrap();
                    let v = scalar_value(z, vm)?;
                    if !v.is_finite() {
                        return Err(
                            vm.new_value_error("cannot convert float NaN or infinity to integer")
                        );
                    }
                    Ok(vm.ctx.new_int(v.trunc() as i64).into())
                }),
                float: Some(|num, vm| {
                    let z = num.obj.downcast_ref::<PyNdArray>().unwrap();
                    let v = scalar_value(z, vm)?;
                    Ok(vm.ctx.new_float(v).into())
                }),
                inplace_add: Some(|a, b, vm| inplace_slot(a, b, Op::Add, vm)),
                inplace_subtract: Some(|a, b, vm| inplace_slot(a, b, Op::Sub, vm)),
                inplace_multiply: Some(|a, b, vm| inplace_slot(a, b, Op::Mul, vm)),
                inplace_remainder: Some(|a, b, vm| inplace_slot(a, b, Op::Mod, vm)),
                inplace_power: Some(|a, b, _c, vm| inplace_slot(a, b, Op::Pow, vm)),
                inplace_and: Some(|a, b, vm| inplace_slot(a, b, Op::And, vm)),
                inplace_or: Some(|a, b, vm| inplace_slot(a, b, Op::Or, vm)),
                inplace_xor: Some(|a, b, vm| inplace_slot(a, b, Op::Xor, vm)),
                floor_divide: Some(|a, b, vm| bin_slot(a, b, Op::FloorDiv, vm)),
                true_divide: Some(|a, b, vm| bin_slot(a, b, Op::Div, vm)),
                inplace_floor_divide: Some(|a, b, vm| inplace_slot(a, b, Op::FloorDiv, vm)),
                inplace_true_divide: Some(|a, b, vm| inplace_slot(a, b, Op::Div, vm)),
                index: Some(|num, vm| {
                    let z = num.obj.downcast_ref::<PyNdArray>().unwrap();
                    let g_lock = z.read();
                    let g = g_lock.view();
                    if g.ndim() != 0 || z.dtype.is_float() {
                        return Err(vm.new_type_error(
                            "only integer scalar arrays can be converted to a scalar index",
                        ));
                    }
                    Ok(vm.ctx.new_int(*g.iter().next().unwrap() as i64).into())
                }),
                matrix_multiply: Some(|a, b, vm| {
                    if to_src(a, vm)?.is_none() || to_src(b, vm)?.is_none() {
                        return Ok(vm.ctx.not_implemented());
                    }
                    matmul_objs(a, b, vm)
                }),
                ..PyNumberMethods::NOT_IMPLEMENTED
            };
            &AS_NUMBER
        }
    }

    // ------------------------------------------------------------------ tangent's hot helpers

    /// Which of `tangent`'s runtime helpers a `FastHelper` stands for.
    #[derive(Debug, Clone, Copy)]
    enum HelperKind {
        Unbroadcast,
        Unreduce,
        MatmulGradLeft,
        MatmulGradRight,
        CheckOutput,
    }

    /// One of `tangent`'s runtime helpers: a native path for the case every adjoint of
    /// array code hits (arrays of matching shape, a float seed, 2-D products), and the
    /// helper's Python definition for everything else. Calling a Python function costs
    /// the embedded interpreter about a microsecond before it does any work, which is
    /// a noticeable share of an adjoint's time next to its array kernels. The native
    /// paths do exactly what the Python definition does in the same case.
    #[pyattr]
    #[pyclass(module = "tangent", name = "fast_helper")]
    #[derive(Debug, PyPayload)]
    pub struct PyFastHelper {
        kind: HelperKind,
        fallback: PyObjectRef,
    }

    impl Constructor for PyFastHelper {
        type Args = (PyStrRef, PyObjectRef);

        fn py_new(
            _cls: &Py<PyType>,
            (name, fallback): Self::Args,
            vm: &VirtualMachine,
        ) -> PyResult<Self> {
            let kind = match &*name.to_string_lossy() {
                "unbroadcast" => HelperKind::Unbroadcast,
                "unreduce" => HelperKind::Unreduce,
                "matmul_grad_left" => HelperKind::MatmulGradLeft,
                "matmul_grad_right" => HelperKind::MatmulGradRight,
                "check_output" => HelperKind::CheckOutput,
                other => {
                    return Err(
                        vm.new_value_error(format!("fast_helper: no native path for `{other}`"))
                    )
                }
            };
            Ok(Self { kind, fallback })
        }
    }

    /// `numpy.full(like.shape, v, dtype=_grad_dtype(like))`: float32 arrays keep their
    /// precision, every other dtype gets a float64 gradient.
    fn grad_filled_like(like: &PyNdArray, v: f64, vm: &VirtualMachine) -> PyObjectRef {
        let dt = if like.dtype == DType::Float32 {
            DType::Float32
        } else {
            DType::Float64
        };
        new_arr(
            ArrayD::from_elem(IxDyn(&like.shape_vec()), dt.cast(v)),
            dt,
            vm,
        )
    }

    fn exact_float(obj: &PyObject, vm: &VirtualMachine) -> Option<f64> {
        obj.downcast_ref_if_exact::<PyFloat>(vm).map(|f| f.to_f64())
    }

    fn array_2d(obj: &PyObject) -> Option<PyRef<PyNdArray>> {
        obj.downcast_ref::<PyNdArray>()
            .filter(|a| a.ndim() == 2)
            .map(|a| a.to_owned())
    }

    impl PyFastHelper {
        /// The native result, or None when the Python definition must run.
        fn fast(&self, args: &[PyObjectRef], vm: &VirtualMachine) -> PyResult<Option<PyObjectRef>> {
            Ok(match (self.kind, args) {
                (HelperKind::Unbroadcast, [g, like]) => {
                    let Some(like) = like.downcast_ref::<PyNdArray>() else {
                        return Ok(None);
                    };
                    if let Some(ga) = g.downcast_ref::<PyNdArray>() {
                        // A float64 gradient of a float32 array: the Python definition
                        // gives it in float32.
                        let cast = like.dtype == DType::Float32 && ga.dtype == DType::Float64;
                        (ga.shape_vec() == like.shape_vec() && !cast).then(|| g.clone())
                    } else {
                        exact_float(g, vm).map(|v| grad_filled_like(like, v, vm))
                    }
                }
                (HelperKind::Unreduce, [g, x, _axis, _keepdims]) => {
                    match (x.downcast_ref::<PyNdArray>(), exact_float(g, vm)) {
                        (Some(x), Some(v)) => Some(grad_filled_like(x, v, vm)),
                        _ => None,
                    }
                }
                (HelperKind::MatmulGradLeft, [g, _a, b]) => match (array_2d(g), array_2d(b)) {
                    (Some(g), Some(b)) => Some(_matmul_t(g, b, false, true, vm)?),
                    _ => None,
                },
                (HelperKind::MatmulGradRight, [g, a, _b]) => match (array_2d(a), array_2d(g)) {
                    (Some(a), Some(g)) => Some(_matmul_t(a, g, true, false, vm)?),
                    _ => None,
                },
                (HelperKind::CheckOutput, [y, seed, _name]) => (exact_float(y, vm).is_some()
                    && exact_float(seed, vm).is_some())
                .then(|| vm.ctx.none()),
                _ => None,
            })
        }
    }

    impl Callable for PyFastHelper {
        type Args = FuncArgs;
        fn call(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
            if args.kwargs.is_empty() {
                if let Some(r) = zelf.fast(&args.args, vm)? {
                    return Ok(r);
                }
            }
            zelf.fallback.call(args, vm)
        }
    }

    #[pyclass(with(Constructor, Callable))]
    impl PyFastHelper {
        /// The Python definition (also what `inspect` and `help` should look at).
        #[pygetset(name = "__wrapped__")]
        fn wrapped(&self) -> PyObjectRef {
            self.fallback.clone()
        }
        #[pygetset(name = "__name__")]
        fn name(&self, vm: &VirtualMachine) -> PyResult {
            self.fallback.get_attr("__name__", vm)
        }
        #[pygetset(name = "__doc__")]
        fn doc(&self, vm: &VirtualMachine) -> PyResult {
            self.fallback.get_attr("__doc__", vm)
        }
    }
}
