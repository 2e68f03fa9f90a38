//! The bit generator behind `numpy.random`: xoshiro256++ seeded through SplitMix64.
//!
//! Seeding is reproducible (the same seed gives the same stream, on every platform), but
//! the streams are NOT NumPy's (PCG64/MT19937 and NumPy's ziggurat): code that checks
//! exact random values against real NumPy output will see different numbers.

#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
    spare_normal: Option<f64>,
}

fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    pub fn from_seed(seed: u64) -> Rng {
        let mut x = seed;
        let s = [
            splitmix64(&mut x),
            splitmix64(&mut x),
            splitmix64(&mut x),
            splitmix64(&mut x),
        ];
        Rng {
            s,
            spare_normal: None,
        }
    }

    /// Seeds from a sequence of words (e.g. a big Python int split in 64-bit limbs).
    pub fn from_words(words: &[u64]) -> Rng {
        let mut acc = 0x243F_6A88_85A3_08D3u64;
        for &w in words {
            let mut x = acc ^ w;
            acc = splitmix64(&mut x);
        }
        Rng::from_seed(acc)
    }

    /// Seeds from the clock and the address space (for `seed=None`).
    pub fn from_entropy() -> Rng {
        use std::time::{SystemTime, UNIX_EPOCH};
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        let local = 0u8;
        let addr = &local as *const u8 as u64;
        Rng::from_words(&[t, addr, std::process::id() as u64])
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 random bits.
    #[inline]
    pub fn random(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Standard normal (Marsaglia's polar method; the second value is kept for the next call).
    pub fn standard_normal(&mut self) -> f64 {
        if let Some(z) = self.spare_normal.take() {
            return z;
        }
        loop {
            let u = 2.0 * self.random() - 1.0;
            let v = 2.0 * self.random() - 1.0;
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                let m = (-2.0 * s.ln() / s).sqrt();
                self.spare_normal = Some(v * m);
                return u * m;
            }
        }
    }

    /// Uniform integer in [0, n) without modulo bias (Lemire's method). `n > 0`.
    pub fn below(&mut self, n: u64) -> u64 {
        let mut x = self.next_u64();
        let mut m = (x as u128) * (n as u128);
        let mut l = m as u64;
        if l < n {
            let t = n.wrapping_neg() % n;
            while l < t {
                x = self.next_u64();
                m = (x as u128) * (n as u128);
                l = m as u64;
            }
        }
        (m >> 64) as u64
    }

    /// Integer in [lo, hi). `hi > lo`.
    pub fn integer(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi as i128 - lo as i128) as u64;
        lo.wrapping_add(self.below(span) as i64)
    }

    /// Standard exponential (inversion).
    pub fn standard_exponential(&mut self) -> f64 {
        -(1.0 - self.random()).ln()
    }

    /// Gamma(shape, 1) by Marsaglia-Tsang.
    pub fn standard_gamma(&mut self, shape: f64) -> f64 {
        if shape < 1.0 {
            let u = self.random();
            return self.standard_gamma(shape + 1.0) * u.powf(1.0 / shape);
        }
        let d = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * d).sqrt();
        loop {
            let x = self.standard_normal();
            let v = 1.0 + c * x;
            if v <= 0.0 {
                continue;
            }
            let v = v * v * v;
            let u = self.random();
            if u < 1.0 - 0.0331 * x * x * x * x || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
                return d * v;
            }
        }
    }

    /// Fisher-Yates shuffle.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn reproducible_and_in_range() {
        let mut a = Rng::from_seed(42);
        let mut b = Rng::from_seed(42);
        for _ in 0..100 {
            let x = a.random();
            assert_eq!(x, b.random());
            assert!((0.0..1.0).contains(&x));
            let k = a.integer(-3, 4);
            assert_eq!(k, b.integer(-3, 4));
            assert!((-3..4).contains(&k));
        }
    }
}
