# A nested function that shares its name with a module-level one must be refused, not
# confused with it (the module-level `f` has derivative 2x, the nested one 3x^2).
import tangent


def f(x):
    return x * x


def make():
    def f(x):
        return x * x * x
    return f


try:
    tangent.grad(make())
    print("nested: accepted")
except tangent.TangentError as e:
    print("nested:", e)
try:
    tangent.grad(lambda x: x * x)
    print("lambda: accepted")
except tangent.TangentError as e:
    print("lambda:", e)
print("top level:", tangent.grad(f)(3.0))


class Model:
    def f(self, x):
        return x * x * x


try:
    tangent.grad(Model().f)
    print("method: accepted")
except tangent.TangentError as e:
    print("method:", e)
