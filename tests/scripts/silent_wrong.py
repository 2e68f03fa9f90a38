"""Inputs that used to give a silently wrong number or an unlocated error (issue 13)."""
import numpy as np
import tangent


def alias_update(x):
    y = x
    y += x
    return np.sum(y)


def returns_text(x):
    return "value"


def shadows(x):
    tangent = x * 2.0
    numpy = tangent + 1.0
    return numpy * x


def overwritten_param(x, y):
    y = 2.0
    return x * y


def max_of_list(x, y):
    return np.max([x, y * 2.0])


def sum_of_list(x, y):
    return np.sum([x, y, x * y])


def lambda_free_mean(x, y):
    return np.mean([x, x * y])


def attempt(label, thunk):
    try:
        print(label, thunk())
    except (tangent.TangentError, TypeError, ValueError) as e:
        print(label, type(e).__name__ + ":", str(e).splitlines()[0])


attempt("alias scalar:", lambda: tangent.grad(alias_update)(1.5))
attempt("alias array:", lambda: tangent.grad(alias_update)(np.array([1.0, 2.0])))
attempt("text:", lambda: tangent.grad(returns_text)(1.0))
attempt("shadows:", lambda: tangent.grad(shadows)(1.5))
attempt("overwritten:", lambda: repr(tangent.grad(overwritten_param, wrt=(1,))(3.0, 5.0)))
attempt("wrt -1:", lambda: tangent.grad(overwritten_param, wrt=-1)(3.0, 5.0))
attempt("wrt name:", lambda: tangent.grad(overwritten_param, wrt="x")(3.0, 5.0))
attempt("wrt 5:", lambda: tangent.grad(overwritten_param, wrt=(5,)))
attempt("max of list:", lambda: tangent.grad(max_of_list, wrt=(0, 1))(3.0, 1.0))
attempt("sum of list:", lambda: tangent.grad(sum_of_list, wrt=(0, 1))(3.0, 2.0))
attempt("overwritten array:", lambda: repr(tangent.grad(overwritten_param, wrt=(1,))(3.0, np.array([1.0, 2.0]))))
attempt("mean of list:", lambda: tangent.grad(lambda_free_mean, wrt=(0, 1))(3.0, 2.0))
attempt("alias array forward:", lambda: tangent.autodiff(alias_update, mode="forward")(
    np.array([1.0, 2.0]), np.array([1.0, 0.0])))
attempt("alias scalar forward:", lambda: tangent.autodiff(alias_update, mode="forward")(1.5, 1.0))
attempt("text forward:", lambda: tangent.autodiff(returns_text, mode="forward")(1.0, 1.0))
