//! Interpreter-independent array operations beyond `core/`: sorting, contractions
//! (`tensordot`, `einsum`), diagonals, and shape functions (`split`, `tile`, `repeat`,
//! `flip`, `roll`, `pad`, `moveaxis`).

use super::core::{mm2, norm_axis, to_standard, value_err, NpErr, NpResult};
use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn};
use std::cmp::Ordering;

// ---------------------------------------------------------------- helpers

/// Ascending order with NaN last (NumPy's sort order).
#[inline]
pub fn nan_last_cmp(a: &f64, b: &f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (false, false) => a.partial_cmp(b).unwrap(),
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
    }
}

/// `nan_last_cmp` for any ordered element type (NaN is the value unequal to itself).
#[allow(clippy::eq_op)]
pub fn nan_last_cmp_any<T: PartialOrd>(a: &T, b: &T) -> Ordering {
    match (a != a, b != b) {
        (false, false) => a.partial_cmp(b).unwrap_or(Ordering::Equal),
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
    }
}

fn inverse_perm(p: &[usize]) -> Vec<usize> {
    let mut inv = vec![0; p.len()];
    for (i, &x) in p.iter().enumerate() {
        inv[x] = i;
    }
    inv
}

/// Applies `f(lane_in, lane_out)` to every 1-D lane along `axis`.
fn map_lanes<T: Copy, U: Copy + Default>(
    a: ArrayViewD<'_, T>,
    axis: usize,
    out_len: usize,
    mut f: impl FnMut(&[T], &mut [U]),
) -> ArrayD<U> {
    let nd = a.ndim();
    let mut perm: Vec<usize> = (0..nd).filter(|&i| i != axis).collect();
    perm.push(axis);
    let p = to_standard(a.view().permuted_axes(IxDyn(&perm)));
    let n = a.shape()[axis];
    let lanes: usize = a
        .shape()
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != axis)
        .map(|(_, &d)| d)
        .product();
    let mut out = vec![U::default(); lanes * out_len];
    let src = p.as_slice().unwrap();
    for l in 0..lanes {
        f(
            &src[l * n..(l + 1) * n],
            &mut out[l * out_len..(l + 1) * out_len],
        );
    }
    let mut pshape: Vec<usize> = perm.iter().map(|&i| a.shape()[i]).collect();
    *pshape.last_mut().unwrap() = out_len;
    let o = ArrayD::from_shape_vec(IxDyn(&pshape), out).unwrap();
    to_standard(o.view().permuted_axes(IxDyn(&inverse_perm(&perm))))
}

fn flat<T: Copy>(a: ArrayViewD<'_, T>) -> ArrayD<T> {
    let v: Vec<T> = a.iter().copied().collect();
    let n = v.len();
    ArrayD::from_shape_vec(IxDyn(&[n]), v).unwrap()
}

// ---------------------------------------------------------------- sorting

/// Sort along `axis` (`None`: the flattened array), NaN last: float64 and int64 lanes
/// by their bits (`radix`), others by a stable comparison sort.
pub fn sort<T: Copy + Default + PartialOrd + 'static>(
    a: ArrayViewD<'_, T>,
    axis: Option<usize>,
) -> ArrayD<T> {
    let flat_a;
    let (a, axis) = match axis {
        Some(ax) => (a.view(), ax),
        None => {
            flat_a = flat(a);
            (flat_a.view(), 0)
        }
    };
    if a.ndim() == 0 {
        return a.to_owned();
    }
    let n = a.shape()[axis];
    use std::any::TypeId;
    let sort_lane = |dst: &mut [T]| {
        let (ptr, len) = (dst.as_mut_ptr(), dst.len());
        if TypeId::of::<T>() == TypeId::of::<f64>() {
            // SAFETY: T is f64 (checked just above).
            return crate::radix::sort_f64(unsafe {
                std::slice::from_raw_parts_mut(ptr as *mut f64, len)
            });
        }
        if TypeId::of::<T>() == TypeId::of::<i64>() {
            // SAFETY: T is i64 (checked just above).
            return crate::radix::sort_i64(unsafe {
                std::slice::from_raw_parts_mut(ptr as *mut i64, len)
            });
        }
        dst.sort_by(nan_last_cmp_any);
    };
    if let (true, Some(src)) = (axis + 1 == a.ndim(), a.as_slice()) {
        // The last axis of a C-order array: its lanes sorted in one copy.
        let mut out = src.to_vec();
        if n > 0 {
            out.chunks_mut(n).for_each(sort_lane);
        }
        return ArrayD::from_shape_vec(a.raw_dim(), out).expect("same size");
    }
    map_lanes(a.view(), axis, n, |src, dst| {
        dst.copy_from_slice(src);
        sort_lane(dst)
    })
}

