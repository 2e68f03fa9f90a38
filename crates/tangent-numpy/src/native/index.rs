//! Indexing: basic and advanced item reads and writes.

pub(crate) use self::_index::*;

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _index {
    use crate::native::prelude::*;
    pub(crate) fn index_item(obj: &PyObject, vm: &VirtualMachine) -> PyResult<IndexItem> {
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
        if let Some(a) = obj.downcast_ref::<PyNdArray>() {
            // Read in the array's own type: int64 indices stay exact, and no float
            // copy is made.
            let lock = a.read_typed();
            return match lock.typed() {
                ElemView::I64(v) => Ok(IndexItem::Array(std::sync::Arc::new(
                    v.mapv(|x| x as isize),
                ))),
                ElemView::Bool(v) => Ok(IndexItem::Mask(v.to_owned())),
                _ => Err(vm.new_index_error(
                    "arrays used as indices must be of integer (or boolean) type",
                )),
            };
        }
        let (arr, dt) = if obj.downcast_ref::<PyList>().is_some() {
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
            DType::Int64 => Ok(IndexItem::Array(std::sync::Arc::new(
                arr.mapv(|x| x as isize),
            ))),
            DType::Float64 | DType::Float32 => {
                Err(vm
                    .new_index_error("arrays used as indices must be of integer (or boolean) type"))
            }
        }
    }

    pub(crate) fn a_is_empty_list(obj: &PyObject) -> bool {
        obj.downcast_ref::<PyList>()
            .is_some_and(|l| l.borrow_vec().is_empty())
    }

    pub(crate) fn index_items(key: &PyObject, vm: &VirtualMachine) -> PyResult<Vec<IndexItem>> {
        if let Some(t) = key.downcast_ref::<PyTuple>() {
            return t.as_slice().iter().map(|o| index_item(o, vm)).collect();
        }
        Ok(vec![index_item(key, vm)?])
    }

    pub(crate) fn getitem(zelf: &Py<PyNdArray>, key: &PyObject, vm: &VirtualMachine) -> PyResult {
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
                    return Ok(zelf.scalar_at(pos as usize, vm));
                }
                let sub = zelf.derive(zelf.as_object(), false, |v| {
                    Ok(derived(&v.index_axis_move(Axis(0), iu)))
                })?;
                return Ok(sub.into_pyobject(vm));
            }
        }
        // fast path: a[i:j:k] of a 1-d array, a view made from its layout
        if key.downcast_ref::<PySlice>().is_some() && zelf.n_dims() == 1 {
            if let IndexItem::Slice(start, stop, step) = index_item(key, vm)? {
                let n = zelf.len();
                let (start, step, len) = core::slice_indices(start, stop, step, n).py(vm)?;
                if len > 0 {
                    return Ok(zelf
                        .slice_1d(zelf.as_object(), start, step, len)
                        .into_pyobject(vm));
                }
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
            return Ok(zelf.scalar_at(pos as usize, vm));
        }
        // basic indexing gives a view, advanced indexing a copy
        let out = zelf.derive(zelf.as_object(), false, |v| {
            match core::index_view(v.clone(), &items).py(vm)? {
                Some(w) => Ok(derived(&w)),
                None => Ok(Derived::Copy(core::index_get(v, &items).py(vm)?)),
            }
        })?;
        // One element is a scalar, but through `...` NumPy gives the 0-d view.
        if out.ndim() == 0 && !items.iter().any(|it| matches!(it, IndexItem::Ellipsis)) {
            return Ok(
                with_elems!(ElemView, out.read().typed(), v => v.iter().next().unwrap().to_np(vm)),
            );
        }
        Ok(out.into_pyobject(vm))
    }

    pub(crate) fn setitem(
        zelf: &Py<PyNdArray>,
        key: &PyObject,
        value: &PyObject,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        let dt = zelf.dtype;
        if value
            .downcast_ref::<rustpython_vm::builtins::PyComplex>()
            .is_some()
        {
            // A complex number into a real array: NumPy's TypeError (its conversion of
            // the element), not the refusal of complex input.
            let kind = if dt.is_float() { "float" } else { "int" };
            return Err(vm.new_type_error(format!(
                "{kind}() argument must be a string or a real number, not 'complex'"
            )));
        }
        if dt == DType::Int64 {
            // Values assigned to an int64 array keep every bit (also past 2**53).
            let val = match value.downcast_ref::<PyNdArray>() {
                Some(v) => v.read_typed().typed().cast_to::<i64>().into_owned(),
                None => exact_i64(value, vm)?,
            };
            let items = index_items(key, vm)?;
            let mut w = zelf.write(vm)?;
            let ElemViewMut::I64(t) = w.typed_mut() else {
                unreachable!("an int64 array stores i64")
            };
            return core::index_set(t, &items, val.view()).py(vm);
        }
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
                w.set_at(pos as usize, *val.iter().next().unwrap());
                return Ok(());
            }
        }
        let items = index_items(key, vm)?;
        let mut w = zelf.write(vm)?;
        core::index_set(w.view_mut(), &items, val.view()).py(vm)
    }

    pub(crate) fn tolist_rec<T: Element + ToPyScalar>(
        v: ArrayViewD<'_, T>,
        vm: &VirtualMachine,
    ) -> PyObjectRef {
        if v.ndim() == 0 {
            return v.iter().next().unwrap().to_py(vm);
        }
        let items: Vec<PyObjectRef> = v.outer_iter().map(|s| tolist_rec(s, vm)).collect();
        vm.ctx.new_list(items).into()
    }

    /// The value of a 0-d array for `float()`/`int()` (NumPy 2 refuses other shapes,
    /// size-1 arrays included).
    pub(crate) fn scalar_value(zelf: &PyNdArray, vm: &VirtualMachine) -> PyResult<f64> {
        let g_lock = zelf.read();
        let g = g_lock.view();
        if g.ndim() != 0 {
            return Err(
                vm.new_type_error("only 0-dimensional arrays can be converted to Python scalars")
            );
        }
        Ok(*g.iter().next().unwrap())
    }
}
