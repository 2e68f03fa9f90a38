//! The array type: owners and views (windows on an owner's elements), locks, derived views, memory sharing, errors.

pub(crate) use self::_array::*;

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _array {
    use crate::native::prelude::*;
    /// An array: an owner of its elements, or a view (a window: offset, shape and
    /// strides in elements) on the elements of an owner.
    ///
    /// Owners (results of constructors, arithmetic, copies) keep their elements in
    /// `data`, C-ordered (standard layout) in their dtype's own type ([`Elements`]).
    /// Views (basic indexing, `.T`, `reshape` when no copy is needed, ...) keep the
    /// owner as their base, as NumPy does, and read and write the owner's `data`
    /// through their window (`data` of a view is empty and unused). Invariants: an
    /// owner's `data` keeps its shape, layout and element type for its whole life
    /// (writes go through views of it), so a window checked once stays inside it; a
    /// writeable window never maps two indices to one element (zero strides only come
    /// from `broadcast_to`, which is read-only). The layout of an array never changes.
    /// The window is boxed so that owners, the common case, stay small.
    #[pyattr]
    #[pyclass(module = "numpy", name = "ndarray", unhashable = true)]
    #[derive(Debug, PyPayload)]
    pub struct PyNdArray {
        pub(crate) data: PyRwLock<Elements>,
        pub(crate) dtype: DType,
        pub(crate) view: Option<Box<Window>>,
        /// `shape` as a tuple, made at its first read (an array's shape never changes:
        /// there is no `shape` setter; a new tuple per read cost more than the rest of
        /// `a.shape`).
        shape_tuple: std::sync::OnceLock<PyTupleRef>,
    }

    /// A view's owner and window.
    #[derive(Debug)]
    pub(crate) struct Window {
        base: PyObjectRef,
        pub(crate) lay: Layout,
        writeable: bool,
    }

    /// Offset, shape and strides (in elements) of an array in its owner's memory
    /// (strides are `isize` values stored as `usize`, as ndarray keeps them).
    #[derive(Debug, Clone)]
    pub(crate) struct Layout {
        pub(crate) offset: usize,
        pub(crate) shape: IxDyn,
        strides: IxDyn,
    }

    impl Layout {
        #[inline]
        fn len(&self) -> usize {
            self.shape.size()
        }
        #[inline]
        pub(crate) fn stride(&self, axis: usize) -> isize {
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
            let (low, high) = self.extent();
            if high < buf.len() && self.strides.slice().iter().all(|&s| s as isize >= 0) {
                // The common case (no reversed axis): the view made directly, without
                // `from_shape`'s general checks (the extent check above is the one
                // that matters).
                // SAFETY: the window's elements lie within `buf` (its highest position
                // is inside, strides are non-negative, the offset is its lowest), and
                // `buf` is borrowed for the view's lifetime.
                return unsafe {
                    ArrayViewD::from_shape_ptr(
                        self.shape.clone().strides(self.strides.clone()),
                        buf.as_ptr().add(self.offset),
                    )
                };
            }
            ArrayViewD::from_shape(
                self.shape.clone().strides(self.strides.clone()),
                &buf[low..],
            )
            .expect("array window inside its owner")
        }
        /// The writeable window on the owner's elements (`buf`).
        fn window_mut<'b, T>(&self, buf: &'b mut [T]) -> ArrayViewMutD<'b, T> {
            if self.len() == 0 {
                return ArrayViewMutD::from_shape(self.shape.clone(), &mut []).unwrap();
            }
            let (low, _) = self.extent();
            ArrayViewMutD::from_shape(
                self.shape.clone().strides(self.strides.clone()),
                &mut buf[low..],
            )
            .expect("array window inside its owner, without overlap")
        }
    }

    /// The window of `lay` (or the whole owner) on typed elements.
    fn typed_window<'b>(e: &'b Elements, lay: Option<&Layout>) -> ElemView<'b> {
        let Some(lay) = lay else {
            return e.view();
        };
        match e {
            Elements::F64(a) => ElemView::F64(lay.window(elements(a))),
            Elements::F32(a) => ElemView::F32(lay.window(elements(a))),
            Elements::I64(a) => ElemView::I64(lay.window(elements(a))),
            Elements::Bool(a) => ElemView::Bool(lay.window(elements(a))),
        }
    }

    fn typed_window_mut<'b>(e: &'b mut Elements, lay: Option<&Layout>) -> ElemViewMut<'b> {
        fn win<'c, T>(a: &'c mut ArrayD<T>, lay: Option<&Layout>) -> ArrayViewMutD<'c, T> {
            match lay {
                None => a.view_mut(),
                Some(lay) => lay.window_mut(
                    a.as_slice_mut()
                        .expect("an owner's elements are in standard layout"),
                ),
            }
        }
        match e {
            Elements::F64(a) => ElemViewMut::F64(win(a, lay)),
            Elements::F32(a) => ElemViewMut::F32(win(a, lay)),
            Elements::I64(a) => ElemViewMut::I64(win(a, lay)),
            Elements::Bool(a) => ElemViewMut::Bool(win(a, lay)),
        }
    }

    /// A read lock on an array's elements; `typed()` is the array's window in its
    /// element type, `view()` the window as f64 (the elements themselves for float64
    /// arrays, a converted copy made when the lock is taken for the other dtypes).
    pub struct ArrRead<'a> {
        g: PyRwLockReadGuard<'a, Elements>,
        a: &'a PyNdArray,
        converted: Option<ArrayD<f64>>,
    }

    impl ArrRead<'_> {
        #[inline]
        pub fn view(&self) -> ArrayViewD<'_, f64> {
            if let Some(c) = &self.converted {
                return c.view();
            }
            let Elements::F64(a) = &*self.g else {
                unreachable!("non-float64 elements are converted when read")
            };
            match &self.a.view {
                None => a.view(),
                Some(w) => w.lay.window(elements(a)),
            }
        }
        /// The window in the element type.
        #[inline]
        pub fn typed(&self) -> ElemView<'_> {
            typed_window(&self.g, self.a.view.as_ref().map(|w| &w.lay))
        }
    }

    /// A read lock on an array's elements that gives only their typed window (no
    /// conversion to f64 is made).
    pub struct ArrTyped<'a> {
        g: PyRwLockReadGuard<'a, Elements>,
        a: &'a PyNdArray,
    }

    impl ArrTyped<'_> {
        #[inline]
        pub fn typed(&self) -> ElemView<'_> {
            typed_window(&self.g, self.a.view.as_ref().map(|w| &w.lay))
        }
    }

    /// An owner's elements in memory (C) order.
    #[inline]
    pub(crate) fn elements<T>(a: &ArrayD<T>) -> &[T] {
        a.as_slice()
            .expect("an owner's elements are in standard layout")
    }

    /// A write lock on an array's elements (only for writeable arrays). `view_mut()`
    /// of a non-float64 array is a converted copy of the window; the elements changed
    /// in it are cast back into the array when the lock is released (the unchanged ones
    /// are left as they were, so int64 values past 2**53 survive).
    pub struct ArrWrite<'a> {
        g: PyRwLockWriteGuard<'a, Elements>,
        a: &'a PyNdArray,
        shadow: Option<(ArrayD<f64>, ArrayD<f64>)>,
    }

    impl ArrWrite<'_> {
        #[inline]
        pub fn view_mut(&mut self) -> ArrayViewMutD<'_, f64> {
            let lay = self.a.view.as_ref().map(|w| &w.lay);
            if !matches!(&*self.g, Elements::F64(_)) {
                if self.shadow.is_none() {
                    let cur = typed_window(&self.g, lay).to_f64();
                    self.shadow = Some((cur.clone(), cur));
                }
                return self.shadow.as_mut().unwrap().0.view_mut();
            }
            let ElemViewMut::F64(v) = typed_window_mut(&mut self.g, lay) else {
                unreachable!()
            };
            v
        }
        /// The window in the element type.
        pub fn typed_mut(&mut self) -> ElemViewMut<'_> {
            self.write_back();
            let lay = self.a.view.as_ref().map(|w| &w.lay);
            typed_window_mut(&mut self.g, lay)
        }
        /// Sets the element at a position of the owner's memory (cast to its type).
        pub(crate) fn set_at(&mut self, pos: usize, x: f64) {
            self.write_back();
            with_elems!(Elements, &mut *self.g, a => {
                a.as_slice_mut()
                    .expect("an owner's elements are in standard layout")[pos] =
                    Element::from_f64(x)
            })
        }
        fn write_back(&mut self) {
            let Some((cur, orig)) = self.shadow.take() else {
                return;
            };
            let lay = self.a.view.as_ref().map(|w| &w.lay);
            fn back<T: Element>(
                mut t: ArrayViewMutD<'_, T>,
                cur: &ArrayD<f64>,
                orig: &ArrayD<f64>,
            ) {
                ndarray::Zip::from(&mut t)
                    .and(cur)
                    .and(orig)
                    .for_each(|t, &c, &o| {
                        if c.to_bits() != o.to_bits() {
                            *t = T::from_f64(c);
                        }
                    });
            }
            with_elems!(ElemViewMut, typed_window_mut(&mut self.g, lay), t => back(t, &cur, &orig))
        }
    }

    impl Drop for ArrWrite<'_> {
        fn drop(&mut self) {
            self.write_back();
        }
    }

    /// What a view-making operation produced: a window on the source's memory (the
    /// pointer of its first element, shape and strides), or a copy.
    pub(crate) enum Derived {
        View {
            ptr: usize,
            shape: Vec<usize>,
            strides: Vec<isize>,
        },
        Copy(ArrayD<f64>),
    }

    pub(crate) fn derived<S: ndarray::RawData<Elem = f64>>(
        v: &ndarray::ArrayBase<S, IxDyn>,
    ) -> Derived {
        Derived::View {
            ptr: v.as_ptr() as usize,
            shape: v.shape().to_vec(),
            strides: v.strides().to_vec(),
        }
    }

    impl PyNdArray {
        /// An owner of values computed in f64, stored in `dtype`.
        pub fn new(data: ArrayD<f64>, dtype: DType) -> Self {
            Self::from_elements(Elements::from_f64(data, dtype))
        }
        /// An owner of typed elements (its dtype is theirs).
        pub fn from_elements(data: Elements) -> Self {
            let data = with_elems!(Elements, data, a => {
                if a.is_standard_layout() {
                    Elements::from(a)
                } else {
                    Elements::from(core::to_standard(a.view()))
                }
            });
            PyNdArray {
                dtype: data.dtype(),
                data: PyRwLock::new(data),
                view: None,
                shape_tuple: std::sync::OnceLock::new(),
            }
        }
        /// The owner's elements.
        #[inline]
        fn buf(&self) -> &PyRwLock<Elements> {
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
        pub(crate) fn base_obj(&self) -> Option<&PyObjectRef> {
            self.view.as_ref().map(|w| &w.base)
        }
        fn writeable(&self) -> bool {
            self.view.as_ref().is_none_or(|w| w.writeable)
        }
        pub(crate) fn layout(&self) -> Layout {
            match &self.view {
                Some(w) => w.lay.clone(),
                None => {
                    let shape = self.data.read().raw_dim();
                    let strides = shape.default_strides();
                    Layout {
                        offset: 0,
                        shape,
                        strides,
                    }
                }
            }
        }
        /// NumPy's `flags`: (C-contiguous, Fortran-contiguous, owns its data, writeable).
        /// Axes of length 1 do not count, and an empty array is both contiguous kinds.
        pub(crate) fn flag_values(&self) -> (bool, bool, bool, bool) {
            let lay = self.layout();
            let dims = lay.shape.slice();
            let strides: Vec<isize> = (0..dims.len()).map(|k| lay.stride(k)).collect();
            let contiguous = |order: &mut dyn Iterator<Item = usize>| {
                if dims.contains(&0) {
                    return true;
                }
                let mut expected = 1isize;
                for k in order {
                    if dims[k] != 1 {
                        if strides[k] != expected {
                            return false;
                        }
                        expected *= dims[k] as isize;
                    }
                }
                true
            };
            let c = contiguous(&mut (0..dims.len()).rev());
            let f = contiguous(&mut (0..dims.len()));
            (c, f, self.view.is_none(), self.writeable())
        }
        /// NumPy's `strides`: bytes between neighbours along each axis.
        pub(crate) fn byte_strides(&self) -> Vec<isize> {
            let lay = self.layout();
            let size = self.dtype.itemsize() as isize;
            (0..lay.shape.ndim())
                .map(|k| lay.stride(k) * size)
                .collect()
        }
        /// The element type.
        pub fn array_dtype(&self) -> DType {
            self.dtype
        }
        /// `shape` as a Python tuple (the same one at every read).
        pub(crate) fn shape_tuple(&self, vm: &VirtualMachine) -> PyTupleRef {
            self.shape_tuple
                .get_or_init(|| shape_tuple_obj(&self.shape_vec(), vm))
                .clone()
        }
        /// The shape.
        pub fn shape_vec(&self) -> Vec<usize> {
            match &self.view {
                Some(w) => w.lay.shape.slice().to_vec(),
                None => self.data.read().shape().to_vec(),
            }
        }
        #[inline]
        pub(crate) fn len(&self) -> usize {
            match &self.view {
                Some(w) => w.lay.len(),
                None => self.data.read().len(),
            }
        }
        #[inline]
        pub(crate) fn n_dims(&self) -> usize {
            match &self.view {
                Some(w) => w.lay.shape.ndim(),
                None => self.data.read().shape().len(),
            }
        }
        #[inline]
        pub fn read(&self) -> ArrRead<'_> {
            let g = self.buf().read();
            let converted = (!matches!(&*g, Elements::F64(_)))
                .then(|| typed_window(&g, self.view.as_ref().map(|w| &w.lay)).to_f64());
            ArrRead {
                g,
                a: self,
                converted,
            }
        }
        /// `f` of the elements of a C-ordered float64 array and its shape, under the read
        /// lock; None for other dtypes and layouts (the elementwise fast paths).
        pub(crate) fn with_f64_slice<R>(&self, f: impl FnOnce(&[f64], IxDyn) -> R) -> Option<R> {
            if self.dtype != DType::Float64 {
                return None;
            }
            let g = self.read_typed();
            let ElemView::F64(v) = g.typed() else {
                return None;
            };
            Some(f(v.as_slice()?, v.raw_dim()))
        }
        /// A read lock for typed kernels.
        #[inline]
        pub fn read_typed(&self) -> ArrTyped<'_> {
            ArrTyped {
                g: self.buf().read(),
                a: self,
            }
        }
        /// The element at a position of the owner's memory, as a Python scalar.
        pub(crate) fn scalar_at(&self, pos: usize, vm: &VirtualMachine) -> PyObjectRef {
            with_elems!(Elements, &*self.buf().read(), a => elements(a)[pos].to_np(vm))
        }
        /// Write access; `ValueError(msg)` for read-only arrays (`broadcast_to`).
        pub(crate) fn write_or(&self, msg: &str, vm: &VirtualMachine) -> PyResult<ArrWrite<'_>> {
            if !self.writeable() {
                return Err(vm.new_value_error(msg.to_owned()));
            }
            Ok(ArrWrite {
                g: self.buf().write(),
                a: self,
                shadow: None,
            })
        }
        pub(crate) fn write(&self, vm: &VirtualMachine) -> PyResult<ArrWrite<'_>> {
            self.write_or("assignment destination is read-only", vm)
        }
        /// Whether two arrays use the same owner's memory.
        pub(crate) fn shares_buffer(&self, other: &PyNdArray) -> bool {
            std::ptr::eq(self.buf(), other.buf())
        }
        /// A new array object for what `f` derived from this array's window: a view
        /// on the same owner (read-only if `readonly` or if this array is), or a copy.
        ///
        /// `f` sees the window as f64. For the other element types it sees the window
        /// on the owner's positions (0, 1, 2, ... as f64) instead, which has the same
        /// geometry: a view it derives is placed by its offset in that buffer, and a
        /// copy it makes holds positions, whose elements are then gathered in their
        /// own type (so no value passes through f64).
        pub(crate) fn derive(
            &self,
            this: &PyObject,
            readonly: bool,
            f: impl FnOnce(ArrayViewD<'_, f64>) -> PyResult<Derived>,
        ) -> PyResult<PyNdArray> {
            let g = self.buf().read();
            let lay = self.view.as_ref().map(|w| &w.lay);
            let positions;
            let buf: &[f64] = match &*g {
                Elements::F64(a) => elements(a),
                other => {
                    positions = (0..other.len()).map(|p| p as f64).collect::<Vec<f64>>();
                    &positions
                }
            };
            let window = match lay {
                Some(lay) => lay.window(buf),
                None => ArrayViewD::from_shape(g.raw_dim(), buf).expect("owner in standard layout"),
            };
            let d = f(window)?;
            let (ptr, shape, strides) = match d {
                Derived::Copy(a) => {
                    return Ok(match &*g {
                        Elements::F64(_) => PyNdArray::new(a, self.dtype),
                        other => PyNdArray::from_elements(with_elems!(Elements, other, e => {
                            let src = elements(e);
                            Elements::from(a.mapv(|p| src[p as usize]))
                        })),
                    })
                }
                Derived::View {
                    ptr,
                    shape,
                    strides,
                } => (ptr, shape, strides),
            };
            let n: usize = shape.iter().product();
            if n == 0 {
                return Ok(PyNdArray::from_elements(
                    Elements::F64(ArrayD::zeros(IxDyn(&shape))).astype(self.dtype),
                ));
            }
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
            Ok(self.view_with(this, lay, readonly))
        }

        /// A view of `self` (`this`) with layout `lay` in the owner's memory, which the
        /// caller has checked lies within it.
        fn view_with(&self, this: &PyObject, lay: Layout, readonly: bool) -> PyNdArray {
            PyNdArray {
                // A view's own elements are never read: an empty placeholder (built
                // without an allocation or a strides computation).
                data: PyRwLock::new(Elements::F64(
                    ndarray::Array1::from_vec(Vec::new()).into_dyn(),
                )),
                dtype: self.dtype,
                view: Some(Box::new(Window {
                    base: self.base_obj().cloned().unwrap_or_else(|| this.to_owned()),
                    lay,
                    writeable: self.writeable() && !readonly,
                })),
                shape_tuple: std::sync::OnceLock::new(),
            }
        }

        /// `a[start::step]` for `len` (at least 1) elements of a 1-d array, whose
        /// positions `slice_indices` has put within it: a view made from the layout
        /// directly (the general path builds it through ndarray's slicing).
        pub(crate) fn slice_1d(
            &self,
            this: &PyObject,
            start: isize,
            step: isize,
            len: usize,
        ) -> PyNdArray {
            // (An owner's offset is 0 and a 1-d owner's stride 1: no layout built.)
            let (offset, stride) = match &self.view {
                Some(w) => (w.lay.offset, w.lay.stride(0)),
                None => (0, 1),
            };
            let lay = Layout {
                offset: (offset as isize + start * stride) as usize,
                shape: IxDyn(&[len]),
                strides: IxDyn(&[(stride * step) as usize]),
            };
            self.view_with(this, lay, false)
        }

        /// `a.T` of a 2-d array: the view with its axes swapped.
        pub(crate) fn transposed_2d(&self, this: &PyObject) -> PyNdArray {
            let lay = self.layout();
            let (s, t) = (lay.strides[0], lay.strides[1]);
            let lay = Layout {
                offset: lay.offset,
                shape: IxDyn(&[lay.shape[1], lay.shape[0]]),
                strides: IxDyn(&[t, s]),
            };
            self.view_with(this, lay, false)
        }
    }

    /// `f` applied to the window of `obj` (array-likes are converted to a new array
    /// first, which becomes the base).
    pub(crate) fn view_op(
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
    pub(crate) fn positions(a: &PyNdArray) -> Vec<usize> {
        let n = a.buf().read().len();
        let idx: Vec<usize> = (0..n).collect();
        a.layout().window(&idx).iter().copied().collect()
    }

    /// Extent (lowest, highest position) of a non-empty array in its owner's memory.
    pub(crate) fn extent(a: &PyNdArray) -> Option<(usize, usize)> {
        let lay = a.layout();
        if lay.len() == 0 {
            return None;
        }
        Some(lay.extent())
    }

    pub(crate) fn may_share(a: &PyObject, b: &PyObject, exact: bool) -> bool {
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
    pub(crate) fn may_share_memory(
        a: PyObjectRef,
        b: PyObjectRef,
        _max_work: OptionalArg<PyObjectRef>,
    ) -> bool {
        may_share(&a, &b, false)
    }

    /// `np.shares_memory(a, b)`: whether some element is in both (exact).
    #[pyfunction]
    pub(crate) fn shares_memory(
        a: PyObjectRef,
        b: PyObjectRef,
        _max_work: OptionalArg<PyObjectRef>,
    ) -> bool {
        may_share(&a, &b, true)
    }

    pub(crate) fn new_arr(data: ArrayD<f64>, dtype: DType, vm: &VirtualMachine) -> PyObjectRef {
        PyNdArray::new(data, dtype).into_pyobject(vm)
    }

    /// An element as the Python scalar NumPy's `item()` gives (`to_py`), or as the NumPy
    /// scalar that indexing and reductions give (`to_np`: float64 and float32 elements are
    /// `numpy.float64` and `numpy.float32`; int64 and bool are Python scalars here).
    pub(crate) trait ToPyScalar: Sized {
        fn to_py(self, vm: &VirtualMachine) -> PyObjectRef;
        fn to_np(self, vm: &VirtualMachine) -> PyObjectRef {
            self.to_py(vm)
        }
    }
    impl ToPyScalar for f64 {
        fn to_py(self, vm: &VirtualMachine) -> PyObjectRef {
            vm.ctx.new_float(self).into()
        }
        fn to_np(self, vm: &VirtualMachine) -> PyObjectRef {
            new_float64(self, vm)
        }
    }
    impl ToPyScalar for f32 {
        fn to_py(self, vm: &VirtualMachine) -> PyObjectRef {
            vm.ctx.new_float(self as f64).into()
        }
        fn to_np(self, vm: &VirtualMachine) -> PyObjectRef {
            new_float32(self, vm)
        }
    }
    impl ToPyScalar for i64 {
        fn to_py(self, vm: &VirtualMachine) -> PyObjectRef {
            vm.ctx.new_int(self).into()
        }
    }
    impl ToPyScalar for bool {
        fn to_py(self, vm: &VirtualMachine) -> PyObjectRef {
            vm.ctx.new_bool(self).into()
        }
    }

    /// The NumPy scalar of a value in a dtype (a float32 result is rounded to float32).
    pub(crate) fn py_scalar(x: f64, dtype: DType, vm: &VirtualMachine) -> PyObjectRef {
        match dtype {
            DType::Float64 => new_float64(x, vm),
            DType::Float32 => new_float32(x as f32, vm),
            DType::Int64 => vm.ctx.new_int(i64::from_f64(x)).into(),
            DType::Bool => vm.ctx.new_bool(x != 0.0).into(),
        }
    }

    /// A 0-d result becomes a Python scalar, anything else an ndarray.
    pub(crate) fn arr_or_scalar(
        data: ArrayD<f64>,
        dtype: DType,
        vm: &VirtualMachine,
    ) -> PyObjectRef {
        if data.ndim() == 0 {
            py_scalar(*data.iter().next().unwrap(), dtype, vm)
        } else {
            new_arr(data, dtype, vm)
        }
    }

    /// A typed result: a Python scalar if 0-d, else an ndarray.
    pub(crate) fn typed_arr_or_scalar<T: Element + ToPyScalar>(
        data: ArrayD<T>,
        vm: &VirtualMachine,
    ) -> PyObjectRef {
        if data.ndim() == 0 {
            data.iter().next().unwrap().to_np(vm)
        } else {
            PyNdArray::from_elements(T::wrap(data)).into_pyobject(vm)
        }
    }

    pub(crate) fn np_err(
        e: NpErr,
        vm: &VirtualMachine,
    ) -> rustpython_vm::builtins::PyBaseExceptionRef {
        match e {
            NpErr::Value(m) => vm.new_value_error(m),
            NpErr::Index(m) => vm.new_index_error(m),
            NpErr::Type(m) => vm.new_type_error(m),
            NpErr::LinAlg(m) => linalg_error(m, vm),
            NpErr::Unsupported(m) => vm.new_not_implemented_error(m),
        }
    }

    pub(crate) trait OrPyErr<T> {
        fn py(self, vm: &VirtualMachine) -> PyResult<T>;
    }
    impl<T> OrPyErr<T> for core::NpResult<T> {
        fn py(self, vm: &VirtualMachine) -> PyResult<T> {
            self.map_err(|e| np_err(e, vm))
        }
    }
}
