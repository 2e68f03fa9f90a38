//! Reshaping and indexing: basic slices as views, advanced (integer and mask) indices
//! gathered and scattered.

use super::*;
use ndarray::{ArrayBase, ArrayD, ArrayViewD, Axis, Data, IxDyn, Slice};

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
