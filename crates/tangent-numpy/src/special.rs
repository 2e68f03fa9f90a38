//! Special functions of the embedded host's `scipy.special` subset, elementwise on f64,
//! with SciPy's values at poles and infinities: erf, erfc, log|Γ| and Γ come from the C
//! library (glibc's are accurate to a few ulps); digamma and polygamma are computed here
//! (recurrence up to a large argument, then the asymptotic series).

extern "C" {
    #[link_name = "erf"]
    fn c_erf(x: f64) -> f64;
    #[link_name = "erfc"]
    fn c_erfc(x: f64) -> f64;
    // The reentrant variant: plain lgamma writes the global `signgam`.
    #[link_name = "lgamma_r"]
    fn c_lgamma_r(x: f64, sign: *mut i32) -> f64;
    #[link_name = "tgamma"]
    fn c_tgamma(x: f64) -> f64;
}

pub fn erf(x: f64) -> f64 {
    // SAFETY: a pure C math function.
    unsafe { c_erf(x) }
}

pub fn erfc(x: f64) -> f64 {
    // SAFETY: a pure C math function.
    unsafe { c_erfc(x) }
}

/// log|Γ(x)| (`scipy.special.gammaln`): +inf at the poles (0, -1, -2, ...), -inf at
/// -inf (SciPy's value; the C library says +inf).
pub fn gammaln(x: f64) -> f64 {
    if x == f64::NEG_INFINITY {
        return x;
    }
    let mut sign = 0;
    // SAFETY: `sign` is a valid out-pointer for the call.
    unsafe { c_lgamma_r(x, &mut sign) }
}

/// Γ(x) (`scipy.special.gamma`): ±inf at ±0, NaN at the negative integers.
pub fn gamma(x: f64) -> f64 {
    if x < 0.0 && x == x.floor() {
        return f64::NAN;
    }
    // SAFETY: a pure C math function.
    unsafe { c_tgamma(x) }
}

/// Is `x` a pole of the polygamma functions (0, -1, -2, ...)?
fn is_pole(x: f64) -> bool {
    x <= 0.0 && x == x.floor()
}

/// Bernoulli numbers B2, B4, ..., B20 (the asymptotic series' coefficients).
const BERNOULLI: [f64; 10] = [
    1.0 / 6.0,
    -1.0 / 30.0,
    1.0 / 42.0,
    -1.0 / 30.0,
    5.0 / 66.0,
    -691.0 / 2730.0,
    7.0 / 6.0,
    -3617.0 / 510.0,
    43867.0 / 798.0,
    -174611.0 / 330.0,
];

/// Where the asymptotic series takes over: its terms then fall below 1e-17 relative.
const LARGE: f64 = 20.0;

/// ψ(x) = Γ'(x)/Γ(x) (`scipy.special.digamma`): at 0 it is -inf for +0 and +inf for
/// -0, NaN at the negative integers.
pub fn digamma(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    if is_pole(x) {
        return f64::NAN;
    }
    // Reflection keeps far negative arguments from a long, cancelling recurrence.
    if x < -LARGE {
        return digamma(1.0 - x) - std::f64::consts::PI / (std::f64::consts::PI * x).tan();
    }
    // ψ(x) = ψ(x + 1) - 1/x up to a large argument.
    let (mut x, mut acc) = (x, 0.0);
    while x < LARGE {
        acc -= 1.0 / x;
        x += 1.0;
    }
    let inv2 = 1.0 / (x * x);
    let mut series = 0.0;
    let mut power = inv2;
    for (k, b) in BERNOULLI.iter().enumerate() {
        series += b / (2.0 * (k as f64 + 1.0)) * power;
        power *= inv2;
    }
    acc + x.ln() - 0.5 / x - series
}

