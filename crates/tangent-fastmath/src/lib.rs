//! Branch-free elementwise kernels that the compiler vectorises (libm's scalar calls
//! cannot be). Accuracy is checked against libm in the tests below.

use std::mem::MaybeUninit;

pub mod numpy_f32;

const LN2_HI: f64 = 6.931_471_803_691_238e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
const LOG2_E: f64 = std::f64::consts::LOG2_E;
/// 1.5 * 2^52: adding and subtracting it rounds a double to the nearest integer.
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;

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

/// Cody-Waite reduction: y = k ln2 + r with k = round(y / ln2) and |r| <= ln2/2, as
/// (1.5 * 2^52 + k, r); k is read from the first's low bits without a float-to-int
/// conversion (which AVX2 cannot vectorise).
#[inline(always)]
fn reduce_by_ln2<const FMA: bool>(y: f64) -> (f64, f64) {
    let shifted = madd::<FMA>(y, LOG2_E, ROUND_MAGIC);
    let k = shifted - ROUND_MAGIC;
    // k * LN2_HI is exact (LN2_HI has trailing zero bits), so fusing changes nothing.
    (shifted, madd::<FMA>(-k, LN2_LO, madd::<FMA>(-k, LN2_HI, y)))
}

/// e^y = 2^k * e^r for -745 < y <= 0 (callers clamp), as the pair (2^k, n, d) with
/// e^r = n / d: Cody-Waite reduction to |r| <= ln2/2, then the [6/6] Pade approximant
/// e^r = P(r) / P(-r) (error below 1e-18 relative on that interval). Callers fold the
/// quotient into their own division, so e^y costs no division of its own.
#[inline(always)]
fn exp_nonpositive_ratio<const FMA: bool>(y: f64) -> (f64, f64, f64) {
    let (shifted, r) = reduce_by_ln2::<FMA>(y);
    // P(r) = sum_j (12-j)! 6! / (12! j! (6-j)!) r^j, split into even and odd parts.
    const C: [f64; 7] = [
        1.0,
        1.0 / 2.0,
        5.0 / 44.0,
        1.0 / 66.0,
        1.0 / 792.0,
        1.0 / 15_840.0,
        1.0 / 665_280.0,
    ];
    let r2 = r * r;
    let even = madd::<FMA>(madd::<FMA>(madd::<FMA>(C[6], r2, C[4]), r2, C[2]), r2, C[0]);
    let odd = r * madd::<FMA>(madd::<FMA>(C[5], r2, C[3]), r2, C[1]);
    // 2^k for k in [-1022, 0] through the exponent bits. The integer k is read from the
    // low bits of `shifted` (no float-to-int conversion, which AVX2 cannot vectorise).
    let k_bits = shifted.to_bits().wrapping_sub(ROUND_MAGIC.to_bits());
    let scale = f64::from_bits(k_bits.wrapping_add(1023) << 52);
    (scale, even + odd, even - odd)
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
    let p = madd::<FMA>(
        madd::<FMA>(-9.643_991_794_250_523e-1, z, -9.928_772_310_019_186e1),
        z,
        -1.614_687_684_417_084_5e3,
    );
    let q = madd::<FMA>(
        madd::<FMA>(z + 1.128_116_784_916_329_3e2, z, 2.235_488_390_601_004_6e3),
        z,
        4.844_063_053_251_255e3,
    );
    // Large arguments: clamp so that e^-2|x| stays normal (tanh is +-1 there anyway).
    // With t = e^-2|x| = s n / d: (1 - t) / (1 + t) = (d - s n) / (d + s n).
    let (s, n, d) = exp_nonpositive_ratio::<FMA>(-2.0 * a.min(40.0));
    let sn = s * n;
    // One division for both cases: x (q + z p) / q, or +-(d - s n) / (d + s n).
    let is_small = a < 0.625;
    let num = if is_small {
        x * madd::<FMA>(z, p, q)
    } else {
        (d - sn).copysign(x)
    };
    let den = if is_small { q } else { d + sn };
    let r = num / den;
    // NaN in, NaN out.
    if x.is_nan() {
        x
    } else {
        r
    }
}