/// Indices that sort along `axis` (stable), as f64 values: each lane ordered by
/// `lane_order` (`radix::argsort_f64` or `radix::argsort_i64`).
pub fn argsort<T: Copy>(
    a: ArrayViewD<'_, T>,
    axis: Option<usize>,
    lane_order: fn(&[T]) -> Vec<usize>,
) -> ArrayD<f64> {
    let (a, axis) = match axis {
        Some(ax) => (a.to_owned(), ax),
        None => (flat(a), 0),
    };
    if a.ndim() == 0 {
        return ArrayD::zeros(IxDyn(&[]));
    }
    let n = a.shape()[axis];
    map_lanes(a.view(), axis, n, |src, dst| {
        for (d, i) in dst.iter_mut().zip(lane_order(src)) {
            *d = i as f64;
        }
    })
}

// ---------------------------------------------------------------- diagonals

/// `np.diagonal`: removes `axis1`/`axis2` and appends the diagonal as the last axis.
pub fn diagonal(
    a: ArrayViewD<'_, f64>,
    offset: isize,
    axis1: usize,
    axis2: usize,
) -> NpResult<ArrayD<f64>> {
    if axis1 == axis2 {
        return value_err("axis1 and axis2 cannot be the same");
    }
    let nd = a.ndim();
    let mut perm: Vec<usize> = (0..nd).filter(|&i| i != axis1 && i != axis2).collect();
    perm.push(axis1);
    perm.push(axis2);
    let p = a.permuted_axes(IxDyn(&perm));
    let (n1, n2) = (p.shape()[nd - 2], p.shape()[nd - 1]);
    let (r0, c0) = if offset >= 0 {
        (0usize, offset as usize)
    } else {
        ((-offset) as usize, 0usize)
    };
    let len = if r0 >= n1 || c0 >= n2 {
        0
    } else {
        (n1 - r0).min(n2 - c0)
    };
    let mut shape: Vec<usize> = p.shape()[..nd - 2].to_vec();
    let outer: usize = shape.iter().product();
    shape.push(len);
    let mut data = Vec::with_capacity(outer * len);
    let p2 = to_standard(p);
    let p3 = p2.into_shape_with_order(IxDyn(&[outer, n1, n2])).unwrap();
    for o in 0..outer {
        for k in 0..len {
            data.push(p3[[o, r0 + k, c0 + k]]);
        }
    }
    Ok(ArrayD::from_shape_vec(IxDyn(&shape), data).unwrap())
}

/// `np.diag`: a 1-D input builds a matrix, a 2-D input extracts a diagonal.
pub fn diag(v: ArrayViewD<'_, f64>, k: isize) -> NpResult<ArrayD<f64>> {
    match v.ndim() {
        1 => {
            let m = v.len();
            let n = m + k.unsigned_abs();
            let mut out = ArrayD::zeros(IxDyn(&[n, n]));
            for (i, &x) in v.iter().enumerate() {
                let (r, c) = if k >= 0 {
                    (i, i + k as usize)
                } else {
                    (i + (-k) as usize, i)
                };
                out[[r, c]] = x;
            }
            Ok(out)
        }
        2 => diagonal(v, k, 0, 1),
        _ => value_err("Input must be 1- or 2-d."),
    }
}

// ---------------------------------------------------------------- contractions

