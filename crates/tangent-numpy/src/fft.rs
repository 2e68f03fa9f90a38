//! The discrete Fourier transform along one axis, for `numpy.fft`: complex to complex,
//! unnormalised (`X[k] = sum_t x[t] exp(-2 pi i k t / n)`, the inverse with `+`), on
//! rustfft's plans (any length: mixed radix, Rader and Bluestein for large primes).
//! Lengths (`n=`, padding and trimming), normalisation, real transforms and several
//! axes are the Python layer's (`python/numpy/fft.py`), which composes this one kernel.

use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn};
use realfft::RealFftPlanner;
use rustfft::{num_complex::Complex, FftDirection, FftPlanner};
use std::cell::RefCell;

thread_local! {
    /// Plans are cached by the planners: a script transforming many lanes or calling
    /// `fft` in a loop plans each length once per thread.
    static PLANNER: RefCell<FftPlanner<f64>> = RefCell::new(FftPlanner::new());
    static REAL_PLANNER: RefCell<RealFftPlanner<f64>> = RefCell::new(RealFftPlanner::new());
}

/// NumPy's complex transform along `axis`: each lane taken at length `n` (trimmed, or
/// padded with zeros), transformed (`inverse`: unnormalised inverse), scaled by
/// `scale`, the first `keep` terms kept. `n` is at least 1 and `keep` at most `n`.
pub fn c2c(
    re: ArrayViewD<'_, f64>,
    im: Option<ArrayViewD<'_, f64>>,
    axis: usize,
    n: usize,
    inverse: bool,
    scale: f64,
    keep: usize,
) -> (ArrayD<f64>, ArrayD<f64>) {
    let direction = if inverse {
        FftDirection::Inverse
    } else {
        FftDirection::Forward
    };
    let plan = PLANNER.with(|p| p.borrow_mut().plan_fft(n, direction));
    let mut buf = vec![Complex::new(0.0, 0.0); n];
    let mut scratch = vec![Complex::new(0.0, 0.0); plan.get_inplace_scratch_len()];
    let im_lanes = im.as_ref().map(|im| lanes_of(im, axis));
    let mut lane_index = 0;
    let out = per_lane(re, axis, keep, |lane, out_re, out_im| {
        // The lane's first `n` values (contiguous lanes read as slices), zeros past it.
        let m = lane.len().min(n);
        match lane.as_slice() {
            Some(values) => {
                for (c, &x) in buf.iter_mut().zip(values) {
                    *c = Complex::new(x, 0.0);
                }
            }
            None => {
                for (c, &x) in buf.iter_mut().zip(lane.iter()) {
                    *c = Complex::new(x, 0.0);
                }
            }
        }
        buf[m..].fill(Complex::new(0.0, 0.0));
        if let Some(lanes) = &im_lanes {
            for (c, &y) in buf.iter_mut().zip(lanes[lane_index].iter()) {
                c.im = y;
            }
        }
        lane_index += 1;
        plan.process_with_scratch(&mut buf, &mut scratch);
        for (k, c) in buf.iter().take(keep).enumerate() {
            out_re[k] = c.re * scale;
            out_im[k] = c.im * scale;
        }
    });
    out
}

/// The transform of real lanes along `axis` taken at length `n`: the `n / 2 + 1`
/// non-negative frequency terms, scaled by `scale` (`numpy.fft.rfft`), by a real plan
/// (about half the work of a complex one).
pub fn r2c(
    re: ArrayViewD<'_, f64>,
    axis: usize,
    n: usize,
    scale: f64,
) -> (ArrayD<f64>, ArrayD<f64>) {
    let plan = REAL_PLANNER.with(|p| p.borrow_mut().plan_fft_forward(n));
    let mut input = vec![0.0; n];
    let mut output = vec![Complex::new(0.0, 0.0); n / 2 + 1];
    let mut scratch = vec![Complex::new(0.0, 0.0); plan.get_scratch_len()];
    per_lane(re, axis, n / 2 + 1, |lane, out_re, out_im| {
        // The lane's first `n` values (contiguous lanes copied as slices), zeros past
        // it: the plan uses its input as scratch space, so it is written every time.
        let m = lane.len().min(n);
        match lane.as_slice() {
            Some(values) => input[..m].copy_from_slice(&values[..m]),
            None => {
                for (x, &v) in input.iter_mut().zip(lane.iter()) {
                    *x = v;
                }
            }
        }
        input[m..].fill(0.0);
        plan.process_with_scratch(&mut input, &mut output, &mut scratch)
            .expect("buffers of the plan's lengths");
        for (k, c) in output.iter().enumerate() {
            out_re[k] = c.re * scale;
            out_im[k] = c.im * scale;
        }
    })
}

