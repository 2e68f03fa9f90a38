"""numpy.random for the embedded interpreter.

`default_rng(seed)` returns a `Generator` over `PCG64` seeded through `SeedSequence`, as
NumPy does: `random`, `integers`, `permutation`, `shuffle`, the raw words and
`SeedSequence.generate_state` are NumPy's for the same seed, bit for bit (the
algorithms NumPy documents). The Generator's other distributions draw from that stream
by textbook methods (polar normals, Marsaglia-Tsang gammas): reproducible per seed, not
NumPy's values. `RandomState(seed)` (the legacy interface) and the module-level
functions (`seed`, `rand`, `randn`, ...), which use one global `RandomState`, are
MT19937 seeded and drawn as NumPy's legacy ones.
"""
import builtins as _builtins
import math as _math
import os as _os

import _numpy_native as _nn
import numpy as _np

BitGenerator = _nn.BitGenerator


def _size_of(size, *params):
    """`size`, or the broadcast shape of array parameters when size is None."""
    if size is not None:
        return size
    shape = ()
    for p in params:
        if isinstance(p, _np.ndarray) or isinstance(p, (list, tuple)):
            shape = _np.broadcast_shapes(shape, _np.shape(p))
    return shape if shape != () else None


def _check_scale(scale, name="scale"):
    if _np.any(_np.asarray(scale) < 0):
        raise ValueError(name + " < 0")


# --- the other distributions -------------------------------------------------------------
# Written over the bit generator's uniform, normal, exponential and gamma draws with the
# usual exact methods (inversion, rejection: PTRS for large Poisson means, Kemp's for the
# log-series, Devroye's for Zipf, Best and Fisher's for von Mises, beta splitting for large
# binomials). The streams are not NumPy's; tests/numpy_module.rs checks each distribution
# against SciPy's in the test CPython (Kolmogorov-Smirnov, or chi-square for counts).


def _float_draws(draw, size, dtype, out, name, draw32=None):
    """A Generator's float draws as NumPy gives them: `dtype` float64 (the default) or
    float32 (`draw32`'s draws where NumPy's single precision stream is reproduced, else
    the double ones rounded), `out=` filled (of that dtype; `size`, when also given, its
    shape) and returned, a Python float without a size."""
    kind = "float64" if dtype is None else _np.dtype(dtype).name
    if kind not in ("float64", "float32"):
        raise TypeError("Unsupported dtype %r for %s" % (_np.dtype(dtype), name))
    if kind == "float32" and draw32 is not None:
        draw = draw32
    if out is not None:
        if out.dtype.name != kind:
            raise TypeError("Supplied output array has the wrong type. Expected %s, got %s"
                            % (kind, out.dtype.name))
        if size is not None and _shape_of(size) != out.shape:
            raise ValueError("size must match out.shape when used together")
        out[...] = draw(out.shape)
        return out
    r = draw(size)
    if size is None and _np.ndim(r) == 0:
        return float(r)
    return r.astype(_np.float32) if kind == "float32" and r.dtype.name != "float32" else r


def _shape_of(size):
    if size is None:
        return None
    return (int(size),) if isinstance(size, int) or _np.ndim(size) == 0 else tuple(
        int(k) for k in size)


def _draws(size):
    """The shape of `size` draws of a vector (() for one) and how many there are."""
    shape = _shape_of(size) or ()
    count = 1
    for d in shape:
        count *= d
    return shape, count


def _params(size, *params):
    """The parameters as arrays broadcast to the output shape, and that shape (None for
    one draw of scalar parameters)."""
    arrays = [_np.asarray(p, dtype=float) for p in params]
    shape = _shape_of(size)
    if shape is None:
        shape = ()
        for a in arrays:
            shape = _np.broadcast_shapes(shape, a.shape)
        if shape == ():
            return [float(a) for a in arrays], None
    return [_np.broadcast_to(a, shape) for a in arrays], shape


def _each(size, params, one, dtype):
    """`one(*scalars)` for every element of the broadcast parameters."""
    values, shape = _params(size, *params)
    if shape is None:
        return one(*values)
    flat = [a.ravel().tolist() for a in values]
    n = 1
    for k in shape:
        n *= k
    out = [one(*(f[i] for f in flat)) for i in range(n)]
    return _np.array(out, dtype=dtype).reshape(shape)


def _require(ok, message):
    if not ok:
        raise ValueError(message)


def _all(values, test):
    return bool(_np.all(test(_np.asarray(values, dtype=float))))


