"""JAX through tangent: the gradient of an MLP loss written with jax.numpy and jax.nn,
checked against jax.grad, then compiled with jax.jit (compile='jax').

Run with:  tangent run examples/jax_mlp.py
(the script imports jax, so it runs in CPython; point --python or TANGENT_PYTHON at a
Python that has jax, e.g. the venv `.ci/python-env` creates).
"""
import jax
import jax.numpy as jnp
import tangent

jax.config.update("jax_enable_x64", True)


def loss(w1, w2, x, labels):
    h = jax.nn.gelu(x @ w1)
    logits = h @ w2
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.sum(logp * labels, axis=1))


key = jax.random.PRNGKey(0)
k1, k2, k3 = jax.random.split(key, 3)
w1 = jax.random.normal(k1, (4, 8)) * 0.5
w2 = jax.random.normal(k2, (8, 3)) * 0.5
x = jax.random.normal(k3, (5, 4))
labels = jax.nn.one_hot(jnp.array([0, 2, 1, 1, 0]), 3)

dloss = tangent.grad(loss, wrt=(0, 1))
g1, g2 = dloss(w1, w2, x, labels)
r1, r2 = jax.grad(loss, argnums=(0, 1))(w1, w2, x, labels)
print("matches jax.grad:", bool(jnp.allclose(g1, r1, rtol=1e-10) and jnp.allclose(g2, r2, rtol=1e-10)))

fast = tangent.grad(loss, wrt=(0, 1), compile="jax")     # the same derivative under jax.jit
j1, j2 = fast(w1, w2, x, labels)
print("compile='jax' matches:", bool(jnp.allclose(j1, g1, rtol=1e-12) and jnp.allclose(j2, g2, rtol=1e-12)))
print(dloss.__tangent_source__)
