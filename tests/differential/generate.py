"""Seeded random functions in tangent's differentiable subset, for differential testing.

`function_source(seed, k, exclude)` returns the source of one top-level function `f<k>`
(and of the callees it uses, named `f<k>_...`) twice: as plain Python, and as a *probe*
where every comparison and every kink (abs, max/min, np.maximum, np.max, `%`,
copysign) calls a helper that records how far the operands are from flipping the
outcome. run.py runs the probe on candidate inputs and keeps inputs only when every
recorded margin is large, so that finite differences never straddle a kink.

Both renderings are produced by the same generator from the same random stream (the
choices never depend on the rendering), so they describe the same program.

Scalar functions use float arithmetic, math.*, if/elif/else, conditional expressions,
for over range (start/step), while loops with counters, break/continue, augmented
assignment, reassignment and self-assignment, tuple swaps, lists (append, `for v in xs`,
comprehensions, sum), calls of generated callees (default and keyword arguments, pairs
returned and unpacked, nested calls) and recursion on an int depth, lambdas, `while
True` with a break, names defined in every branch or in a loop and used after it, and
names the derivative would like for itself (`bx`, `cond`, `_stack`). Array functions add
NumPy elementwise functions, broadcasting, reductions (axis, keepdims, methods), dot and
matmul, indexing and slices, reshape/transpose, iteration over arrays and rows, stores
(also augmented, in loops, masked) into fresh arrays, np.where/np.maximum,
np.full/np.linspace, array callees, lists of arrays, and loops over a vector's elements
as simulations are written (a scalar carried through them, dict and tuple constants,
element writes filling a fresh array). Every fourth scalar function
keeps to what the native compiler takes.

Values are kept tame: inputs in [-1.5, 1.5], logs of 1 + e*e, divisions by 1 + e*e,
exp of tanh, and loop-carried updates that contract.

Each feature a function uses is recorded by name (FEATURES lists them), so that a
failure report says which constructs were involved and `exclude` can leave a known
broken construct out of the generated code.
"""

import random

# Every construct the generator can emit, by the name used in reports and in `exclude`.
FEATURES = (
    "arith", "math", "if", "ifexp", "for", "while", "while_value", "break", "continue",
    "aug", "reassign", "selfassign", "swap", "tuple", "list", "for_list", "listcomp",
    "call", "default", "recursion", "return", "abs", "minmax", "mod", "copysign",
    "array", "broadcast", "reduce", "reduce_axis", "npmax", "dot", "matmul", "index",
    "slice", "store", "store_loop", "mask", "mask_self", "where", "maximum", "full",
    "linspace", "copy", "for_rows", "np_array", "transpose", "triangle", "aug_array", "int_param",
    "pow", "chain", "keyword", "call_tuple", "call_array", "lambda", "while_true",
    "for_array", "store_aug", "list_array", "method_axis", "reshape", "float", "store_2d",
    "alias", "rebind_iter", "live_default", "erf", "branch_def", "loop_def",
    "loop_var_after", "nested_call", "name_clash",
    # h = g (or a view of g), h rebound in a loop, then g written in place: the
    # checkpointed loop saved the shared object, which the in-place write then changed.
    "alias_rebound", "lambda_nested",
    # a NumPy reduction of a list of floats (np.max([a, b]), np.median(ys), ...): forward
    # mode of np.max/np.min over a list returned the mask instead of the tangent.
    "reduce_list",
    # loops and comprehensions over zip/enumerate/reversed/map, generator expressions
    # consumed by sum/max/min, f-strings and print in the body
    "iter_builtins", "genexp", "fstring",
    # a callee whose value uses a draw from NumPy's global generator (f seeds it first):
    # a gradient that recomputed the callee's forward pass drew another number
    "callee_draw",
    # a loop over an array's elements as simulations are written (Tangent 2's building):
    # a scalar carried through the iterations, element reads (a[t - 1]: a[-1] at t = 0,
    # m[i, j]), constants read from a dict (local or module-level) and a tuple, element
    # writes filling a fresh array (zeros, zeros_like, empty), the trip count from len,
    # shape or size
    "array_loop",
    # a function that is only such a loop, as the native compiler takes it (element
    # reads and writes of float64 vectors and a matrix, a module-level dict of floats,
    # `math` and NumPy's scalar functions): its gradient runs as machine code, so the
    # native variants test element access, arrays made in the function and gradient
    # arrays against the interpreter and finite differences
    "native_loop",
    # such a loop over float32 arrays (parameters named *32): NumPy 2's promotion of
    # float32 elements with Python floats (single precision) and float64 values, a float
    # that is a Python float on one path and a float32 on another, float32 gradients
    "float32_loop",
    # a module-level complex constant multiplying an array argument (|x * c| ** 2 added to
    # the result), or a term through numpy.fft (a power spectrum, a circular convolution
    # through fft and ifft, irfft of a filtered rfft): complex values between real inputs
    # and a real result, differentiated in JAX's convention (tangent once returned complex
    # or wrong gradients, and a complex array's variance was a silent zero), and sign of a
    # complex value, which must be a located refusal (it was a silent zero)
    "complex_const",
    # an integer-array or list index that selects an element twice (v[np.array([1, 0,
    # 1])], m[[0, 0]]): its gradient must get both shares (NumPy's `g[idx] += v` keeps one)
    "fancy_index",
    # a dict of constants a loop reads and also changes (p['gain'] = p['gain'] * 0.7):
    # the tape must keep each iteration's value rather than recompute or reuse one
    "loop_changes_const",
    # NumPy's gathers, stencils and small products (take, append, insert, delete, diff
    # with prepend, ediff1d, trapezoid, take_along_axis, convolve, vecdot, polyval):
    # rules whose adjoints scatter, pad or correlate (unique's values were a silent zero
    # when it was declared nondifferentiable)
    "gather",
)

# Left out of every fourth scalar function, which then is in the subset the native
# compiler takes (no lists, no log in the adjoint, no erf; pairs a callee returns are).
NOT_NATIVE = ("list", "listcomp", "for_list", "pow", "erf", "lambda",
              "reduce_list", "iter_builtins", "genexp", "fstring", "callee_draw")

SHAPES = ((2,), (3,), (2, 3), (3, 2), (2, 2))
MARGIN = 1e-2  # smallest distance from a kink that run.py accepts


def view_base(e):
    """The variable `e` is another name for or a view of (`x`, `x[..]`, `x.T`,
    `np.transpose(x)`, and compositions such as `np.transpose(x).T[0]`), else None."""
    while True:
        if e.endswith(".T"):
            e = e[:-2]
        elif e.startswith("np.transpose(") and e.endswith(")") and closes(e, 12) == len(e) - 1:
            e = e[len("np.transpose("):-1]
        elif e.endswith("]"):
            level = 0
            for i in range(len(e) - 1, -1, -1):
                level += {"]": 1, "[": -1}.get(e[i], 0)
                if level == 0:
                    break
            e = e[:i]
        else:
            break
    return e if e.isidentifier() else None


def closes(e, start):
    """Index of the bracket closing the one at e[start]."""
    level = 0
    for i in range(start, len(e)):
        level += {"(": 1, "[": 1, ")": -1, "]": -1}.get(e[i], 0)
        if level == 0:
            return i
    return -1


def shape_text(s):
    return "(%s)" % ", ".join(str(n) for n in s) if len(s) > 1 else "%d" % s[0]


class Var:
    def __init__(self, name, shape, fresh=True):
        self.name = name
        self.shape = shape  # () for a float, "int" for an int, "list" for a list of floats
        self.fresh = fresh  # an array no other name refers to (safe to write in place)


