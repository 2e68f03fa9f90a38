//! NumPy's float32 `tanh`, `exp`, `log`, `sin` and `cos`, bit for bit: the kernels NumPy
//! runs on x86-64 with AVX2 and FMA or AVX-512 (and on Arm with NEON's FMA for `tanh`,
//! `sin` and `cos`), whose results are NumPy's own approximations, not libm's. Each is a
//! function of one element: NumPy's vector loops apply the same operations in every
//! lane, and call the same code on single elements (strided output, overlap), so an
//! element's result does not depend on the array around it. Written from the algorithms
//! NumPy documents in `loops_hyperbolic`, `loops_exponent_log` and `loops_trigonometric`
//! (table-driven polynomials, Cody-Waite reductions, rational approximations), with
//! every multiply-add fused as there (`mul_add`: one rounding).
//!
//! NumPy without those vector units (or another NumPy) computes something else; hosts
//! that run real NumPy check its results against these before native code uses them
//! (`tangent_numpy_f32_agrees` in the bridge).

// NumPy's constants are written as its sources give them (more digits than float32
// holds; each rounds to the float32 NumPy uses).
#![allow(clippy::excessive_precision)]

/// `a * b + c` rounded once, as NumPy's vector multiply-adds.
#[inline(always)]
fn fma(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// NumPy's NaN (`NPY_NANF`: the quiet NaN with a clear sign bit).
const NAN: f32 = f32::from_bits(0x7fc0_0000);

/// The polynomial of `tanh` on each of 32 intervals of |x|: `b` (the interval's start,
/// subtracted from |x|) then `c0..c6`, as float32 bits. Interval 0 starts at 0; the last
/// is the constant 1 beyond the saturation threshold.
#[rustfmt::skip]
const TANH_TABLE: [[u32; 8]; 32] = [
    // b           c0          c1          c2          c3          c4          c5          c6
    [0x0,        0x0,        0x3f800000, 0xb0343c7b, 0xbeaaaaa5, 0xb76dd6b9, 0x3e0910e9, 0xbc0e2f66],
    [0x3d700000, 0x3d6fb9c9, 0x3f7f1f84, 0xbd6ee69d, 0xbeab0612, 0xbe1c276d, 0x43761143, 0x460bda12],
    [0x3d900000, 0x3d8fc35f, 0x3f7ebd11, 0xbd8f0da7, 0xbea7f01f, 0x3c1dcf2f, 0x4165ecdc, 0x43d638ef],
    [0x3db00000, 0x3daf9169, 0x3f7e1e5f, 0xbdae477d, 0xbea4e120, 0x3dc1a78d, 0xc190f756, 0xc3e11c3e],
    [0x3dd00000, 0x3dcf49ab, 0x3f7d609f, 0xbdcd2a1f, 0xbea387b7, 0x3d96f985, 0xc08c097d, 0xc2baa4e9],
    [0x3df00000, 0x3deee849, 0x3f7c842d, 0xbdeba80d, 0xbea15962, 0x3da2b61b, 0xc02ba813, 0xc249da2d],
    [0x3e100000, 0x3e0f0ee8, 0x3f7b00e5, 0xbe0c443b, 0xbe9d57f7, 0x3dc13397, 0xbf7f6bda, 0xc1859b82],
    [0x3e300000, 0x3e2e4984, 0x3f789580, 0xbe293cf3, 0xbe976b5a, 0x3dd2f670, 0x3f2b1dc0, 0x40dd5b57],
    [0x3e500000, 0x3e4d2f8e, 0x3f75b8ad, 0xbe44f282, 0xbe90230d, 0x3df48a0a, 0x3ece105d, 0x40494640],
    [0x3e700000, 0x3e6bb32e, 0x3f726fd9, 0xbe5f3651, 0xbe880dff, 0x3e06c5a8, 0x3f426a94, 0x40c730a8],
    [0x3e900000, 0x3e8c51cd, 0x3f6cc59b, 0xbe81c7c0, 0xbe7479b3, 0x3e1a3aba, 0xbadb0dc4, 0xbf0f160e],
    [0x3eb00000, 0x3ea96163, 0x3f63fb92, 0xbe96d7ca, 0xbe4c3d88, 0x3e27c405, 0x3da43b17, 0x3e30e76f],
    [0x3ed00000, 0x3ec543f1, 0x3f59ff97, 0xbea7fb8e, 0xbe212482, 0x3e2e78d0, 0xbd51ab88, 0xbea81387],
    [0x3ef00000, 0x3edfd735, 0x3f4f11d7, 0xbeb50e9e, 0xbdeb8cba, 0x3e2c3e44, 0xbcaea23d, 0xbdb26a1c],
    [0x3f100000, 0x3f028438, 0x3f3d7573, 0xbec12efe, 0xbd5e78ad, 0x3e1d3097, 0xbd3b6d8d, 0xbd351e57],
    [0x3f300000, 0x3f18abf0, 0x3f24f360, 0xbec4be92, 0x3c6b5e6e, 0x3df4a8f4, 0xbd6caaad, 0xbb4c01a0],
    [0x3f500000, 0x3f2bc480, 0x3f0cbfe7, 0xbebce070, 0x3d839143, 0x3da38508, 0xbd795bed, 0x3c1d7bfb],
    [0x3f700000, 0x3f3bec1c, 0x3eec1a69, 0xbead510e, 0x3dc21ee1, 0x3d31416a, 0xbd5fddda, 0x3c722cd1],
    [0x3f900000, 0x3f4f2e5b, 0x3eb0a801, 0xbe8ef7d6, 0x3de347af, 0x3b562657, 0xbd038f3b, 0x3c973f1c],
    [0x3fb00000, 0x3f613c53, 0x3e6753a2, 0xbe4b8704, 0x3dcbec96, 0xbcaeeac9, 0xbc1cad63, 0x3c33a31b],
    [0x3fd00000, 0x3f6ce37d, 0x3e132f1a, 0xbe083237, 0x3d99ef2d, 0xbcce9419, 0x3abb4766, 0x3b862ef4],
    [0x3ff00000, 0x3f743c4f, 0x3db7e7d3, 0xbdaf7449, 0x3d542ea1, 0xbcaaeac4, 0x3b95f10b, 0x3a27b3d0],
    [0x40100000, 0x3f7a5feb, 0x3d320845, 0xbd2e1ec4, 0x3cdde701, 0xbc49e7d0, 0x3b825873, 0xba3b5907],
    [0x40300000, 0x3f7dea85, 0x3c84d3d4, 0xbc83bf06, 0x3c2cca67, 0xbba71ddd, 0x3afaea66, 0xba0efc22],
    [0x40500000, 0x3f7f3b3d, 0x3bc477b7, 0xbbc3e0b5, 0x3b81cb27, 0xbb003b0e, 0x3a49f878, 0xb97f9f0f],
    [0x40700000, 0x3f7fb78c, 0x3b10d3da, 0xbb10aadc, 0x3ac073a1, 0xba3f9a05, 0x39996bf3, 0xb8c8af50],
    [0x40900000, 0x3f7fefd4, 0x3a01601e, 0xba0157db, 0x39ac3032, 0xb92c08a7, 0x388f3e6c, 0xb7bdddfb],
    [0x40b00000, 0x3f7ffdd0, 0x388c1a3b, 0xb88c18f2, 0x383a94d9, 0xb7ba9232, 0x371bb0e3, 0xb64f2950],
    [0x40d00000, 0x3f7fffb4, 0x3717b0da, 0xb717b096, 0x36ca081d, 0xb64a0b0f, 0x35a8a5e6, 0xb4e085b1],
    [0x40f00000, 0x3f7ffff6, 0x35a43bce, 0xb5a43bae, 0x355abd4c, 0xb4dac169, 0x34369b17, 0xb3731dfa],
    [0x41100000, 0x3f7fffff, 0x338306c6, 0xb383012c, 0x332b3cb6, 0xb2ab78ac, 0x322487b0, 0xb15a1f04],
    [0x0,        0x3f800000, 0x0,        0x0,        0x0,        0x0,        0x0,        0x0],
];

/// NumPy's float32 `tanh`: the interval of |x| picked from its exponent and top
/// mantissa bits, |x| - b into that interval's degree-6 polynomial, the sign of x put
/// back; 1 past the threshold where the table ends.
#[inline(always)]
pub fn tanh(x: f32) -> f32 {
    let bits = x.to_bits();
    let top = (bits & 0x7fe0_0000) as i32;
    let idx = ((top - 0x3d40_0000).clamp(0, 0x03e0_0000) >> 21) as usize;
    let row = &TANH_TABLE[idx];
    let c = |k: usize| f32::from_bits(row[k]);
    let y = x.abs() - c(0);
    let mut r = fma(c(7), y, c(6));
    for k in (1..=5).rev() {
        r = fma(r, y, c(k));
    }
    if top > 0x7f00_0000 {
        r = 1.0;
    }
    let r = f32::from_bits(r.to_bits() | (bits & 0x8000_0000));
    if x.is_nan() {
        NAN
    } else {
        r
    }
}

/// 1.5 * 2^23: adding and subtracting it rounds a float32 to the nearest integer.
const RINT_MAGIC: f32 = 12_582_912.0;

/// NumPy's float32 `exp`: k = rint(x log2 e), r = x - k ln2 (Cody-Waite, two parts),
/// e^r as a [5/2] rational function, times 2^k with one rounding; inf from 88.7228...
/// up, 0 from -103.972... down.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    const XMAX: f32 = 88.722_839;
    const XMIN: f32 = -103.972_084;
    const LN2_HIGH: f32 = -6.931_457_52e-1;
    const LN2_LOW: f32 = -1.428_606_77e-6;
    const P: [f32; 6] = [
        9.999_999_999_980_870_924_916e-1,
        7.257_664_613_233_124_478_488e-1,
        2.473_615_434_895_520_810_817e-1,
        5.114_512_081_637_298_353_406e-2,
        6.757_896_990_527_504_603_057e-3,
        5.082_762_527_590_693_718_096e-4,
    ];
    const Q: [f32; 3] = [
        1.0,
        -2.742_335_390_411_667_452_936e-1,
        2.159_509_375_685_829_852_307e-2,
    ];
    let nan = x.is_nan();
    let (over, under) = (x >= XMAX, x <= XMIN);
    let x = if nan || over || under { 0.0 } else { x };
    let k = x * std::f32::consts::LOG2_E + RINT_MAGIC - RINT_MAGIC;
    let r = fma(k, 0.0, fma(k, LN2_LOW, fma(k, LN2_HIGH, x)));
    let num = fma(
        fma(fma(fma(fma(P[5], r, P[4]), r, P[3]), r, P[2]), r, P[1]),
        r,
        P[0],
    );
    let den = fma(fma(Q[2], r, Q[1]), r, Q[0]);
    let poly = num / den;
    // poly * 2^k rounded once (exact in double, k within [-150, 128]), as `scalef`.
    // 2^k built from its exponent bits (vectorises, unlike `powi`).
    let scale = f64::from_bits(((k as i64 + 1023) as u64) << 52);
    let v = (poly as f64 * scale) as f32;
    if nan {
        NAN
    } else if over {
        f32::INFINITY
    } else if under {
        0.0
    } else {
        v
    }
}