/// The real signals of length `n` whose first `n / 2 + 1` terms are the lanes of
/// `re + i im` along `axis` (trimmed or zero-padded to that many; the imaginary parts
/// of the zero and Nyquist terms ignored, as NumPy's `irfft`), scaled by `scale`.
pub fn c2r(
    re: ArrayViewD<'_, f64>,
    im: ArrayViewD<'_, f64>,
    axis: usize,
    n: usize,
    scale: f64,
) -> ArrayD<f64> {
    let plan = REAL_PLANNER.with(|p| p.borrow_mut().plan_fft_inverse(n));
    let half = n / 2 + 1;
    let mut input = vec![Complex::new(0.0, 0.0); half];
    let mut output = vec![0.0; n];
    let mut scratch = vec![Complex::new(0.0, 0.0); plan.get_scratch_len()];
    let im_lanes = lanes_of(&im, axis);
    let mut lane_index = 0;
    let (out, _) = per_lane(re, axis, n, |lane, out_re, _| {
        input.iter_mut().for_each(|c| *c = Complex::new(0.0, 0.0));
        for (c, &x) in input.iter_mut().zip(lane.iter()) {
            c.re = x;
        }
        for (c, &y) in input.iter_mut().zip(im_lanes[lane_index].iter()) {
            c.im = y;
        }
        lane_index += 1;
        // The zero (and, for even n, the Nyquist) term of a real signal is real.
        input[0].im = 0.0;
        if n.is_multiple_of(2) {
            input[half - 1].im = 0.0;
        }
        plan.process_with_scratch(&mut input, &mut output, &mut scratch)
            .expect("buffers of the plan's lengths and real end terms");
        for (o, &v) in out_re.iter_mut().zip(output.iter()) {
            *o = v * scale;
        }
    });
    out
}

/// The lanes of `a` along `axis`, in C order of the other axes.
fn lanes_of<'a>(a: &'a ArrayViewD<'_, f64>, axis: usize) -> Vec<ndarray::ArrayView1<'a, f64>> {
    a.lanes(Axis(axis)).into_iter().collect()
}