/// NumPy's `sign` of a float: 1, -1, 0 for either zero, NaN for NaN (the embedded
/// numpy's and the native code's).
#[inline]
pub fn sign(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else if x == 0.0 {
        0.0
    } else {
        f64::NAN
    }
}

/// The vector units the kernels are compiled for, narrowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SimdLevel {
    Sse2,
    Avx2Fma,
    Avx512,
}

/// The widest vector unit the kernels use: the widest the processor has, capped by the
/// environment variable `TANGENT_SIMD` (`avx2` or `sse2`: the narrower builds measured
/// on a wider machine). Read once.
pub fn simd_level() -> SimdLevel {
    static LEVEL: std::sync::OnceLock<SimdLevel> = std::sync::OnceLock::new();
    *LEVEL.get_or_init(|| {
        #[allow(unused_mut)]
        let mut found = SimdLevel::Sse2;
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                found = SimdLevel::Avx2Fma;
            }
            if found == SimdLevel::Avx2Fma && std::arch::is_x86_feature_detected!("avx512f") {
                found = SimdLevel::Avx512;
            }
        }
        let cap = match std::env::var("TANGENT_SIMD").as_deref() {
            Ok("sse2") => SimdLevel::Sse2,
            Ok("avx2") => SimdLevel::Avx2Fma,
            _ => SimdLevel::Avx512,
        };
        found.min(cap)
    })
}

