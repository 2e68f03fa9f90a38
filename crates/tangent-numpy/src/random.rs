//! The bit generator behind `numpy.random`: NumPy's own, PCG64 (a 128-bit LCG with the
//! XSL-RR output) seeded through `SeedSequence`'s hash (NumPy's `bit_generator.pyx`
//! documents both), so `default_rng(seed).random()`, `.integers()` and the raw words
//! are NumPy's for the same seed, bit for bit, and so are shuffles and permutations
//! (`random_interval`); and MT19937 with the legacy `RandomState`'s methods (seeding,
//! doubles, polar normals, masked `randint`), NumPy's too. The Generator's normals are
//! a ziggurat with tables built here, its other distributions textbook methods
//! (Marsaglia-Tsang gammas): reproducible per seed, not NumPy's values (its ziggurat
//! tables are not reproduced).

/// `SeedSequence`'s constants (NumPy's `bit_generator.pyx`).
const INIT_A: u32 = 0x43b0_d7e5;
const MULT_A: u32 = 0x931e_8875;
const INIT_B: u32 = 0x8b51_f9dd;
const MULT_B: u32 = 0x58f3_8ded;
const MIX_MULT_L: u32 = 0xca01_f9dd;
const MIX_MULT_R: u32 = 0x4973_f715;
const XSHIFT: u32 = 16;

/// The ziggurat's base strip starts at r (its tail beyond), and every strip's area is
/// v (Marsaglia and Tsang's constants for 256 strips of exp(-x^2 / 2)).
const ZIGGURAT_R: f64 = 3.654_152_885_361_009;
const ZIGGURAT_V: f64 = 0.004_928_673_233_99;

/// The ziggurat's strips: strip k spans [0, x_k) across, with x_0 = v / f(r) (the base
/// strip, whose part past r stands for the tail), x_1 = r and f(x_(k+1)) = f(x_k) +
/// v / x_k above, up to x_256 = 0; `width[k]` is x_k / 2^52 (a 52-bit position
/// times it is a point of the strip), `inner[k]` is x_(k+1) (the points below it lie
/// under the next strip, so under the curve), `low[k]`/`high[k]` the strip's heights
/// f(x_k) and f(x_(k+1)).
struct Ziggurat {
    width: [f64; 256],
    inner: [f64; 256],
    low: [f64; 256],
    high: [f64; 256],
}

fn ziggurat_tables() -> &'static Ziggurat {
    static TABLES: std::sync::OnceLock<Ziggurat> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        let f = |x: f64| (-0.5 * x * x).exp();
        let mut x = [0.0f64; 257];
        x[0] = ZIGGURAT_V / f(ZIGGURAT_R);
        x[1] = ZIGGURAT_R;
        for k in 1..255 {
            x[k + 1] = (-2.0 * (f(x[k]) + ZIGGURAT_V / x[k]).ln()).sqrt();
        }
        let mut t = Ziggurat {
            width: [0.0; 256],
            inner: [0.0; 256],
            low: [0.0; 256],
            high: [0.0; 256],
        };
        for k in 0..256 {
            t.width[k] = x[k] / (1u64 << 52) as f64;
            t.inner[k] = x[k + 1];
            t.low[k] = f(x[k]);
            t.high[k] = if k == 255 { 1.0 } else { f(x[k + 1]) };
        }
        // The base strip's inner part is [0, r) under the curve: its heights are unused.
        t.inner[0] = ZIGGURAT_R;
        t
    })
}

/// PCG64's multiplier.
const PCG_MULT: u128 = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645;

/// One step of PCG64 (XSL-RR output): the state advanced, 64 bits out.
#[inline(always)]
fn pcg_step(state: &mut u128, inc: u128) -> u64 {
    *state = state.wrapping_mul(PCG_MULT).wrapping_add(inc);
    let x = (*state >> 64) as u64 ^ *state as u64;
    x.rotate_right((*state >> 122) as u32)
}