/// NumPy's float32 `log`: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) as a [5/5]
/// rational function of m - 1, plus e ln 2 fused; -inf at 0, NaN below it (negative).
#[inline(always)]
pub fn log(x_in: f32) -> f32 {
    const P: [f32; 6] = [
        0.0,
        9.999_999_999_999_998_702_752e-1,
        2.112_677_543_073_053_063_722,
        1.480_000_633_576_506_585_156,
        3.808_837_741_388_407_920_751e-1,
        2.589_979_117_907_922_693_523e-2,
    ];
    const Q: [f32; 6] = [
        1.0,
        2.612_677_543_073_109_236_779,
        2.453_006_071_784_736_363_091,
        9.864_942_958_519_418_960_339e-1,
        1.546_476_374_983_906_719_538e-1,
        5.875_095_403_124_574_342_950e-3,
    ];
    let negative = x_in < 0.0;
    let x = if negative { 0.0 } else { x_in };
    // The exponent (plus one) and the mantissa in [0.5, 1), subnormals normalised.
    let (x, shift) = if x < f32::MIN_POSITIVE {
        (x * f32::from_bits(0x7180_0000), 100.0)
    } else {
        (x, 0.0)
    };
    let bits = x.to_bits();
    let mut e = ((bits >> 23) as i32 - 126) as f32 - shift;
    let mut m = f32::from_bits((bits & 0x007f_ffff) | (126 << 23));
    if m <= std::f32::consts::FRAC_1_SQRT_2 {
        m = m + m;
        e -= 1.0;
    }
    let t = m - 1.0;
    let num = fma(
        fma(fma(fma(fma(P[5], t, P[4]), t, P[3]), t, P[2]), t, P[1]),
        t,
        P[0],
    );
    let den = fma(
        fma(fma(fma(fma(Q[5], t, Q[4]), t, Q[3]), t, Q[2]), t, Q[1]),
        t,
        Q[0],
    );
    let v = fma(e, std::f32::consts::LN_2, num / den);
    if x_in.is_nan() {
        NAN
    } else if negative {
        -NAN
    } else if x_in == 0.0 {
        f32::NEG_INFINITY
    } else if x_in == f32::INFINITY {
        f32::INFINITY
    } else {
        v
    }
}