/// Defines `pub fn $name(args)` running `$body` compiled three times: for AVX-512 (8
/// lanes), AVX2 with FMA (4 lanes) and the baseline (SSE2), picked at run time. The body
/// is a plain loop the compiler vectorises; `$fma` is a const bool it may use for
/// `madd`. Exported for the native code's elementwise passes.
#[macro_export]
macro_rules! simd_kernel {
    // A kernel with a result: the same three versions, each returning it.
    ($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty |$fma:ident| $body:block) => {
        $(#[$doc])*
        // A kernel without a result is this one returning ().
        #[allow(clippy::unused_unit, clippy::let_unit_value)]
        pub fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx2,fma")]
                #[allow(clippy::unused_unit, clippy::let_unit_value)]
                unsafe fn wide($($arg: $ty),*) -> $ret {
                    #[allow(non_upper_case_globals, unused)]
                    const $fma: bool = true;
                    let r = $body;
                    std::arch::x86_64::_mm256_zeroupper();
                    r
                }
                #[target_feature(enable = "avx2,fma")]
                #[allow(clippy::unused_unit, clippy::let_unit_value)]
                unsafe fn avx2($($arg: $ty),*) -> $ret {
                    #[allow(non_upper_case_globals, unused)]
                    const $fma: bool = true;
                    let r = $body;
                    std::arch::x86_64::_mm256_zeroupper();
                    r
                }
                let level = $crate::simd_level();
                if level == $crate::SimdLevel::Avx512 {
                    // SAFETY: the features `wide` is compiled for are present.
                    return unsafe { wide($($arg),*) };
                }
                if level == $crate::SimdLevel::Avx2Fma {
                    // SAFETY: as above.
                    return unsafe { avx2($($arg),*) };
                }
            }
            #[allow(non_upper_case_globals, unused)]
            const $fma: bool = false;
            $body
        }
    };
    ($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) |$fma:ident| $body:block) => {
        $crate::simd_kernel! { $(#[$doc])* fn $name($($arg: $ty),*) -> () |$fma| $body }
    };
}

simd_kernel! {
    /// `tanh` over a slice, into `dst` (written, never read).
    fn tanh_into(src: &[f64], dst: &mut [MaybeUninit<f64>]) |FMA| {
        for (d, &s) in dst.iter_mut().zip(src) {
            d.write(tanh_impl::<FMA>(s));
        }
    }
}

/// `tanh` over a slice.
pub fn tanh_slice(src: &[f64], dst: &mut [f64]) {
    tanh_into(src, as_uninit(dst))
}

/// A slice of numbers as space to write numbers into. Sound for the `*_into` kernels of
/// this crate, which write every element they touch with a number and read none.
fn as_uninit(d: &mut [f64]) -> &mut [MaybeUninit<f64>] {
    // SAFETY: MaybeUninit<f64> has f64's layout; the kernels only write initialized
    // values, so the slice stays initialized.
    unsafe { &mut *(d as *mut [f64] as *mut [MaybeUninit<f64>]) }
}

/// `kernel` (`exp_into`, `log_into`, `tanh_into`) over `src` into a new vector, which is
/// not filled with zeros first.
pub fn collect_kernel(src: &[f64], kernel: fn(&[f64], &mut [MaybeUninit<f64>])) -> Vec<f64> {
    let mut v = Vec::with_capacity(src.len());
    kernel(src, &mut v.spare_capacity_mut()[..src.len()]);
    // SAFETY: the kernel wrote every one of the first src.len() elements.
    unsafe { v.set_len(src.len()) };
    v
}

/// e^x for every double, without branches (the caller fixes up results below the
/// normal range, `exp_slice`): Cody-Waite reduction to |r| <= ln2/2, e^r - 1 by its
/// Taylor series to r^13 (terms below 1e-17 relative), and 2^k applied in two halves so
/// that k from -1076 to 1024 needs no special case. Within 1 ulp of the exact value.
#[inline(always)]
fn exp_impl<const FMA: bool>(x: f64) -> f64 {
    // Past these, e^x is 0 or inf anyway (and the halves of 2^k stay normal).
    let xc = x.clamp(-746.0, 710.0);
    let (shifted, r) = reduce_by_ln2::<FMA>(xc);
    // 1/2!, 1/3!, ..., 1/13!
    const C: [f64; 12] = [
        0.5,
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
    let mut p = C[11];
    for &c in C[..11].iter().rev() {
        p = madd::<FMA>(p, r, c);
    }
    let e = 1.0 + madd::<FMA>(r * r, p, r);
    // k as an integer from the low bits of `shifted` (see `exp_nonpositive_ratio`).
    let k_int = shifted.to_bits().wrapping_sub(ROUND_MAGIC.to_bits()) as i64;
    let (k1, k2) = (k_int >> 1, k_int - (k_int >> 1));
    let s1 = f64::from_bits(((k1 + 1023) as u64) << 52);
    let s2 = f64::from_bits(((k2 + 1023) as u64) << 52);
    let y = e * s2 * s1;
    if x.is_nan() {
        x
    } else {
        y
    }
}

/// e^x below which the result is not a normal double: `exp_slice` takes libm's there
/// (one rounding into the subnormal range, as libm has).
const EXP_NORMAL_MIN: f64 = -708.396_418_532_264_1;

/// ln(x) for every double, without branches: x = 2^k m with m in [sqrt(1/2), sqrt(2)),
/// f = m - 1 (exact), s = f / (2 + f), and ln(1 + f) = f - (f^2/2 - s (f^2/2 + R(s^2)))
/// with fdlibm's minimax R; k ln2 added in two parts. Within 1 ulp of the exact value.
#[inline(always)]
fn log_impl<const FMA: bool>(x: f64) -> f64 {
    const LG: [f64; 7] = [
        6.666_666_666_666_735e-1,
        3.999_999_999_940_942e-1,
        2.857_142_874_366_239e-1,
        2.222_219_843_214_978_4e-1,
        1.818_357_216_161_805e-1,
        1.531_383_769_920_937_3e-1,
        1.479_819_860_511_658_6e-1,
    ];
    // Subnormals scaled into the normal range first.
    let subnormal = x < f64::MIN_POSITIVE;
    let xs = if subnormal {
        x * 4_503_599_627_370_496.0
    } else {
        x
    };
    let bits = xs.to_bits();
    let m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    let big = m > std::f64::consts::SQRT_2;
    let m = if big { m * 0.5 } else { m };
    let k_int =
        ((bits >> 52) & 0x7ff) as i64 - 1023 + i64::from(big) - if subnormal { 52 } else { 0 };
    // k as a double through the rounding constant (AVX2 has no int64-to-double).
    let k = f64::from_bits(ROUND_MAGIC.to_bits().wrapping_add(k_int as u64)) - ROUND_MAGIC;
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * madd::<FMA>(w, madd::<FMA>(w, LG[5], LG[3]), LG[1]);
    let t2 = z * madd::<FMA>(
        w,
        madd::<FMA>(w, madd::<FMA>(w, LG[6], LG[4]), LG[2]),
        LG[0],
    );
    let r = t2 + t1;
    let hfsq = 0.5 * f * f;
    let y = k * LN2_HI - ((hfsq - madd::<FMA>(s, hfsq + r, k * LN2_LO)) - f);
    if x.is_nan() || x == f64::INFINITY {
        x
    } else if x < 0.0 {
        f64::NAN
    } else if x == 0.0 {
        f64::NEG_INFINITY
    } else {
        y
    }
}

simd_kernel! {
    /// `exp` over a slice, into `dst` (written, never read).
    fn exp_into(src: &[f64], dst: &mut [MaybeUninit<f64>]) |FMA| {
        // By blocks that stay in the L1 cache: a block with a value below the normal
        // range (seen by the vectorised loop itself) is passed over again for libm.
        for (dst, src) in dst.chunks_mut(512).zip(src.chunks(512)) {
            let mut low = false;
            for (d, &s) in dst.iter_mut().zip(src) {
                d.write(exp_impl::<FMA>(s));
                low |= s < EXP_NORMAL_MIN;
            }
            if low {
                for (d, &s) in dst.iter_mut().zip(src) {
                    if s < EXP_NORMAL_MIN {
                        d.write(s.exp());
                    }
                }
            }
        }
    }
}

/// `exp` over a slice.
pub fn exp_slice(src: &[f64], dst: &mut [f64]) {
    exp_into(src, as_uninit(dst))
}

simd_kernel! {
    /// `log` over a slice, into `dst` (written, never read).
    fn log_into(src: &[f64], dst: &mut [MaybeUninit<f64>]) |FMA| {
        for (d, &s) in dst.iter_mut().zip(src) {
            d.write(log_impl::<FMA>(s));
        }
    }
}

/// `log` over a slice.
pub fn log_slice(src: &[f64], dst: &mut [f64]) {
    log_into(src, as_uninit(dst))
}

simd_kernel! {
    /// Rounds every value to the nearest float32 (the storage rounding of float32
    /// arrays).
    fn round_to_f32(v: &mut [f64]) |_FMA| {
        for x in v.iter_mut() {
            *x = *x as f32 as f64;
        }
    }
}

/// `f()` compiled for the widest vector unit present (AVX-512 where there is one: `f`
/// is inlined into a version built for it), for loops that are not maps (reductions
/// and scans) and would otherwise get the baseline's narrow vectors.
pub fn on_wide_vectors<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx2,fma")]
        unsafe fn wide<R>(f: impl FnOnce() -> R) -> R {
            let r = f();
            std::arch::x86_64::_mm256_zeroupper();
            r
        }
        #[target_feature(enable = "avx2,fma")]
        unsafe fn avx2<R>(f: impl FnOnce() -> R) -> R {
            let r = f();
            std::arch::x86_64::_mm256_zeroupper();
            r
        }
        match simd_level() {
            // SAFETY: the features each version is compiled for are present.
            SimdLevel::Avx512 => return unsafe { wide(f) },
            SimdLevel::Avx2Fma => return unsafe { avx2(f) },
            SimdLevel::Sse2 => {}
        }
    }
    f()
}

