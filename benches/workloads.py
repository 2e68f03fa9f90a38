"""Benchmark workloads shared by the criterion benches and the comparison script
(definitions from the design brief, so results compare)."""
import math
import numpy as np


def mlp_loss(w1, w2, w3, x):
    """MLP loss: X 64x128, three 128x128 weights, tanh activations."""
    h1 = np.tanh(x @ w1)
    h2 = np.tanh(h1 @ w2)
    out = np.tanh(h2 @ w3)
    return np.sum(out * out)


def recurrence(x):
    """Scalar recurrence: 1000 steps, a branch on the running value each step."""
    s = x
    for i in range(1000):
        if s > 0.5:
            s = math.sin(s) * x
        else:
            s = s * s + x
    return s


def recurrence_steps(x, n):
    """The recurrence with its step count as an argument (the scaling runs)."""
    s = x
    for i in range(n):
        if s > 0.5:
            s = math.sin(s) * x
        else:
            s = s * s + x
    return s


def tape_loop(x, n):
    """A tape-heavy array loop: n steps over a vector, each step's value saved for the
    backward pass (x: 1000 elements)."""
    h = x
    for i in range(n):
        h = np.tanh(h * 0.9 + x * 0.1)
    return np.sum(h * h)


def building(heating_schedule, outdoor_temp, electricity_price, params):
    """Tangent 2's flagship example: a building's temperature over a heating schedule
    (one step per element), energy cost plus a comfort penalty; params is a dict."""
    T = params['T_initial']
    total_cost = 0.0
    for t in range(len(heating_schedule)):
        dT_dt = (outdoor_temp[t] - T) / (params['R'] * params['C']) + \
            heating_schedule[t] / params['C']
        T = T + params['dt'] * dT_dt
        total_cost += electricity_price[t] * heating_schedule[t] + \
            params['lambda_comfort'] * (T - params['T_target']) ** 2
    return total_cost
