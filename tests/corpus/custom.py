"""Functions with user-supplied derivative rules, for the corpus (reverse.py names them):
a custom function is recognised through the live program, so the snapshot test, which
reads reverse.py's text, does not see these; tests/scripts/closure_sources.py shows the
generated source."""
import math

import numpy as np
import tangent


@tangent.custom_jvp
def soft_abs(x):
    return np.sqrt(x * x + 1e-3)


def _soft_abs_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    y = np.sqrt(x * x + 1e-3)
    return y, x / y * dx


soft_abs.defjvp(_soft_abs_jvp)


@tangent.custom_vjp
def log1pexp(x):
    return math.log1p(math.exp(x))


def _log1pexp_fwd(x):
    return math.log1p(math.exp(x)), x


def _log1pexp_bwd(x, g):
    return (g / (1.0 + math.exp(-x)),)  # the stable form of exp(x) / (1 + exp(x))


log1pexp.defvjp(_log1pexp_fwd, _log1pexp_bwd)


def custom_jvp_rule(x):
    return np.sum(soft_abs(x) * x)


def custom_vjp_rule(x, y):
    return log1pexp(x * y) + y * log1pexp(x)


def custom_vjp_single(x):
    return log1pexp(math.sin(x)) * x