/// `f` over one slice into a new vector, compiled for the widest vector unit present
/// (AVX-512, AVX2 with FMA, or the baseline; the kernels of the elementwise operators; `f`
/// is inlined into each version).
pub fn map1<T: Copy, U, F: Fn(T) -> U + Copy>(a: &[T], f: F) -> Vec<U> {
    #[inline(always)]
    fn body<T: Copy, U, F: Fn(T) -> U>(a: &[T], f: F) -> Vec<U> {
        a.iter().map(|&x| f(x)).collect()
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx2,fma")]
        unsafe fn wide<T: Copy, U, F: Fn(T) -> U>(a: &[T], f: F) -> Vec<U> {
            let v = body(a, f);
            std::arch::x86_64::_mm256_zeroupper();
            v
        }
        #[target_feature(enable = "avx2,fma")]
        unsafe fn avx2<T: Copy, U, F: Fn(T) -> U>(a: &[T], f: F) -> Vec<U> {
            let v = body(a, f);
            std::arch::x86_64::_mm256_zeroupper();
            v
        }
        if a.len() >= 64 {
            match simd_level() {
                // SAFETY: the features each version is compiled for are present.
                SimdLevel::Avx512 => return unsafe { wide(a, f) },
                SimdLevel::Avx2Fma => return unsafe { avx2(a, f) },
                SimdLevel::Sse2 => {}
            }
        }
    }
    body(a, f)
}

