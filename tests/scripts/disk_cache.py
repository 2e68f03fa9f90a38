import math
import tangent


def f(x):
    return math.sin(x) * x * x


g = tangent.grad(f)
print("value:", round(g(0.7), 12))
print("hits:", tangent.stats["disk_hits"], "rejected:", tangent.stats["disk_rejected"])