class _Distributions:
    """The distributions NumPy's Generator and RandomState share, over `self._u()`
    (uniform in [0, 1)), `self._n()` (standard normal), `self._e()` (standard
    exponential) and `self._g(shape)` (standard gamma), one number each."""

    def _u(self):
        return float(self._bitgen.random())

    def _open_u(self):
        """Uniform in (0, 1]."""
        return 1.0 - self._u()

    def _n(self):
        return float(self._bitgen.standard_normal())

    def _e(self):
        return float(self._bitgen.standard_exponential())

    def _g(self, shape):
        return float(self._bitgen.standard_gamma(float(shape))) if shape > 0 else 0.0

    def _chisq(self, df):
        return 2.0 * self._g(df / 2.0)

    # continuous

    def standard_cauchy(self, size=None):
        return _each(size, (), lambda: self._n() / self._n(), float)

    def standard_t(self, df, size=None):
        _require(_all(df, lambda d: d > 0), "df <= 0")
        return _each(size, (df,), lambda d: self._n() / _math.sqrt(self._chisq(d) / d), float)

    def chisquare(self, df, size=None):
        _require(_all(df, lambda d: d > 0), "df <= 0")
        return _each(size, (df,), self._chisq, float)

    def noncentral_chisquare(self, df, nonc, size=None):
        _require(_all(df, lambda d: d > 0), "df <= 0")
        _require(_all(nonc, lambda c: c >= 0), "nonc < 0")

        def one(d, c):
            if c == 0:
                return self._chisq(d)
            if d > 1:
                z = self._n() + _math.sqrt(c)
                return self._chisq(d - 1) + z * z
            return self._chisq(d + 2 * self._poisson(c / 2.0))
        return _each(size, (df, nonc), one, float)

    def f(self, dfnum, dfden, size=None):
        _require(_all(dfnum, lambda d: d > 0), "dfnum <= 0")
        _require(_all(dfden, lambda d: d > 0), "dfden <= 0")
        return _each(size, (dfnum, dfden),
                     lambda a, b: (self._chisq(a) / a) / (self._chisq(b) / b), float)

    def noncentral_f(self, dfnum, dfden, nonc, size=None):
        _require(_all(dfnum, lambda d: d > 0), "dfnum <= 0")
        _require(_all(dfden, lambda d: d > 0), "dfden <= 0")
        _require(_all(nonc, lambda c: c >= 0), "nonc < 0")

        def one(a, b, c):
            t = self.noncentral_chisquare(a, c) * b
            return t / (self._chisq(b) * a)
        return _each(size, (dfnum, dfden, nonc), one, float)

    def gumbel(self, loc=0.0, scale=1.0, size=None):
        _require(_all(scale, lambda v: v >= 0), "scale < 0")

        def one(m, b):
            while True:
                u = self._open_u()
                if u < 1.0:
                    return m - b * _math.log(-_math.log(u))
        return _each(size, (loc, scale), one, float)

    def pareto(self, a, size=None):
        _require(_all(a, lambda v: v > 0), "a <= 0")
        return _each(size, (a,), lambda v: _math.expm1(self._e() / v), float)

    def power(self, a, size=None):
        _require(_all(a, lambda v: v > 0), "a <= 0")
        return _each(size, (a,), lambda v: (-_math.expm1(-self._e())) ** (1.0 / v), float)

    def rayleigh(self, scale=1.0, size=None):
        _require(_all(scale, lambda v: v >= 0), "scale < 0")
        return _each(size, (scale,), lambda v: v * _math.sqrt(2.0 * self._e()), float)

    def weibull(self, a, size=None):
        _require(_all(a, lambda v: v >= 0), "a < 0")
        return _each(size, (a,), lambda v: self._e() ** (1.0 / v) if v else 0.0, float)

    def wald(self, mean, scale, size=None):
        _require(_all(mean, lambda v: v > 0), "mean <= 0")
        _require(_all(scale, lambda v: v > 0), "scale <= 0")

        def one(mu, lam):
            # Michael, Schucany and Haas.
            y = self._n() ** 2
            x = mu + mu * mu * y / (2 * lam) - mu / (2 * lam) * _math.sqrt(
                4 * mu * lam * y + (mu * y) ** 2)
            return x if self._u() <= mu / (mu + x) else mu * mu / x
        return _each(size, (mean, scale), one, float)

    def triangular(self, left, mode, right, size=None):
        _require(_all(_np.asarray(mode) - _np.asarray(left), lambda v: v >= 0), "left > mode")
        _require(_all(_np.asarray(right) - _np.asarray(mode), lambda v: v >= 0), "mode > right")
        _require(_all(_np.asarray(right) - _np.asarray(left), lambda v: v > 0), "left == right")

        def one(a, c, b):
            base, leftbase = b - a, c - a
            u = self._u()
            if u <= leftbase / base:
                return a + _math.sqrt(u * leftbase * base)
            return b - _math.sqrt((1.0 - u) * (b - c) * base)
        return _each(size, (left, mode, right), one, float)

    def vonmises(self, mu, kappa, size=None):
        _require(_all(kappa, lambda v: v >= 0), "kappa < 0")

        def one(m, k):
            if k < 1e-8:
                return _math.pi * (2 * self._u() - 1)
            if k > 1e6:
                # A von Mises this concentrated is a wrapped normal.
                r = m + _math.sqrt(1.0 / k) * self._n()
            else:
                # Best and Fisher.
                if k < 1e-5:
                    s = 1.0 / k + k
                else:
                    r0 = 1 + _math.sqrt(1 + 4 * k * k)
                    rho = (r0 - _math.sqrt(2 * r0)) / (2 * k)
                    s = (1 + rho * rho) / (2 * rho)
                while True:
                    z = _math.cos(_math.pi * self._u())
                    w = (1 + s * z) / (s + z)
                    y = k * (s - w)
                    v = self._u()
                    if y * (2 - y) - v >= 0 or (v > 0 and _math.log(y / v) + 1 - y >= 0):
                        break
                r = _math.acos(max(-1.0, min(1.0, w)))
                r = m + (-r if self._u() < 0.5 else r)
            # Into [-pi, pi).
            return _math.fmod(_math.fmod(r + _math.pi, 2 * _math.pi) + 2 * _math.pi,
                              2 * _math.pi) - _math.pi
        return _each(size, (mu, kappa), one, float)

    # discrete

    def _poisson(self, lam):
        if lam == 0:
            return 0
        if lam < 10:
            # Multiplication of uniforms.
            limit, k, prod = _math.exp(-lam), 0, self._u()
            while prod > limit:
                k += 1
                prod *= self._u()
            return k
        # Hormann's PTRS.
        slam, loglam = _math.sqrt(lam), _math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = self._u() - 0.5
            v = self._u()
            us = 0.5 - abs(u)
            k = _math.floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return int(k)
            if k < 0 or (us < 0.013 and v > us):
                continue
            if v > 0 and (_math.log(v) + _math.log(invalpha) - _math.log(a / (us * us) + b)
                          <= -lam + k * loglam - _math.lgamma(k + 1)):
                return int(k)

    def poisson(self, lam=1.0, size=None):
        _require(_all(lam, lambda v: v >= 0), "lam < 0")
        _require(_all(lam, lambda v: v < 9.223372006484771e18), "lam value too large")
        return _each(size, (lam,), self._poisson, _np.int64)

    def _binomial(self, n, p):
        n = int(n)
        if p > 0.5:
            return n - self._binomial(n, 1.0 - p)
        count = 0
        while n * p >= 30:
            # Split by the order statistic of a beta: exact, O(log n) steps.
            a = 1 + n // 2
            b = n + 1 - a
            x = self._g(a)
            y = x / (x + self._g(b))
            if y >= p:
                n, p = a - 1, p / y
            else:
                count += a
                n, p = b - 1, (p - y) / (1.0 - y)
        if n == 0 or p == 0:
            return count
        # Inversion from 0 up.
        q = 1.0 - p
        while True:
            u, k, prob = self._u(), 0, q ** n
            while u > prob and k < n:
                u -= prob
                k += 1
                prob *= (n - k + 1) * p / (k * q)
            if u <= prob:
                return count + k

    def binomial(self, n, p, size=None):
        _require(_all(n, lambda v: v >= 0), "n < 0")
        _require(_all(p, lambda v: (v >= 0) & (v <= 1)), "p < 0, p > 1 or p is NaN")
        return _each(size, (n, p), self._binomial, _np.int64)

    def negative_binomial(self, n, p, size=None):
        _require(_all(n, lambda v: v > 0), "n <= 0")
        _require(_all(p, lambda v: (v > 0) & (v <= 1)), "p <= 0, p > 1 or p contains NaNs")
        return _each(size, (n, p),
                     lambda k, q: self._poisson(self._g(k) * (1 - q) / q), _np.int64)

    def geometric(self, p, size=None):
        _require(_all(p, lambda v: (v > 0) & (v <= 1)), "p <= 0, p > 1 or p contains NaNs")

        def one(q):
            if q == 1:
                return 1
            return max(1, _math.ceil(_math.log(self._open_u()) / _math.log1p(-q)))
        return _each(size, (p,), one, _np.int64)

    def hypergeometric(self, ngood, nbad, nsample, size=None):
        _require(_all(ngood, lambda v: v >= 0), "ngood < 0")
        _require(_all(nbad, lambda v: v >= 0), "nbad < 0")
        _require(_all(nsample, lambda v: v >= 0), "nsample < 0")
        _require(_all(_np.asarray(ngood) + _np.asarray(nbad) - _np.asarray(nsample),
                      lambda v: v >= 0), "ngood + nbad < nsample")

        return _each(size, (ngood, nbad, nsample), self._hypergeometric, _np.int64)

    def _hypergeometric(self, good, bad, n):
        """Good items among `n` drawn without replacement, one draw at a time."""
        good, total, drawn = int(good), int(good + bad), 0
        for _ in range(int(n)):
            if self._u() * total < good:
                good -= 1
                drawn += 1
            total -= 1
        return drawn

    def multivariate_hypergeometric(self, colors, nsample, size=None, method="marginals"):
        """Items of each color among `nsample` drawn without replacement from an urn
        holding `colors[i]` of color i (both of NumPy's methods draw from this
        distribution; here one color after another)."""
        if method not in ("count", "marginals"):
            raise ValueError('method must be "count" or "marginals".')
        colors = [int(c) for c in colors]
        _require(all(c >= 0 for c in colors), "colors must be a sequence of nonnegative ints")
        _require(int(nsample) >= 0, "nsample must be a nonnegative integer")
        total = _builtins.sum(colors)
        _require(int(nsample) <= total, "nsample > sum(colors)")
        shape, count = _draws(size)
        rows = []
        for _ in range(count):
            left, rest, row = int(nsample), total, []
            for c in colors[:-1]:
                x = self._hypergeometric(c, rest - c, left) if left else 0
                row.append(x)
                left -= x
                rest -= c
            row.append(left)
            rows.append(row)
        return _np.array(rows, dtype=_np.int64).reshape(tuple(shape) + (len(colors),))

    def logseries(self, p, size=None):
        _require(_all(p, lambda v: (v >= 0) & (v < 1)), "p < 0, p >= 1 or p is NaN")

        def one(q):
            # Kemp's LK.
            r = _math.log1p(-q)
            while True:
                v = self._u()
                if v >= q:
                    return 1
                c = -_math.expm1(r * self._u())
                if v <= c * c:
                    k = _math.floor(1 + _math.log(v) / _math.log(c)) if v > 0 else 0
                    if k < 1:
                        continue
                    return int(k)
                return 1 if v >= c else 2
        return _each(size, (p,), one, _np.int64)

    def zipf(self, a, size=None):
        _require(_all(a, lambda v: v > 1), "a <= 1.0")

        def one(s):
            # Devroye's rejection.
            am1 = s - 1.0
            b = 2.0 ** am1
            while True:
                u, v = self._open_u(), self._u()
                x = _math.floor(u ** (-1.0 / am1))
                if x < 1 or x > 9.223372036854775e18:
                    continue
                t = (1.0 + 1.0 / x) ** am1
                if v * x * (t - 1.0) / (b - 1.0) <= t / b:
                    return int(x)
        return _each(size, (a,), one, _np.int64)

    def multinomial(self, n, pvals, size=None):
        pvals = _np.asarray(pvals, dtype=float)
        _require(pvals.ndim == 1, "pvals must be a 1-d sequence")
        _require(bool(_np.all(pvals >= 0)), "pvals < 0, pvals > 1 or pvals contains NaNs")
        _require(float(_np.sum(pvals[:-1])) <= 1.0 + 1e-12, "sum(pvals[:-1]) > 1.0")
        k = pvals.shape[0]
        shape, count = _draws(size)
        rows = []
        for _ in range(count):
            left, rest, row = int(n), 1.0, []
            for i in range(k - 1):
                x = self._binomial(left, min(max(pvals[i] / rest, 0.0), 1.0)) if rest > 0 else 0
                row.append(x)
                left -= x
                rest -= pvals[i]
            row.append(left)
            rows.append(row)
        out = _np.array(rows, dtype=_np.int64).reshape(tuple(shape) + (k,))
        return out

    def dirichlet(self, alpha, size=None):
        alpha = _np.asarray(alpha, dtype=float)
        _require(bool(_np.all(alpha > 0)), "alpha <= 0")
        shape, count = _draws(size)
        rows = []
        for _ in range(count):
            g = [self._g(a) for a in alpha.tolist()]
            t = _builtins.sum(g)
            rows.append([x / t for x in g])
        return _np.array(rows).reshape(tuple(shape) + (alpha.shape[0],))

    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8, *,
                            method="svd"):
        mean = _np.asarray(mean, dtype=float)
        cov = _np.asarray(cov, dtype=float)
        _require(mean.ndim == 1, "mean must be 1 dimensional")
        _require(cov.ndim == 2 and cov.shape[0] == cov.shape[1],
                 "cov must be 2 dimensional and square")
        _require(mean.shape[0] == cov.shape[0], "mean and cov must have same length")
        shape, count = _draws(size)
        z = _np.array([[self._n() for _ in range(mean.shape[0])] for _ in range(count)])
        if method == "cholesky":
            factor = _np.linalg.cholesky(cov).T
        else:
            u, s, vh = _np.linalg.svd(cov)
            if check_valid != "ignore" and not _np.allclose(
                    (vh.T * s) @ vh, cov, rtol=tol, atol=tol):
                if check_valid == "raise":
                    raise ValueError("covariance is not symmetric positive-semidefinite.")
                import warnings
                warnings.warn("covariance is not symmetric positive-semidefinite.",
                              RuntimeWarning, stacklevel=2)
            factor = _np.sqrt(s)[:, None] * vh
        x = z.reshape(count, mean.shape[0]) @ factor + mean
        return x.reshape(tuple(shape) + (mean.shape[0],))

    def bytes(self, length):
        return _builtins.bytes(int(self._bitgen.integers(0, 255, 1)[0]) for _ in range(length))


