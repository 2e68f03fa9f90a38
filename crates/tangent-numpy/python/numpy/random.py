"""numpy.random for the embedded interpreter.

`default_rng(seed)` returns a `Generator`, `RandomState(seed)` the legacy interface, and
the module-level functions (`seed`, `rand`, `randn`, `normal`, ...) use one global
`RandomState`. The bits come from a native xoshiro256++ generator: seeding is
reproducible, but the streams are not NumPy's (PCG64 / MT19937), so exact values differ
from real NumPy for the same seed.
"""
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


class Generator:
    """NumPy's `Generator` API over the native bit generator."""

    _p_sum_msg = "Probabilities do not sum to 1. See Notes section of docstring for more information."

    def __init__(self, bit_generator=None):
        if not isinstance(bit_generator, BitGenerator):
            bit_generator = BitGenerator(bit_generator)
        self._bitgen = bit_generator

    @property
    def bit_generator(self):
        return self._bitgen

    def __repr__(self):
        return "Generator(xoshiro256++)"

    def random(self, size=None, dtype=None, out=None):
        r = self._bitgen.random(size)
        return r.astype(dtype) if dtype is not None and size is not None else r

    def standard_normal(self, size=None, dtype=None, out=None):
        r = self._bitgen.standard_normal(size)
        return r.astype(dtype) if dtype is not None and size is not None else r

    def normal(self, loc=0.0, scale=1.0, size=None):
        _check_scale(scale)
        z = self._bitgen.standard_normal(_size_of(size, loc, scale))
        return loc + scale * z

    def uniform(self, low=0.0, high=1.0, size=None):
        u = self._bitgen.random(_size_of(size, low, high))
        return low + (high - low) * u

    def standard_exponential(self, size=None, dtype=None, method=None, out=None):
        return self._bitgen.standard_exponential(size)

    def exponential(self, scale=1.0, size=None):
        _check_scale(scale)
        return scale * self._bitgen.standard_exponential(_size_of(size, scale))

    def standard_gamma(self, shape, size=None, dtype=None, out=None):
        return self._bitgen.standard_gamma(float(shape), size)

    def gamma(self, shape, scale=1.0, size=None):
        return scale * self._bitgen.standard_gamma(float(shape), size)

    def beta(self, a, b, size=None):
        x = self._bitgen.standard_gamma(float(a), size)
        y = self._bitgen.standard_gamma(float(b), size)
        return x / (x + y)

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
        if endpoint:
            high += 1
        if high <= low:
            raise ValueError("low >= high" if not endpoint else "low > high")
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
                idx = self._bitgen.integers(0, n, count)
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
        return [Generator(self._bitgen.spawn_one()) for _ in range(n_children)]


def default_rng(seed=None):
    if isinstance(seed, Generator):
        return seed
    return Generator(BitGenerator(seed))


class RandomState:
    """The legacy `np.random.RandomState` API over the native bit generator."""

    def __init__(self, seed=None):
        self._bitgen = BitGenerator(seed)
        self._gen = Generator(self._bitgen)

    def seed(self, seed=None):
        self._bitgen.seed(seed)

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
        return self._bitgen.integers(int(low), int(high), size)

    def random_integers(self, low, high=None, size=None):
        if high is None:
            low, high = 1, low
        return self._bitgen.integers(int(low), int(high) + 1, size)

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


_global = RandomState()


def seed(seed=None):
    _global.seed(seed)


def get_state():
    raise NotImplementedError("np.random.get_state is not supported by the embedded numpy")


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
