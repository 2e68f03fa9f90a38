//! Branch-free elementwise kernels that the compiler vectorises (libm's scalar calls
//! cannot be). Accuracy is checked against libm in the tests below.

const LN2_HI: f64 = 6.931_471_803_691_238e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
const LOG2_E: f64 = std::f64::consts::LOG2_E;
/// 1.5 * 2^52: adding and subtracting it rounds a double to the nearest integer.
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;

/// e^y for -745 < y <= 0 (callers clamp), by Cody-Waite reduction to |r| <= ln2/2 and a
/// degree-13 Taylor polynomial (truncation error below 1e-17 relative).
/// `a * b + c`: one fused instruction in the FMA build of the kernels, two otherwise
/// (without FMA hardware `mul_add` would be a slow library call).
#[inline(always)]
fn madd<const FMA: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

#[inline(always)]
fn exp_nonpositive<const FMA: bool>(y: f64) -> f64 {
    let shifted = y * LOG2_E + ROUND_MAGIC;
    let k = shifted - ROUND_MAGIC;
    let r = (y - k * LN2_HI) - k * LN2_LO;
    // sum r^n / n!, n = 0..13, by Estrin's scheme: a short dependency chain, so the
    // vectorised loop is not bound by the latency of fourteen chained multiply-adds.
    const C: [f64; 14] = [
        1.0,
        1.0,
        1.0 / 2.0,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5_040.0,
        1.0 / 40_320.0,
        1.0 / 362_880.0,
        1.0 / 3_628_800.0,
        1.0 / 39_916_800.0,
        1.0 / 479_001_600.0,
        1.0 / 6_227_020_800.0,
    ];
    let r2 = r * r;
    let r4 = r2 * r2;
    let r8 = r4 * r4;
    let p01 = madd::<FMA>(C[1], r, C[0]);
    let p23 = madd::<FMA>(C[3], r, C[2]);
    let p45 = madd::<FMA>(C[5], r, C[4]);
    let p67 = madd::<FMA>(C[7], r, C[6]);
    let p89 = madd::<FMA>(C[9], r, C[8]);
    let p1011 = madd::<FMA>(C[11], r, C[10]);
    let p1213 = madd::<FMA>(C[13], r, C[12]);
    let p0_3 = madd::<FMA>(r2, p23, p01);
    let p4_7 = madd::<FMA>(r2, p67, p45);
    let p8_11 = madd::<FMA>(r2, p1011, p89);
    let p8_13 = madd::<FMA>(r4, p1213, p8_11);
    let p = madd::<FMA>(r8, p8_13, madd::<FMA>(r4, p4_7, p0_3));
    // 2^k for k in [-1022, 0] through the exponent bits. The integer k is read from the
    // low bits of `shifted` (no float-to-int conversion, which AVX2 cannot vectorise).
    let k_bits = shifted.to_bits().wrapping_sub(ROUND_MAGIC.to_bits());
    let scale = f64::from_bits(k_bits.wrapping_add(1023) << 52);
    p * scale
}

/// tanh(x) without branches: for |x| < 0.625 an odd rational approximation (no
/// cancellation near 0), otherwise (1 - e^-2|x|) / (1 + e^-2|x|) with the sign of x.
#[inline(always)]
pub fn tanh(x: f64) -> f64 {
    tanh_impl::<false>(x)
}

#[inline(always)]
fn tanh_impl<const FMA: bool>(x: f64) -> f64 {
    let a = x.abs();
    // Small arguments: x + x^3 P(x^2) / Q(x^2).
    let z = x * x;
    let p =
        (-9.643_991_794_250_523e-1 * z - 9.928_772_310_019_186e1) * z - 1.614_687_684_417_084_5e3;
    let q = ((z + 1.128_116_784_916_329_3e2) * z + 2.235_488_390_601_004_6e3) * z
        + 4.844_063_053_251_255e3;
    // Large arguments: clamp so that e^-2|x| stays normal (tanh is +-1 there anyway).
    let t = exp_nonpositive::<FMA>(-2.0 * a.min(40.0));
    // One division for both cases: x (q + z p) / q, or +-(1 - t) / (1 + t).
    let is_small = a < 0.625;
    let num = if is_small {
        x * (q + z * p)
    } else {
        (1.0 - t).copysign(x)
    };
    let den = if is_small { q } else { 1.0 + t };
    let r = num / den;
    // NaN in, NaN out.
    if x.is_nan() {
        x
    } else {
        r
    }
}

/// `tanh` over a slice; a plain loop that vectorises, compiled for AVX2 when the CPU
/// has it (4 lanes instead of SSE2's 2).
pub fn tanh_slice(src: &[f64], dst: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: AVX2 and FMA are available (checked above).
            unsafe { tanh_slice_avx2(src, dst) };
            return;
        }
    }
    tanh_slice_generic(src, dst)
}

fn tanh_slice_generic(src: &[f64], dst: &mut [f64]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = tanh(s);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn tanh_slice_avx2(src: &[f64], dst: &mut [f64]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = tanh_impl::<true>(s);
    }
    // Leave no dirty upper halves for the SSE code that follows.
    std::arch::x86_64::_mm256_zeroupper();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f64, b: f64) -> f64 {
        if a == b {
            return 0.0;
        }
        (a - b).abs() / (b.abs().max(f64::MIN_POSITIVE) * f64::EPSILON)
    }

    #[test]
    fn tanh_matches_libm_within_a_few_ulps() {
        let mut worst = 0.0f64;
        let mut x = -30.0;
        while x < 30.0 {
            worst = worst.max(ulps(tanh(x), x.tanh()));
            x += 0.000_731;
        }
        for &x in &[
            1e-300, -1e-300, 1e-20, 1e-8, 0.624_999, 0.625, 0.625_001, 19.0, 40.0, 1e6,
        ] {
            worst = worst.max(ulps(tanh(x), x.tanh()));
        }
        assert!(worst < 4.0, "worst error {worst} ulps");
    }

    #[test]
    fn slice_kernel_matches_scalar() {
        let src: Vec<f64> = (0..1000).map(|i| (i as f64 - 500.0) * 0.013).collect();
        let mut dst = vec![0.0; src.len()];
        tanh_slice(&src, &mut dst);
        for (s, d) in src.iter().zip(&dst) {
            assert!(ulps(*d, s.tanh()) < 4.0, "{s}: {d} vs {}", s.tanh());
        }
    }

    #[test]
    fn tanh_special_values() {
        assert_eq!(tanh(0.0), 0.0);
        assert!(tanh(-0.0).is_sign_negative());
        assert_eq!(tanh(f64::INFINITY), 1.0);
        assert_eq!(tanh(f64::NEG_INFINITY), -1.0);
        assert!(tanh(f64::NAN).is_nan());
    }
}