def _words(value, what="entropy"):
    """The 32-bit words SeedSequence reads an int or a sequence of ints as."""
    if isinstance(value, float) or (isinstance(value, _np.ndarray)
                                    and value.dtype.kind == "f"):
        raise TypeError("SeedSequence expects int or sequence of ints for %s not %r"
                        % (what, value))
    return _nn.seed_words(value)


class SeedSequence:
    """NumPy's `SeedSequence`: entropy (and a spawn key) hashed into a pool, from which
    `generate_state` draws the words that seed a bit generator."""

    def __init__(self, entropy=None, *, spawn_key=(), pool_size=4, n_children_spawned=0):
        if pool_size < 4:
            raise ValueError("The size of the entropy pool should be at least 4")
        if entropy is None:
            entropy = int.from_bytes(_os.urandom(16), "little")
        self.entropy = entropy
        self.spawn_key = tuple(spawn_key)
        self.pool_size = pool_size
        self.n_children_spawned = n_children_spawned
        self._pool = _nn.seed_pool(_words(entropy), _words(list(self.spawn_key), "spawn_key"),
                                   pool_size)

    @property
    def pool(self):
        # NumPy's pool is uint32; the embedded numpy holds the words as int64.
        return _np.array(self._pool, dtype=_np.int64)

    @property
    def state(self):
        return {"entropy": self.entropy, "spawn_key": self.spawn_key,
                "pool_size": self.pool_size, "n_children_spawned": self.n_children_spawned}

    def generate_state(self, n_words, dtype="uint32"):
        """`n_words` words of 32 bits (an int64 array: the embedded numpy has no unsigned
        types), or of 64 bits as Python ints (`dtype='uint64'`, a list)."""
        name = getattr(dtype, "__name__", dtype)
        if name in ("uint32", "u4", "<u4"):
            return _np.array(_nn.seed_state(self._pool, n_words), dtype=_np.int64)
        if name in ("uint64", "u8", "<u8"):
            w = _nn.seed_state(self._pool, 2 * n_words)
            return [w[2 * k] | (w[2 * k + 1] << 32) for k in range(n_words)]
        raise TypeError("only support uint32 or uint64")

    def spawn(self, n_children):
        start = self.n_children_spawned
        self.n_children_spawned += n_children
        return [SeedSequence(self.entropy, spawn_key=self.spawn_key + (i,),
                             pool_size=self.pool_size)
                for i in range(start, start + n_children)]

    def __repr__(self):
        return "SeedSequence(\n    entropy=%r,\n)" % (self.entropy,)


