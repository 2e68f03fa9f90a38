//! The discrete Fourier transform along one axis, for `numpy.fft`: complex to complex,
//! unnormalised (`X[k] = sum_t x[t] exp(-2 pi i k t / n)`, the inverse with `+`), on
//! rustfft's plans (any length: mixed radix, Rader and Bluestein for large primes).
//! Lengths (`n=`, padding and trimming), normalisation, real transforms and several
//! axes are the Python layer's (`python/numpy/fft.py`), which composes this one kernel.

use ndarray::{ArrayD, ArrayViewD};
use rustfft::{num_complex::Complex, FftDirection, FftPlanner};
use std::cell::RefCell;

thread_local! {
    /// Plans are cached by the planner: a script transforming many lanes or calling
    /// `fft` in a loop plans each length once per thread.
    static PLANNER: RefCell<FftPlanner<f64>> = RefCell::new(FftPlanner::new());
}

/// The transform of the complex array `re + i im` along `axis` (the forward one, or with
/// `inverse` the unnormalised inverse), as its real and imaginary parts in C order.
/// `im` of None is a real input. The shapes must agree (the caller checks them).
pub fn transform_axis(
    re: ArrayViewD<'_, f64>,
    im: Option<ArrayViewD<'_, f64>>,
    axis: usize,
    inverse: bool,
) -> (ArrayD<f64>, ArrayD<f64>) {
    let n = re.shape()[axis];
    let total = re.len();
    if n == 0 || total == 0 {
        return (ArrayD::zeros(re.raw_dim()), ArrayD::zeros(re.raw_dim()));
    }
    // Lanes along `axis` laid out one after another: the axis moved last, in C order.
    let last = re.ndim() - 1;
    let moved_re = {
        let mut v = re.view();
        v.swap_axes(axis, last);
        v
    };
    let mut buf: Vec<Complex<f64>> = moved_re.iter().map(|&x| Complex::new(x, 0.0)).collect();
    if let Some(im) = im {
        let mut v = im.view();
        v.swap_axes(axis, last);
        for (c, &y) in buf.iter_mut().zip(v.iter()) {
            c.im = y;
        }
    }
    let direction = if inverse {
        FftDirection::Inverse
    } else {
        FftDirection::Forward
    };
    let plan = PLANNER.with(|p| p.borrow_mut().plan_fft(n, direction));
    // The plan transforms every consecutive chunk of `n` values.
    plan.process(&mut buf);
    let moved_shape = moved_re.shape().to_vec();
    let out_re = ArrayD::from_shape_vec(moved_shape.clone(), buf.iter().map(|c| c.re).collect())
        .expect("one value per element");
    let out_im = ArrayD::from_shape_vec(moved_shape, buf.iter().map(|c| c.im).collect())
        .expect("one value per element");
    (swap_back(out_re, axis, last), swap_back(out_im, axis, last))
}

/// `a` with its axes `axis` and `last` swapped back, in C order.
fn swap_back(mut a: ArrayD<f64>, axis: usize, last: usize) -> ArrayD<f64> {
    if axis == last {
        return a;
    }
    a.swap_axes(axis, last);
    crate::core::to_standard(a.view())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::IxDyn;

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
