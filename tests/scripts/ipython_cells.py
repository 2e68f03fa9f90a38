# Functions defined in IPython cells (issue 15, item 4), run in a real InteractiveShell
# (CPython with IPython installed): each derivative against its analytic formula; an
# edited cell re-run differentiates its new text.
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()


def cell(text):
    result = shell.run_cell(text)
    if not result.success:
        raise SystemExit("cell failed: %r" % (result.error_in_exec or result.error_before_exec))


cell("import math\nimport numpy as np\nimport tangent")
cell("def f(x):\n    return x * math.sin(x)")
cell("df = tangent.grad(f)\nprint('cell:', abs(df(0.7) - (math.sin(0.7) + 0.7 * math.cos(0.7))) < 1e-12)")
cell("def f(x):\n    return x ** 3")  # the cell edited and run again
cell("print('edited cell:', tangent.grad(f)(2.0) == 12.0)")
cell("scale = 2.5\nloss = lambda w: scale * np.sum(np.tanh(w))")
cell("w = np.array([0.1, -0.3])\n"
     "print('lambda in a cell:', np.allclose(tangent.grad(loss)(w), 2.5 * (1 - np.tanh(w) ** 2)))")
cell("def make(k):\n    def g(x):\n        return k * x * x\n    return g\ng3 = make(3.0)")
cell("print('closure in a cell:', tangent.grad(g3)(2.0) == 12.0)")
cell("print('forward in a cell:', tangent.autodiff(g3, mode='forward')(2.0, 1.0) == 12.0)")
cell("print('second order in a cell:', tangent.grad(tangent.grad(f))(2.0) == 12.0)")