class _SeededBitGenerator:
    """A bit generator seeded by a `SeedSequence` of `seed` as NumPy seeds its class."""

    _name = None

    def __init__(self, seed=None):
        if isinstance(seed, SeedSequence):
            seq = seed
        elif isinstance(seed, (BitGenerator, _SeededBitGenerator)):
            raise TypeError("SeedSequence expects int or sequence of ints for entropy "
                            "not a BitGenerator")
        else:
            seq = SeedSequence(seed)
        self._seed_seq = seq
        self._native = self._make(seq)

    @property
    def seed_seq(self):
        return self._seed_seq

    def random_raw(self, size=None, output=True):
        """Raw outputs (64 bits; MT19937's 32), as Python ints (a list for a size: the
        embedded numpy has no uint64)."""
        n = 1 if size is None else (size if isinstance(size, int) else int(_np.prod(size)))
        r = self._native.raw(n)
        if not output:
            return None
        return r[0] if size is None else r

    def spawn(self, n_children):
        if self._seed_seq is None:
            raise TypeError("The underlying SeedSequence does not implement spawning.")
        return [type(self)(s) for s in self._seed_seq.spawn(n_children)]

    def __repr__(self):
        return self._name


class PCG64(_SeededBitGenerator):
    """NumPy's PCG64 (a 128-bit LCG with the XSL-RR output)."""

    _name = "PCG64"

    @staticmethod
    def _make(seq):
        return BitGenerator.seeded("pcg64", list(seq.generate_state(8)))

    @property
    def state(self):
        return _pcg_state(self)