/// NumPy's `next_double`: the upper 53 bits of a draw, in [0, 1).
#[inline(always)]
fn unit_double(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

fn hashmix(value: u32, hash_const: &mut u32) -> u32 {
    let mut v = value ^ *hash_const;
    *hash_const = hash_const.wrapping_mul(MULT_A);
    v = v.wrapping_mul(*hash_const);
    v ^ (v >> XSHIFT)
}

fn mix(x: u32, y: u32) -> u32 {
    let r = MIX_MULT_L
        .wrapping_mul(x)
        .wrapping_sub(MIX_MULT_R.wrapping_mul(y));
    r ^ (r >> XSHIFT)
}

/// The pool of a `SeedSequence` with these entropy words and spawn key words (each an
/// integer's little-endian 32-bit words); `pool_size` at least 4.
pub fn seed_pool(entropy: &[u32], spawn_key: &[u32], pool_size: usize) -> Vec<u32> {
    let mut assembled = entropy.to_vec();
    if !spawn_key.is_empty() && assembled.len() < pool_size {
        assembled.resize(pool_size, 0);
    }
    assembled.extend_from_slice(spawn_key);
    let mut hash_const = INIT_A;
    let mut pool: Vec<u32> = (0..pool_size)
        .map(|i| hashmix(assembled.get(i).copied().unwrap_or(0), &mut hash_const))
        .collect();
    for src in 0..pool_size {
        for dst in 0..pool_size {
            if src != dst {
                let h = hashmix(pool[src], &mut hash_const);
                pool[dst] = mix(pool[dst], h);
            }
        }
    }
    for &word in assembled.iter().skip(pool_size) {
        for slot in pool.iter_mut() {
            let h = hashmix(word, &mut hash_const);
            *slot = mix(*slot, h);
        }
    }
    pool
}

/// `SeedSequence.generate_state(n)` of a pool: `n` 32-bit words.
pub fn generate_state(pool: &[u32], n: usize) -> Vec<u32> {
    let mut hash_const = INIT_B;
    (0..n)
        .map(|i| {
            let mut v = pool[i % pool.len()] ^ hash_const;
            hash_const = hash_const.wrapping_mul(MULT_B);
            v = v.wrapping_mul(hash_const);
            v ^ (v >> XSHIFT)
        })
        .collect()
}

/// An integer's little-endian 32-bit words (`[0]` for 0), as `SeedSequence` reads it.
pub fn words32(limbs: &[u64]) -> Vec<u32> {
    let mut w: Vec<u32> = limbs
        .iter()
        .flat_map(|&l| [l as u32, (l >> 32) as u32])
        .collect();
    while w.len() > 1 && w.last() == Some(&0) {
        w.pop();
    }
    if w.is_empty() {
        w.push(0);
    }
    w
}

/// MT19937's state (NumPy's legacy `RandomState`): the 624 words and the position of
/// the next one.
#[derive(Debug, Clone)]
struct Mt {
    key: [u32; 624],
    pos: usize,
}

impl Mt {
    /// Knuth's initialisation from one 32-bit seed (`init_genrand`).
    fn from_seed(seed: u32) -> Mt {
        let mut key = [0u32; 624];
        key[0] = seed;
        for i in 1..624 {
            let prev = key[i - 1];
            key[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        Mt { key, pos: 624 }
    }

    /// The reference `init_by_array`.
    fn from_key(init: &[u32]) -> Mt {
        let mut m = Mt::from_seed(19_650_218);
        let mt = &mut m.key;
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..624.max(init.len()) {
            let prev = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ prev.wrapping_mul(1_664_525))
                .wrapping_add(init[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= 624 {
                mt[0] = mt[623];
                i = 1;
            }
            if j >= init.len() {
                j = 0;
            }
        }
        for _ in 0..623 {
            let prev = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= 624 {
                mt[0] = mt[623];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        m
    }

    fn next_u32(&mut self) -> u32 {
        if self.pos >= 624 {
            for k in 0..624 {
                let y = (self.key[k] & 0x8000_0000) | (self.key[(k + 1) % 624] & 0x7fff_ffff);
                let mag = if y & 1 == 1 { 0x9908_b0df } else { 0 };
                self.key[k] = self.key[(k + 397) % 624] ^ (y >> 1) ^ mag;
            }
            self.pos = 0;
        }
        let mut y = self.key[self.pos];
        self.pos += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }
}

/// The bits: NumPy's Generator's PCG64, PCG64DXSM, SFC64 or Philox, or MT19937 (its
/// doubles from two 32-bit words).
#[derive(Debug, Clone)]
enum Core {
    Pcg {
        state: u128,
        inc: u128,
    },
    /// PCG64DXSM: the output of the state before the step, a 64-bit multiplier.
    Dxsm {
        state: u128,
        inc: u128,
    },
    Sfc {
        a: u64,
        b: u64,
        c: u64,
        w: u64,
    },
    /// Philox4x64-10: a counter, a key, and the four outputs of the last block.
    Philox {
        ctr: [u64; 4],
        key: [u64; 2],
        buf: [u64; 4],
        pos: usize,
    },
    Mt(Box<Mt>),
}

/// Philox's round multipliers and key increments (Random123's).
const PHILOX_M: [u64; 2] = [0xD2E7_470E_E14C_6C93, 0xCA5A_8263_9512_1157];
const PHILOX_W: [u64; 2] = [0x9E37_79B9_7F4A_7C15, 0xBB67_AE85_84CA_A73B];

/// Philox4x64 with 10 rounds of one counter under one key.
fn philox4x64_10(mut c: [u64; 4], mut k: [u64; 2]) -> [u64; 4] {
    for round in 0..10 {
        if round > 0 {
            k = [
                k[0].wrapping_add(PHILOX_W[0]),
                k[1].wrapping_add(PHILOX_W[1]),
            ];
        }
        let p0 = PHILOX_M[0] as u128 * c[0] as u128;
        let p1 = PHILOX_M[1] as u128 * c[2] as u128;
        c = [
            (p1 >> 64) as u64 ^ c[1] ^ k[0],
            p1 as u64,
            (p0 >> 64) as u64 ^ c[3] ^ k[1],
            p0 as u64,
        ];
    }
    c
}

#[derive(Debug, Clone)]
pub struct Rng {
    core: Core,
    /// The upper half of the last 64-bit draw, kept for the next 32-bit one (NumPy's
    /// `has_uint32`/`uinteger`; MT19937 draws 32 bits).
    half: Option<u32>,
    spare_normal: Option<f64>,
    /// The legacy `RandomState`'s methods (masked bounded integers, `legacy_gauss`'s
    /// order) rather than the Generator's.
    legacy: bool,
}

/// PCG64DXSM's multiplier.
const CHEAP_MULT: u64 = 0xda94_2042_e4dd_58b5;

impl Rng {
    fn with(core: Core, legacy: bool) -> Rng {
        Rng {
            core,
            half: None,
            spare_normal: None,
            legacy,
        }
    }

    /// PCG64's or PCG64DXSM's state and increment from eight `SeedSequence` words (both
    /// seed with the 128-bit multiplier).
    fn pcg_seed(w: &[u32; 8]) -> (u128, u128) {
        let u = |k: usize| w[2 * k] as u64 | (w[2 * k + 1] as u64) << 32;
        let initstate = (u(0) as u128) << 64 | u(1) as u128;
        let initseq = (u(2) as u128) << 64 | u(3) as u128;
        let inc = initseq << 1 | 1;
        let step = |s: u128| s.wrapping_mul(PCG_MULT).wrapping_add(inc);
        (step(step(0).wrapping_add(initstate)), inc)
    }

    /// PCG64 seeded from eight `SeedSequence.generate_state` words.
    pub fn from_state_words(w: &[u32; 8]) -> Rng {
        let (state, inc) = Rng::pcg_seed(w);
        Rng::with(Core::Pcg { state, inc }, false)
    }

    /// Philox seeded from four `SeedSequence.generate_state` words (its key; the counter
    /// starts at zero).
    pub fn philox_from_state_words(w: &[u32; 4]) -> Rng {
        let u = |k: usize| w[2 * k] as u64 | (w[2 * k + 1] as u64) << 32;
        Rng::with(
            Core::Philox {
                ctr: [0; 4],
                key: [u(0), u(1)],
                buf: [0; 4],
                pos: 4,
            },
            false,
        )
    }

    /// PCG64DXSM seeded from eight `SeedSequence.generate_state` words.
    pub fn dxsm_from_state_words(w: &[u32; 8]) -> Rng {
        let (state, inc) = Rng::pcg_seed(w);
        Rng::with(Core::Dxsm { state, inc }, false)
    }

    /// SFC64 seeded from six `SeedSequence.generate_state` words (three 64-bit ones; the
    /// counter starts at 1 and twelve outputs are dropped, as NumPy seeds it).
    pub fn sfc_from_state_words(w: &[u32; 6]) -> Rng {
        let u = |k: usize| w[2 * k] as u64 | (w[2 * k + 1] as u64) << 32;
        let mut r = Rng::with(
            Core::Sfc {
                a: u(0),
                b: u(1),
                c: u(2),
                w: 1,
            },
            false,
        );
        for _ in 0..12 {
            r.next_u64();
        }
        r
    }

    /// PCG64 as `numpy.random.PCG64(seed)` makes it: the seed's words through a
    /// `SeedSequence` without spawn key.
    pub fn from_entropy_words(entropy: &[u32]) -> Rng {
        let pool = seed_pool(entropy, &[], 4);
        let s = generate_state(&pool, 8);
        Rng::from_state_words(&s.try_into().expect("eight words"))
    }

    /// Seeded from the operating system's randomness (for `seed=None`), 128 bits as
    /// NumPy draws.
    pub fn from_entropy() -> Rng {
        Rng::from_entropy_words(&os_entropy())
    }

    /// MT19937 as the legacy `RandomState(seed)` seeds it from an int: `init_genrand`.
    pub fn legacy_word(seed: u32) -> Rng {
        Rng::mt(Mt::from_seed(seed))
    }

    /// MT19937 as the legacy `RandomState(seed)` seeds it from a sequence of ints (or,
    /// for None, from the operating system's randomness): `init_by_array`. `key` is not
    /// empty.
    pub fn legacy_key(key: &[u32]) -> Rng {
        Rng::mt(Mt::from_key(key))
    }

    pub fn legacy_entropy() -> Rng {
        Rng::legacy_key(&os_entropy())
    }

    /// MT19937's words, position, and the kept normal (None for PCG64).
    pub fn legacy_state(&self) -> Option<(Vec<u32>, usize, Option<f64>)> {
        match &self.core {
            Core::Mt(m) => Some((m.key.to_vec(), m.pos, self.spare_normal)),
            _ => None,
        }
    }

    /// MT19937 in a legacy state (`set_state`); None unless `key` has 624 words and
    /// `pos` is at most 624.
    pub fn from_legacy_state(key: &[u32], pos: usize, gauss: Option<f64>) -> Option<Rng> {
        let key: [u32; 624] = key.try_into().ok()?;
        (pos <= 624).then(|| Rng {
            spare_normal: gauss,
            ..Rng::with(Core::Mt(Box::new(Mt { key, pos })), true)
        })
    }

    fn mt(m: Mt) -> Rng {
        Rng::with(Core::Mt(Box::new(m)), true)
    }

    /// MT19937 as the `numpy.random.MT19937(seed)` class seeds it, for a Generator:
    /// 624 `SeedSequence` words, the first replaced by 0x80000000, at position 623.
    pub fn mt_from_state_words(words: &[u32]) -> Option<Rng> {
        let mut key: [u32; 624] = words.try_into().ok()?;
        key[0] = 0x8000_0000;
        Some(Rng::with(Core::Mt(Box::new(Mt { key, pos: 623 })), false))
    }

    /// PCG64's 128-bit state and increment (`bit_generator.state`); None for MT19937.
    pub fn state(&self) -> Option<(u128, u128)> {
        match &self.core {
            Core::Pcg { state, inc } | Core::Dxsm { state, inc } => Some((*state, *inc)),
            Core::Sfc { .. } | Core::Philox { .. } | Core::Mt(_) => None,
        }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        match &mut self.core {
            Core::Pcg { state, inc } => pcg_step(state, *inc),
            Core::Dxsm { state, inc } => {
                let mut hi = (*state >> 64) as u64;
                let lo = *state as u64 | 1;
                hi ^= hi >> 32;
                hi = hi.wrapping_mul(CHEAP_MULT);
                hi ^= hi >> 48;
                hi = hi.wrapping_mul(lo);
                *state = state.wrapping_mul(CHEAP_MULT as u128).wrapping_add(*inc);
                hi
            }
            Core::Sfc { a, b, c, w } => {
                let tmp = a.wrapping_add(*b).wrapping_add(*w);
                *w = w.wrapping_add(1);
                *a = *b ^ (*b >> 11);
                *b = c.wrapping_add(*c << 3);
                *c = c.rotate_left(24).wrapping_add(tmp);
                tmp
            }
            Core::Philox { ctr, key, buf, pos } => {
                if *pos < 4 {
                    *pos += 1;
                    return buf[*pos - 1];
                }
                for word in ctr.iter_mut() {
                    *word = word.wrapping_add(1);
                    if *word != 0 {
                        break;
                    }
                }
                *buf = philox4x64_10(*ctr, *key);
                *pos = 1;
                buf[0]
            }
            Core::Mt(m) => (m.next_u32() as u64) << 32 | m.next_u32() as u64,
        }
    }

    /// One raw output (`random_raw`): 64 bits, 32 of MT19937.
    pub fn next_raw(&mut self) -> u64 {
        match &mut self.core {
            Core::Mt(m) => m.next_u32() as u64,
            _ => self.next_u64(),
        }
    }

    /// 32 bits: a 64-bit generator's are the lower half of a draw, then its upper half.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if let Core::Mt(m) = &mut self.core {
            return m.next_u32();
        }
        if let Some(h) = self.half.take() {
            return h;
        }
        let v = self.next_u64();
        self.half = Some((v >> 32) as u32);
        v as u32
    }

    /// Uniform in [0, 1) with 53 random bits (NumPy's `next_double`; MT19937's from
    /// 27 and 26 bits of two words).
    #[inline]
    pub fn random(&mut self) -> f64 {
        match &mut self.core {
            Core::Mt(m) => {
                let a = (m.next_u32() >> 5) as f64;
                let b = (m.next_u32() >> 6) as f64;
                (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
            }
            _ => unit_double(self.next_u64()),
        }
    }

    /// `n` draws of `random`: a PCG64 generator's in a loop of its own, the state in
    /// registers (the general step is a call per draw).
    pub fn randoms(&mut self, n: usize) -> Vec<f64> {
        if let Core::Pcg { state, inc } = &mut self.core {
            let (mut s, i) = (*state, *inc);
            let out = (0..n).map(|_| unit_double(pcg_step(&mut s, i))).collect();
            *state = s;
            return out;
        }
        (0..n).map(|_| self.random()).collect()
    }

    /// Uniform in [0, 1) in single precision (NumPy's `next_float`: the upper 24 bits of
    /// a 32-bit draw), exact in float32.
    #[inline]
    pub fn random32(&mut self) -> f64 {
        (self.next_u32() >> 8) as f64 * (1.0 / 16_777_216.0)
    }

    /// Standard normal: the legacy `RandomState`'s by the polar method, the second value
    /// kept for the next call (`f * x2` first, as NumPy's `legacy_gauss`, so its streams
    /// are NumPy's); a Generator's by the ziggurat (`ziggurat_normal`), as NumPy's
    /// Generator, with tables of its own.
    pub fn standard_normal(&mut self) -> f64 {
        if !self.legacy {
            return self.ziggurat_normal();
        }
        if let Some(z) = self.spare_normal.take() {
            return z;
        }
        loop {
            let u = 2.0 * self.random() - 1.0;
            let v = 2.0 * self.random() - 1.0;
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                let m = (-2.0 * s.ln() / s).sqrt();
                self.spare_normal = Some(u * m);
                return v * m;
            }
        }
    }

    /// Marsaglia and Tsang's ziggurat over 256 strips of equal area: one 64-bit draw
    /// gives the strip (8 bits), the sign (1 bit) and the position in the strip (52
    /// bits); the position is returned as it is when it falls inside the next strip's
    /// width (about 99% of draws), tested against the density in the wedge otherwise,
    /// and drawn from the tail past `ZIGGURAT_R` by Marsaglia's method in the base strip.
    fn ziggurat_normal(&mut self) -> f64 {
        let t = ziggurat_tables();
        loop {
            let bits = self.next_u64();
            let k = (bits & 0xff) as usize;
            let negative = bits >> 8 & 1 == 1;
            let position = (bits >> 9) & ((1 << 52) - 1);
            let x = position as f64 * t.width[k];
            let signed = |v: f64| if negative { -v } else { v };
            if x < t.inner[k] {
                return signed(x);
            }
            if k == 0 {
                // The tail past r: x = r + e1 / r with e1, e2 exponential, accepted when
                // 2 e2 > (e1 / r)^2.
                loop {
                    let e1 = -(1.0 - self.random()).ln() / ZIGGURAT_R;
                    let e2 = -(1.0 - self.random()).ln();
                    if e2 + e2 > e1 * e1 {
                        return signed(ZIGGURAT_R + e1);
                    }
                }
            }
            // The wedge between the strip's two heights: accepted under the density.
            let y = t.low[k] + self.random() * (t.high[k] - t.low[k]);
            if y < (-0.5 * x * x).exp() {
                return signed(x);
            }
        }
    }

    /// Uniform in [0, max] by masked rejection (NumPy's `random_interval`, which its
    /// shuffles and permutations use).
    pub fn interval(&mut self, max: u64) -> u64 {
        if max == 0 {
            return 0;
        }
        let mask = u64::MAX >> max.leading_zeros();
        loop {
            let v = if max <= u32::MAX as u64 {
                (self.next_u32() as u64) & mask
            } else {
                self.next_u64() & mask
            };
            if v <= max {
                return v;
            }
        }
    }

    /// Uniform in [0, rng] (NumPy's `random_bounded_uint64`: for a Generator without
    /// masking, Lemire's method on 32-bit draws when the range fits them, on 64-bit ones
    /// otherwise; for the legacy `RandomState` masked rejection).
    pub fn bounded(&mut self, rng: u64) -> u64 {
        if rng == 0 {
            return 0;
        }
        if self.legacy {
            // The legacy `randint`: masked rejection.
            return match rng {
                r if r == u32::MAX as u64 => self.next_u32() as u64,
                u64::MAX => self.next_u64(),
                r => self.interval(r),
            };
        }
        if rng <= u32::MAX as u64 {
            if rng == u32::MAX as u64 {
                return self.next_u32() as u64;
            }
            let excl = rng + 1;
            let mut m = self.next_u32() as u64 * excl;
            if (m as u32 as u64) < excl {
                let threshold = (u32::MAX as u64 - rng) % excl;
                while (m as u32 as u64) < threshold {
                    m = self.next_u32() as u64 * excl;
                }
            }
            return m >> 32;
        }
        if rng == u64::MAX {
            return self.next_u64();
        }
        let excl = rng + 1;
        let mut m = self.next_u64() as u128 * excl as u128;
        if (m as u64) < excl {
            let threshold = (u64::MAX - rng) % excl;
            while (m as u64) < threshold {
                m = self.next_u64() as u128 * excl as u128;
            }
        }
        (m >> 64) as u64
    }

    /// `n` integers in [lo, hi] (`Generator.integers` with a size): `integer` `n`
    /// times, with Lemire's threshold for 32-bit draws computed once (a draw whose low
    /// half is at or past it is never below `rng + 1`, so testing the threshold alone
    /// takes the same draws). `hi >= lo`.
    pub fn integers(&mut self, lo: i64, hi: i64, n: usize) -> Vec<i64> {
        let span = (hi as i128 - lo as i128) as u64;
        if self.legacy || span == 0 || span >= u32::MAX as u64 {
            return (0..n).map(|_| self.integer(lo, hi)).collect();
        }
        let excl = span + 1;
        let threshold = (u32::MAX as u64 - span) % excl;
        (0..n)
            .map(|_| {
                let mut m = self.next_u32() as u64 * excl;
                while (m as u32 as u64) < threshold {
                    m = self.next_u32() as u64 * excl;
                }
                lo.wrapping_add((m >> 32) as i64)
            })
            .collect()
    }

    /// Integer in [lo, hi] (`Generator.integers`). `hi >= lo`.
    pub fn integer(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi as i128 - lo as i128) as u64;
        lo.wrapping_add(self.bounded(span) as i64)
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

    /// Fisher-Yates shuffle, NumPy's: from the end, `random_interval(i)`.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.interval(i as u64) as usize;
            v.swap(i, j);
        }
    }
}

/// 128 bits from the operating system's randomness (the keys std draws for its hash
/// maps), as four 32-bit words.
fn os_entropy() -> Vec<u32> {
    use std::hash::{BuildHasher, Hasher};
    (0..2)
        .flat_map(|k: u64| {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(k);
            let v = h.finish();
            [v as u32, (v >> 32) as u32]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn reproducible_and_in_range() {
        let mut a = Rng::from_entropy_words(&[42]);
        let mut b = Rng::from_entropy_words(&[42]);
        for _ in 0..100 {
            let x = a.random();
            assert_eq!(x, b.random());
            assert!((0.0..1.0).contains(&x));
            let k = a.integer(-3, 3);
            assert_eq!(k, b.integer(-3, 3));
            assert!((-3..=3).contains(&k));
        }
    }

    #[test]
    fn numpy_s_first_draws() {
        // `numpy.random.PCG64(12345).random_raw(2)` and `default_rng(0).random()` of
        // NumPy 2.4.
        let mut r = Rng::from_entropy_words(&[12345]);
        let raw = [r.next_u64(), r.next_u64()];
        let mut z = Rng::from_entropy_words(&[0]);
        assert_eq!(raw, [4193609425186963869, 5843160025838961886]);
        assert_eq!(z.random(), 0.6369616873214543);
        // `numpy.random.RandomState(0).random_sample()` and `RandomState([1, 2,
        // 3]).random_sample()`: the legacy MT19937 seeded by one word and by an array.
        assert_eq!(Rng::legacy_word(0).random(), 0.5488135039273248);
        assert_eq!(Rng::legacy_key(&[1, 2, 3]).random(), 0.6098612722867289);
    }
}
