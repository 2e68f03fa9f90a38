"""One module that imports both numpy and jax (issue 14): the rules of operators and
array methods follow the value's type, so the gradient of a NumPy function is a
numpy.ndarray and that of a JAX function a jax.Array, also under jax.jit; the values are
checked against the analytic gradient."""
import jax
import jax.numpy as jnp
import numpy as np

import tangent

jax.config.update("jax_enable_x64", True)


def loss(x, w):
    return ((x @ w).T * x.sum()).mean() + x.reshape(-1).sum()


def analytic(x, w):
    # d/dx of mean(x @ w * sum(x)) + sum(x) for x of shape (n, k), w of shape (k,).
    n = x.shape[0]
    s = x.sum()
    xw = x @ w
    return np.outer(np.ones(n), w) * s / n + np.mean(xw) + 1.0


x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]])
w = np.array([0.3, -0.7])
expected = analytic(x, w)
for mode in ("reverse", "forward"):
    if mode == "reverse":
        d = tangent.grad(loss)
        def call(a, b):
            return d(a, b)
    else:
        d = tangent.autodiff(loss, mode="forward")
        def call(a, b):
            # The full gradient, one basis tangent at a time.
            out = np.zeros(a.shape)
            for i in range(a.size):
                e = np.zeros(a.size)
                e[i] = 1.0
                t = e.reshape(a.shape)
                t = jnp.asarray(t) if isinstance(a, jax.Array) else t
                out.flat[i] = float(d(a, b, t))
            return out
    g = call(x, w)
    print(mode, "numpy:", type(g).__module__.split(".")[0], np.allclose(g, expected, atol=1e-12))
    gj = call(jnp.asarray(x), jnp.asarray(w))
    if mode == "forward":
        # The type is that of one directional derivative.
        t = jnp.ones(x.shape)
        one = d(jnp.asarray(x), jnp.asarray(w), t)
        kind = "jax" if isinstance(one, jax.Array) else type(one).__module__.split(".")[0]
        print(mode, "numpy type:", type(d(x, w, np.ones(x.shape))).__module__.split(".")[0])
    else:
        kind = "jax" if isinstance(gj, jax.Array) else type(gj).__module__.split(".")[0]
    print(mode, "jax:", kind, np.allclose(np.asarray(gj), expected, atol=1e-12))

jitted = jax.jit(tangent.grad(loss))
gjit = jitted(jnp.asarray(x), jnp.asarray(w))
print("jit:", isinstance(gjit, jax.Array), np.allclose(np.asarray(gjit), expected, atol=1e-12))
compiled = tangent.grad(loss, compile="jax")
gc = compiled(jnp.asarray(x), jnp.asarray(w))
print("compile=jax:", isinstance(gc, jax.Array), np.allclose(np.asarray(gc), expected, atol=1e-12))


# Second order of a JAX function whose derivative calls the dispatched namespace: both
# ways to H v against jax's own forward-over-reverse.
def g(x):
    return jnp.sum(jnp.tanh(x @ x.T)) + (x * x).sum()


xj = jnp.asarray(x[:2])
vj = jnp.asarray(np.array([[1.0, 0.5], [-0.3, 0.2]]))
ref = jax.jvp(jax.grad(g), (xj,), (vj,))[1]
for how, hv in (("forward-over-reverse", tangent.vjp(tangent.grad(g))(xj, vj)),
                ("reverse-over-forward", tangent.grad(tangent.jvp(g))(xj, vj))):
    print("second order %s:" % how, isinstance(hv, jax.Array),
          np.allclose(np.asarray(hv), np.asarray(ref), atol=1e-10))
