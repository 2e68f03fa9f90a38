"""jax.lax control flow as people write it: checked by tests/jax/check_jax.py against
jax, and the derivatives' source snapshot-tested by tests/snapshots.rs."""
import functools

import jax
import jax.numpy as jnp
from jax import lax


def body(i, v):
    return v * jnp.sin(v) + 0.1 * i


def fori(x):
    return jnp.sum(lax.fori_loop(0, 4, body, x))


def fori_nested(x, w):
    def step(i, v):
        return jnp.tanh(v * w) + i * 0.01
    return jnp.sum(lax.fori_loop(1, 5, step, x))


def fori_lambda(x):
    return jnp.sum(jax.lax.fori_loop(0, 3, lambda i, v: v * v * 0.5 + x, x))


def scale(s, i, v):
    return v * s + jnp.cos(v) * i


def fori_partial(x):
    return jnp.sum(lax.fori_loop(0, 3, functools.partial(scale, 0.5), x))


def more(c):
    return c[1] < 5


def grow(c):
    return (c[0] * 1.3 + jnp.cos(c[0]), c[1] + 1)


def while_(x):
    v, n = lax.while_loop(more, grow, (x, 0))
    return jnp.sum(v) * n


def pos(a, b):
    return jnp.sum(a * b)


def neg(a, b):
    return -jnp.sum(jnp.exp(a) * b)


def cond(x, y):
    return lax.cond(jnp.sum(x) > 0, pos, neg, x, y) * 2.0


def cond_lambda(x):
    return lax.cond(jnp.sum(x) < 0, lambda a: jnp.sum(jnp.sin(a) * a), lambda a: jnp.sum(a ** 3), x)


def step(c, xi):
    c2 = c * jnp.tanh(xi) + xi
    return c2, c2 * c2


def scan(c0, xs):
    c, ys = lax.scan(step, c0, xs)
    return jnp.sum(c) + jnp.sum(ys)


def scan_reverse(c0, xs):
    c, ys = lax.scan(step, c0, xs, reverse=True)
    return jnp.sum(c * 3.0) + jnp.sum(ys * jnp.arange(1.0, 1.0 + xs.shape[0])[:, None])


def decay(c, _):
    return c * 0.9 + jnp.sin(c), None


def scan_length(c0):
    c, _ = lax.scan(decay, c0, None, length=4)
    return jnp.sum(c)


def pair_step(c, x):
    a, b = x
    c = c + a * b
    return c, (c, a * 2.0)


def scan_tree(c0, a, b):
    c, (ys, zs) = lax.scan(pair_step, c0, (a, b))
    return jnp.sum(c) + jnp.sum(ys * zs)


def fori_partial_bound(x, w):
    return jnp.sum(lax.fori_loop(0, 3, functools.partial(scale, jnp.tanh(w) * 0.5), x))