/// Contracts `a` and `b` over paired axes (`np.tensordot` with explicit axis lists).
pub fn tensordot(
    a: ArrayViewD<'_, f64>,
    b: ArrayViewD<'_, f64>,
    axa: &[usize],
    axb: &[usize],
) -> NpResult<ArrayD<f64>> {
    if axa.len() != axb.len() {
        return value_err("shape-mismatch for sum");
    }
    for (&i, &j) in axa.iter().zip(axb) {
        if a.shape()[i] != b.shape()[j] {
            return value_err("shape-mismatch for sum");
        }
    }
    let free_a: Vec<usize> = (0..a.ndim()).filter(|i| !axa.contains(i)).collect();
    let free_b: Vec<usize> = (0..b.ndim()).filter(|i| !axb.contains(i)).collect();
    let k: usize = axa.iter().map(|&i| a.shape()[i]).product();
    let m: usize = free_a.iter().map(|&i| a.shape()[i]).product();
    let n: usize = free_b.iter().map(|&i| b.shape()[i]).product();
    let mut pa = free_a.clone();
    pa.extend_from_slice(axa);
    let mut pb = axb.to_vec();
    pb.extend_from_slice(&free_b);
    let am = to_standard(a.view().permuted_axes(IxDyn(&pa)))
        .into_shape_with_order((m, k))
        .unwrap();
    let bm = to_standard(b.view().permuted_axes(IxDyn(&pb)))
        .into_shape_with_order((k, n))
        .unwrap();
    let r = mm2(am.view(), bm.view());
    let mut shape: Vec<usize> = free_a.iter().map(|&i| a.shape()[i]).collect();
    shape.extend(free_b.iter().map(|&i| b.shape()[i]));
    Ok(r.into_dyn().into_shape_with_order(IxDyn(&shape)).unwrap())
}

/// An einsum operand: data with one label per axis (labels unique).
struct Term {
    data: ArrayD<f64>,
    labels: Vec<char>,
}

fn einsum_err<T>(msg: impl Into<String>) -> NpResult<T> {
    Err(NpErr::Value(msg.into()))
}

/// Parses one subscript term into labels, with `None` marking the ellipsis.
fn parse_term(s: &str) -> NpResult<Vec<Option<char>>> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    let mut seen_ellipsis = false;
    while let Some(c) = chars.next() {
        if c == '.' {
            if chars.next() != Some('.') || chars.next() != Some('.') || seen_ellipsis {
                return einsum_err("einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...')");
            }
            seen_ellipsis = true;
            out.push(None);
        } else if c.is_ascii_alphabetic() {
            out.push(Some(c));
        } else {
            return einsum_err(format!(
                "invalid subscript '{c}' in einstein sum subscripts string, subscripts must be letters"
            ));
        }
    }
    Ok(out)
}

/// Label of the broadcast (ellipsis) dimension `j` places from the last one.
fn ell_label(j: usize) -> char {
    char::from_u32(0x2000 + j as u32).unwrap()
}

fn expand_ellipsis(term: &[Option<char>], ndim: usize, op: usize) -> NpResult<Vec<char>> {
    let explicit = term.iter().filter(|l| l.is_some()).count();
    let has_ell = term.iter().any(|l| l.is_none());
    if !has_ell {
        if explicit != ndim {
            if explicit > ndim {
                return einsum_err(format!(
                    "einstein sum subscripts string contains too many subscripts for operand {op}"
                ));
            }
            return einsum_err(
                "operand has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided to broadcast the extra dimensions.",
            );
        }
        return Ok(term.iter().map(|l| l.unwrap()).collect());
    }
    if explicit > ndim {
        return einsum_err(format!(
            "einstein sum subscripts string contains too many subscripts for operand {op}"
        ));
    }
    let e = ndim - explicit;
    let mut out = Vec::with_capacity(ndim);
    for l in term {
        match l {
            Some(c) => out.push(*c),
            // right-aligned: an operand with e ellipsis dims uses the last e labels
            None => out.extend((0..e).map(|p| ell_label(e - 1 - p))),
        }
    }
    Ok(out)
}

/// Takes diagonals for repeated labels so each label appears once.
fn dedup_labels(data: ArrayD<f64>, labels: &[char]) -> Term {
    let mut uniq: Vec<char> = Vec::new();
    for &l in labels {
        if !uniq.contains(&l) {
            uniq.push(l);
        }
    }
    if uniq.len() == labels.len() {
        return Term { data, labels: uniq };
    }
    let shape: Vec<usize> = uniq
        .iter()
        .map(|u| data.shape()[labels.iter().position(|l| l == u).unwrap()])
        .collect();
    let src_of: Vec<usize> = labels
        .iter()
        .map(|l| uniq.iter().position(|u| u == l).unwrap())
        .collect();
    let mut out = ArrayD::zeros(IxDyn(&shape));
    let mut src_idx = vec![0usize; labels.len()];
    for (idx, x) in out.indexed_iter_mut() {
        for (k, &u) in src_of.iter().enumerate() {
            src_idx[k] = idx[u];
        }
        *x = data[IxDyn(&src_idx)];
    }
    Term {
        data: out,
        labels: uniq,
    }
}