/// Which of the two NumPy computes from the shared reduction.
#[derive(Clone, Copy, PartialEq)]
enum Trig {
    Sin,
    Cos,
}

/// NumPy's float32 `sin` and `cos`: q = rint(2x/pi), r = x - q pi/2 in three parts,
/// sin(r) or cos(r) by a polynomial as q's quadrant says, negated in the lower half;
/// past the reduction's range (|x| > 117435.992 for sin, 71476.0625 for cos) the C
/// library's `sinf`/`cosf`, as NumPy calls them.
#[inline(always)]
fn sincos(x_in: f32, op: Trig) -> f32 {
    let max_cody: f32 = if op == Trig::Sin {
        117_435.992
    } else {
        71_476.062_5
    };
    if x_in.is_nan() {
        return NAN;
    }
    if x_in.abs() > max_cody {
        return match op {
            Trig::Sin => x_in.sin(),
            Trig::Cos => x_in.cos(),
        };
    }
    // NumPy's constants (hex floats there): 2/pi, pi/2 in three parts, the
    // coefficients of cos (even powers) and sin (odd powers) on [-pi/4, pi/4].
    const TWO_OVER_PI: u32 = 0x3f22_f983;
    const PIO2: [u32; 3] = [0x3fc9_0fd8, 0x34a8_885a, 0x27c2_34c4];
    const COS: [u32; 3] = [0x37cc_730b, 0x3ab6_036e, 0x3d2a_aa9e];
    const SIN: [u32; 4] = [0x363e_9dde, 0x3950_35dd, 0x3c08_88cd, 0x3e2a_aaab];
    let f = f32::from_bits;
    // NumPy's compiler fuses this product and sum (its results show it: 5pi/4 is in
    // quadrant 3 there, 2 unfused).
    let q = fma(x_in, f(TWO_OVER_PI), RINT_MAGIC) - RINT_MAGIC;
    let r = fma(
        q,
        -f(PIO2[2]),
        fma(q, -f(PIO2[1]), fma(q, -f(PIO2[0]), x_in)),
    );
    let r2 = r * r;
    let cos = fma(
        fma(fma(fma(f(COS[0]), r2, -f(COS[1])), r2, f(COS[2])), r2, -0.5),
        r2,
        1.0,
    );
    let s = fma(
        fma(fma(f(SIN[0]), r2, -f(SIN[1])), r2, f(SIN[2])),
        r2,
        -f(SIN[3]),
    );
    let sin = fma(fma(s, r2, 0.0), r, r);
    let mut quadrant = q as i32;
    if op == Trig::Cos {
        quadrant += 1;
    }
    let v = if quadrant & 1 == 0 { sin } else { cos };
    if quadrant & 2 == 2 {
        0.0 - v
    } else {
        v
    }
}