class PCG64DXSM(_SeededBitGenerator):
    """NumPy's PCG64DXSM (PCG64's state, the DXSM output of the state before each step
    and a 64-bit multiplier)."""

    _name = "PCG64DXSM"

    @staticmethod
    def _make(seq):
        return BitGenerator.seeded("dxsm", list(seq.generate_state(8)))

    @property
    def state(self):
        return _pcg_state(self)


def _pcg_state(bitgen):
    """A PCG generator's `state` dict (its 128-bit state and increment)."""
    state, inc = bitgen._native.pcg_state()
    return {"bit_generator": bitgen._name, "state": {"state": state, "inc": inc},
            "has_uint32": 0, "uinteger": 0}


class SFC64(_SeededBitGenerator):
    """NumPy's SFC64 (Chris Doty-Humphrey's small fast chaotic generator)."""

    _name = "SFC64"

    @staticmethod
    def _make(seq):
        return BitGenerator.seeded("sfc", list(seq.generate_state(6)))


class Philox(_SeededBitGenerator):
    """NumPy's Philox (Philox4x64-10, counter-based; keyed by its seed, counter from 0).
    `counter=`, `key=`, `jumped` and `advance` are not supported."""

    _name = "Philox"

    def __init__(self, seed=None, counter=None, key=None):
        if counter is not None or key is not None:
            raise NotImplementedError(
                "Philox(counter=..., key=...) is not supported by the embedded numpy")
        super().__init__(seed)

    @staticmethod
    def _make(seq):
        return BitGenerator.seeded("philox", list(seq.generate_state(4)))