class Gen:
    """One generated function (plus callees) from one random stream."""

    def __init__(self, rng, prefix, probe, exclude):
        self.rng = rng
        self.prefix = prefix
        self.probe = probe
        self.exclude = set(exclude)
        self.features = set()
        self.callees = []  # sources of generated callees, in definition order
        self.names = set()  # every name this function binds
        self.counter = 0

    # --- choices -----------------------------------------------------------------

    def ok(self, feature, p=1.0):
        """Whether to use `feature` now: allowed, and a coin with probability p."""
        if feature in self.exclude:
            return False
        return p >= 1.0 or self.rng.random() < p

    def use(self, feature):
        self.features.add(feature)

    def pick(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def const(self, lo=-1.0, hi=1.0):
        return "%.2f" % self.rng.uniform(lo, hi)

    def fresh_name(self, stem):
        self.counter += 1
        if stem == "v" and self.ok("name_clash", 0.15):
            # A name the derivative would like for itself: a gradient (`b` + name), a
            # tangent (`d` + name), a temporary, the tape, a saved condition.
            known = sorted(self.names)
            for _ in range(4):
                n = self.pick(known) if known else "x"
                name = self.pick(("b" + n, "d" + n, "%s_times_%s" % (n, n), "sin_" + n,
                                  "_plus", "cond", "_stack", "bresult", "result", "_n_i",
                                  "tanh_" + n, "_" + n))
                if name not in self.names:
                    self.use("name_clash")
                    self.names.add(name)
                    return name
        name = "%s%d" % (stem, self.counter)
        self.names.add(name)
        return name

    # --- kinks and comparisons: plain Python, or a probe helper recording the margin ---

    def cmp(self, a, op, b):
        if self.probe:
            return "_cmp(%s, %r, %s)" % (a, op, b)
        return "(%s %s %s)" % (a, op, b)

    def kink(self, plain_fn, probe_fn, *args):
        return "%s(%s)" % (probe_fn if self.probe else plain_fn, ", ".join(args))

    def mod(self, a, c):
        return "_mod(%s, %s)" % (a, c) if self.probe else "(%s %% %s)" % (a, c)

    # --- scalar expressions --------------------------------------------------------

    def leaf(self, env):
        floats = [v.name for v in env if v.shape == ()]
        ints = [v.name for v in env if v.shape == "int"]
        r = self.rng.random()
        if ints and r < 0.15:
            return "(%s * %s)" % (ints[-1] if self.rng.random() < 0.5 else self.pick(ints),
                                  self.const(0.1, 0.5))
        if floats and r < 0.85:
            return self.pick(floats)
        if self.arrays(env) and r < 0.95:
            return self.array_scalar(env, 1)
        return self.const()

    def bounded(self, e):
        """e squashed into [-1, 1] or so."""
        self.use("math")
        return self.pick(("math.tanh(%s)", "math.sin(%s)", "(%s / (1.0 + %s ** 2))")).replace("%s", e)

    def sexpr(self, env, depth):
        """A float expression over the variables in env."""
        if depth <= 0 or self.rng.random() < 0.25:
            return self.leaf(env)
        r = self.rng.random()
        if r < 0.30:
            self.use("arith")
            a, b = self.sexpr(env, depth - 1), self.sexpr(env, depth - 1)
            op = self.pick(("+", "-", "*", "+", "-"))
            return "(%s %s %s)" % (a, op, b)
        if r < 0.38:
            self.use("arith")
            a, b = self.sexpr(env, depth - 1), self.leaf(env)
            return "(%s / (1.0 + %s * %s))" % (a, b, b)
        if r < 0.58:
            self.use("math")
            a = self.sexpr(env, depth - 1)
            forms = ["math.sin(%s)", "math.cos(%s)", "math.tanh(%s)",
                     "math.exp(math.tanh(%s))", "math.log(1.0 + %s ** 2)",
                     "math.atan(%s)", "math.sqrt(1.0 + %s ** 2)", "(%s ** 2)",
                     "math.log1p(%s ** 2)", "math.hypot(%s, 0.5)"]
            if "erf" not in self.exclude:
                forms.append("math.erf(%s)")
            form = self.pick(forms)
            if form == "math.erf(%s)":
                self.use("erf")
            return form.replace("%s", a)
        if r < 0.64 and self.ok("ifexp"):
            self.use("ifexp")
            a, b = self.sexpr(env, depth - 1), self.sexpr(env, depth - 1)
            return "(%s if %s else %s)" % (a, self.condition(env), b)
        if r < 0.68 and self.ok("abs"):
            self.use("abs")
            return self.kink("abs", "_abs", self.sexpr(env, depth - 1))
        if r < 0.72 and self.ok("minmax"):
            self.use("minmax")
            fn = self.pick(("max", "min"))
            return self.kink(fn, "_" + fn, self.sexpr(env, depth - 1), self.sexpr(env, depth - 1))
        if r < 0.75 and self.ok("mod"):
            self.use("mod")
            return self.mod(self.sexpr(env, depth - 1), self.const(0.7, 2.0))
        if r < 0.78 and self.ok("copysign"):
            self.use("copysign")
            return self.kink("math.copysign", "_copysign", self.sexpr(env, depth - 1),
                             self.sexpr(env, depth - 1))
        if r < 0.86 and self.arrays(env):
            return self.array_scalar(env, depth - 1)
        if r < 0.91 and self.ok("pow"):
            self.use("pow")
            a, b = self.sexpr(env, depth - 1), self.leaf(env)
            return self.pick(("(2.0 ** math.tanh(%s))" % a,
                              "((1.5 + math.tanh(%s)) ** math.sin(%s))" % (a, b),
                              "math.pow(1.2 + math.sin(%s), 1.5)" % a,
                              "(-%s * 2)" % a, "(%s ** 3 * 0.3)" % a))
        self.use("arith")
        return "(%s * %s)" % (self.const(0.3, 1.2), self.sexpr(env, depth - 1))

    def condition(self, env):
        """A float comparison (probed), sometimes combined with and/or/not."""
        self.use("if")
        a = self.sexpr(env, 1)
        c = self.cmp(a, self.pick(("<", ">", "<=", ">=")), self.const(-0.8, 0.8))
        r = self.rng.random()
        if r < 0.15:
            c = "(%s and %s)" % (c, self.cmp(self.leaf(env), self.pick(("<", ">")), self.const()))
        elif r < 0.25:
            c = "(%s or %s)" % (c, self.cmp(self.leaf(env), self.pick(("<", ">")), self.const()))
        elif r < 0.30:
            c = "(not %s)" % c
        elif r < 0.40 and self.ok("chain"):
            self.use("chain")
            lo = self.rng.uniform(-1.0, 0.5)
            b = self.leaf(env)
            if self.probe:
                return "(_cmp(%.2f, '<', %s) and _cmp(%s, '<', %.2f))" % (lo, b, b, lo + 0.7)
            return "(%.2f < %s < %.2f)" % (lo, b, lo + 0.7)
        return c

    # --- array expressions -----------------------------------------------------------

    def arrays(self, env, shape=None):
        return [v for v in env if isinstance(v.shape, tuple) and v.shape != ()
                and (shape is None or v.shape == shape)]

    def array_scalar(self, env, depth):
        """A float computed from an array: a reduction, an index, a dot product."""
        self.use("array")
        arrs = self.arrays(env)
        v = self.pick(arrs)
        r = self.rng.random()
        if r < 0.35:
            self.use("reduce")
            return "np.%s(%s)" % (self.pick(("sum", "mean", "sum")), self.aexpr(env, v.shape, depth))
        if r < 0.45 and self.ok("npmax"):
            self.use("npmax")
            return self.kink("np.max", "_npmax", self.aexpr(env, v.shape, depth))
        if r < 0.75 and self.ok("index"):
            self.use("index")
            idx = ", ".join(str(self.rng.randrange(-n, n)) for n in v.shape)
            return "%s[%s]" % (v.name, idx)
        if r < 0.85 and self.ok("dot"):
            self.use("dot")
            vecs = [a for a in arrs if len(a.shape) == 1]
            if vecs:
                a = self.pick(vecs)
                return "np.dot(%s, %s)" % (a.name, self.aexpr(env, a.shape, depth))
        self.use("reduce")
        return "%s.sum()" % self.aexpr(env, v.shape, depth)

    def aexpr(self, env, shape, depth):
        """An expression of exactly this array shape."""
        same = self.arrays(env, shape)
        if depth <= 0 or self.rng.random() < 0.2:
            if same:
                return self.pick(same).name
            return self.produce(env, shape, 0)
        r = self.rng.random()
        if r < 0.25:
            self.use("array")
            a, b = self.aexpr(env, shape, depth - 1), self.aexpr(env, shape, depth - 1)
            return "(%s %s %s)" % (a, self.pick(("+", "-", "*")), b)
        if r < 0.35:
            self.use("broadcast")
            return "(%s * %s)" % (self.sexpr(env, depth - 1), self.aexpr(env, shape, depth - 1))
        if r < 0.55:
            self.use("array")
            a = self.aexpr(env, shape, depth - 1)
            form = self.pick(("np.tanh(%s)", "np.sin(%s)", "np.cos(%s)", "np.exp(np.tanh(%s))",
                              "np.log(1.0 + %s ** 2)", "(%s / (1.0 + %s ** 2))",
                              "np.sqrt(1.0 + %s ** 2)", "(%s ** 2)", "np.arctan(%s)"))
            return form.replace("%s", a)
        if r < 0.60 and self.ok("maximum"):
            self.use("maximum")
            return self.kink("np.maximum", "_maximum", self.aexpr(env, shape, depth - 1),
                             self.const(-0.5, 0.5))
        if r < 0.65 and self.ok("where"):
            self.use("where")
            a = self.aexpr(env, shape, depth - 1)
            return "np.where(%s, %s, %s)" % (self.cmp(a, self.pick(("<", ">")), self.const(-0.5, 0.5)),
                                             self.aexpr(env, shape, depth - 1),
                                             self.aexpr(env, shape, depth - 1))
        if r < 0.68 and self.ok("abs"):
            self.use("abs")
            return self.kink("np.abs", "_abs", self.aexpr(env, shape, depth - 1))
        if r < 0.70 and self.ok("mod"):
            self.use("mod")
            return self.mod(self.aexpr(env, shape, depth - 1), self.const(0.7, 2.0))
        if r < 0.78 and len(shape) == 2 and self.ok("broadcast"):
            self.use("broadcast")
            if self.rng.random() < 0.5:
                return "(%s + %s)" % (self.aexpr(env, shape, depth - 1),
                                      self.aexpr(env, (shape[1],), depth - 1))
            self.use("reduce_axis")
            axis = self.rng.randrange(2)
            return "(%s * np.%s(%s, axis=%d, keepdims=True))" % (
                self.aexpr(env, shape, depth - 1), self.pick(("sum", "mean")),
                self.aexpr(env, shape, depth - 1), axis)
        return self.produce(env, shape, depth - 1)

    def produce(self, env, shape, depth):
        """An expression of this shape built from arrays of other shapes."""
        m = self.aexpr_base(env, (2, 3))
        v3 = self.aexpr_base(env, (3,))
        r = self.rng.random()
        if shape in ((3,), (2,), (2, 3)) and self.ok("fancy_index", 0.3):
            self.use("fancy_index")
            size = 2 if shape == (2, 3) else 3
            idx = [self.rng.randrange(-size, size) for _ in range(shape[0])]
            idx[-1] = idx[0]
            index = self.pick(("np.array(%s)", "%s")) % idx
            return "%s[%s]" % (m if shape == (2, 3) else v3, index)
        if shape in ((3,), (2,)) and self.ok("gather", 0.5):
            self.use("gather")
            v2 = self.aexpr_base(env, (2,))
            s = self.leaf(env)
            if shape == (3,):
                return self.pick((
                    "np.take(%s, [2, 0, 0])" % v3, "np.append(%s, %s)" % (v2, s),
                    "np.insert(%s, 1, %s)" % (v2, s), "np.diff(%s, prepend=%s)" % (v3, s),
                    "np.convolve(%s, %s, 'same')" % (v3, v2), "np.unique(np.array([0.0, 10.0, -10.0]) + 0.1 * np.tanh(%s))" % v3))
            return self.pick((
                "np.delete(%s, 1)" % v3, "np.diff(%s)" % v3, "np.trapezoid(%s, axis=1)" % m,
                "np.take_along_axis(%s, np.array([[2], [0]]), 1)[:, 0]" % m,
                "np.vecdot(%s, %s)" % (m, v3), "np.polyval(%s, %s)" % (v3, v2),
                "np.ediff1d(%s, to_begin=%s)" % (v2, s)))
        if shape == (3,):
            if r < 0.3 and self.ok("reduce_axis"):
                self.use("reduce_axis")
                return "np.%s(%s, axis=0)" % (self.pick(("sum", "mean")), m)
            if r < 0.4 and self.ok("npmax"):
                self.use("npmax")
                return self.kink("np.max", "_npmax", m, "axis=0")
            if r < 0.6 and self.ok("index"):
                self.use("index")
                return "%s[%d]" % (m, self.rng.randrange(-2, 2))
            if r < 0.7 and self.ok("np_array"):
                self.use("np_array")
                env_s = [v for v in env if v.shape == ()]
                if env_s:
                    return "np.array([%s, %s, %s])" % (self.leaf(env), self.const(), self.leaf(env))
            if r < 0.8 and self.ok("linspace"):
                self.use("linspace")
                return "np.linspace(%s, %s, 3)" % (self.const(), self.leaf(env))
            if r < 0.9 and self.ok("full"):
                self.use("full")
                return "np.full(3, %s)" % self.leaf(env)
            self.use("matmul")
            return "(%s @ %s)" % (self.aexpr_base(env, (2,)), m)
        if shape == (2,):
            if r < 0.3 and self.ok("matmul"):
                self.use("matmul")
                return self.pick(("(%s @ %s)", "np.dot(%s, %s)", "np.matmul(%s, %s)")) % (m, v3)
            if r < 0.5 and self.ok("reduce_axis"):
                self.use("reduce_axis")
                return "np.%s(%s, axis=1)" % (self.pick(("sum", "mean")), m)
            if r < 0.65 and self.ok("slice"):
                self.use("slice")
                return "%s[%s]" % (v3, self.pick(("0:2", "1:3", "1:", ":2", "::2")))
            if r < 0.8 and self.ok("index"):
                self.use("index")
                return "%s[:, %d]" % (m, self.rng.randrange(3))
            if r < 0.9 and self.ok("full"):
                self.use("full")
                return "np.full(2, %s)" % self.leaf(env)
            self.use("matmul")
            return "(%s @ %s)" % (m, v3)
        if shape == (2, 3):
            if r < 0.5:
                self.use("broadcast")
                return "(%s[:, None] * %s)" % (self.aexpr_base(env, (2,)), v3) if r < 0.2 else \
                       "(%s + 0.0 * %s)" % (v3, m)
            if r < 0.7 and self.ok("full"):
                self.use("full")
                return "np.full((2, 3), %s)" % self.leaf(env)
            if r >= 0.85 and self.ok("triangle"):
                self.use("triangle")
                return self.pick(("np.tril(%s)", "np.triu(%s, 1)", "np.tril(%s, k=-1)")) % m
            self.use("transpose")
            return "%s.T" % self.aexpr_base(env, (3, 2))
        if shape == (3, 2):
            w = self.arrays(env, (3, 2))
            if w and r < 0.5:
                return w[0].name
            self.use("transpose")
            return self.pick(("%s.T", "np.transpose(%s)")) % m
        if shape == (2, 2):
            self.use("matmul")
            if r < 0.5 and self.ok("slice"):
                self.use("slice")
                return "%s[:, 0:2]" % m
            return "(%s @ %s * 0.3)" % (m, self.aexpr_base(env, (3, 2)))
        raise ValueError(shape)

    def aexpr_base(self, env, shape):
        """A leaf of this shape if there is one, else a production (no recursion on depth)."""
        same = self.arrays(env, shape)
        if same:
            return self.pick(same).name
        return self.produce(env, shape, 0)

    # --- statements -------------------------------------------------------------------

    def block(self, env, out, indent, depth, loop, n):
        """n statements appended to out (lines), reading and extending env."""
        start = len(out)
        for _ in range(n):
            self.stmt(env, out, indent, depth, loop)
        if len(out) == start:  # every choice declined: a block needs a statement
            self.stmt(env, out, indent, 2, loop)

    def assign_target(self, env, loop):
        """An existing float variable (reassignment) or a new one."""
        floats = [v for v in env if v.shape == ()]
        if floats and self.rng.random() < (0.6 if loop else 0.35):
            return self.pick(floats).name, False
        return self.fresh_name("v"), True

    def stmt(self, env, out, indent, depth, loop):
        pad = "    " * indent
        r = self.rng.random()
        floats = [v for v in env if v.shape == ()]
        arrs = self.arrays(env)
        if arrs and r < 0.30 and self.ok("array", 0.8):
            return self.array_stmt(env, out, indent, depth, loop)
        if r < 0.42 or depth >= 2:
            name, new = self.assign_target(env, loop)
            if loop and not new:
                # Loop-carried updates contract, so values stay bounded over iterations.
                e = "(%s * %s + %s * %s)" % (self.const(0.3, 0.8), name, self.const(0.2, 0.7),
                                             self.bounded(self.sexpr(env, 2)))
            else:
                e = self.sexpr(env, 3)
            if not new:
                self.use("reassign")
            e = self.maybe_self(name, e)
            out.append("%s%s = %s" % (pad, name, e))
            if new:
                env.append(Var(name, ()))
            return
        if r < 0.48 and floats and self.ok("aug"):
            self.use("aug")
            v = self.pick(floats).name
            op = self.pick(("+=", "-=", "*=", "/="))
            e = self.bounded(self.sexpr(env, 2))
            if op == "*=":
                e = "(0.9 + 0.1 * %s)" % e
            elif op == "/=":
                e = "(1.2 + 0.2 * %s)" % e
            else:
                e = "%s * %s" % (self.const(0.2, 0.8), e)
            out.append("%s%s %s %s" % (pad, v, op, e))
            return
        if r < 0.52 and floats and self.ok("selfassign"):
            self.use("selfassign")
            v = self.pick(floats).name
            if self.rng.random() < 0.5:
                out.append("%s%s = %s" % (pad, v, v))
            else:
                # The leaky ReLU written as a rebinding of its own argument.
                out.append("%s%s = %s if %s else %s * %s" % (
                    pad, v, v, self.cmp(v, ">", self.const(-0.5, 0.5)), self.const(0.01, 0.3), v))
            return
        if r < 0.56 and len(floats) >= 2 and self.ok("swap"):
            a, b = self.rng.sample([v.name for v in floats], 2)
            if self.rng.random() < 0.5:
                self.use("swap")
                out.append("%s%s, %s = %s, %s" % (pad, a, b, b, a))
            else:
                self.use("tuple")
                out.append("%s%s, %s = %s, %s" % (pad, a, b, self.maybe_self(a, self.sexpr(env, 2)),
                                                  self.maybe_self(b, self.sexpr(env, 2))))
            return
        if r < 0.66 and self.ok("if"):
            self.use("if")
            k = self.rng.random()
            # A new name assigned at the end of every branch is defined after the `if`
            # (its definedness is path-dependent inside the derivative).
            defined = self.fresh_name("b") if k < 0.7 and self.ok("branch_def", 0.5) else None
            branches = [("if", self.condition(env))]
            if k < 0.3:
                branches.append(("elif", self.condition(env)))
            if k < 0.7:
                branches.append(("else", None))
            for word, cond in branches:
                out.append("%s%s%s:" % (pad, word, "" if cond is None else " " + cond))
                inner = list(env)
                self.block(inner, out, indent + 1, depth + 1, loop, self.rng.randint(1, 2))
                if defined:
                    out.append("%s    %s = %s" % (pad, defined, self.sexpr(inner, 2)))
            if defined:
                self.use("branch_def")
                env.append(Var(defined, ()))
            return
        word = self.pick(("break", "continue"))
        if r < 0.70 and loop and self.ok(word):
            self.use(word)
            out.append("%sif %s:" % (pad, self.condition(env)))
            out.append("%s    %s" % (pad, word))
            return
        if r < 0.78 and self.ok("for"):
            self.use("for")
            i = self.fresh_name("i")
            # Longer loops at the top level, where checkpointing cuts them into segments.
            start, stop, step = self.pick(((0, 3, 1), (1, 5, 1), (0, 6, 2), (1, 7, 2), (3, 0, -1),
                                           (0, 4, 1)) + (((0, 9, 1), (1, 12, 2), (10, 0, -1))
                                                         if depth == 0 else ()))
            if step == 1 and start == 0 and self.rng.random() < 0.5:
                rng_text = "range(%d)" % stop
            elif step == 1:
                rng_text = "range(%d, %d)" % (start, stop)
            else:
                rng_text = "range(%d, %d, %d)" % (start, stop, step)
            ints = [v for v in env if v.shape == "int" and v.name == "n"]
            if ints and self.rng.random() < 0.4:
                rng_text = "range(n)"
            self.seed_floats(env, out, pad)
            out.append("%sfor %s in %s:" % (pad, i, rng_text))
            inner = list(env) + [Var(i, "int")]
            self.loop_body(env, inner, out, pad, indent, depth)
            if self.ok("loop_var_after", 0.3):
                # Every range here has an iteration: the target keeps its last value.
                self.use("loop_var_after")
                env.append(Var(i, "int"))
            return
        if r < 0.84 and self.ok("while"):
            self.use("while")
            k = self.fresh_name("k")
            self.seed_floats(env, out, pad)
            out.append("%s%s = 0" % (pad, k))
            inner = list(env) + [Var(k, "int")]
            if self.ok("while_value", 0.4):
                self.use("while_value")
                # Stops on a value or after a few rounds, whichever comes first.
                v = self.pick([x for x in env if x.shape == ()]).name
                out.append("%swhile %s < %d and %s:" % (pad, k, self.rng.randint(2, 6),
                                                          self.cmp(v, "<", self.const(0.5, 2.5))))
                out.append("%s    %s = %s + 1" % (pad, k, k))
                out.append("%s    %s = %s + %s * (1.0 + %s)" % (pad, v, v, self.const(0.2, 0.6),
                                                               self.bounded(self.sexpr(inner, 1))))
            else:
                out.append("%swhile %s < %d:" % (pad, k, self.rng.randint(1, 5 if depth else 10)))
                # The counter goes first so that a `continue` cannot skip it.
                out.append("%s    %s = %s + 1" % (pad, k, k))
                self.loop_body(env, inner, out, pad, indent, depth)
                return
            self.block(inner, out, indent + 1, depth + 1, True, self.rng.randint(1, 2))
            return
        if r < 0.90 and self.ok("list"):
            return self.list_stmt(env, out, pad, loop)
        if r < 0.93 and self.more_stmt(env, out, pad, indent, depth, loop):
            return
        if r < 0.96 and self.ok("call"):
            return self.call_stmt(env, out, pad)
        if self.ok("return", 0.5):
            self.use("return")
            out.append("%sif %s:" % (pad, self.condition(env)))
            out.append("%s    return %s" % (pad, self.result(env)))
            return
        name, new = self.assign_target(env, loop)
        out.append("%s%s = %s" % (pad, name, self.bounded(self.sexpr(env, 2))))
        if new:
            env.append(Var(name, ()))

    def loop_body(self, env, inner, out, pad, indent, depth):
        """The body of a loop that runs at least once; a name it assigns first (before
        any break or continue) is defined after the loop."""
        defined = None
        if self.ok("loop_def", 0.3):
            self.use("loop_def")
            defined = self.fresh_name("l")
            out.append("%s    %s = %s" % (pad, defined, self.bounded(self.sexpr(inner, 2))))
            inner.append(Var(defined, ()))
        self.block(inner, out, indent + 1, depth + 1, True, self.rng.randint(1, 3))
        if defined:
            env.append(Var(defined, ()))

    def maybe_self(self, name, e):
        """e, noting a self-assignment (`v = v`, `v = (w if c else v)`: the leaf drawn was
        the target itself), or changed into an ordinary assignment when those are excluded."""
        if e == name or e.startswith("(%s if " % name) or e.endswith(" else %s)" % name):
            if "selfassign" in self.exclude:
                return "(%s + %s)" % (e, self.const())
            self.use("selfassign")
        return e

    def seed_floats(self, env, out, pad):
        """Make sure a float variable exists before a loop body needs one."""
        if not [v for v in env if v.shape == ()]:
            name = self.fresh_name("v")
            out.append("%s%s = %s" % (pad, name, self.sexpr(env, 2)))
            env.append(Var(name, ()))

    def list_stmt(self, env, out, pad, loop):
        self.use("list")
        ys = self.fresh_name("ys")
        n = self.rng.randint(1, 4)
        r = self.rng.random()
        if r < 0.4 or "listcomp" in self.exclude:
            j = self.fresh_name("j")
            out.append("%s%s = []" % (pad, ys))
            out.append("%sfor %s in range(%d):" % (pad, j, n))
            inner = list(env) + [Var(j, "int")]
            out.append("%s    %s.append(%s)" % (pad, ys, self.bounded(self.sexpr(inner, 2))))
        elif r < 0.7:
            self.use("listcomp")
            j = self.fresh_name("j")
            inner = list(env) + [Var(j, "int")]
            out.append("%s%s = [%s for %s in range(%d)]" % (pad, ys, self.bounded(self.sexpr(inner, 2)), j, n))
        else:
            n = 2
            out.append("%s%s = [%s, %s]" % (pad, ys, self.sexpr(env, 2), self.sexpr(env, 1)))
        # Use the list: iterate, comprehend (with a filter), index or sum it.
        s, new = self.assign_target(env, loop)
        if new:
            out.append("%s%s = 0.0" % (pad, s))
            env.append(Var(s, ()))
        u = self.fresh_name("u")
        k = self.rng.random()
        inner = list(env) + [Var(u, ())]
        if k < 0.4 and self.ok("for_list"):
            self.use("for_list")
            out.append("%sfor %s in %s:" % (pad, u, ys))
            out.append("%s    %s = %s * %s + %s" % (pad, s, self.const(0.3, 0.8), s, self.bounded(self.sexpr(inner, 2))))
            if self.ok("rebind_iter", 0.3):
                # Python goes on iterating over the original list.
                self.use("rebind_iter")
                out.append("%s    %s = [%s * %s]" % (pad, ys, u, self.const(0.5, 1.5)))
        elif k < 0.7 and self.ok("listcomp"):
            self.use("listcomp")
            filt = " if %s" % self.cmp(u, ">", self.const(-0.9, 0.0)) if self.rng.random() < 0.4 else ""
            out.append("%s%s = %s + sum([%s for %s in %s%s])" % (
                pad, s, s, self.bounded(self.sexpr(inner, 2)), u, ys, filt))
        elif k < 0.78 and self.ok("iter_builtins"):
            self.use("iter_builtins")
            w = self.fresh_name("w")
            j = self.fresh_name("j")
            inner2 = inner + [Var(w, ()), Var(j, "int")]
            form = self.pick((
                "for %(u)s, %(w)s in zip(%(ys)s, reversed(%(ys)s)):",
                "for %(j)s, (%(u)s, %(w)s) in enumerate(zip(%(ys)s, map(math.tanh, %(ys)s)), 1):",
                "for %(u)s, %(w)s in zip(map(math.sin, %(ys)s), %(ys)s):",
            ))
            out.append(pad + form % {"u": u, "w": w, "j": j, "ys": ys})
            out.append("%s    %s = %s * %s + %s" % (pad, s, self.const(0.3, 0.8), s,
                                                  self.bounded(self.sexpr(inner2, 2))))
        elif k < 0.81 and self.ok("genexp"):
            self.use("genexp")
            fn = self.pick(("sum", "max", "min"))
            e = self.bounded(self.sexpr(inner, 2))
            if self.probe and fn != "sum":
                # the extreme element must beat the runner-up (the probe notes the gap)
                call = "_list_reduce(%r, [%s for %s in %s])" % (fn, e, u, ys)
            else:
                call = "%s(%s for %s in %s)" % (fn, e, u, ys)
            out.append("%s%s = %s + %s" % (pad, s, s, call))
        if self.ok("fstring", 0.15):
            # formatting in the body: a string, never part of a derivative
            self.use("fstring")
            label = self.fresh_name("label")
            out.append('%s%s = f"{%s:.3f} {%s!r} {{x}}" + "%%.2f" %% %s' % (pad, label, s, ys, s))
        elif k < 0.85 and self.ok("reduce_list"):
            self.use("reduce_list")
            out.append("%s%s = %s + %s" % (pad, s, s, self.list_reduction(ys)))
        else:
            out.append("%s%s = %s + %s[%d] * %s[-1]" % (pad, s, s, ys, self.rng.randrange(n), ys))
        env.append(Var(ys, "list"))

    # Reductions of a list; the order statistics and std have kinks where two elements tie.
    LIST_REDUCTIONS = ("max", "min", "amax", "amin", "nanmax", "nanmin", "ptp", "median",
                       "sum", "mean", "prod", "var", "std", "nansum", "nanmean")
    SMOOTH_LIST_REDUCTIONS = ("sum", "mean", "prod", "var", "nansum", "nanmean")

    def list_reduction(self, ys):
        fn = self.pick(self.LIST_REDUCTIONS)
        if self.probe and fn not in self.SMOOTH_LIST_REDUCTIONS:
            return "_list_reduce(%r, %s)" % (fn, ys)
        return "np.%s(%s)" % (fn, ys)

    def call_stmt(self, env, out, pad):
        self.use("call")
        name, new = self.assign_target(env, False)
        r = self.rng.random()
        arrs = [v for v in self.arrays(env) if v.shape in ((3,), (2, 3))]
        if r < 0.25 and self.ok("recursion"):
            callee = self.make_recursive()
            depth = "n" if [v for v in env if v.name == "n"] and self.rng.random() < 0.5 \
                else str(self.rng.randint(0, 4))
            e = "%s(%s, %s)" % (callee, self.sexpr(env, 2), depth)
        elif r < 0.45 and arrs and self.ok("call_array"):
            # An array callee (like a layer): returns an array, reduced here.
            self.use("call_array")
            shape = self.pick(arrs).shape
            callee = self.make_array_callee(shape)
            e = "np.sum(%s(%s, %s) * %s)" % (callee, self.aexpr(env, shape, 1), self.sexpr(env, 1),
                                            self.aexpr(env, shape, 0))
        elif r < 0.6 and self.ok("call_tuple"):
            # A callee returning a pair, unpacked into two names.
            self.use("call_tuple")
            callee, nargs, _ = self.make_callee(pair=True)
            other, other_new = self.assign_target(env, False)
            if other == name:
                other, other_new = self.fresh_name("v"), True
            out.append("%s%s, %s = %s(%s)" % (pad, name, other, callee,
                                              ", ".join(self.sexpr(env, 2) for _ in range(nargs))))
            for n_, is_new in ((name, new), (other, other_new)):
                if is_new:
                    env.append(Var(n_, ()))
            return
        else:
            callee, nargs, ndefault = self.make_callee()
            args = [self.sexpr(env, 2) for _ in range(nargs)]
            if ndefault and self.rng.random() < 0.5:
                if self.ok("keyword", 0.5):
                    self.use("keyword")
                    args.append("scale=%s" % self.sexpr(env, 1))
                else:
                    args.append(self.sexpr(env, 1))  # override the default
            e = "%s(%s)" % (callee, ", ".join(args))
        out.append("%s%s = %s" % (pad, name, e))
        if new:
            env.append(Var(name, ()))

    def make_callee(self, pair=False):
        """A small scalar function of one or two floats, maybe with a default argument."""
        name = "%s_h%d" % (self.prefix, len(self.callees))
        nargs = self.rng.randint(1, 2)
        params = ["p%d" % i for i in range(nargs)]
        ndefault = 0
        sig = list(params)
        env = [Var(p, ()) for p in params]
        before, after = [], []
        if not pair and self.ok("default", 0.5):
            self.use("default")
            ndefault = 1
            if self.ok("live_default", 0.3):
                # The default is the global's value when `def` ran, not its later value.
                self.use("live_default")
                glob = "%s_K" % name.upper()
                before = ["%s = %s" % (glob, self.const(0.5, 1.5)), "", ""]
                after = ["", "", "%s = %s" % (glob, self.const(0.5, 1.5))]
                sig.append("scale=%s" % glob)
            else:
                sig.append("scale=%s" % self.const(0.5, 1.5))
            env.append(Var("scale", ()))
        lines = before + ["def %s(%s):" % (name, ", ".join(sig))]
        # Decided by a stream of its own, so that adding the feature left every other
        # program of a seed as it was.
        draw = "callee_draw" not in self.exclude and \
            random.Random("draw:" + name).random() < 0.25
        if draw:
            self.use("callee_draw")
            lines.append("    r_draw = 0.75 + 0.5 * np.random.uniform()")
        nested = "nested_call" not in self.exclude and "_h" not in self.prefix
        sub = Gen(self.rng, name, self.probe, self.exclude | {"array"} | (set() if nested else {"call"}))
        sub.counter = 100 * (len(self.callees) + 1)
        sub.block(env, lines, 1, 1, False, self.rng.randint(1, 3))
        if sub.features & {"call"}:
            sub.use("nested_call")
        if draw:
            value = "(%s) * r_draw" % sub.result(env)
        else:
            value = sub.result(env)
        if pair:
            lines.append("    return %s, %s" % (value, sub.sexpr(env, 2)))
        else:
            lines.append("    return %s" % value)
        self.features |= sub.features
        self.callees.extend(sub.callees)
        self.callees.append("\n".join(lines + after))
        return name, nargs, ndefault

    def make_array_callee(self, shape):
        """def f<k>_h<j>(p, q): a few statements over array p and float q; returns p's shape."""
        name = "%s_h%d" % (self.prefix, len(self.callees))
        env = [Var("p", shape, fresh=False), Var("q", ())]
        if shape != (2, 3):
            env.append(Var("m", (2, 3), fresh=False))  # produce() builds from a matrix
            pre = ["    m = np.reshape(np.cos(np.arange(6.0)), (2, 3))"]
        else:
            env.append(Var("a", (3,), fresh=False))
            pre = ["    a = np.sin(np.arange(3.0))"]
        lines = ["def %s(p, q):" % name] + pre
        sub = Gen(self.rng, name, self.probe, self.exclude | {"call", "return"})
        sub.counter = 100
        sub.block(env, lines, 1, 1, False, self.rng.randint(1, 3))
        lines.append("    return np.tanh(%s * q + %s)" % (sub.aexpr(env, shape, 1), sub.aexpr(env, shape, 1)))
        self.features |= sub.features
        self.callees.append("\n".join(lines))
        return name

    def make_recursive(self):
        self.use("recursion")
        name = "%s_r%d" % (self.prefix, len(self.callees))
        env = [Var("x", ())]
        sub = Gen(self.rng, name, self.probe, self.exclude | {"call", "return", "array"})
        body = sub.sexpr(env + [Var("%s(x, n - 1)" % name, ())], 2)
        if "%s(x, n - 1)" % name not in body:
            body = "(%s + %s * %s(x, n - 1))" % (body, self.const(0.3, 0.9), name)
        lines = ["def %s(x, n):" % name,
                 "    if n == 0:",
                 "        return %s" % sub.sexpr(env, 1),
                 "    return %s" % body]
        self.features |= sub.features
        self.callees.append("\n".join(lines))
        return name

    def array_stmt(self, env, out, indent, depth, loop):
        pad = "    " * indent
        arrs = self.arrays(env)
        fresh = [v for v in arrs if v.fresh]
        if self.rng.random() < 0.3 and self.more_array_stmt(env, out, pad, loop, fresh):
            return
        r = self.rng.random()
        if r < 0.35:
            shape = self.pick(SHAPES[:3])
            name = self.fresh_name("h")
            e = self.aexpr(env, shape, 2)
            if loop:
                e = "np.tanh(%s)" % e  # bounded across iterations
            out.append("%s%s = %s" % (pad, name, e))
            base = view_base(e)
            if base is not None:
                # `name` shares memory with `base`: writing either in place would change
                # the other, which is the aliasing class, not what this statement tests.
                for v in env:
                    if v.name == base:
                        v.fresh = False
            env.append(Var(name, shape, fresh=base is None))
            if base is None and self.ok("mask", 0.25):
                self.mask_stmt(env[-1], env, out, pad)  # `h = ...; h[h < 0] = 0.0`
            return
        if r < 0.45:
            name, new = self.assign_target(env, loop)
            e = self.array_scalar(env, 2)
            if loop and not new:
                e = "(%s * %s + %s)" % (self.const(0.3, 0.8), name, self.bounded(e))
            out.append("%s%s = %s" % (pad, name, e))
            if new:
                env.append(Var(name, ()))
            return
        if r < 0.55 and self.ok("copy"):
            self.use("copy")
            src = self.pick(arrs)
            name = self.fresh_name("c")
            out.append("%s%s = %s" % (pad, name, self.pick(("%s.copy()", "%s * 1.0", "np.copy(%s)")) % src.name))
            env.append(Var(name, src.shape))
            return
        if r < 0.62 and self.ok("store"):
            self.use("store")
            if not fresh:
                shape = self.pick(((3,), (2, 3)))
                name = self.fresh_name("z")
                out.append("%s%s = np.zeros(%s)" % (pad, name, shape_text(shape)))
                v = Var(name, shape)
                env.append(v)
            else:
                v = self.pick(fresh)
            if len(v.shape) == 1:
                n = v.shape[0]
                if self.rng.random() < 0.5 or n < 3:
                    out.append("%s%s[%d] = %s" % (pad, v.name, self.rng.randrange(n), self.sexpr(env, 2)))
                else:
                    self.use("slice")
                    out.append("%s%s[0:2] = %s" % (pad, v.name, self.aexpr(env, (2,), 1)))
            else:
                k = self.rng.random()
                if k < 0.4:
                    out.append("%s%s[%d] = %s" % (pad, v.name, self.rng.randrange(v.shape[0]),
                                                  self.aexpr(env, v.shape[1:], 1)))
                elif k < 0.7:
                    out.append("%s%s[%d, %d] = %s" % (pad, v.name, self.rng.randrange(v.shape[0]),
                                                      self.rng.randrange(v.shape[1]), self.sexpr(env, 2)))
                else:
                    self.use("slice")
                    out.append("%s%s[:, %d] = %s" % (pad, v.name, self.rng.randrange(v.shape[1]),
                                                     self.aexpr(env, (v.shape[0],), 1)))
            return
        if r < 0.68 and self.ok("store_loop") and [v for v in fresh if len(v.shape) == 1]:
            self.use("store_loop")
            v = self.pick([v for v in fresh if len(v.shape) == 1])
            i = self.fresh_name("i")
            out.append("%sfor %s in range(%d):" % (pad, i, v.shape[0]))
            inner = list(env) + [Var(i, "int")]
            src = self.pick(self.arrays(env, v.shape) or [v])
            out.append("%s    %s[%s] = %s * %s[%s] + %s" % (pad, v.name, i, self.const(0.3, 0.9), src.name, i,
                                                            self.bounded(self.sexpr(inner, 1))))
            return
        if r < 0.75 and fresh and self.ok("mask"):
            self.mask_stmt(self.pick(fresh), env, out, pad)
            return
        if r < 0.80 and fresh and self.ok("aug_array"):
            self.use("aug_array")
            v = self.pick(fresh)
            out.append("%s%s %s %s" % (pad, v.name, self.pick(("+=", "-=", "*=")),
                                       "np.tanh(%s)" % self.aexpr(env, v.shape, 1)))
            return
        if r < 0.87 and self.ok("for_rows") and self.arrays(env, (2, 3)):
            self.use("for_rows")
            m = self.pick(self.arrays(env, (2, 3)))
            row = self.fresh_name("row")
            s, new = self.assign_target(env, loop)
            if new:
                out.append("%s%s = 0.0" % (pad, s))
                env.append(Var(s, ()))
            out.append("%sfor %s in %s:" % (pad, row, m.name))
            inner = list(env) + [Var(row, (3,), fresh=False)]
            out.append("%s    %s = %s * %s + np.sum(%s)" % (pad, s, self.const(0.3, 0.9), s,
                                                            "np.tanh(%s)" % self.aexpr(inner, (3,), 1)))
            return
        # A recurrent update of a vector through a fixed matrix.
        self.use("for")
        self.use("matmul")
        h = self.fresh_name("h")
        t = self.fresh_name("t")
        start = self.aexpr(env, (2,), 1)
        base = view_base(start)
        if base is not None:
            # h starts as another name for (or a view of) `base` and is rebound in the
            # loop; `base` may be written in place afterwards. Correct Python, but the
            # checkpointed derivative got it wrong (see alias_rebound in FEATURES).
            if self.ok("alias_rebound"):
                self.use("alias_rebound")
            else:
                for v in env:
                    if v.name == base:
                        v.fresh = False
        out.append("%s%s = %s" % (pad, h, start))
        out.append("%sfor %s in range(%d):" % (pad, t, self.rng.randint(1, 4)))
        out.append("%s    %s = np.tanh(%s @ %s + %s)" % (pad, h, self.aexpr_base(env, (2, 2)), h,
                                                       self.aexpr(env, (2,), 1)))
        env.append(Var(h, (2,)))

    def mask_stmt(self, v, env, out, pad):
        """A masked store into fresh array v, the mask from another array or from v."""
        others = [a for a in self.arrays(env, v.shape) if a.name != v.name]
        t = self.const(-0.5, 0.5)
        if self.ok("mask_self", 0.6):
            # The masked ReLU: the index reads the array written, and the stored value
            # no longer satisfies the mask (so re-evaluating the mask later differs).
            self.use("mask_self")
            out.append("%s%s[%s] = %s" % (pad, v.name, self.cmp(v.name, "<", t),
                                         self.pick((t, "%.2f" % (float(t) + 0.3)))))
        elif others:
            self.use("mask")
            out.append("%s%s[%s] = %s" % (pad, v.name, self.cmp(self.pick(others).name,
                                                                self.pick(("<", ">")), t),
                                         self.const()))

    def more_array_stmt(self, env, out, pad, loop, fresh):
        """Rarer array statements; False if the one drawn does not apply here."""
        kind = self.pick(("for_array", "store_aug", "list_array", "method_axis", "reshape",
                          "float", "store_2d", "alias"))
        if not self.ok(kind):
            return False
        vecs = self.arrays(env, (3,))
        mats = self.arrays(env, (2, 3))
        if kind == "for_array" and vecs:
            s, new = self.assign_target(env, loop)
            if new:
                out.append("%s%s = 0.0" % (pad, s))
                env.append(Var(s, ()))
            u = self.fresh_name("u")
            inner = list(env) + [Var(u, ())]
            out.append("%sfor %s in %s:" % (pad, u, self.pick(vecs).name))
            out.append("%s    %s = %s * %s + %s" % (pad, s, self.const(0.3, 0.9), s,
                                                    self.bounded(self.sexpr(inner, 2))))
        elif kind in ("store_aug", "store_2d") and [v for v in fresh if v.shape == (2, 3)]:
            v = self.pick([v for v in fresh if v.shape == (2, 3)])
            if kind == "store_aug":
                target = self.pick(("%s[%d]" % (v.name, self.rng.randrange(2)),
                                    "%s[:, 1:3]" % v.name, "%s[1, %d]" % (v.name, self.rng.randrange(3))))
                shape = {"]": None}.get(target[-1])
                value = ("np.tanh(%s)" % self.aexpr(env, (3,), 1) if target.count(",") == 0 else
                         "np.tanh(%s)" % self.aexpr(env, (2, 2), 1) if ":" in target else
                         self.bounded(self.sexpr(env, 1)))
                out.append("%s%s %s %s" % (pad, target, self.pick(("+=", "-=", "*=")), value))
            else:
                i, j = self.fresh_name("i"), self.fresh_name("j")
                out.append("%sfor %s in range(2):" % (pad, i))
                out.append("%s    for %s in range(3):" % (pad, j))
                inner = list(env) + [Var(i, "int"), Var(j, "int")]
                out.append("%s        %s[%s, %s] = %s * %s[%s, %s] + %s" % (
                    pad, v.name, i, j, self.const(0.2, 0.9), self.pick(mats or [v]).name, i, j,
                    self.bounded(self.sexpr(inner, 1))))
        elif kind == "list_array" and vecs:
            hs, i = self.fresh_name("hs"), self.fresh_name("i")
            out.append("%s%s = []" % (pad, hs))
            out.append("%sfor %s in range(%d):" % (pad, i, self.rng.randint(1, 3)))
            inner = list(env) + [Var(i, "int")]
            out.append("%s    %s.append(np.tanh(%s * %s))" % (pad, hs, self.aexpr(inner, (3,), 1),
                                                             self.leaf(inner)))
            s, new = self.assign_target(env, loop)
            u = self.fresh_name("u")
            e = "sum([np.sum(%s * %s) for %s in %s])" % (u, self.aexpr(env, (3,), 0), u, hs)
            out.append("%s%s = %s" % (pad, s, e if new else "%s + %s" % (s, e)))
            if new:
                env.append(Var(s, ()))
        elif kind == "method_axis" and mats:
            m = self.pick(mats).name
            shape, axis = self.pick((((3,), 0), ((2,), 1), ((3,), -2), ((2,), -1)))
            method = self.pick(("sum", "mean", "max", "min"))
            name = self.fresh_name("h")
            if method in ("max", "min") and self.probe:
                e = "_npmax(%s%s, axis=%d)" % ("-" if method == "min" else "", m, axis)
                if method == "min":
                    e = "(-%s)" % e
            else:
                e = "%s.%s(axis=%d)" % (m, method, axis)
            if method in ("max", "min"):
                self.use("npmax")
            out.append("%s%s = %s" % (pad, name, e))
            env.append(Var(name, shape))
        elif kind == "reshape" and mats:
            m = self.pick(mats).name
            name = self.fresh_name("h")
            e = self.pick(("np.reshape(%s, (3, 2))", "%s.reshape((3, 2))", "np.ravel(%s)[0:3].reshape((3,))",
                           "np.transpose(%s)")) % m
            shape = (3,) if "ravel" in e else (3, 2)
            out.append("%s%s = %s * 1.0" % (pad, name, e))
            env.append(Var(name, shape))
        elif kind == "float" and self.arrays(env):
            name, new = self.assign_target(env, loop)
            e = "float(np.sum(%s))" % self.aexpr(env, self.pick(self.arrays(env)).shape, 1)
            if loop and not new:
                e = "(%s * %s + %s)" % (self.const(0.3, 0.8), name, self.bounded(e))
            out.append("%s%s = %s" % (pad, name, e))
            if new:
                env.append(Var(name, ()))
        elif kind == "alias":
            # A second name for an array, then an in-place update through it: NumPy
            # changes both (the parameter too, if it is one).
            v = self.pick(self.arrays(env))
            g = self.fresh_name("g")
            out.append("%s%s = %s" % (pad, g, v.name))
            out.append("%s%s += %s" % (pad, g, self.aexpr(env, v.shape, 1)))
            v.fresh = False
            env.append(Var(g, v.shape, fresh=False))
        else:
            return False
        self.use(kind)
        return True

    def array_loop(self, env, out, pad):
        """A loop over the elements of a vector carrying a scalar, reading constants from
        a dict and a tuple, and filling a fresh vector element by element."""
        vecs = [v for v in self.arrays(env) if len(v.shape) == 1]
        if not vecs:
            return
        self.use("array_loop")
        self.use("math")
        src = self.pick(vecs)
        n = src.shape[0]
        mats = [v for v in self.arrays(env) if len(v.shape) == 2]
        keys = ("rate", "gain", "dt")
        table = "{%s}" % ", ".join("'%s': %s" % (k, self.const(0.2, 0.9)) for k in keys)
        if self.rng.random() < 0.5:
            p = self.fresh_name("p")
            out.append("%s%s = %s" % (pad, p, table))
        else:
            self.counter += 1
            p = "%s_PARAMS%d" % (self.prefix.upper(), self.counter)
            self.callees.append("%s = %s" % (p, table))
        k = self.fresh_name("k")
        out.append("%s%s = (%s, %s)" % (pad, k, self.const(0.2, 0.9), self.const(-0.9, 0.9)))
        s = self.fresh_name("s")
        out.append("%s%s = %s" % (pad, s, self.bounded(self.sexpr(env, 1))))
        z = self.fresh_name("z")
        out.append("%s%s = %s" % (pad, z, self.pick((
            "np.zeros(%d)" % n, "np.zeros_like(%s)" % src.name, "np.empty(%d)" % n))))
        t = self.fresh_name("t")
        count = self.pick(("len(%s)", "%s.shape[0]", "%s.size")) % src.name
        out.append("%sfor %s in range(%s):" % (pad, t, count))
        terms = ["%s['rate'] * %s" % (p, s), "%s[0] * %s[%s]" % (k, src.name, t),
                 "%s['gain'] * %s[%s - 1]" % (p, src.name, t)]
        if mats:
            m = self.pick(mats)
            terms.append("%s[1] * %s[%s %% %d, %s %% %d]" % (k, m.name, t, m.shape[0], t,
                                                            m.shape[1]))
        out.append("%s    %s = math.tanh(%s)" % (pad, s, " + ".join(terms)))
        out.append("%s    %s[%s] = %s * %s['dt'] + %s[%s]" % (pad, z, t, s, p, src.name, t))
        if not p.isupper() and self.rng.random() < 0.3 and "loop_changes_const" not in self.exclude:
            # the dict's value changes every iteration: the backward pass must see each
            # iteration's, not the last (its reads cannot be recomputed or kept once)
            self.use("loop_changes_const")
            out.append("%s    %s['gain'] = %s['gain'] * %s" % (pad, p, p, self.const(0.5, 0.9)))
        env.append(Var(s, ()))
        env.append(Var(z, (n,)))

    def native_loop(self, params):
        """The body of a function that is one loop over the elements of `a` (3,) (with
        `m` (2, 3), and `x` if a parameter): a module-level dict of floats, a scalar
        carried through (with a module-level tuple or list of floats half the time, and
        an int64 array of indices half the time), a fresh vector written element by
        element and read back; half the time also a loop of elementwise array statements
        and their sums and inner products."""
        self.use("native_loop")
        names = [n for n, _ in params]
        pad = "    "
        out = []
        keys = ("rate", "gain", "dt")
        self.counter += 1
        p = "%s_CONST%d" % (self.prefix.upper(), self.counter)
        self.callees.append("%s = {%s}" % (p, ", ".join(
            "'%s': %s" % (k, self.const(0.2, 0.9)) for k in keys)))
        s0 = "x" if "x" in names else self.const(-0.5, 0.5)
        out.append("%ss = %s" % (pad, s0))
        out.append("%sz = %s" % (pad, self.pick(("np.zeros(len(a))", "np.zeros_like(a)",
                                                 "a.copy()", "np.empty(3)"))))
        count = self.pick(("len(a)", "a.shape[0]", "a.size"))
        out.append("%sfor t in range(%s):" % (pad, count))
        fn = self.pick(("math.tanh", "np.tanh", "math.sin", "np.sin"))
        terms = ["%s['rate'] * s" % p, "%s * a[t]" % self.const(0.2, 0.9),
                 "%s['gain'] * a[t - 1]" % p,
                 "%s * m[t %% 2, (t + %d) %% 3]" % (self.const(-0.9, 0.9), self.rng.randint(0, 2))]
        if self.rng.random() < 0.5:
            # A module-level tuple (or list) of floats read by index, negative ones too.
            tup = "%s_COEF%d" % (self.prefix.upper(), self.counter)
            items = ", ".join(self.const(-0.9, 0.9) for _ in range(4))
            self.callees.append("%s = %s" % (tup, self.pick(("(%s)" % items, "[%s]" % items))))
            terms.append("%s[%s] * a[t]" % (tup, self.pick(("t", "-1 - t", "t % 4"))))
        if self.rng.random() < 0.5:
            # A module-level int64 array: indices (negative ones too) and ints in
            # arithmetic (an int divided by an int is a float).
            ix = "%s_IDX%d" % (self.prefix.upper(), self.counter)
            self.callees.append("%s = np.array([%s])" % (
                ix, ", ".join(str(self.rng.randint(-3, 2)) for _ in range(4))))
            terms.append(self.pick((
                "%s * a[%s[t]]" % (self.const(-0.9, 0.9), ix),
                "m[%s[t] %% 2, %s[-1 - t]] * (%s[t] + 1) / 3" % (ix, ix, ix))))
        out.append("%s    s = %s(%s)" % (pad, fn, " + ".join(terms)))
        if self.rng.random() < 0.5:
            out.append("%s    if s > %s:" % (pad, self.const(-0.3, 0.3)))
            out.append("%s        s = s * %s" % (pad, self.const(0.5, 0.9)))
        if self.rng.random() < 0.15:
            # Arithmetic on two bools of comparisons of NumPy scalars: NumPy's bool adds
            # as `or` (native code gave Python's True + True == 2).
            out.append("%s    s = s + ((a[t] > %s) + (s < %s)) * %s" % (
                pad, self.const(-0.5, 0.5), self.const(-0.5, 0.5), self.const(0.1, 0.5)))
        # z[t - 1] only once written (at t = 0 it is z[-1], unwritten: np.empty's elements
        # are whatever the memory held)
        out.append("%s    z[t] = s * %s['dt'] + a[-1 - t] * (z[t - 1] if t > 0 else %s)"
                   % (pad, p, self.const(-0.5, 0.5)))
        out.append("%sacc = 0.0" % pad)
        out.append("%sfor t in range(%s):" % (pad, self.pick(("len(z)", "3"))))
        out.append("%s    acc = acc + z[t] * %s" % (pad, self.pick(("a[t]", "z[t]", "m[1, t]"))))
        if self.rng.random() < 0.3:
            # `for v in a` and `for row in m`: loops over an array's items.
            out.append("%sfor v in %s:" % (pad, self.pick(("a", "z"))))
            out.append("%s    acc = acc * %s + v * v" % (pad, self.const(0.3, 0.9)))
            out.append("%sfor row in m:" % pad)
            out.append("%s    acc = acc + row[0] * row[-1] * %s" % (pad, self.const(0.1, 0.5)))
        extra = ""
        if self.rng.random() < 0.5:
            # Elementwise array statements in a loop (native: one pass per statement over
            # the buffers), numbers and dict values among the arrays, then reductions.
            out.append("%sh = a * %s + z * %s" % (pad, self.const(0.2, 0.9), self.const(-0.5, 0.5)))
            out.append("%sfor k in range(%d):" % (pad, self.rng.randint(1, 4)))
            fn = self.pick(("np.tanh", "np.sin", "np.cos"))
            out.append("%s    h = %s(h * %s + a * %s['gain']) - %s * h ** %d" % (
                pad, fn, self.const(0.3, 0.9), p, self.const(0.05, 0.3), self.pick((2, 3))))
            if self.rng.random() < 0.5:
                out.append("%s    h = -h / (1.0 + h * h) + s * %s" % (pad, self.const(0.1, 0.5)))
            out.append("%sq = np.sin(m * %s) + m ** 2 * %s['dt']" % (pad, self.const(0.3, 1.2), p))
            extra = " + %s * %s + %s * np.sum(q)" % (
                self.const(0.3, 1.5), self.pick(("np.sum(h * a)", "np.dot(h, a)", "a @ h")),
                self.const(0.1, 0.5))
        out.append("%sreturn %s * s + %s * acc%s" % (pad, self.const(0.3, 1.5),
                                                     self.const(0.3, 1.5), extra))
        return out

    def float32_loop(self, params):
        """The body of a function that is one loop over the elements of the float32
        vector `a32` (with the float32 matrix `m32`, and the float `x` if a parameter):
        a scalar carried through (a Python float from `math`, a float32 from element
        arithmetic), a float64 vector written element by element and read back, half the
        time elementwise statements over float32 vectors (operators and NumPy's float32
        functions) summed at the end."""
        self.use("float32_loop")
        names = [n for n, _ in params]
        pad = "    "
        out = ["%ss = %s" % (pad, "x" if "x" in names else self.const(-0.5, 0.5))]
        out.append("%sz = np.zeros(len(a32))" % pad)
        out.append("%sfor t in range(%s):" % (pad, self.pick(("len(a32)", "a32.shape[0]", "a32.size"))))
        terms = ["%s * s" % self.const(0.2, 0.9), "%s * a32[t]" % self.const(0.2, 0.9),
                 "a32[t - 1] * m32[t %% 2, (t + %d) %% 3]" % self.rng.randint(0, 2)]
        if "x" in names:
            terms.append("x * a32[-1 - t]")
        if self.rng.random() < 0.5:
            # Module-level numbers of each NumPy type beside float32 values: a dict's
            # values, a tuple's elements (of one type, or several: then interpreted).
            def number():
                return self.pick(("%s", "np.float64(%s)", "np.float32(%s)")) % self.const(0.2, 0.9)
            self.counter += 1
            p = "%s_CONST%d" % (self.prefix.upper(), self.counter)
            self.callees.append("%s = {'rate': %s, 'gain': %s}" % (p, number(), number()))
            terms.append("%s['rate'] * a32[t] + %s['gain'] * s" % (p, p))
            tup = "%s_COEF%d" % (self.prefix.upper(), self.counter)
            one = self.pick(("%s", "np.float64(%s)", "np.float32(%s)", None))
            self.callees.append("%s = (%s,)" % (tup, ", ".join(
                (one or self.pick(("%s", "np.float64(%s)"))) % self.const(-0.9, 0.9)
                for _ in range(3))))
            terms.append("%s[t %% 3] * a32[t]" % tup)
        if self.rng.random() < 0.3:
            # NumPy's float scalars made in the loop (a float32 rounded once, a float64
            # making what it meets float64).
            terms.append(self.pick(("np.float32(%s) * a32[t]", "np.float64(%s) * a32[t]",
                                    "a32[t] * (np.float32(%s) * np.float64(t))"))
                         % self.const(0.1, 0.9))
        if self.rng.random() < 0.4:
            # A function of the program called with float32 elements and the carried
            # scalar: their NumPy types go with them, its results' come back.
            helper = "%s_g%d" % (self.prefix, len(self.callees))
            self.callees.append("\n".join([
                "def %s(u, v):" % helper,
                "    r = u * %s + %s(v) * u" % (self.const(0.2, 0.9),
                                              self.pick(("np.tanh", "np.sin", "math.tanh"))),
                "    return r - v * %s" % self.const(0.1, 0.4)]))
            terms.append("%s(a32[t], s)" % helper)
        if self.rng.random() < 0.3:
            # Bools of comparisons in arithmetic (`max`'s gradient is one): NumPy's bool
            # of float32 elements makes float64 with a Python float, Python's is weak.
            terms.append(self.pick(("max(a32[t], %s)" % self.const(-0.5, 0.5),
                                    "(a32[t] > %s) * %s" % (self.const(-0.5, 0.5), self.const(0.1, 0.5)),
                                    "(s > %s) * a32[t]" % self.const(-0.5, 0.5))))
        body = " + ".join(terms)
        # NumPy's float32 functions of float32 elements (NumPy's own kernels, bit for bit).
        fn = self.pick(("math.tanh", "math.sin", "", "", "np.tanh", "np.sin", "np.cos",
                        "np.arctan"))
        out.append("%s    s = %s(%s)" % (pad, fn, body) if fn else "%s    s = %s" % (pad, body))
        if self.rng.random() < 0.5:
            out.append("%s    if s > %s:" % (pad, self.const(-0.3, 0.3)))
            out.append("%s        s = s * %s - a32[t] / 3" % (pad, self.const(0.5, 0.9)))
        out.append("%s    z[t] = s * %s + a32[-1 - t] ** 2" % (pad, self.const(-0.5, 0.5)))
        out.append("%sacc = 0.0" % pad)
        out.append("%sfor t in range(3):" % pad)
        out.append("%s    acc = acc + z[t] * %s" % (pad, self.pick(("a32[t]", "z[t]", "m32[1, t]"))))
        ret = "%sreturn %s * s + %s * acc" % (pad, self.const(0.3, 1.5), self.const(0.3, 1.5))
        if self.rng.random() < 0.5:
            # Elementwise statements over float32 vectors: `+ - * /` and squares rounded
            # to float32, Python numbers converted to float32, `np.sum` in float32.
            out.append("%sh = a32 * %s" % (pad, self.const(0.2, 0.9)))
            out.append("%sfor t in range(%d):" % (pad, self.rng.randint(1, 3)))
            terms = ["h * %s" % self.const(0.3, 0.9), "a32 * %s" % self.const(-0.5, 0.5),
                     self.pick(("h * h * %s", "h ** 2 * %s", "a32 / %s", "-h * %s"))
                     % self.const(0.1, 0.4)]
            if "x" in names:
                terms.append("h * x")
            if self.rng.random() < 0.6:
                # NumPy's float32 functions over the vectors.
                terms.append(self.pick(("np.tanh(h)", "np.sin(a32) * h", "np.cos(h)",
                                        "np.exp(a32 * %s)", "np.log(h * h + %s)",
                                        "np.sqrt(a32 * a32 + %s)", "np.log1p(h * h) * %s",
                                        "np.arctan(a32) * h")).replace(
                                            "%s", self.const(0.2, 0.9)))
            out.append("%s    h = %s" % (pad, " + ".join(terms)))
            ret += " + %s * np.sum(h * %s)" % (self.const(0.3, 1.5), self.pick(("a32", "h")))
        out.append(ret)
        return out

    def more_stmt(self, env, out, pad, indent, depth, loop):
        """Rarer scalar statements: a lambda, `while True` with a break."""
        kind = self.pick(("lambda", "while_true"))
        if not self.ok(kind) or (kind == "lambda" and (depth or loop) and not self.ok("lambda_nested")):
            return False
        self.use(kind)
        if kind == "lambda" and (depth or loop):
            self.use("lambda_nested")  # refused today (assigned and called, but in a block)
        if kind == "lambda":
            lam = self.fresh_name("lam")
            t = Var("t", ())
            body = self.bounded(self.sexpr([t] + [v for v in env if v.shape == ()][:2], 2))
            out.append("%s%s = lambda t: %s" % (pad, lam, body))
            name, new = self.assign_target(env, loop)
            out.append("%s%s = %s(%s) + %s * %s(%s)" % (pad, name, lam, self.sexpr(env, 1),
                                                         self.const(), lam, self.leaf(env)))
            if new:
                env.append(Var(name, ()))
            return True
        self.seed_floats(env, out, pad)
        k = self.fresh_name("k")
        out.append("%s%s = 0" % (pad, k))
        out.append("%swhile True:" % pad)
        out.append("%s    %s = %s + 1" % (pad, k, k))
        inner = list(env) + [Var(k, "int")]
        # No `continue` in this body: it would skip the exit test below forever.
        had = "continue" in self.exclude
        self.exclude.add("continue")
        self.block(inner, out, indent + 1, depth + 1, True, self.rng.randint(1, 2))
        if not had:
            self.exclude.discard("continue")
        out.append("%s    if %s >= %d or %s:" % (pad, k, self.rng.randint(1, 5), self.condition(inner)))
        out.append("%s        break" % pad)
        return True

    # --- the function ----------------------------------------------------------------

    def result(self, env):
        """A float combining the last few variables (so the output depends on most of them)."""
        floats = [v.name for v in env if v.shape == ()]
        arrs = self.arrays(env)
        terms = floats[-3:]
        if arrs:
            a = arrs[-1]
            terms.append("np.sum(%s * %s)" % (a.name, self.aexpr(env, a.shape, 1)))
        if not terms:
            terms = [self.sexpr(env, 2)]
        return " + ".join("%s * %s" % (self.const(0.3, 1.5), t) for t in terms)

    def function(self, array, size=1):
        """Source lines of f<k> and its parameter description [(name, shape)]."""
        if array:
            params = [("a", (3,)), ("m", (2, 3))]
            if self.rng.random() < 0.5:
                params.append(("x", ()))
            if self.rng.random() < 0.3:
                params.append(("w", (3, 2)))
        else:
            params = [("x%d" % i, ()) for i in range(self.rng.randint(1, 3))]
        if self.ok("int_param", 0.2):
            self.use("int_param")
            params.append(("n", "int"))
        env = [Var(n, s, fresh=False) for n, s in params]
        self.names |= set(n for n, _ in params)
        lines = ["def %s(%s):" % (self.prefix, ", ".join(n for n, _ in params))]
        self.block(env, lines, 1, 0, False, self.rng.randint(3 * size, 7 * size))
        if array and "array_loop" not in self.exclude:
            # Decided and drawn by a stream of its own (seeded from this one's state,
            # which it leaves as it is), so the rest of a seed's programs is unchanged.
            own = random.Random("array_loop:%r" % (self.rng.getstate()[1][:8],))
            if own.random() < 0.4:
                main, self.rng = self.rng, own
                self.array_loop(env, lines, "    ")
                self.rng = main
        lines.append("    return %s" % self.result(env))
        if array and "native_loop" not in self.exclude:
            # Decided and drawn by a stream of its own, after the usual body is drawn (and
            # then replaced), so the rest of a seed's programs is unchanged.
            own = random.Random("native_loop:%r" % (self.rng.getstate()[1][:8],))
            if own.random() < 0.25:
                main, self.rng = self.rng, own
                self.features = {"math"}
                lines = lines[:1] + self.native_loop(params)
                self.rng = main
        if array and "float32_loop" not in self.exclude:
            own = random.Random("float32_loop:%r" % (self.rng.getstate()[1][:8],))
            if own.random() < 0.15:
                main, self.rng = self.rng, own
                self.features = {"math"}
                params = [("a32", (3,)), ("m32", (2, 3))] + [p for p in params if p[0] == "x"]
                lines = ["def %s(%s):" % (self.prefix, ", ".join(n for n, _ in params))]
                lines += self.float32_loop(params)
                self.rng = main
        if array and "complex_const" not in self.exclude:
            # Decided and drawn by a stream of its own, so the rest is unchanged.
            own = random.Random("complex_const:%r" % (self.rng.getstate()[1][:8],))
            arrays = [n for n, shape in params if isinstance(shape, tuple) and shape]
            if arrays and own.random() < 0.04 and lines[-1].startswith("    return "):
                self.use("complex_const")
                const = "%s_ZC" % self.prefix.upper()
                self.callees.append("%s = complex(%.2f, %.2f)" % (
                    const, own.uniform(0.3, 1.0), own.uniform(-1.0, 1.0)))
                name = arrays[own.randrange(len(arrays))]
                # smooth real terms whose derivatives go through complex values
                same = [n for n, shape in params if n != name and shape == dict(params)[name]]
                other = same[own.randrange(len(same))] if same else name
                term = own.choice((
                    "np.sum(np.abs({p} * {c}) ** 2)",
                    "np.sum(np.abs(np.fft.fft({p} * {c}, axis=-1)) ** 2)",
                    "np.sum(np.real(np.fft.ifft(np.fft.fft({p}, axis=0) * np.fft.fft({q}, axis=0), axis=0)) ** 2)",
                    "np.sum(np.fft.irfft(np.fft.rfft({p}) * {c}, n={p}.shape[-1]) * {q})",
                    "np.sum(np.imag(np.fft.fftn({p} * {c}) * np.conj(np.fft.fftn({p}))))",
                    "np.sum(np.angle(np.fft.rfft({p}) * 0.1 + {c}))",
                    # sign of a complex value is z / |z|, not piecewise constant: refused
                    "np.sum(np.real(np.sign(np.fft.fft({p} + {c})) * {c}))",
                ))
                last = lines[-1]
                lines[-1] = last + " + %.2f * %s" % (
                    own.uniform(0.2, 0.8), term.format(p=name, q=other, c=const))
        if "callee_draw" in self.features:
            # every call of f draws the same numbers (finite differences need that)
            lines.insert(1, "    np.random.seed(%d)" % (len(self.prefix) * 7 + 1))
        return lines, params


# Probe helpers: each computes what the plain code computes and records the distance
# from the nearest point where the outcome (branch, max, kink) would change.
PROBE_HELPERS = '''
import math
import numpy as np

MARGIN = [float("inf")]


def _note(d):
    d = float(d)
    if d < MARGIN[0]:
        MARGIN[0] = d


def _gap(a, b):
    # An exact tie is two renderings of one value (max(x, x), abs of a constant 0.0 from
    # np.zeros): both sides move together or not at all, so it is no kink for the
    # finite differences; only near-ties count.
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        d = np.abs(a - b)
        return np.min(np.where(d > 0.0, d, float("inf")))
    d = abs(a - b)
    return d if d > 0.0 else float("inf")


def _cmp(a, op, b):
    _note(_gap(a, b))
    if op == "<":
        return a < b
    if op == ">":
        return a > b
    if op == "<=":
        return a <= b
    return a >= b


def _abs(a):
    _note(_gap(a, 0.0))
    return np.abs(a) if isinstance(a, np.ndarray) else abs(a)


def _max(a, b):
    _note(_gap(a, b))
    return max(a, b)


def _min(a, b):
    _note(_gap(a, b))
    return min(a, b)


def _maximum(a, b):
    _note(_gap(a, b))
    return np.maximum(a, b)


def _npmax(a, axis=None):
    m = np.max(a, axis=axis, keepdims=True)
    # the largest element must beat the runner-up: mask the maxima and look again
    rest = np.where(a == m, -1e300, a)
    if np.size(a) > 1:
        _note(_gap(m, np.max(rest, axis=axis, keepdims=True)))
    return np.max(a, axis=axis)


def _list_reduce(fn, ys):
    # an order statistic of a list (or its std) is smooth away from ties of its elements
    v = np.sort(np.asarray(ys, dtype=float))
    if v.size > 1:
        gaps = v[1:] - v[:-1]
        # std has no derivative at zero spread, even where the elements are one value
        _note(np.min(gaps) if fn == "std" else np.min(np.where(gaps > 0.0, gaps, np.inf)))
    return getattr(np, fn)(ys)


def _mod(a, c):
    r = a % c
    _note(_gap(np.minimum(r, c - r) if isinstance(r, np.ndarray) else min(r, c - r), 0.0))
    return r


def _copysign(a, b):
    _note(min(_gap(a, 0.0), _gap(b, 0.0)))
    return math.copysign(a, b)

'''


def function_source(seed, k, exclude=(), size=1):
    """(plain source, probe source, params, features) of function f<k> for this seed."""
    out = []
    import random
    for probe in (False, True):
        rng = random.Random(seed * 1000003 + k)
        array = k % 2 == 1  # half scalar, half array code
        gen = Gen(rng, "f%d" % k, probe, set(exclude) | (set(NOT_NATIVE) if k % 4 == 0 else set()))
        lines, params = gen.function(array, size)
        text = "\n\n\n".join(gen.callees + ["\n".join(lines)])
        out.append(text)
    return out[0], out[1], params, sorted(gen.features)


def draw_inputs(rng, params):
    """Arguments for the parameters: floats and arrays in [-1.5, 1.5], ints in 1..4."""
    import numpy as np
    args = []
    for name, shape in params:
        if name.endswith("32"):
            # A float32 array (float32_loop)
            n = 1
            for d in shape:
                n *= d
            args.append(np.reshape(np.array([rng.uniform(-1.5, 1.5) for _ in range(n)],
                                            dtype=np.float32), shape))
        elif shape == "int":
            args.append(rng.randint(1, 4))
        elif shape == ():
            # Unrounded: a rounded input can tie exactly with a 2-digit constant (x = 0.03
            # in -x * 2 >= -0.06), and exact ties are what the probe ignores.
            args.append(rng.uniform(-1.5, 1.5))
        else:
            n = 1
            for d in shape:
                n *= d
            args.append(np.reshape(np.array([rng.uniform(-1.5, 1.5) for _ in range(n)]),
                                   shape))
    return args


def args_text(args):
    """Python source for the argument tuple (arrays as np.array literals)."""
    parts = []
    for a in args:
        if isinstance(a, (int, float)):
            parts.append(repr(a))
        elif str(a.dtype) == "float32":
            parts.append("np.array(%r, dtype=np.float32)" % a.tolist())
        else:
            parts.append("np.array(%r)" % a.tolist())
    return "(%s,)" % ", ".join(parts)


if __name__ == "__main__":
    # Print the functions of one seed: `tangent run tests/differential/generate.py SEED [COUNT]`.
    import sys
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    for k in range(count):
        plain, _, params, feats = function_source(seed, k)
        print("# f%d: %s" % (k, ", ".join(feats)))
        print(plain)
        print()
