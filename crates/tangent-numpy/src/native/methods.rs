//! The `ndarray` methods, attributes and number/mapping slots.

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _methods {
    use crate::native::prelude::*;
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

    /// The ndarray's methods. The reductions (`a.sum(axis=..., dtype=..., keepdims=...)`
    /// and the like) differ only in their kind, so they are generated from the list at
    /// the top; RustPython's `#[pyclass]` reads the methods before `macro_rules!` inside
    /// it would expand, so the macro produces the whole block.
    macro_rules! ndarray_class {
        (
            $hash:tt $class:tt
            impl $ty:ident;
            reductions { $($name:ident => $kind:ident ($args:ident)),* $(,)? }
            $($methods:tt)*
        ) => {
            $hash $class
            impl $ty {
                $(
                    #[pymethod]
                    fn $name(zelf: PyRef<Self>, args: $args, vm: &VirtualMachine) -> PyResult {
                        do_reduce(zelf.as_object(), &args.into(), Reduce::$kind, vm)
                    }
                )*
                $($methods)*
            }
        };
    }

    ndarray_class! {
        #[pyclass(
            with(AsNumber, AsMapping, Comparable, Iterable, Representable, Constructor),
            flags(BASETYPE)
        )]
        impl PyNdArray;
        reductions {
            sum => Sum (SumArgs), prod => Prod (SumArgs), mean => Mean (MeanArgs),
            max => Max (ExtremeArgs), min => Min (ExtremeArgs), all => All (TruthArgs),
            any => Any (TruthArgs),
        }
        #[pygetset]
        fn shape(&self, vm: &VirtualMachine) -> PyTupleRef {
            self.shape_tuple(vm)
        }
        #[pygetset]
        pub(crate) fn ndim(&self) -> usize {
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
        #[pygetset]
        fn strides(&self, vm: &VirtualMachine) -> PyObjectRef {
            let items = self
                .byte_strides()
                .into_iter()
                .map(|s| vm.ctx.new_int(s).into())
                .collect();
            vm.ctx.new_tuple(items).into()
        }
        #[pygetset]
        fn flags(&self) -> PyFlags {
            let (c_contiguous, f_contiguous, owndata, writeable) = self.flag_values();
            PyFlags {
                c_contiguous,
                f_contiguous,
                owndata,
                writeable,
            }
        }
        #[pygetset(name = "T")]
        fn t(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
            if zelf.n_dims() == 2 && zelf.layout().shape.size() > 0 {
                return Ok(zelf.transposed_2d(zelf.as_object()).into_pyobject(vm));
            }
            transpose_impl(zelf.as_object(), None, vm)
        }
        #[pygetset]
        fn real(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
            Self::view(zelf, vm)
        }
        /// The imaginary part of a real array: zeros of its shape and dtype, read-only
        /// (NumPy's; a complex array is the other type, `numpy/_complex.py`).
        #[pygetset]
        fn imag(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
            let zero = PyNdArray::from_elements(Elements::full(&[], 0.0, zelf.dtype));
            let shape = vm.ctx.new_tuple(
                zelf.shape_vec()
                    .into_iter()
                    .map(|d| vm.ctx.new_int(d).into())
                    .collect(),
            );
            broadcast_to(zero.into_pyobject(vm), shape.into(), vm)
        }
        #[pygetset]
        fn flat(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyObjectRef {
            PyFlatIter { base: zelf }.into_ref(&vm.ctx).into()
        }

        #[pyslot]
        fn slot_str(zelf: &PyObject, vm: &VirtualMachine) -> PyResult<PyStrRef> {
            let z = zelf.downcast_ref::<Self>().unwrap();
            if z.n_dims() == 0 {
                let obj = with_elems!(ElemView, z.read_typed().typed(), v => v.iter().next().unwrap().to_py(vm));
                return obj.str(vm);
            }
            if let ElemView::I64(v) = z.read_typed().typed() {
                return Ok(vm.ctx.new_str(format::str(&v, z.dtype)));
            }
            let g = z.read();
            Ok(vm.ctx.new_str(format::str(&g.view(), z.dtype)))
        }
        #[pymethod]
        fn tolist(&self, vm: &VirtualMachine) -> PyObjectRef {
            let g = self.read();
            with_elems!(ElemView, g.typed(), v => tolist_rec(v, vm))
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
            let g_lock = self.read_typed();
            let args = args.into_vec();
            let n = self.len();
            if args.is_empty() {
                if n != 1 {
                    return Err(vm.new_value_error(
                        "can only convert an array of size 1 to a Python scalar",
                    ));
                }
                return Ok(with_elems!(ElemView, g_lock.typed(), g => g.iter().next().unwrap().to_py(vm)));
            }
            if args.len() == 1 {
                let i = to_isize(&args[0], vm)?;
                let ni = n as isize;
                if i < -ni || i >= ni {
                    return Err(
                        vm.new_index_error(format!("index {i} is out of bounds for size {n}"))
                    );
                }
                let iu = if i < 0 { (i + ni) as usize } else { i as usize };
                return Ok(with_elems!(ElemView, g_lock.typed(), g => g.iter().nth(iu).unwrap().to_py(vm)));
            }
            let items: Vec<IndexItem> = args
                .iter()
                .map(|o| to_isize(o, vm).map(IndexItem::Int))
                .collect::<PyResult<_>>()?;
            with_elems!(ElemView, g_lock.typed(), g => {
                let out = core::index_get(g.view(), &items).py(vm)?;
                Ok(out.iter().next().unwrap().to_py(vm))
            })
        }
        #[pymethod]
        fn astype(zelf: PyRef<Self>, dtype: PyObjectRef, vm: &VirtualMachine) -> PyResult {
            let dt = match parse_dtype(&dtype, vm) {
                Ok(dt) => dt.unwrap_or(DType::Float64),
                // A complex dtype: the complex array of these values.
                Err(e) if super::super::complex::_complex::is_complex_refusal(&e, vm) => {
                    let asarray = super::super::complex::_complex::shim_attr(
                        "numpy._complex",
                        "asarray",
                        vm,
                    )?;
                    return asarray.call((zelf, dtype), vm);
                }
                Err(e) => return Err(e),
            };
            let data = zelf.read_typed().typed().astype(dt);
            Ok(PyNdArray::from_elements(data).into_pyobject(vm))
        }
        #[pymethod]
        fn fill(&self, value: PyObjectRef, vm: &VirtualMachine) -> PyResult<()> {
            let (v, _) = scalar_of(&value, vm)
                .ok_or_else(|| vm.new_type_error("fill: value must be a number"))?;
            let exact = value
                .downcast_ref::<PyInt>()
                .and_then(|i| i.as_bigint().to_i64());
            let mut w = self.write(vm)?;
            with_elems!(ElemViewMut, w.typed_mut(), mut t => t.fill(match exact {
                Some(i) => crate::storage::cast_elem(i),
                None => Element::from_f64(v),
            }));
            Ok(())
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
        fn ravel(zelf: PyRef<Self>, order: OrderArg, vm: &VirtualMachine) -> PyResult {
            ravel_in(zelf.as_object(), order.order.into_option(), false, vm)
        }
        #[pymethod]
        fn flatten(zelf: PyRef<Self>, order: OrderArg, vm: &VirtualMachine) -> PyResult {
            ravel_in(zelf.as_object(), order.order.into_option(), true, vm)
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
                let g_lock = zelf.read_typed();
                let g = g_lock.typed();
                if zelf.n_dims() == 0 {
                    return Err(axis_err(
                        core::NpErr::Index(
                            "axis -1 is out of bounds for array of dimension 0".into(),
                        ),
                        vm,
                    ));
                }
                let ax = axis_or(&args.axis, Some(-1), zelf.n_dims(), vm)?;
                match ax {
                    Some(ax) => {
                        with_elems!(ElemView, g, v => Elements::from(ops::sort(v, Some(ax))))
                    }
                    None => {
                        return Err(
                            vm.new_value_error("axis=None is not supported for ndarray.sort")
                        )
                    }
                }
            };
            let mut w = zelf.write(vm)?;
            match (w.typed_mut(), &sorted) {
                (ElemViewMut::F64(mut t), Elements::F64(s)) => t.assign(s),
                (ElemViewMut::F32(mut t), Elements::F32(s)) => t.assign(s),
                (ElemViewMut::I64(mut t), Elements::I64(s)) => t.assign(s),
                (ElemViewMut::Bool(mut t), Elements::Bool(s)) => t.assign(s),
                _ => unreachable!("sorted in the array's own type"),
            }
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
            let dt = zelf.dtype;
            if !dt.is_float() {
                if nd >= 0 {
                    // Integers and bools are their own rounding: a copy in their type.
                    let data = zelf.read_typed().typed().astype(dt);
                    return Ok(PyNdArray::from_elements(data).into_pyobject(vm));
                }
                refuse_inexact_ints(&zelf, vm)?;
            }
            let g_lock = zelf.read();
            let g = g_lock.view();
            // NumPy: rint(x * 10**d) / 10**d, and rint(x / 10**-d) * 10**-d for d < 0
            let out = if nd >= 0 {
                let p = 10f64.powi(nd);
                g.mapv(|x| dt.cast((x * p).round_ties_even() / p))
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

    /// `a.flat`: the elements in C order, read as a flattened copy and written through to
    /// `a` (`a.flat[i] = v` changes `a`, for any layout), as NumPy's `flatiter`.
    #[pyattr]
    #[pyclass(module = "numpy", name = "flatiter")]
    #[derive(Debug, PyPayload)]
    pub struct PyFlatIter {
        base: PyRef<PyNdArray>,
    }

    impl PyFlatIter {
        /// `a.flat[index] = value`: the positions `index` picks from `arange(a.size)`,
        /// each set through `a`'s own indexing (so its dtype's casts and errors apply),
        /// the values repeated when fewer than the positions, as NumPy's.
        fn assign(&self, index: &PyObject, value: &PyObject, vm: &VirtualMachine) -> PyResult<()> {
            let size = self.base.len();
            let positions = new_arr(
                ArrayD::from_shape_fn(IxDyn(&[size]), |i| i[0] as f64),
                DType::Int64,
                vm,
            )
            .get_item(index, vm)?;
            let (positions, _) = to_array(&positions, vm)?;
            let values: PyObjectRef =
                if value.downcast_ref::<PyNdArray>().is_some() || seq_items(value).is_some() {
                    flatten_impl(value, vm)?
                } else {
                    // A scalar as given (an int past 2**53 stays exact).
                    vm.ctx.new_list(vec![value.to_owned()]).into()
                };
            let n = values.length(vm)?;
            if n == 0 {
                return Err(vm.new_value_error("cannot assign an empty sequence through flat"));
            }
            let shape = self.base.shape_vec();
            for (k, &p) in positions.iter().enumerate() {
                let mut rest = p as usize;
                let mut at = vec![0usize; shape.len()];
                for (d, &len) in shape.iter().enumerate().rev() {
                    at[d] = rest % len.max(1);
                    rest /= len.max(1);
                }
                let key: Vec<PyObjectRef> = at.iter().map(|&i| vm.ctx.new_int(i).into()).collect();
                let k: PyObjectRef = vm.ctx.new_int(k % n).into();
                let v = values.get_item(&*k, vm)?;
                let key: PyObjectRef = vm.ctx.new_tuple(key).into();
                setitem(&self.base, &key, &v, vm)?;
            }
            Ok(())
        }
    }

    impl AsMapping for PyFlatIter {
        fn as_mapping() -> &'static PyMappingMethods {
            static AS_MAPPING: PyMappingMethods = PyMappingMethods {
                length: atomic_func!(|mapping, _vm| Ok(PyFlatIter::mapping_downcast(mapping)
                    .base
                    .len())),
                subscript: atomic_func!(|mapping, needle, vm| {
                    let zelf = PyFlatIter::mapping_downcast(mapping);
                    flatten_impl(zelf.base.as_object(), vm)?.get_item(needle, vm)
                }),
                ass_subscript: atomic_func!(|mapping, needle, value, vm| {
                    let zelf = PyFlatIter::mapping_downcast(mapping);
                    match value {
                        Some(value) => zelf.assign(needle, &value, vm),
                        None => Err(vm.new_type_error("cannot delete array elements")),
                    }
                }),
            };
            &AS_MAPPING
        }
    }

    impl Iterable for PyFlatIter {
        fn iter(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
            flatten_impl(zelf.base.as_object(), vm)?
                .get_iter(vm)
                .map(Into::into)
        }
    }

    #[pyclass(with(AsMapping, Iterable))]
    impl PyFlatIter {
        #[pygetset]
        fn base(&self) -> PyRef<PyNdArray> {
            self.base.clone()
        }
        #[pymethod]
        fn copy(&self, vm: &VirtualMachine) -> PyResult {
            flatten_impl(self.base.as_object(), vm)
        }
        #[pymethod]
        fn __array__(&self, vm: &VirtualMachine) -> PyResult {
            flatten_impl(self.base.as_object(), vm)
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
                let g_lock = zelf.read_typed();
                let g = g_lock.typed();
                if zelf.n_dims() == 0 {
                    return Err(vm.new_type_error("iteration over a 0-d array"));
                }
                if zelf.n_dims() == 1 {
                    with_elems!(ElemView, g, v => v.iter().map(|x| x.to_np(vm)).collect())
                } else {
                    // rows are views, as in NumPy
                    let n = zelf.shape_vec()[0];
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

    /// NumPy's `ndarray.flags` (read only here: the embedded numpy's arrays do not change
    /// their flags in place).
    #[pyattr]
    #[pyclass(module = "numpy", name = "flagsobj")]
    #[derive(Debug, PyPayload)]
    pub struct PyFlags {
        c_contiguous: bool,
        f_contiguous: bool,
        owndata: bool,
        writeable: bool,
    }

    #[pyclass(with(Representable, AsMapping))]
    impl PyFlags {
        #[pygetset]
        fn c_contiguous(&self) -> bool {
            self.c_contiguous
        }
        #[pygetset]
        fn contiguous(&self) -> bool {
            self.c_contiguous
        }
        #[pygetset]
        fn f_contiguous(&self) -> bool {
            self.f_contiguous
        }
        #[pygetset]
        fn fortran(&self) -> bool {
            self.f_contiguous
        }
        #[pygetset]
        fn owndata(&self) -> bool {
            self.owndata
        }
        #[pygetset]
        fn writeable(&self) -> bool {
            self.writeable
        }
        #[pygetset]
        fn aligned(&self) -> bool {
            true
        }
        #[pygetset]
        fn writebackifcopy(&self) -> bool {
            false
        }
        /// Fortran-contiguous and not C-contiguous.
        #[pygetset]
        fn fnc(&self) -> bool {
            self.f_contiguous && !self.c_contiguous
        }
        /// Fortran- or C-contiguous.
        #[pygetset]
        fn forc(&self) -> bool {
            self.f_contiguous || self.c_contiguous
        }
        /// `flags['C_CONTIGUOUS']` and NumPy's other keys.
        fn item(&self, key: &str) -> Option<bool> {
            Some(match key {
                "C_CONTIGUOUS" | "C" | "CONTIGUOUS" => self.c_contiguous,
                "F_CONTIGUOUS" | "F" | "FORTRAN" => self.f_contiguous,
                "OWNDATA" | "O" => self.owndata,
                "WRITEABLE" | "W" => self.writeable,
                "ALIGNED" | "A" => true,
                "WRITEBACKIFCOPY" | "X" => false,
                "FNC" => self.fnc(),
                "FORC" => self.forc(),
                _ => return None,
            })
        }
    }

    impl AsMapping for PyFlags {
        fn as_mapping() -> &'static PyMappingMethods {
            static AS_MAPPING: PyMappingMethods = PyMappingMethods {
                length: atomic_func!(|_mapping, _vm| Ok(6)),
                subscript: atomic_func!(|mapping, needle, vm| {
                    let zelf = PyFlags::mapping_downcast(mapping);
                    let key = needle.str(vm)?;
                    match zelf.item(key.to_str().unwrap_or("")) {
                        Some(b) => Ok(vm.ctx.new_bool(b).into()),
                        None => Err(vm.new_key_error(vm.ctx.new_str("Unknown flag").into())),
                    }
                }),
                ass_subscript: atomic_func!(|_mapping, _needle, _value, vm| {
                    Err(vm.new_not_implemented_error(
                        "setting an array's flags: the embedded numpy's arrays keep theirs \
                         (use copies, or run the script in CPython)",
                    ))
                }),
            };
            &AS_MAPPING
        }
    }

    impl Representable for PyFlags {
        fn repr_str(zelf: &Py<Self>, _vm: &VirtualMachine) -> PyResult<String> {
            Ok(format!(
                "  C_CONTIGUOUS : {}\n  F_CONTIGUOUS : {}\n  OWNDATA : {}\n  WRITEABLE : {}\n  \
                 ALIGNED : True\n  WRITEBACKIFCOPY : False\n",
                cap(zelf.c_contiguous),
                cap(zelf.f_contiguous),
                cap(zelf.owndata),
                cap(zelf.writeable)
            ))
        }
    }

    fn cap(b: bool) -> &'static str {
        if b {
            "True"
        } else {
            "False"
        }
    }

    impl Representable for PyNdArray {
        fn repr_str(zelf: &Py<Self>, _vm: &VirtualMachine) -> PyResult<String> {
            if let ElemView::I64(v) = zelf.read_typed().typed() {
                return Ok(format::repr(&v, zelf.dtype));
            }
            let g = zelf.read();
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
            let (a, b) = match (to_src(zelf, vm), to_src(other, vm)) {
                (Ok(Some(a)), Ok(Some(b))) => (a, b),
                (Err(e), _) | (_, Err(e)) => {
                    return Ok(Either::A(complex_or(e, o, zelf, other, vm)?));
                }
                _ => return Ok(Either::B(PyComparisonValue::NotImplemented)),
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
                negative: Some(|num, vm| self::negative(num.obj.to_owned(), vm)),
                positive: Some(|num, vm| self::positive(num.obj.to_owned(), vm)),
                absolute: Some(|num, vm| self::absolute(num.obj.to_owned(), vm)),
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
                    if let ElemView::I64(v) = z.read_typed().typed() {
                        let r = core::map_unary(v, |x: i64| !x);
                        return Ok(PyNdArray::from_elements(Elements::I64(r)).into_pyobject(vm));
                    }
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
}