class MT19937(_SeededBitGenerator):
    """NumPy's MT19937 for a `Generator`, seeded by a `SeedSequence` as NumPy's class
    seeds it (the legacy `RandomState` seeds its MT19937 the old way)."""

    _name = "MT19937"

    @staticmethod
    def _make(seq):
        return BitGenerator.seeded("mt19937", list(seq.generate_state(624)))

    @classmethod
    def _wrapping(cls, native):
        """The bit generator of a `RandomState` (`get_bit_generator`)."""
        self = cls.__new__(cls)
        self._seed_seq = None
        self._native = native
        return self

    @property
    def state(self):
        key, pos, _, _ = self._native.legacy_state()
        return {"bit_generator": "MT19937",
                "state": {"key": _np.array(key, dtype=_np.int64), "pos": pos}}


def _native_of(bit_generator):
    """The native generator behind a `PCG64` or `MT19937` (or one given as is)."""
    if isinstance(bit_generator, _SeededBitGenerator):
        return bit_generator._native
    return bit_generator


class Generator(_Distributions):
    """NumPy's `Generator` API over the native bit generator."""

    _p_sum_msg = "Probabilities do not sum to 1. See Notes section of docstring for more information."

    def __init__(self, bit_generator=None):
        if not isinstance(bit_generator, (_SeededBitGenerator, BitGenerator)):
            bit_generator = PCG64(bit_generator)
        self._pcg = bit_generator if isinstance(bit_generator, _SeededBitGenerator) else None
        self._bitgen = _native_of(bit_generator)

    @property
    def bit_generator(self):
        return self._pcg if self._pcg is not None else self._bitgen

    def __repr__(self):
        return "Generator(%r)" % (self._pcg if self._pcg is not None else "PCG64",)

    def random(self, size=None, dtype=None, out=None):
        if size is not None and dtype is None and out is None:
            return self._bitgen.random(size)  # the common call, without a second one
        return _float_draws(self._bitgen.random, size, dtype, out, "random",
                            self._bitgen.random32)

    def standard_normal(self, size=None, dtype=None, out=None):
        if size is not None and dtype is None and out is None:
            return self._bitgen.standard_normal(size)
        return _float_draws(self._bitgen.standard_normal, size, dtype, out, "standard_normal")

    def normal(self, loc=0.0, scale=1.0, size=None):
        _check_scale(scale)
        z = self._bitgen.standard_normal(_size_of(size, loc, scale))
        return loc + scale * z

    def uniform(self, low=0.0, high=1.0, size=None):
        u = self._bitgen.random(_size_of(size, low, high))
        return low + (high - low) * u

    def standard_exponential(self, size=None, dtype=None, method=None, out=None):
        if method not in (None, "zig", "inv"):
            raise ValueError("method must be either 'inv' or 'zig'")
        return _float_draws(self._bitgen.standard_exponential, size, dtype, out,
                            "standard_exponential")

    def exponential(self, scale=1.0, size=None):
        _check_scale(scale)
        return scale * self._bitgen.standard_exponential(_size_of(size, scale))

    def standard_gamma(self, shape, size=None, dtype=None, out=None):
        if _np.ndim(shape) == 0:
            k = float(shape)
            draw = lambda n: self._bitgen.standard_gamma(k, n)  # noqa: E731
        else:
            # Array shapes: one draw per element of the broadcast shape.
            _require(_all(shape, lambda s: s >= 0), "shape < 0")
            draw = lambda n: _each(n, (shape,), self._g, float)  # noqa: E731
        return _float_draws(draw, size, dtype, out, "standard_gamma")

    def gamma(self, shape, scale=1.0, size=None):
        _require(_all(shape, lambda s: s >= 0), "shape < 0")
        _check_scale(scale)
        if _np.ndim(shape) == 0 and _np.ndim(scale) == 0:
            return scale * self._bitgen.standard_gamma(float(shape), size)
        return _each(size, (shape, scale), lambda k, s: s * self._g(k), float)

    def beta(self, a, b, size=None):
        _require(_all(a, lambda v: v > 0), "a <= 0")
        _require(_all(b, lambda v: v > 0), "b <= 0")
        if _np.ndim(a) == 0 and _np.ndim(b) == 0:
            x = self._bitgen.standard_gamma(float(a), size)
            y = self._bitgen.standard_gamma(float(b), size)
            return x / (x + y)

        def one(p, q):
            x, y = self._g(p), self._g(q)
            return x / (x + y)
        return _each(size, (a, b), one, float)

    def laplace(self, loc=0.0, scale=1.0, size=None):
        u = self._bitgen.random(_size_of(size, loc, scale)) - 0.5
        return loc - scale * _np.sign(u) * _np.log1p(-2.0 * _np.abs(u))

    def logistic(self, loc=0.0, scale=1.0, size=None):
        u = self._bitgen.random(_size_of(size, loc, scale))
        return loc + scale * _np.log(u / (1.0 - u))

    def lognormal(self, mean=0.0, sigma=1.0, size=None):
        return _np.exp(self.normal(mean, sigma, size))

    def integers(self, low, high=None, size=None, dtype=None, endpoint=False):
        if high is None:
            low, high = 0, low
        low, high = int(low), int(high)
        if not endpoint:
            high -= 1
        if high < low:
            raise ValueError("low >= high" if not endpoint else "low > high")
        if low < -2 ** 63:
            raise ValueError("low is out of bounds for int64")
        if high > 2 ** 63 - 1:
            raise ValueError("high is out of bounds for int64")
        return self._bitgen.integers(low, high, size)

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        if isinstance(a, int):
            if a <= 0 and (size is None or size != 0):
                raise ValueError("a must be a positive integer unless no samples are taken")
            n = a
            pool = None
        else:
            pool = _np.asarray(a)
            if pool.ndim == 0:
                raise ValueError("a must be a sequence or an integer, not a 0-d array")
            n = pool.shape[0]
            if n == 0:
                raise ValueError("a cannot be empty unless no samples are taken")
        count = 1 if size is None else int(_np.prod(_np.asarray(size)))
        shape = () if size is None else ((size,) if isinstance(size, int) else tuple(size))
        if p is not None:
            p = _np.asarray(p, dtype=float)
            if p.shape != (n,):
                raise ValueError("a and p must have same size")
            if _np.any(p < 0):
                raise ValueError("probabilities are not non-negative")
            if abs(float(_np.sum(p)) - 1.0) > 1e-8:
                raise ValueError(self._p_sum_msg)
        if replace:
            if p is None:
                idx = self._bitgen.integers(0, n - 1, count)
            else:
                cdf = _np.cumsum(p)
                cdf = cdf / cdf[-1]
                idx = _np.searchsorted(cdf, self._bitgen.random(count), side="right")
                idx = _np.minimum(idx, n - 1)
        else:
            if count > n:
                raise ValueError("Cannot take a larger sample than population when replace is False")
            if p is None:
                idx = self._bitgen.permutation(n)[:count]
            else:
                # sequential weighted sampling without replacement
                w = p.copy()
                chosen = []
                for _ in range(count):
                    cdf = _np.cumsum(w)
                    k = int(_np.searchsorted(cdf, self._bitgen.random() * cdf[-1], side="right"))
                    k = min(k, n - 1)
                    chosen.append(k)
                    w[k] = 0.0
                idx = _np.array(chosen, dtype=int)
        if pool is None:
            out = idx
        else:
            out = pool[idx]
        if size is None:
            return out[0] if pool is None or pool.ndim == 1 else out[0]
        return out.reshape(shape + tuple(out.shape[1:])) if pool is not None else out.reshape(shape)

    def permutation(self, x):
        if isinstance(x, int):
            return self._bitgen.permutation(x)
        x = _np.asarray(x)
        return x[self._bitgen.permutation(x.shape[0])]

    def shuffle(self, x, axis=0):
        if isinstance(x, list):
            perm = self._bitgen.permutation(len(x)).tolist()
            items = [x[i] for i in perm]
            x[:] = items
            return
        x[...] = x[self._bitgen.permutation(x.shape[0])]

    def permuted(self, x, axis=None, out=None):
        x = _np.asarray(x)
        if axis is None:
            flat = x.ravel()
            return flat[self._bitgen.permutation(flat.shape[0])].reshape(x.shape)
        moved = _np.moveaxis(x, axis, -1)
        rows = moved.reshape(-1, moved.shape[-1])
        res = _np.stack([r[self._bitgen.permutation(r.shape[0])] for r in rows])
        return _np.moveaxis(res.reshape(moved.shape), -1, axis)

    def spawn(self, n_children):
        if self._pcg is None:
            raise TypeError("The underlying SeedSequence does not implement spawning.")
        return [Generator(b) for b in self._pcg.spawn(n_children)]


