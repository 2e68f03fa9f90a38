//! Axes and reductions: sums, extrema, quantiles and arg-reductions over lanes, in
//! NumPy's order of summation.

use super::*;
use crate::storage::Element;
use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn};

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
