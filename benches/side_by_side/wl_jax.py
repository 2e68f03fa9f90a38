"""The workloads of benches/workloads.py in jax.numpy (what `jax.grad`, `jax.jit` and
tangent's compile='jax' read), and, for the loops, the best a JAX user can write:
`lax.fori_loop` with `lax.cond` (one traced step, not n unrolled ones)."""
import jax.numpy as jnp
from jax import lax


def mlp_loss(w1, w2, w3, x):
    h1 = jnp.tanh(x @ w1)
    h2 = jnp.tanh(h1 @ w2)
    out = jnp.tanh(h2 @ w3)
    return jnp.sum(out * out)


def recurrence_steps(x, n):
    s = x
    for i in range(n):
        if s > 0.5:
            s = jnp.sin(s) * x
        else:
            s = s * s + x
    return s


def tape_loop(x, n):
    h = x
    for i in range(n):
        h = jnp.tanh(h * 0.9 + x * 0.1)
    return jnp.sum(h * h)


def recurrence_steps_lax(x, n):
    def step(i, s):
        return lax.cond(s > 0.5, lambda s: jnp.sin(s) * x, lambda s: s * s + x, s)
    return lax.fori_loop(0, n, step, x)


def tape_loop_lax(x, n):
    h = lax.fori_loop(0, n, lambda i, h: jnp.tanh(h * 0.9 + x * 0.1), x)
    return jnp.sum(h * h)


def building_lax(heating_schedule, outdoor_temp, electricity_price, params):
    def step(t, carry):
        T, total_cost = carry
        dT_dt = (outdoor_temp[t] - T) / (params['R'] * params['C']) + \
            heating_schedule[t] / params['C']
        T = T + params['dt'] * dT_dt
        total_cost += electricity_price[t] * heating_schedule[t] + \
            params['lambda_comfort'] * (T - params['T_target']) ** 2
        return T, total_cost
    start = (jnp.asarray(params['T_initial']), jnp.asarray(0.0))
    return lax.fori_loop(0, heating_schedule.shape[0], step, start)[1]