/// NumPy's float32 `sin`.
#[inline(always)]
pub fn sin(x: f32) -> f32 {
    sincos(x, Trig::Sin)
}

/// NumPy's float32 `cos`.
#[inline(always)]
pub fn cos(x: f32) -> f32 {
    sincos(x, Trig::Cos)
}

/// The functions here, by NumPy's names.
pub const NAMES: [&str; 5] = ["tanh", "exp", "log", "sin", "cos"];

/// The emulated function of NumPy's name (`tanh`, `exp`, `log`, `sin`, `cos`).
pub fn by_name(name: &str) -> Option<fn(f32) -> f32> {
    Some(match name {
        "tanh" => tanh,
        "exp" => exp,
        "log" => log,
        "sin" => sin,
        "cos" => cos,
        _ => return None,
    })
}

/// NumPy's float32 `tanh` over a slice: with AVX-512 or AVX2 the table's columns sit in
/// vector registers and each lane's coefficients are picked by permutes, as NumPy does
/// (a gather per coefficient is several times slower); the same operations as `tanh`.
pub fn tanh_slice(src: &[f32], dst: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        match crate::simd_level() {
            // SAFETY: the features each is compiled for are present.
            crate::SimdLevel::Avx512 => return unsafe { x86::tanh_avx512(src, dst) },
            crate::SimdLevel::Avx2Fma => return unsafe { x86::tanh_avx2(src, dst) },
            crate::SimdLevel::Sse2 => {}
        }
    }
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = tanh(s);
    }
}