def default_rng(seed=None):
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, _SeededBitGenerator):
        return Generator(seed)
    return Generator(PCG64(seed))


class RandomState(_Distributions):
    """The legacy `np.random.RandomState` API over MT19937 seeded and drawn as NumPy's
    (`random_sample`, `randn`, `randint`, `normal`, `uniform`, `permutation`,
    `shuffle`, `choice` give NumPy's numbers for the same seed)."""

    def __init__(self, seed=None):
        self.seed(seed)

    def seed(self, seed=None):
        if isinstance(seed, _np.ndarray):
            seed = seed.tolist()
        self._bitgen = BitGenerator.legacy(seed)
        self._gen = Generator(self._bitgen)

    def get_state(self, legacy=True):
        """('MT19937', the 624 words (int64 here, uint32 in NumPy), the position,
        has_gauss, cached_gaussian), or NumPy's dict form with `legacy=False`."""
        key, pos, has_gauss, gauss = self._bitgen.legacy_state()
        key = _np.array(key, dtype=_np.int64)
        if not legacy:
            return {"bit_generator": "MT19937", "state": {"key": key, "pos": pos},
                    "has_gauss": has_gauss, "gauss": gauss}
        return ("MT19937", key, pos, has_gauss, gauss)

    def set_state(self, state):
        if isinstance(state, dict):
            if state.get("bit_generator") != "MT19937":
                raise ValueError("state must be for a MT19937 PRNG")
            key, pos = state["state"]["key"], state["state"]["pos"]
            has_gauss, gauss = state.get("has_gauss", 0), state.get("gauss", 0.0)
        else:
            if not isinstance(state, (tuple, list)) or state[0] != "MT19937":
                raise ValueError("state must be for a MT19937 PRNG")
            key, pos = state[1], state[2]
            has_gauss, gauss = (state[3], state[4]) if len(state) > 3 else (0, 0.0)
        key = [int(k) for k in _np.asarray(key).tolist()]
        self._bitgen = BitGenerator.from_legacy_state(key, int(pos), bool(has_gauss),
                                                      float(gauss))
        self._gen = Generator(self._bitgen)

    def random_sample(self, size=None):
        return self._bitgen.random(size)

    random = random_sample
    ranf = random_sample
    sample = random_sample

    def rand(self, *shape):
        return self._bitgen.random(shape if shape else None)

    def randn(self, *shape):
        return self._bitgen.standard_normal(shape if shape else None)

    def standard_normal(self, size=None):
        return self._bitgen.standard_normal(size)

    def normal(self, loc=0.0, scale=1.0, size=None):
        return self._gen.normal(loc, scale, size)

    def uniform(self, low=0.0, high=1.0, size=None):
        return self._gen.uniform(low, high, size)

    def randint(self, low, high=None, size=None, dtype=int):
        if high is None:
            low, high = 0, low
        if int(high) <= int(low):
            raise ValueError("low >= high")
        return self._bitgen.integers(int(low), int(high) - 1, size)

    def random_integers(self, low, high=None, size=None):
        if high is None:
            low, high = 1, low
        return self._bitgen.integers(int(low), int(high), size)

    def choice(self, a, size=None, replace=True, p=None):
        self._gen._p_sum_msg = "probabilities do not sum to 1"
        return self._gen.choice(a, size, replace, p)

    def permutation(self, x):
        return self._gen.permutation(x)

    def shuffle(self, x):
        self._gen.shuffle(x)

    def exponential(self, scale=1.0, size=None):
        return self._gen.exponential(scale, size)

    def gamma(self, shape, scale=1.0, size=None):
        return self._gen.gamma(shape, scale, size)

    def beta(self, a, b, size=None):
        return self._gen.beta(a, b, size)

    def laplace(self, loc=0.0, scale=1.0, size=None):
        return self._gen.laplace(loc, scale, size)

    def lognormal(self, mean=0.0, sigma=1.0, size=None):
        return self._gen.lognormal(mean, sigma, size)