/// The n-th derivative of ψ (`scipy.special.polygamma(n, x)`); n = 0 is ψ itself. At the
/// poles: +inf for odd n, -inf for even n >= 2 (SciPy's values).
pub fn polygamma(n: u32, x: f64) -> f64 {
    if n == 0 {
        return digamma(x);
    }
    if x.is_nan() {
        return x;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    if is_pole(x) || x == f64::NEG_INFINITY {
        return if n % 2 == 1 {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    let nf = f64::from(n);
    let sign = if n % 2 == 1 { 1.0 } else { -1.0 };
    let factorial = (1..=n).map(f64::from).product::<f64>();
    // ψ⁽ⁿ⁾(x) = ψ⁽ⁿ⁾(x + 1) + (-1)ⁿ⁺¹ n! / xⁿ⁺¹ up to a large argument.
    let (mut x, mut acc) = (x, 0.0);
    let large = LARGE + nf;
    while x < large {
        acc += sign * factorial / x.powi(n as i32 + 1);
        x += 1.0;
    }
    // (-1)ⁿ⁺¹ [ (n-1)!/xⁿ + n!/(2xⁿ⁺¹) + Σ B₂ₖ (2k+n-1)! / ((2k)! x^(2k+n)) ]
    let mut series = factorial / nf / x.powi(n as i32) + factorial / (2.0 * x.powi(n as i32 + 1));
    // (2k+n-1)!/(2k)!, updated from k to k+1.
    let mut ratio = (1..=n).map(|i| f64::from(i) + 1.0).product::<f64>() / 2.0;
    let mut power = x.powi(n as i32 + 2);
    for (k, b) in BERNOULLI.iter().enumerate() {
        series += b * ratio / power;
        let k2 = 2.0 * (k as f64 + 1.0);
        ratio *= (k2 + nf) * (k2 + nf + 1.0) / ((k2 + 1.0) * (k2 + 2.0));
        power *= x * x;
    }
    acc + sign * series
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    #[test]
    fn digamma_matches_known_values() {
        let euler = 0.577_215_664_901_532_9;
        assert!(close(digamma(1.0), -euler, 1e-15));
        assert!(close(digamma(0.5), -euler - 2.0 * 2f64.ln(), 1e-15));
        // ψ(n) = H(n-1) - γ
        let h9: f64 = (1..10).map(|k| 1.0 / f64::from(k)).sum();
        assert!(close(digamma(10.0), h9 - euler, 1e-15));
        // Values from SciPy 1.17 (an independent implementation).
        assert!(close(digamma(-2.5), 1.103_156_640_645_243_3, 1e-14));
        assert!(close(digamma(-30.5), 3.434_030_554_207_562_4, 1e-13));
        // The reflection branch agrees with the recurrence from ψ(1/2).
        let recurred = (0..31).fold(digamma(0.5), |acc, k| acc - 1.0 / (-30.5 + f64::from(k)));
        assert!(close(digamma(-30.5), recurred, 1e-13));
        assert_eq!(digamma(0.0), f64::NEG_INFINITY);
        assert_eq!(digamma(-0.0), f64::INFINITY);
        assert!(digamma(-3.0).is_nan());
    }

    #[test]
    fn polygamma_matches_known_values() {
        let pi2 = std::f64::consts::PI * std::f64::consts::PI;
        // ψ'(1) = π²/6, ψ'(1/2) = π²/2, ψ''(1) = -2ζ(3)
        assert!(close(polygamma(1, 1.0), pi2 / 6.0, 1e-15));
        assert!(close(polygamma(1, 0.5), pi2 / 2.0, 1e-15));
        assert!(close(
            polygamma(2, 1.0),
            -2.0 * 1.202_056_903_159_594_2,
            1e-15
        ));
        // ψ'''(1) = π⁴/15
        assert!(close(polygamma(3, 1.0), pi2 * pi2 / 15.0, 1e-14));
        // Values from SciPy 1.17.
        assert!(close(polygamma(1, -2.5), 9.539_246_644_989_124, 1e-13));
        assert!(close(polygamma(2, -1.4), 22.016_031_436_617_5, 1e-13));
        assert!(close(polygamma(3, 7.3), 0.006_293_158_713_198_49, 1e-13));
        assert_eq!(polygamma(1, 0.0), f64::INFINITY);
        assert_eq!(polygamma(2, -1.0), f64::NEG_INFINITY);
        // The derivative of ψ is ψ' (central difference).
        for x in [0.3, 2.7, 15.0, -1.4] {
            let h = 1e-5;
            let fd = (digamma(x + h) - digamma(x - h)) / (2.0 * h);
            assert!(close(polygamma(1, x), fd, 1e-8), "{x}");
            let fd2 = (polygamma(1, x + h) - polygamma(1, x - h)) / (2.0 * h);
            assert!(close(polygamma(2, x), fd2, 1e-7), "{x}");
        }
    }

    #[test]
    fn gamma_functions_at_poles_and_values() {
        assert!(close(gammaln(0.5), 0.5 * std::f64::consts::PI.ln(), 1e-15));
        assert_eq!(gammaln(0.0), f64::INFINITY);
        assert_eq!(gammaln(-1.0), f64::INFINITY);
        assert_eq!(gamma(5.0), 24.0);
        assert!(gamma(-1.0).is_nan());
        assert_eq!(gamma(-0.0), f64::NEG_INFINITY);
        assert!(close(erf(0.5), 0.520_499_877_813_046_5, 1e-15));
        assert!(close(erfc(3.0), 2.209_049_699_858_544e-5, 1e-14));
    }
}