fn sum_out(t: Term, keep: &dyn Fn(char) -> bool) -> Term {
    let mut data = t.data;
    let mut labels = t.labels;
    let mut i = labels.len();
    while i > 0 {
        i -= 1;
        if !keep(labels[i]) {
            data = data.sum_axis(Axis(i));
            labels.remove(i);
        }
    }
    Term { data, labels }
}

/// Contracts two terms; labels in `keep` survive, shared labels not kept are summed.
fn contract(a: Term, b: Term, keep: &dyn Fn(char) -> bool) -> Term {
    let a = sum_out(a, &|c| keep(c) || b.labels.contains(&c));
    let b = sum_out(b, &|c| keep(c) || a.labels.contains(&c));
    let batch: Vec<char> = a
        .labels
        .iter()
        .copied()
        .filter(|c| b.labels.contains(c) && keep(*c))
        .collect();
    let contr: Vec<char> = a
        .labels
        .iter()
        .copied()
        .filter(|c| b.labels.contains(c) && !keep(*c))
        .collect();
    let free_a: Vec<char> = a
        .labels
        .iter()
        .copied()
        .filter(|c| !b.labels.contains(c))
        .collect();
    let free_b: Vec<char> = b
        .labels
        .iter()
        .copied()
        .filter(|c| !a.labels.contains(c))
        .collect();
    let pos = |t: &Term, c: char| t.labels.iter().position(|&l| l == c).unwrap();
    let size = |t: &Term, cs: &[char]| -> usize {
        cs.iter().map(|&c| t.data.shape()[pos(t, c)]).product()
    };
    let (nb, k, m, n) = (
        size(&a, &batch),
        size(&a, &contr),
        size(&a, &free_a),
        size(&b, &free_b),
    );
    let mut pa: Vec<usize> = batch.iter().map(|&c| pos(&a, c)).collect();
    pa.extend(free_a.iter().map(|&c| pos(&a, c)));
    pa.extend(contr.iter().map(|&c| pos(&a, c)));
    let mut pb: Vec<usize> = batch.iter().map(|&c| pos(&b, c)).collect();
    pb.extend(contr.iter().map(|&c| pos(&b, c)));
    pb.extend(free_b.iter().map(|&c| pos(&b, c)));
    let a3 = to_standard(a.data.view().permuted_axes(IxDyn(&pa)))
        .into_shape_with_order((nb, m, k))
        .unwrap();
    let b3 = to_standard(b.data.view().permuted_axes(IxDyn(&pb)))
        .into_shape_with_order((nb, k, n))
        .unwrap();
    let mut data = Vec::with_capacity(nb * m * n);
    for i in 0..nb {
        let r = mm2(a3.index_axis(Axis(0), i), b3.index_axis(Axis(0), i));
        data.extend(r.iter().copied());
    }
    let mut shape: Vec<usize> = batch.iter().map(|&c| a.data.shape()[pos(&a, c)]).collect();
    shape.extend(free_a.iter().map(|&c| a.data.shape()[pos(&a, c)]));
    shape.extend(free_b.iter().map(|&c| b.data.shape()[pos(&b, c)]));
    let mut labels = batch;
    labels.extend(free_a);
    labels.extend(free_b);
    Term {
        data: ArrayD::from_shape_vec(IxDyn(&shape), data).unwrap(),
        labels,
    }
}