/// `f(lane, out_re, out_im)` for every lane of `a` along `axis` (C order of the other
/// axes), each writing `out_len` values; the results laid out with `axis` of that length.
fn per_lane(
    a: ArrayViewD<'_, f64>,
    axis: usize,
    out_len: usize,
    mut f: impl FnMut(ndarray::ArrayView1<'_, f64>, &mut [f64], &mut [f64]),
) -> (ArrayD<f64>, ArrayD<f64>) {
    let mut shape = a.shape().to_vec();
    shape[axis] = out_len;
    let count: usize = shape.iter().product::<usize>() / out_len.max(1);
    let mut out_re = vec![0.0; count * out_len];
    let mut out_im = vec![0.0; count * out_len];
    if out_len > 0 {
        for (k, lane) in a.lanes(Axis(axis)).into_iter().enumerate() {
            let at = k * out_len..(k + 1) * out_len;
            f(lane, &mut out_re[at.clone()], &mut out_im[at]);
        }
    }
    // The values are lane after lane: the other axes in C order, then `axis`. Put
    // `axis` back in its place.
    let mut order: Vec<usize> = (0..shape.len()).filter(|&d| d != axis).collect();
    order.push(axis);
    let lanes_shape: Vec<usize> = order.iter().map(|&d| shape[d]).collect();
    let mut inverse = vec![0; order.len()];
    for (k, &d) in order.iter().enumerate() {
        inverse[d] = k;
    }
    let back = |v: Vec<f64>| {
        let a = ArrayD::from_shape_vec(IxDyn(&lanes_shape), v).expect("one value per element");
        if axis + 1 == shape.len() {
            return a;
        }
        crate::core::to_standard(a.view().permuted_axes(IxDyn(&inverse)))
    };
    (back(out_re), back(out_im))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::IxDyn;

    /// The whole-length transform along `axis`.
    fn transform_axis(
        re: ArrayViewD<'_, f64>,
        im: Option<ArrayViewD<'_, f64>>,
        axis: usize,
        inverse: bool,
    ) -> (ArrayD<f64>, ArrayD<f64>) {
        let n = re.shape()[axis];
        c2c(re, im, axis, n, inverse, 1.0, n)
    }

    /// The transform by its definition, O(n^2), as the independent check.
    fn direct(x: &[(f64, f64)], inverse: bool) -> Vec<(f64, f64)> {
        let n = x.len();
        let sign = if inverse { 1.0 } else { -1.0 };
        (0..n)
            .map(|k| {
                x.iter()
                    .enumerate()
                    .fold((0.0, 0.0), |(sr, si), (t, &(a, b))| {
                        let ang = sign * 2.0 * std::f64::consts::PI * (k * t) as f64 / n as f64;
                        let (s, c) = ang.sin_cos();
                        (sr + a * c - b * s, si + a * s + b * c)
                    })
            })
            .collect()
    }

    #[test]
    fn lanes_along_each_axis_match_the_definition() {
        // 2 x 7 x 5: a prime length, an odd one, and lanes along every axis.
        let shape = [2usize, 7, 5];
        let len: usize = shape.iter().product();
        let re: Vec<f64> = (0..len).map(|i| ((i * 37 % 11) as f64) - 4.5).collect();
        let im: Vec<f64> = (0..len).map(|i| ((i * 13 % 7) as f64) * 0.25).collect();
        let re = ArrayD::from_shape_vec(IxDyn(&shape), re).unwrap();
        let im = ArrayD::from_shape_vec(IxDyn(&shape), im).unwrap();
        for axis in 0..3 {
            for inverse in [false, true] {
                let (got_re, got_im) = transform_axis(re.view(), Some(im.view()), axis, inverse);
                for lane in 0..len / shape[axis] {
                    // The lane's index along the other axes.
                    let mut idx = Vec::new();
                    let mut rest = lane;
                    for (d, &s) in shape.iter().enumerate().rev() {
                        if d != axis {
                            idx.push((d, rest % s));
                            rest /= s;
                        }
                    }
                    let at = |t: usize| {
                        let mut i = [0usize; 3];
                        for &(d, v) in &idx {
                            i[d] = v;
                        }
                        i[axis] = t;
                        i
                    };
                    let x: Vec<(f64, f64)> = (0..shape[axis])
                        .map(|t| (re[IxDyn(&at(t))], im[IxDyn(&at(t))]))
                        .collect();
                    for (k, (wr, wi)) in direct(&x, inverse).into_iter().enumerate() {
                        let i = IxDyn(&at(k));
                        assert!((got_re[&i] - wr).abs() < 1e-12, "axis {axis} k {k}");
                        assert!((got_im[&i] - wi).abs() < 1e-12, "axis {axis} k {k}");
                    }
                }
            }
        }
    }

    #[test]
    fn real_transforms_agree_with_the_complex_one() {
        // Lanes along the first axis of a 9 x 2 array at lengths 6 (trimmed), 9, 12
        // (padded) and odd 7: rfft is the first n/2 + 1 terms of fft; irfft inverts it.
        let x: Vec<f64> = (0..18)
            .map(|i| ((i * 7 % 5) as f64) - 1.5 + 0.1 * i as f64)
            .collect();
        let x = ArrayD::from_shape_vec(IxDyn(&[9, 2]), x).unwrap();
        for n in [6usize, 7, 9, 12] {
            let (re, im) = r2c(x.view(), 0, n, 1.0);
            let (fre, fim) = c2c(x.view(), None, 0, n, false, 1.0, n / 2 + 1);
            assert_eq!(re.shape(), &[n / 2 + 1, 2]);
            for (a, b) in re.iter().zip(fre.iter()).chain(im.iter().zip(fim.iter())) {
                assert!((a - b).abs() < 1e-12, "n {n}: {a} vs {b}");
            }
            let back = c2r(re.view(), im.view(), 0, n, 1.0 / n as f64);
            assert_eq!(back.shape(), &[n, 2]);
            for t in 0..n.min(9) {
                for j in 0..2 {
                    assert!((back[[t, j]] - x[[t, j]]).abs() < 1e-12, "n {n} t {t}");
                }
            }
        }
    }

    #[test]
    fn a_real_input_and_an_empty_axis() {
        let x = ArrayD::from_shape_vec(IxDyn(&[4]), vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        let (re, im) = transform_axis(x.view(), None, 0, false);
        assert_eq!(re.as_slice().unwrap(), &[10.0, -2.0, -2.0, -2.0]);
        assert_eq!(im.as_slice().unwrap(), &[0.0, 2.0, 0.0, -2.0]);
        let e = ArrayD::<f64>::zeros(IxDyn(&[3, 0]));
        let (re, _) = transform_axis(e.view(), None, 1, false);
        assert_eq!(re.shape(), &[3, 0]);
    }
}
