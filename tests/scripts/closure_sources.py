# The generated source of derivatives that need a host (lambdas, closures, bound methods,
# methods of user classes, custom rules): printed for the snapshot in tests/cli.rs.
import math

import tangent


def make_loss(weight):
    def helper(x):
        return weight * math.sin(x)

    def loss(x):
        return helper(x) * x + weight
    return loss


class Polynomial:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    def evaluate(self, x):
        return self.a * x * x + self.b


model = Polynomial(2.0, 1.0)


def uses_model(x):
    return model.evaluate(x) * math.cos(x)


@tangent.custom_vjp
def clipped(x):
    return x * x


clipped.defvjp(lambda x: (x * x, x), lambda x, g: (min(2.0 * x * g, 1.0),))


def uses_custom(x):
    return clipped(x) + x


def builds_object(x):
    p = Polynomial(x, 1.0)
    return p.evaluate(0.5) * x


for label, f, modes in [("lambda", lambda x: x * math.sin(x), ("reverse", "forward")),
                        ("object built from the argument", builds_object,
                         ("reverse", "forward")),
                        ("closure", make_loss(3.0), ("reverse", "forward")),
                        ("bound method", model.evaluate, ("reverse", "forward")),
                        ("method of a global object", uses_model, ("reverse", "forward")),
                        ("custom_vjp", uses_custom, ("reverse",))]:
    for mode in modes:
        print("# ---", label, mode)
        print(tangent.autodiff(f, mode=mode).__tangent_source__)

# The constructor as tangent differentiates it: the fields `__init__` assigns, as a
# function of its arguments (tangent.construct_grad / construct_jvp build these).
for mode in ("reverse", "forward"):
    print("# --- Polynomial.__init__ as a constructor", mode)
    print(tangent._build._generate(Polynomial.__init__, (0, 1), True, False, False, 0, mode,
                                   constructor=True).__tangent_source__)
