# Derivative rules for Python's operators and builtins.
#
# A rule file is parsed, never executed. `@adjoint(name)` registers the function below it
# as the reverse-mode template for the canonical name. Its first parameter is the call's
# result, the others are the call's arguments (with the call's defaults). In the body,
# `d[x]` is the derivative of `x`: reading `d[y]` gives the incoming gradient, writing
# `d[x] = ...` adds a contribution to x's gradient. `tangent.*`, `numpy.*` and `math.*`
# are the runtime helpers and modules the generated code may call.

nondifferentiable(
    builtins.len, builtins.int, builtins.range, builtins.round, builtins.bool,
    builtins.isinstance, builtins.print, builtins.str, builtins.type,
    operator.floordiv, operator.mod,
)


@adjoint(operator.matmul)
def matmul(z, x, y):
    d[x] = tangent.matmul_grad_left(d[z], x, y)
    d[y] = tangent.matmul_grad_right(d[z], x, y)


@adjoint(operator.neg)
def neg(y, x):
    d[x] = -d[y]


@adjoint(operator.pos)
def pos(y, x):
    d[x] = d[y]


@adjoint(builtins.abs)
def abs(y, x):
    d[x] = d[y] * tangent.sign(x)


@adjoint(builtins.float)
def float(y, x):
    d[x] = tangent.unbroadcast(d[y], x)


@adjoint(builtins.sum)
def sum(y, x):
    d[x] = tangent.sum_grad(d[y], x)