/// `TANH_TABLE` as floats, a row per interval: `b`, `c0`, ... `c6`.
const TANH_ROWS: [[f32; 8]; 32] = {
    let mut rows = [[0.0f32; 8]; 32];
    let mut row = 0;
    while row < 32 {
        let mut k = 0;
        while k < 8 {
            rows[row][k] = f32::from_bits(TANH_TABLE[row][k]);
            k += 1;
        }
        row += 1;
    }
    rows
};

/// `TANH_TABLE` by column: the 32 values of `b`, then of `c0`, ... `c6`.
const TANH_COLUMNS: [[f32; 32]; 8] = {
    let mut cols = [[0.0f32; 32]; 8];
    let mut row = 0;
    while row < 32 {
        let mut k = 0;
        while k < 8 {
            cols[k][row] = f32::from_bits(TANH_TABLE[row][k]);
            k += 1;
        }
        row += 1;
    }
    cols
};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{tanh, TANH_COLUMNS, TANH_ROWS};
    use std::arch::x86_64::*;

    /// 16 lanes of `tanh`; `lo[k]`/`hi[k]` hold entries 0-15 and 16-31 of column k.
    #[target_feature(enable = "avx512f")]
    fn tanh16(x: __m512, lo: &[__m512; 8], hi: &[__m512; 8]) -> __m512 {
        let bits = _mm512_castps_si512(x);
        let top = _mm512_and_si512(bits, _mm512_set1_epi32(0x7fe0_0000));
        let idx = _mm512_sub_epi32(top, _mm512_set1_epi32(0x3d40_0000));
        let idx = _mm512_min_epi32(
            _mm512_max_epi32(idx, _mm512_setzero_si512()),
            _mm512_set1_epi32(0x03e0_0000),
        );
        let idx = _mm512_srli_epi32::<21>(idx);
        let c = |k: usize| _mm512_permutex2var_ps(lo[k], idx, hi[k]);
        let magnitude = _mm512_castsi512_ps(_mm512_and_si512(bits, _mm512_set1_epi32(0x7fff_ffff)));
        let y = _mm512_sub_ps(magnitude, c(0));
        let mut r = _mm512_fmadd_ps(c(7), y, c(6));
        for k in (1..=5).rev() {
            r = _mm512_fmadd_ps(r, y, c(k));
        }
        let saturated = _mm512_cmpgt_epi32_mask(top, _mm512_set1_epi32(0x7f00_0000));
        r = _mm512_mask_blend_ps(saturated, r, _mm512_set1_ps(1.0));
        let sign = _mm512_and_si512(bits, _mm512_set1_epi32(i32::MIN));
        r = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(r), sign));
        let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
        _mm512_mask_blend_ps(nan, r, _mm512_set1_ps(super::NAN))
    }

    /// # Safety
    /// The processor has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn tanh_avx512(src: &[f32], dst: &mut [f32]) {
        let n = src.len().min(dst.len());
        // SAFETY: each column is 32 floats.
        let lo: [__m512; 8] =
            std::array::from_fn(|k| unsafe { _mm512_loadu_ps(TANH_COLUMNS[k].as_ptr()) });
        let hi: [__m512; 8] =
            std::array::from_fn(|k| unsafe { _mm512_loadu_ps(TANH_COLUMNS[k].as_ptr().add(16)) });
        let mut i = 0;
        while i + 16 <= n {
            // SAFETY: i + 16 <= n for both slices.
            unsafe {
                let x = _mm512_loadu_ps(src.as_ptr().add(i));
                _mm512_storeu_ps(dst.as_mut_ptr().add(i), tanh16(x, &lo, &hi));
            }
            i += 16;
        }
        for j in i..n {
            dst[j] = tanh(src[j]);
        }
    }

    /// 8 lanes of `tanh`. AVX2 has no two-table permute: each lane's row of the table
    /// (its 8 coefficients, one 256-bit load in halves) is loaded and the rows are
    /// transposed into the 8 coefficient vectors, 16 shuffles in all (picking each
    /// coefficient from the columns by permutes and blends took 56 operations).
    #[target_feature(enable = "avx2,fma")]
    fn tanh8(x: __m256) -> __m256 {
        let bits = _mm256_castps_si256(x);
        let top = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fe0_0000));
        let idx = _mm256_sub_epi32(top, _mm256_set1_epi32(0x3d40_0000));
        let idx = _mm256_min_epi32(
            _mm256_max_epi32(idx, _mm256_setzero_si256()),
            _mm256_set1_epi32(0x03e0_0000),
        );
        let idx = _mm256_srli_epi32::<21>(idx);
        let mut rows = [0u32; 8];
        // SAFETY: `rows` is 32 bytes.
        unsafe { _mm256_storeu_si256(rows.as_mut_ptr().cast(), idx) };
        // Columns 0-3 (`half` 0) or 4-7 (`half` 1) of lanes l and l + 4's rows; every
        // index is in 0..=31 (clamped above).
        let pair = |l: usize, half: usize| {
            let at = |lane: usize| TANH_ROWS[rows[lane] as usize & 31][4 * half..].as_ptr();
            // SAFETY: each row has 8 floats, so 4 from `4 * half` are in it.
            unsafe {
                _mm256_insertf128_ps::<1>(
                    _mm256_castps128_ps256(_mm_loadu_ps(at(l))),
                    _mm_loadu_ps(at(l + 4)),
                )
            }
        };
        // The 4x4 transpose in each 128-bit half: lanes 0-3 low, 4-7 high.
        let four = |half: usize| {
            let (t0, t1, t2, t3) = (pair(0, half), pair(1, half), pair(2, half), pair(3, half));
            let (a0, a1) = (_mm256_unpacklo_ps(t0, t1), _mm256_unpackhi_ps(t0, t1));
            let (a2, a3) = (_mm256_unpacklo_ps(t2, t3), _mm256_unpackhi_ps(t2, t3));
            [
                _mm256_shuffle_ps::<0x44>(a0, a2),
                _mm256_shuffle_ps::<0xEE>(a0, a2),
                _mm256_shuffle_ps::<0x44>(a1, a3),
                _mm256_shuffle_ps::<0xEE>(a1, a3),
            ]
        };
        let [b, c0, c1, c2] = four(0);
        let [c3, c4, c5, c6] = four(1);
        let magnitude = _mm256_castsi256_ps(_mm256_and_si256(bits, _mm256_set1_epi32(0x7fff_ffff)));
        let y = _mm256_sub_ps(magnitude, b);
        let mut r = _mm256_fmadd_ps(c6, y, c5);
        for c in [c4, c3, c2, c1, c0] {
            r = _mm256_fmadd_ps(r, y, c);
        }
        let saturated =
            _mm256_castsi256_ps(_mm256_cmpgt_epi32(top, _mm256_set1_epi32(0x7f00_0000)));
        r = _mm256_blendv_ps(r, _mm256_set1_ps(1.0), saturated);
        let sign = _mm256_and_si256(bits, _mm256_set1_epi32(i32::MIN));
        r = _mm256_castsi256_ps(_mm256_or_si256(_mm256_castps_si256(r), sign));
        let nan = _mm256_cmp_ps::<_CMP_UNORD_Q>(x, x);
        _mm256_blendv_ps(r, _mm256_set1_ps(super::NAN), nan)
    }

    /// # Safety
    /// The processor has AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn tanh_avx2(src: &[f32], dst: &mut [f32]) {
        let n = src.len().min(dst.len());
        let mut i = 0;
        while i + 8 <= n {
            // SAFETY: i + 8 <= n for both slices.
            unsafe {
                let x = _mm256_loadu_ps(src.as_ptr().add(i));
                _mm256_storeu_ps(dst.as_mut_ptr().add(i), tanh8(x));
            }
            i += 8;
        }
        for j in i..n {
            dst[j] = tanh(src[j]);
        }
        _mm256_zeroupper();
    }
}