/// `f` over two slices of one length into a new vector (see `map1`).
pub fn map2<T: Copy, U, F: Fn(T, T) -> U + Copy>(a: &[T], b: &[T], f: F) -> Vec<U> {
    #[inline(always)]
    fn body<T: Copy, U, F: Fn(T, T) -> U>(a: &[T], b: &[T], f: F) -> Vec<U> {
        a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect()
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx2,fma")]
        unsafe fn wide<T: Copy, U, F: Fn(T, T) -> U>(a: &[T], b: &[T], f: F) -> Vec<U> {
            let v = body(a, b, f);
            std::arch::x86_64::_mm256_zeroupper();
            v
        }
        #[target_feature(enable = "avx2,fma")]
        unsafe fn avx2<T: Copy, U, F: Fn(T, T) -> U>(a: &[T], b: &[T], f: F) -> Vec<U> {
            let v = body(a, b, f);
            std::arch::x86_64::_mm256_zeroupper();
            v
        }
        if a.len() >= 64 {
            match simd_level() {
                // SAFETY: the features each version is compiled for are present.
                SimdLevel::Avx512 => return unsafe { wide(a, b, f) },
                SimdLevel::Avx2Fma => return unsafe { avx2(a, b, f) },
                SimdLevel::Sse2 => {}
            }
        }
    }
    body(a, b, f)
}

/// Sum of a slice (each value through `to_f64`) by NumPy's scheme: blocks of up to 128 values are summed with eight
/// independent accumulators (no serial add chain, so it vectorises), larger slices are
/// split in halves. The rounding error grows as O(log n), not O(n).
pub fn pairwise_sum_by<T: Copy>(v: &[T], to_f64: impl Fn(T) -> f64 + Copy) -> f64 {
    pairwise_sum_in(v, 0.0, to_f64)
}

/// The elements NumPy's reductions copy into a buffer at a time (its default `bufsize`).
pub const REDUCE_BUFFER: usize = 8192;