def _legacy_standard(name):
    def draw(self, size=None):
        return getattr(self._gen, name)(size)
    draw.__name__ = name
    return draw


RandomState.standard_exponential = _legacy_standard("standard_exponential")


def _standard_gamma(self, shape, size=None):
    return self._gen.standard_gamma(shape, size)


RandomState.standard_gamma = _standard_gamma


def _logistic(self, loc=0.0, scale=1.0, size=None):
    return self._gen.logistic(loc, scale, size)


RandomState.logistic = _logistic

_global = RandomState()


def _module_function(name):
    def draw(*args, **kwargs):
        return getattr(_global, name)(*args, **kwargs)
    draw.__name__ = name
    return draw


for _name in ("standard_cauchy", "standard_t", "chisquare", "noncentral_chisquare", "f",
              "noncentral_f", "gumbel", "pareto", "power", "rayleigh", "weibull", "wald",
              "triangular", "vonmises", "poisson", "binomial", "negative_binomial", "geometric",
              "hypergeometric", "logseries", "zipf", "multinomial", "dirichlet",
              "multivariate_normal", "bytes", "standard_exponential", "standard_gamma",
              "logistic", "random_integers"):
    globals()[_name] = _module_function(_name)


def seed(seed=None):
    _global.seed(seed)


def get_state(legacy=True):
    return _global.get_state(legacy)


def set_state(state):
    _global.set_state(state)


def get_bit_generator():
    """The bit generator behind the module-level functions (an MT19937)."""
    return MT19937._wrapping(_global._bitgen)


def set_bit_generator(bitgen):
    """Make the module-level functions draw from `bitgen`."""
    if not isinstance(bitgen, _SeededBitGenerator):
        raise TypeError("bitgen must be a BitGenerator instance")
    _global._bitgen = bitgen._native
    _global._gen = Generator(bitgen._native)


def rand(*shape):
    return _global.rand(*shape)


def randn(*shape):
    return _global.randn(*shape)


def random(size=None):
    return _global.random_sample(size)


random_sample = random
ranf = random
sample = random


def standard_normal(size=None):
    return _global.standard_normal(size)


def normal(loc=0.0, scale=1.0, size=None):
    return _global.normal(loc, scale, size)


def uniform(low=0.0, high=1.0, size=None):
    return _global.uniform(low, high, size)


def randint(low, high=None, size=None, dtype=int):
    return _global.randint(low, high, size, dtype)


def choice(a, size=None, replace=True, p=None):
    return _global.choice(a, size, replace, p)


def permutation(x):
    return _global.permutation(x)


def shuffle(x):
    _global.shuffle(x)


def exponential(scale=1.0, size=None):
    return _global.exponential(scale, size)


def gamma(shape, scale=1.0, size=None):
    return _global.gamma(shape, scale, size)


def beta(a, b, size=None):
    return _global.beta(a, b, size)


def laplace(loc=0.0, scale=1.0, size=None):
    return _global.laplace(loc, scale, size)


def lognormal(mean=0.0, sigma=1.0, size=None):
    return _global.lognormal(mean, sigma, size)