/// `$name`: NumPy's float32 `$f` over a slice, compiled per vector width.
macro_rules! slice_kernels {
    ($($name:ident = $f:ident;)*) => {$(
        crate::simd_kernel! {
            #[doc = concat!("NumPy's float32 `", stringify!($f), "` over a slice.")]
            fn $name(src: &[f32], dst: &mut [f32]) |_FMA| {
                for (d, &s) in dst.iter_mut().zip(src) {
                    *d = $f(s);
                }
            }
        }
    )*};
}

slice_kernels! {
    exp_slice = exp;
    log_slice = log;
    sin_slice = sin;
    cos_slice = cos;
}

/// A function over a slice into another of the same length.
pub type SliceKernel = fn(&[f32], &mut [f32]);

/// The slice kernel of the emulated function `name`.
pub fn slice_by_name(name: &str) -> Option<SliceKernel> {
    Some(match name {
        "tanh" => tanh_slice,
        "exp" => exp_slice,
        "log" => log_slice,
        "sin" => sin_slice,
        "cos" => cos_slice,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in float32 steps between two finite floats of one sign.
    fn ulps(a: f32, b: f32) -> i64 {
        (a.to_bits() as i64 - b.to_bits() as i64).abs()
    }

    fn samples(lo: f32, hi: f32, n: usize) -> Vec<f32> {
        (0..=n)
            .map(|i| lo + (hi - lo) * (i as f32 / n as f32))
            .collect()
    }

    #[test]
    fn each_is_within_its_documented_error_of_the_true_value() {
        // NumPy documents 1.49 ulp for sin/cos, 2.52 for exp, 3.83 for log; tanh is
        // SVML's "la" accuracy. Against libm in double, rounded to float32.
        // (function, reference, sampled from, to, ulps allowed)
        type Case = (fn(f32) -> f32, fn(f64) -> f64, f32, f32, i64);
        let cases: [Case; 5] = [
            (tanh, f64::tanh, -12.0, 12.0, 2),
            (exp, f64::exp, -87.0, 88.0, 3),
            (log, f64::ln, 1e-30, 1e30, 4),
            (sin, f64::sin, -1e5, 1e5, 2),
            (cos, f64::cos, -7e4, 7e4, 2),
        ];
        for (f, reference, lo, hi, limit) in cases {
            for x in samples(lo, hi, 200_000)
                .into_iter()
                .chain(samples(-2.0, 2.0, 100_000))
            {
                if lo > 0.0 && x <= 0.0 {
                    continue;
                }
                let want = reference(x as f64) as f32;
                let got = f(x);
                if want.abs() < 1e-30 || want.signum() != got.signum() {
                    assert!((want - got).abs() < 1e-6, "{x}: {got} vs {want}");
                    continue;
                }
                assert!(ulps(got, want) <= limit, "{x}: {got} vs {want}");
            }
        }
    }

    #[test]
    fn special_values_are_numpys() {
        assert_eq!(tanh(f32::INFINITY), 1.0);
        assert_eq!(tanh(f32::NEG_INFINITY), -1.0);
        assert!(tanh(-0.0).is_sign_negative() && tanh(-0.0) == 0.0);
        assert_eq!(exp(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-103.98), 0.0);
        assert!(exp(-100.0) > 0.0 && exp(-100.0) < f32::MIN_POSITIVE); // subnormal
        assert_eq!(log(0.0), f32::NEG_INFINITY);
        assert_eq!(log(f32::INFINITY), f32::INFINITY);
        assert_eq!(log(1.0), 0.0);
        assert!(log(-1.0).is_nan() && log(-1.0).is_sign_negative());
        assert!((log(1e-40) - (1e-40f64).ln() as f32).abs() < 1e-4); // subnormal in
        assert_eq!(sin(0.0), 0.0);
        assert_eq!(cos(0.0), 1.0);
        assert_eq!(sin(2e5), 2e5f32.sin()); // past the reduction: the C library's
        for f in [tanh, exp, log, sin, cos] {
            assert_eq!(f(f32::NAN).to_bits(), NAN.to_bits());
        }
    }

    #[test]
    fn slices_match_elements() {
        let mut xs: Vec<f32> = samples(-30.0, 30.0, 9_999);
        // Every 9973rd bit pattern: all exponents, NaN and inf, lengths not a multiple
        // of the vector width.
        xs.extend((0..=u32::MAX / 9973).map(|i| f32::from_bits(i.wrapping_mul(9973))));
        let mut out = vec![0.0f32; xs.len()];
        for name in ["tanh", "exp", "log", "sin", "cos"] {
            let (f, kernel) = (by_name(name).unwrap(), slice_by_name(name).unwrap());
            kernel(&xs, &mut out);
            for (x, y) in xs.iter().zip(&out) {
                assert_eq!(y.to_bits(), f(*x).to_bits(), "{name}({x})");
            }
        }
        // tanh's vector paths, each where the processor has it.
        #[cfg(target_arch = "x86_64")]
        {
            let check = |out: &[f32]| {
                for (x, y) in xs.iter().zip(out) {
                    assert!(
                        y.to_bits() == tanh(*x).to_bits() || (y.is_nan() && x.is_nan()),
                        "tanh({x})"
                    );
                }
            };
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                // SAFETY: detected above.
                unsafe { x86::tanh_avx2(&xs, &mut out) };
                check(&out);
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: detected above.
                unsafe { x86::tanh_avx512(&xs, &mut out) };
                check(&out);
            }
        }
    }
}