/// NumPy's sum of every element of a strided array (`np.sum(x)`), in its order: the axes
/// longer than 1 walked by decreasing |stride| (C order among equals); the innermost,
/// joined by the axes that continue it in memory, is one run summed pairwise; the runs
/// of the other axes are copied into NumPy's buffer (`REDUCE_BUFFER` elements, whole
/// runs) and each buffer's pairwise sum is added to the total. `read(offset)` is the
/// element at `offset` (in elements) from the first; the sum is in `A`'s precision.
pub fn strided_sum_in<A: Copy + std::ops::Add<Output = A>>(
    shape: &[usize],
    strides: &[isize],
    read: impl Fn(isize) -> A,
    zero: A,
) -> A {
    if shape.contains(&0) {
        return zero;
    }
    let mut dims: Vec<(usize, isize)> = shape
        .iter()
        .zip(strides)
        .filter(|(n, _)| **n > 1)
        .map(|(&n, &s)| (n, s))
        .collect();
    // Stable: axes of equal |stride| keep C order.
    dims.sort_by_key(|d| std::cmp::Reverse(d.1.unsigned_abs()));
    let Some((mut len, stride)) = dims.pop() else {
        return zero + read(0);
    };
    while let Some(&(l, s)) = dims.last() {
        if s != stride * len as isize {
            break;
        }
        len *= l;
        dims.pop();
    }
    let per_buffer = (REDUCE_BUFFER / len).max(1) * len;
    let mut buffer = Vec::with_capacity(per_buffer);
    let mut total = zero;
    let mut index = vec![0usize; dims.len()];
    loop {
        let start: isize = index
            .iter()
            .zip(&dims)
            .map(|(&i, d)| i as isize * d.1)
            .sum();
        if per_buffer == len || dims.is_empty() {
            // A run that fills the buffer alone, or the only run: summed where it is
            // (the buffer would hold exactly it: the same sum).
            total = total
                + if stride == 1 {
                    pairwise_sum_at(len, zero, |j| read(start + j as isize))
                } else {
                    pairwise_sum_at(len, zero, |j| read(start + j as isize * stride))
                };
        } else {
            buffer.extend((0..len).map(|j| read(start + j as isize * stride)));
        }
        if buffer.len() >= per_buffer {
            total = total + pairwise_sum_in(&buffer, zero, |x| x);
            buffer.clear();
        }
        // The next run, the last axis fastest.
        let mut more = false;
        for k in (0..index.len()).rev() {
            index[k] += 1;
            if index[k] < dims[k].0 {
                more = true;
                break;
            }
            index[k] = 0;
        }
        if !more {
            break;
        }
    }
    if !buffer.is_empty() {
        total = total + pairwise_sum_in(&buffer, zero, |x| x);
    }
    total
}

/// `pairwise_sum_by` in the precision of the accumulator `A` (`f32` for NumPy's sums of
/// float32 values, which it adds in float32), starting from `zero`.
pub fn pairwise_sum_in<T: Copy, A: Copy + std::ops::Add<Output = A>>(
    v: &[T],
    zero: A,
    to_acc: impl Fn(T) -> A + Copy,
) -> A {
    // SAFETY: `pairwise_sum_at` reads indices below the length it is given.
    pairwise_sum_at(v.len(), zero, |i| to_acc(unsafe { *v.get_unchecked(i) }))
}

/// The sum of `x[i] * y[i]` over the shorter length, in `pairwise_sum_at`'s order (the
/// embedded numpy's `np.dot` of vectors and the native code's).
pub fn pairwise_dot(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len().min(y.len());
    // SAFETY: `pairwise_sum_at` reads indices below `n`, within both slices.
    pairwise_sum_at(n, 0.0, |i| unsafe {
        x.get_unchecked(i) * y.get_unchecked(i)
    })
}