/// `np.einsum(subscripts, *operands)`: explicit (`->`) and implicit output, repeated
/// labels (diagonals/traces), `...` broadcasting. Pairwise contractions go through the
/// matrix product, left to right.
pub fn einsum(subscripts: &str, ops: &[ArrayViewD<'_, f64>]) -> NpResult<ArrayD<f64>> {
    let s: String = subscripts.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match s.split_once("->") {
        Some((l, r)) => (l.to_owned(), Some(r.to_owned())),
        None => (s.clone(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != ops.len() {
        // (NumPy's wording: more subscript terms than operands is "more operands")
        return einsum_err(if terms.len() > ops.len() {
            "more operands provided to einstein sum function than specified in the subscripts string".to_owned()
        } else {
            "fewer operands provided to einstein sum function than specified in the subscripts string".to_owned()
        });
    }
    let mut labeled: Vec<Vec<char>> = Vec::new();
    let mut max_ell = 0usize;
    for (i, (t, op)) in terms.iter().zip(ops).enumerate() {
        let parsed = parse_term(t)?;
        let l = expand_ellipsis(&parsed, op.ndim(), i)?;
        let explicit = parsed.iter().filter(|x| x.is_some()).count();
        if parsed.iter().any(|x| x.is_none()) {
            max_ell = max_ell.max(op.ndim() - explicit);
        }
        labeled.push(l);
    }
    let ell: Vec<char> = (0..max_ell).map(|p| ell_label(max_ell - 1 - p)).collect();
    // label sizes (size-1 broadcasts)
    let mut sizes: Vec<(char, usize)> = Vec::new();
    for (i, (l, op)) in labeled.iter().zip(ops).enumerate() {
        for (ax, &c) in l.iter().enumerate() {
            let d = op.shape()[ax];
            match sizes.iter_mut().find(|(x, _)| *x == c) {
                Some((_, prev)) => {
                    if *prev != d && d != 1 && *prev != 1 {
                        return einsum_err(format!(
                            "Size of label '{c}' for operand {i} ({d}) does not match previous terms ({prev})."
                        ));
                    }
                    *prev = (*prev).max(d);
                }
                None => sizes.push((c, d)),
            }
        }
    }
    let out_labels: Vec<char> = match rhs {
        Some(r) => {
            let parsed = parse_term(&r)?;
            let mut out = Vec::new();
            for l in parsed {
                match l {
                    None => out.extend(ell.iter().copied()),
                    Some(c) => {
                        if out.contains(&c) {
                            return einsum_err(format!(
                                "einstein sum subscripts string includes output subscript '{c}' multiple times"
                            ));
                        }
                        if !sizes.iter().any(|(x, _)| *x == c) {
                            return einsum_err(format!(
                                "einstein sum subscripts string included output subscript '{c}' which never appeared in an input"
                            ));
                        }
                        out.push(c);
                    }
                }
            }
            out
        }
        None => {
            let mut once: Vec<char> = Vec::new();
            for (c, _) in &sizes {
                if c.is_ascii_alphabetic()
                    && labeled.iter().flatten().filter(|&&x| x == *c).count() == 1
                {
                    once.push(*c);
                }
            }
            once.sort();
            let mut out = ell.clone();
            out.extend(once);
            out
        }
    };
    // operands: diagonals, broadcast size-1 dims, sum labels used nowhere else
    let mut terms_v: Vec<Term> = Vec::with_capacity(ops.len());
    for (l, op) in labeled.iter().zip(ops) {
        let mut t = dedup_labels(op.to_owned(), l);
        let full: Vec<usize> = t
            .labels
            .iter()
            .map(|c| sizes.iter().find(|(x, _)| x == c).unwrap().1)
            .collect();
        if full.as_slice() != t.data.shape() {
            t.data = to_standard(t.data.broadcast(IxDyn(&full)).unwrap());
        }
        terms_v.push(t);
    }
    let mut iter = terms_v.into_iter().enumerate();
    let (_, first) = iter
        .next()
        .ok_or_else(|| NpErr::Value("No input operands".into()))?;
    let rest_labels =
        |from: usize| -> Vec<char> { labeled[from..].iter().flatten().copied().collect() };
    let later = rest_labels(1);
    let mut acc = sum_out(first, &|c| out_labels.contains(&c) || later.contains(&c));
    for (i, t) in iter {
        let later = rest_labels(i + 1);
        let keep = |c: char| out_labels.contains(&c) || later.contains(&c);
        acc = contract(acc, t, &keep);
    }
    let acc = sum_out(acc, &|c| out_labels.contains(&c));
    let perm: Vec<usize> = out_labels
        .iter()
        .map(|c| acc.labels.iter().position(|l| l == c).unwrap())
        .collect();
    Ok(to_standard(acc.data.view().permuted_axes(IxDyn(&perm))))
}

// ---------------------------------------------------------------- shape functions

/// Source/destination axes for `np.moveaxis` (already normalized).
pub fn moveaxis(a: ArrayViewD<'_, f64>, src: &[usize], dst: &[usize]) -> NpResult<ArrayD<f64>> {
    if src.len() != dst.len() {
        return value_err(
            "`source` and `destination` arguments must have the same number of elements",
        );
    }
    let order = moveaxis_order(a.ndim(), src, dst)?;
    Ok(to_standard(a.permuted_axes(IxDyn(&order))))
}

/// The axis permutation of `np.moveaxis`.
pub fn moveaxis_order(nd: usize, src: &[usize], dst: &[usize]) -> NpResult<Vec<usize>> {
    if src.len() != dst.len() {
        return value_err(
            "`source` and `destination` arguments must have the same number of elements",
        );
    }
    let mut order: Vec<usize> = (0..nd).filter(|i| !src.contains(i)).collect();
    let mut pairs: Vec<(usize, usize)> = dst.iter().copied().zip(src.iter().copied()).collect();
    pairs.sort();
    for (d, s) in pairs {
        order.insert(d, s);
    }
    Ok(order)
}

/// The (start, end) of each part of `np.split` along an axis of length `n`.
pub fn split_bounds(n: usize, indices: &[isize]) -> Vec<(isize, isize)> {
    let n = n as isize;
    let clamp = |i: isize| -> isize {
        let i = if i < 0 { i + n } else { i };
        i.clamp(0, n)
    };
    let mut bounds = vec![0isize];
    bounds.extend(indices.iter().map(|&i| clamp(i)));
    bounds.push(n);
    bounds.windows(2).map(|w| (w[0], w[1].max(w[0]))).collect()
}

/// Section boundaries for `np.array_split(a, sections)`.
pub fn section_indices(n: usize, sections: usize) -> Vec<isize> {
    let each = n / sections;
    let extra = n % sections;
    let mut out = Vec::new();
    let mut pos = 0;
    for k in 0..sections.saturating_sub(1) {
        pos += each + usize::from(k < extra);
        out.push(pos as isize);
    }
    out
}

pub fn tile(a: ArrayViewD<'_, f64>, reps: &[usize]) -> ArrayD<f64> {
    let nd = a.ndim().max(reps.len());
    let mut shape = vec![1usize; nd - a.ndim()];
    shape.extend_from_slice(a.shape());
    let mut r = vec![1usize; nd - reps.len()];
    r.extend_from_slice(reps);
    let src = to_standard(a).into_shape_with_order(IxDyn(&shape)).unwrap();
    let out_shape: Vec<usize> = shape.iter().zip(&r).map(|(s, k)| s * k).collect();
    let mut src_idx = vec![0usize; nd];
    let mut out = ArrayD::zeros(IxDyn(&out_shape));
    for (idx, x) in out.indexed_iter_mut() {
        for k in 0..nd {
            src_idx[k] = idx[k] % shape[k];
        }
        *x = src[IxDyn(&src_idx)];
    }
    out
}

/// `np.repeat` along `axis` (`None`: flattened) with one count or one count per element.
pub fn repeat(
    a: ArrayViewD<'_, f64>,
    counts: &[usize],
    axis: Option<usize>,
) -> NpResult<ArrayD<f64>> {
    let (a, axis) = match axis {
        Some(ax) => (a.to_owned(), ax),
        None => (flat(a), 0),
    };
    let n = a.shape()[axis];
    let counts: Vec<usize> = if counts.len() == 1 {
        vec![counts[0]; n]
    } else if counts.len() == n {
        counts.to_vec()
    } else {
        return value_err(format!(
            "operands could not be broadcast together with shape ({},) ({},)",
            n,
            counts.len()
        ));
    };
    let total: usize = counts.iter().sum();
    Ok(map_lanes(a.view(), axis, total, |src, dst| {
        let mut o = 0;
        for (&x, &c) in src.iter().zip(&counts) {
            for _ in 0..c {
                dst[o] = x;
                o += 1;
            }
        }
    }))
}

/// `np.roll` with one shift per axis (`axes` empty: roll the flattened array).
pub fn roll(a: ArrayViewD<'_, f64>, shifts: &[isize], axes: &[usize]) -> ArrayD<f64> {
    if axes.is_empty() {
        let shape = a.shape().to_vec();
        let f = flat(a);
        let r = roll(f.view(), shifts, &[0]);
        return r.into_shape_with_order(IxDyn(&shape)).unwrap();
    }
    let mut out = to_standard(a);
    for (&s, &ax) in shifts.iter().zip(axes) {
        let n = out.shape()[ax];
        if n == 0 {
            continue;
        }
        let s = s.rem_euclid(n as isize) as usize;
        if s == 0 {
            continue;
        }
        out = map_lanes(out.view(), ax, n, |src, dst| {
            for i in 0..n {
                dst[(i + s) % n] = src[i];
            }
        });
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum PadMode {
    Constant,
    Edge,
    Reflect,
    Symmetric,
    Wrap,
}

/// `np.pad` with per-axis (before, after) widths.
pub fn pad(
    a: ArrayViewD<'_, f64>,
    widths: &[(usize, usize)],
    mode: PadMode,
    cvals: &[(f64, f64)],
) -> NpResult<ArrayD<f64>> {
    let mut out = to_standard(a);
    for ax in 0..out.ndim() {
        let (before, after) = widths[ax];
        if before == 0 && after == 0 {
            continue;
        }
        let n = out.shape()[ax];
        if n == 0 && mode != PadMode::Constant {
            return value_err(format!(
                "can't extend empty axis {ax} using modes other than 'constant' or 'empty'"
            ));
        }
        let (cb, ca) = cvals[ax];
        let total = before + n + after;
        out = map_lanes(out.view(), ax, total, |src, dst| {
            dst[before..before + n].copy_from_slice(src);
            for (i, d) in dst[..before].iter_mut().enumerate() {
                // distance before the first data element: before..=1
                let off = before as isize - i as isize;
                *d = match mode {
                    PadMode::Constant => cb,
                    PadMode::Edge => src[0],
                    PadMode::Wrap => src[((-(off)).rem_euclid(n as isize)) as usize],
                    PadMode::Reflect => src[reflect_index(-off, n, false)],
                    PadMode::Symmetric => src[reflect_index(-off, n, true)],
                };
            }
            for j in 0..after {
                let p = n as isize + j as isize;
                dst[before + n + j] = match mode {
                    PadMode::Constant => ca,
                    PadMode::Edge => src[n - 1],
                    PadMode::Wrap => src[(p.rem_euclid(n as isize)) as usize],
                    PadMode::Reflect => src[reflect_index(p, n, false)],
                    PadMode::Symmetric => src[reflect_index(p, n, true)],
                };
            }
        });
    }
    Ok(out)
}

fn reflect_index(i: isize, n: usize, symmetric: bool) -> usize {
    let n = n as isize;
    if n == 1 {
        return 0;
    }
    let period = if symmetric { 2 * n } else { 2 * n - 2 };
    let mut k = i.rem_euclid(period);
    if k >= n {
        k = if symmetric {
            period - 1 - k
        } else {
            period - k
        };
    }
    k as usize
}

/// Normalizes `np.pad`'s `pad_width`-style argument (already flattened to rows) to
/// one pair per axis: `[[n]]`, `[[b, a]]` or one row per axis.
pub fn broadcast_pairs<T: Copy>(rows: &[Vec<T>], ndim: usize) -> NpResult<Vec<(T, T)>> {
    let pair = |r: &Vec<T>| -> NpResult<(T, T)> {
        match r.len() {
            1 => Ok((r[0], r[0])),
            2 => Ok((r[0], r[1])),
            _ => value_err("operands could not be broadcast together with remapped shapes"),
        }
    };
    if rows.len() == 1 {
        let p = pair(&rows[0])?;
        return Ok(vec![p; ndim]);
    }
    if rows.len() != ndim {
        return value_err(format!(
            "operands could not be broadcast together with remapped shapes [original->remapped]: ({},2)  and requested shape ({},2)",
            rows.len(),
            ndim
        ));
    }
    rows.iter().map(pair).collect()
}

/// `np.linalg`-free helpers used by `native.rs`.
pub fn norm_axis_list(axes: &[isize], ndim: usize) -> NpResult<Vec<usize>> {
    axes.iter().map(|&a| norm_axis(a, ndim)).collect()
}
