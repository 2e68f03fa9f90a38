# A nested function that shares its name with a module-level one must be differentiated
# as itself, never confused with it (the module-level `f` has derivative 2x, the nested
# one 3x^2, the method 4x^3, the lambda 5x^4): each is found by its code's line.
import tangent


def f(x):
    return x * x


def make():
    def f(x):
        return x * x * x
    return f


class Model:
    def f(self, x):
        return x * x * x * x


print("nested:", tangent.grad(make())(3.0), "expected", 27.0)
print("lambda:", tangent.grad(lambda x: x * x * x * x * x)(1.0), "expected", 5.0)
print("top level:", tangent.grad(f)(3.0), "expected", 6.0)
print("method:", tangent.grad(Model().f)(1.0), "expected", 4.0)
print("function of the class:", tangent.grad(Model.f, wrt=1)(Model(), 1.0), "expected", 4.0)
