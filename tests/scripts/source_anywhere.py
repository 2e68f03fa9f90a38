# Functions without a file (issue 15, item 4): made by `exec`, in `python -c`, or in
# IPython/Jupyter cells (which register their text in `linecache`). Each derivative is
# checked against its analytic formula.
import linecache
import math

import tangent

CELL = "def f(x):\n    return x * math.sin(x)\n"
want = lambda x: math.sin(x) + x * math.cos(x)  # noqa: E731


def show(label, got, expected):
    print(label, "ok" if abs(got - expected) < 1e-12 else "WRONG %r %r" % (got, expected))


# exec'd code has no text anywhere: a located error that says what to pass.
ns = {"math": math}
exec(compile(CELL, "<string>", "exec"), ns)
try:
    tangent.grad(ns["f"])
    print("exec without source: WRONG, accepted")
except tangent.TangentError as e:
    print("exec without source:", str(e).splitlines()[0])
    print("   ", [line for line in str(e).splitlines() if line.startswith("hint:")][0])
show("exec with source=", tangent.grad(ns["f"], source=CELL)(0.7), want(0.7))
show("exec forward with source=",
     tangent.autodiff(ns["f"], mode="forward", source=CELL)(0.7, 1.0), want(0.7))
# The given text may be more than the function, and start on another line.
show("source= with more text", tangent.grad(ns["f"], source="import math\n\n\n" + CELL)(0.3),
     want(0.3))
try:
    tangent.grad(ns["f"], source="def f(x):\n    return x * x\n")
    print("source= of other code: WRONG, accepted")
except tangent.TangentError as e:
    print("source= of other code:", str(e).splitlines()[0])
g = tangent.function(ns["f"], source=CELL)
show("tangent.function(f, source=)", tangent.grad(g)(1.1), want(1.1))
exec(compile("h = lambda x: x ** 3\n", "<string>", "exec"), ns)
show("exec'd lambda with source=", tangent.grad(ns["h"], source="h = lambda x: x ** 3\n")(2.0),
     12.0)


# A cell as IPython runs it: its text in linecache under the cell's name.
def run_cell(name, text, namespace):
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    exec(compile(text, name, "exec"), namespace)


cells = {"math": math}
run_cell("<ipython-input-1-aaaa>", CELL, cells)
show("cell", tangent.grad(cells["f"])(0.7), want(0.7))
# The cell edited and run again (a new cell name, as IPython gives it): the new text.
run_cell("<ipython-input-2-bbbb>", "def f(x):\n    return x ** 3\n", cells)
show("edited cell", tangent.grad(cells["f"])(2.0), 12.0)
# `@tangent.function` keeps the text the function was defined with.
run_cell("<ipython-input-3-cccc>",
         "import tangent\n@tangent.function\ndef q(x):\n    return 2.0 * x * x\n", cells)
linecache.cache.pop("<ipython-input-3-cccc>")
show("@tangent.function after the text is gone", tangent.grad(cells["q"])(3.0), 12.0)