/// NumPy's pairwise sum of the `n` values `at(0)`, ..., `at(n - 1)`: blocks of up to 128
/// values summed with eight independent accumulators, longer runs split in halves on a
/// multiple of 8.
pub fn pairwise_sum_at<A: Copy + std::ops::Add<Output = A>>(
    n: usize,
    zero: A,
    at: impl Fn(usize) -> A + Copy,
) -> A {
    fn range<A: Copy + std::ops::Add<Output = A>>(
        lo: usize,
        n: usize,
        zero: A,
        at: impl Fn(usize) -> A + Copy,
    ) -> A {
        const BLOCK: usize = 128;
        if n <= BLOCK {
            let mut acc = [zero; 8];
            let full = n / 8 * 8;
            // Counted blocks (not `step_by`, which keeps the loop from vectorising).
            for b in 0..n / 8 {
                let c = lo + 8 * b;
                for (k, a) in acc.iter_mut().enumerate() {
                    *a = *a + at(c + k);
                }
            }
            let mut s =
                ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
            for i in lo + full..lo + n {
                s = s + at(i);
            }
            s
        } else {
            // Split on a multiple of 8 so every block but the last is full.
            let half = (n / 2 / 8) * 8;
            range(lo, half, zero, at) + range(lo + half, n - half, zero, at)
        }
    }
    range(0, n, zero, at)
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

    /// Within 1 ulp of libm (itself within 1 ulp of the exact value) over the whole
    /// range, in the builds with and without FMA and in the slice kernel (the widest
    /// build this machine has); subnormal results and special values as libm's.
    #[test]
    fn exp_and_log_match_libm() {
        let mut xs: Vec<f64> = Vec::new();
        let mut x = -750.0;
        while x < 712.0 {
            xs.push(x);
            x += 0.013_7;
        }
        for k in -1074..1024 {
            xs.push(2f64.powi(k));
            xs.push(1.0 + 2f64.powi(k.clamp(-60, 0)) * 0.37);
        }
        xs.extend([
            0.0,
            -0.0,
            1.0,
            -1.0,
            1e-300,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            0.999_999_999,
            1.000_000_001,
            709.78,
            709.79,
            -708.4,
            -745.1,
            -745.2,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ]);
        let (mut exps, mut logs) = (vec![0.0; xs.len()], vec![0.0; xs.len()]);
        exp_slice(&xs, &mut exps);
        log_slice(&xs, &mut logs);
        let mut worst = [0.0f64; 2];
        for (k, &x) in xs.iter().enumerate() {
            let (want_e, want_l) = (x.exp(), x.ln());
            let normal_e = want_e.is_finite() && want_e >= f64::MIN_POSITIVE;
            for e in [exp_impl::<false>(x), exp_impl::<true>(x), exps[k]] {
                if normal_e {
                    worst[0] = worst[0].max(ulps(e, want_e));
                } else if x >= EXP_NORMAL_MIN || e == exps[k] {
                    assert!(e == want_e || e.is_nan() && x.is_nan(), "exp({x}) = {e}");
                }
            }
            for l in [log_impl::<false>(x), log_impl::<true>(x), logs[k]] {
                if x > 0.0 && x.is_finite() {
                    worst[1] = worst[1].max(ulps(l, want_l));
                } else {
                    assert!(
                        l == want_l || l.is_nan() && want_l.is_nan(),
                        "log({x}) = {l}"
                    );
                }
            }
        }
        assert!(worst[0] <= 1.0, "exp: worst error {} ulps", worst[0]);
        assert!(worst[1] <= 1.0, "log: worst error {} ulps", worst[1]);
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
    fn pairwise_sum_is_exact_on_integers_and_close_to_a_compensated_sum() {
        for n in [0usize, 1, 7, 8, 9, 127, 128, 129, 1000, 8192, 10_001] {
            let v: Vec<f64> = (0..n).map(|i| (i % 17) as f64 - 8.0).collect();
            let exact: f64 = v.iter().sum();
            assert_eq!(pairwise_sum_by(&v, |x| x), exact, "n = {n}");
        }
        let v: Vec<f64> = (0..10_000)
            .map(|i| ((i as f64) * 0.731).sin() * 1e3)
            .collect();
        // Kahan summation as the reference.
        let (mut s, mut c) = (0.0f64, 0.0f64);
        for &x in &v {
            let y = x - c;
            let t = s + y;
            c = (t - s) - y;
            s = t;
        }
        assert!(
            (pairwise_sum_by(&v, |x| x) - s).abs()
                <= 1e-9 * v.iter().map(|x| x.abs()).sum::<f64>() / 1e4
        );
    }

    /// A run too long to share NumPy's buffer is summed where it is, contiguous or
    /// strided: the same number as the pairwise sum of its values.
    #[test]
    fn long_runs_sum_in_place_as_the_buffered_sum_did() {
        let v: Vec<f64> = (0..3 * 10_007)
            .map(|i| ((i as f64) * 0.731).sin() * 1e3)
            .collect();
        let read = |o: isize| v[o as usize];
        assert_eq!(
            strided_sum_in(&[v.len()], &[1], read, 0.0).to_bits(),
            pairwise_sum_in(&v, 0.0, |x| x).to_bits()
        );
        // The middle column of a (10007, 3) C array: one run of stride 3.
        let column: Vec<f64> = v.iter().skip(1).step_by(3).copied().collect();
        let shifted = |o: isize| v[(o + 1) as usize];
        assert_eq!(
            strided_sum_in(&[10_007], &[3], shifted, 0.0).to_bits(),
            pairwise_sum_in(&column, 0.0, |x| x).to_bits()
        );
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
