"""The workloads of benches/workloads.py written with tinygrad's Tensor methods (what
tinygrad's own gradient and tangent's tinygrad backend read). A branch on a tinygrad
value reads it with `.item()` (a Tensor has no truth value)."""


def mlp_loss(w1, w2, w3, x):
    h1 = (x @ w1).tanh()
    h2 = (h1 @ w2).tanh()
    out = (h2 @ w3).tanh()
    return (out * out).sum()


def recurrence_steps(x, n):
    s = x
    for i in range(n):
        if s.item() > 0.5:
            s = s.sin() * x
        else:
            s = s * s + x
    return s


def tape_loop(x, n):
    h = x
    for i in range(n):
        h = (h * 0.9 + x * 0.1).tanh()
    return (h * h).sum()


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
