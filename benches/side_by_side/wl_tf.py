"""The workloads of benches/workloads.py written in TensorFlow (what GradientTape, eager
and under tf.function, and tangent's TensorFlow backend read)."""
import tensorflow as tf


def mlp_loss(w1, w2, w3, x):
    h1 = tf.tanh(x @ w1)
    h2 = tf.tanh(h1 @ w2)
    out = tf.tanh(h2 @ w3)
    return tf.reduce_sum(out * out)


def recurrence_steps(x, n):
    s = x
    for i in range(n):
        if s > 0.5:
            s = tf.sin(s) * x
        else:
            s = s * s + x
    return s


def tape_loop(x, n):
    h = x
    for i in range(n):
        h = tf.tanh(h * 0.9 + x * 0.1)
    return tf.reduce_sum(h * h)


def building(heating_schedule, outdoor_temp, electricity_price, params):
    T = params['T_initial']
    total_cost = 0.0
    for t in range(len(heating_schedule)):
        dT_dt = (outdoor_temp[t] - T) / (params['R'] * params['C']) + \
            heating_schedule[t] / params['C']
        T = T + params['dt'] * dT_dt
        total_cost += electricity_price[t] * heating_schedule[t] + \
            params['lambda_comfort'] * (T - params['T_target']) ** 2
    return total_cost
