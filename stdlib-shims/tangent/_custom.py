"""Custom derivatives, in JAX's shapes: `@tangent.custom_vjp` (`f.defvjp(f_fwd, f_bwd)`),
`@tangent.custom_jvp` (`f.defjvp(f_jvp)`, also as a decorator) and
`tangent.stop_gradient`.

A decorated function stays callable as the plain function. The transformer never reads
its code: `tangent._live` reports a global bound to one of these objects (by type) as a
`custom` line (src/syntax/live.rs), and a call of it in differentiated code becomes a
call of the helpers below, which run the user's rules:

- reverse mode: `y, res = tangent.custom_forward(f, *args)` in the forward pass (`res`:
  f_fwd's residuals, pushed on the tape inside loops; for a custom_jvp function, the
  primal arguments), `tangent.custom_backward(f, res, g, *args)` in the backward pass
  (one gradient per positional argument; a custom_jvp function's rule is transposed
  exactly: it is linear in its tangents, so gradient entry j is the rule applied to the
  j-th unit tangent, contracted with g — one call of the rule per input element);
- forward mode: `y, dy = tangent.custom_jvp_call(f, args, tangents)` (a custom_vjp
  function has no forward rule: the transformer refuses it, located).

A derivative of a derivative goes through these helpers' own derivatives (below), which
differentiate the user's rule functions with tangent itself, as JAX differentiates its
rules: forward over `custom_forward`/`custom_backward` (grad of grad, Hessian-vector
products), reverse over them (literal reverse-over-reverse) and over `custom_jvp_call`
(reverse over forward). A rule tangent cannot differentiate is a located error there.
"""
from tangent import _registry
from tangent._errors import TangentError, _at_call_site, _located, _shape
from tangent._runtime import _differentiable_part, init_grad

__all__ = ["custom_vjp", "custom_jvp", "CustomVJP", "CustomJVP", "stop_gradient",
           "custom_forward", "custom_backward", "custom_jvp_call", "custom_forward_jvp",
           "custom_backward_jvp", "custom_forward_vjp", "custom_backward_vjp",
           "custom_jvp_call_vjp", "insert_grad_of", "tangent", "trace"]


def _name(fn):
    return getattr(fn, "__name__", None) or type(fn).__name__


def _check_rule(fn, what, owner):
    if not callable(fn):
        raise TypeError(_at_call_site(
            "%s of `%s` must be a function, not a %s" % (what, owner, type(fn).__name__),
            "pass the function itself (its name, without calling it)"))


def _defined_at(fn, message, hint):
    """A message located at the `def` of `fn` (a rule or the decorated function)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return _at_call_site(message, hint)
    return _located(code.co_filename, code.co_firstlineno, message, hint)


class _Custom:
    """What custom_vjp and custom_jvp objects share: the primal function, called as is."""

    def __init__(self, fun, nondiff_argnums=()):
        if not callable(fun):
            raise TypeError(_at_call_site(
                "tangent.%s decorates a function, not a %s" % (self._kind, type(fun).__name__),
                "write `@tangent.%s` above a `def`" % self._kind))
        if isinstance(nondiff_argnums, int):
            nondiff_argnums = (nondiff_argnums,)
        self.fun = fun
        self.nondiff_argnums = tuple(sorted({int(i) for i in nondiff_argnums}))
        self.__name__ = _name(fun)
        self.__qualname__ = getattr(fun, "__qualname__", self.__name__)
        self.__doc__ = getattr(fun, "__doc__", None)
        self.__module__ = getattr(fun, "__module__", None)

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def __repr__(self):
        return "<tangent.%s function %s>" % (self._kind, self.__name__)

    def _params(self):
        """The names of the positional parameters of the primal function (for messages)."""
        code = getattr(self.fun, "__code__", None)
        return list(code.co_varnames[:code.co_argcount]) if code is not None else []

    def _argument(self, i):
        params = self._params()
        return "argument %d (`%s`)" % (i, params[i]) if i < len(params) else "argument %d" % i

    def _split(self, args):
        """(the nondifferentiable arguments, the positions of the others)."""
        for i in self.nondiff_argnums:
            if i >= len(args):
                raise TypeError(_defined_at(
                    self.fun, "`%s` was called with %d positional arguments, but nondiff_argnums "
                    "names position %d" % (self.__name__, len(args), i),
                    "pass every argument positionally"))
        nondiff = tuple(args[i] for i in self.nondiff_argnums)
        diff = [i for i in range(len(args)) if i not in self.nondiff_argnums]
        return nondiff, diff


class CustomVJP(_Custom):
    """A function with a user-supplied reverse-mode rule (`custom_vjp`)."""
    _kind = "custom_vjp"

    def __init__(self, fun, nondiff_argnums=()):
        _Custom.__init__(self, fun, nondiff_argnums)
        self.fwd = None
        self.bwd = None

    def defvjp(self, fwd, bwd):
        """`fwd(*args) -> (output, residuals)`; `bwd(*nondiff_args, residuals, g)` -> one
        gradient per differentiable positional argument, in a tuple (None: zero)."""
        _check_rule(fwd, "the forward rule", self.__name__)
        _check_rule(bwd, "the backward rule", self.__name__)
        self.fwd, self.bwd = fwd, bwd


class CustomJVP(_Custom):
    """A function with a user-supplied forward-mode rule (`custom_jvp`)."""
    _kind = "custom_jvp"

    def __init__(self, fun, nondiff_argnums=()):
        _Custom.__init__(self, fun, nondiff_argnums)
        self.jvp = None

    def defjvp(self, jvp):
        """`jvp(*nondiff_args, primals, tangents) -> (output, output_tangent)`, linear in
        the tangents. Returns `jvp`, so `@f.defjvp` works as a decorator."""
        _check_rule(jvp, "the forward rule", self.__name__)
        self.jvp = jvp
        return jvp


def custom_vjp(fun=None, nondiff_argnums=()):
    """`@tangent.custom_vjp` (or `tangent.custom_vjp(f, nondiff_argnums=(1,))`, or
    `@tangent.custom_vjp(nondiff_argnums=(1,))`): a function whose reverse-mode
    derivative is the rule given with `f.defvjp(f_fwd, f_bwd)`."""
    if fun is None:
        return lambda f: CustomVJP(f, nondiff_argnums)
    return CustomVJP(fun, nondiff_argnums)


def custom_jvp(fun=None, nondiff_argnums=()):
    """`@tangent.custom_jvp`: a function whose forward-mode derivative is the rule given
    with `f.defjvp(f_jvp)`; reverse mode transposes that rule."""
    if fun is None:
        return lambda f: CustomJVP(f, nondiff_argnums)
    return CustomJVP(fun, nondiff_argnums)


def insert_grad_of(var):
    """Google Tangent's `with tangent.insert_grad_of(x) as dx:` block: its body runs in
    the backward pass of a reverse-mode derivative, `dx` being x's gradient at that
    point (assign it to change the gradient). Run as plain Python it raises, as there:
    `tangent.tangent(f)` is `f` without its insert_grad_of blocks."""
    raise ValueError(_at_call_site(
        "tangent: `insert_grad_of` only has a meaning in a derivative (its block is code "
        "for the backward pass)",
        "call the function through tangent.tangent(f), which leaves those blocks out"))


def tangent(f):
    """`f` without its `with insert_grad_of(...)` blocks (Google Tangent's decorator),
    so that it runs as plain Python; derivatives of the result are those of `f`,
    blocks included (`.tangent` is `f`)."""
    import ast
    import inspect
    import textwrap
    if getattr(f, "__closure__", None):
        raise TypeError(_at_call_site(
            "tangent.tangent: `%s` is a closure; only module-level functions are "
            "rewritten" % f.__name__, "define it at module level"))
    tree = ast.parse(textwrap.dedent(inspect.getsource(f)))

    class _Strip(ast.NodeTransformer):
        def visit_With(self, node):
            self.generic_visit(node)
            names = [getattr(i.context_expr, "func", None) for i in node.items]
            if any(getattr(n, "id", getattr(n, "attr", None)) == "insert_grad_of"
                   for n in names):
                return ast.Pass()
            return node

    tree = _Strip().visit(tree)
    tree.body[0].decorator_list = []
    tree = ast.fix_missing_locations(tree)
    scope = {}
    exec(compile(tree, f.__code__.co_filename, "exec"), f.__globals__, scope)
    plain = scope[f.__name__]
    plain.__defaults__ = f.__defaults__
    plain.__kwdefaults__ = f.__kwdefaults__
    plain.tangent = f
    plain.__tangent_undecorated__ = f
    return plain


def trace(fn):
    """Google Tangent's mark for a function to differentiate by tracing: here it is
    differentiated from its source like any other function (exactly); the mark is kept
    as `fn.should_trace`."""
    fn.should_trace = True
    return fn


def stop_gradient(x):
    """`x`'s value, with a zero derivative (declared nondifferentiable in
    backends/tangent.py). A mutable array is copied, so writing into the result never
    changes `x`."""
    if _registry.is_array(x) and not _registry.immutable(x):
        return x.copy()
    return x


def _undefined(f):
    what = "f.defvjp(f_fwd, f_bwd)" if isinstance(f, CustomVJP) else "f.defjvp(f_jvp)"
    return TangentError(_defined_at(
        f.fun, "`%s` is a tangent.%s function whose rule was never defined"
        % (f.__name__, f._kind),
        "call `%s` (with your rule functions) before differentiating it"
        % what.replace("f.", f.__name__ + ".", 1)))


def _pair(r, rule, f, what):
    if not (isinstance(r, (tuple, list)) and len(r) == 2):
        raise TangentError(_defined_at(
            rule, "`%s` (the %s of `%s`) returned %s, not a pair %s"
            % (_name(rule), "forward rule", f.__name__,
               "a %s" % type(r).__name__ if not isinstance(r, (tuple, list))
               else "%d values" % len(r), what),
            "return a tuple: `return %s`" % what.strip("()")))
    return r[0], r[1]


def _checked(ct, x, where, f, rule, what):
    """Entry `ct` of a rule's result for `where` (value `x`): None is a zero; its shape
    must be x's."""
    if ct is None:
        return init_grad(x)
    if _shape(ct) != _shape(x):
        raise TangentError(_defined_at(
            rule, "`%s` returned a %s of shape %s for %s of `%s`, whose shape is %s"
            % (_name(rule), what, _shape(ct), where, f.__name__, _shape(x)),
            "return one entry shaped like each argument (None for a zero)"))
    return ct


def _still_custom(f):
    """A derivative kept in the in-memory cache may outlive the binding it was made for
    (the global rebound to another object)."""
    if not isinstance(f, _Custom):
        raise TangentError(_at_call_site(
            "`%s` is no longer a tangent.custom_vjp/custom_jvp function, as it was when "
            "this derivative was made" % _name(f),
            "call tangent.grad (or autodiff) again after rebinding it"))


def custom_forward(f, *args):
    """Reverse mode, forward pass: (the output, what the backward pass needs)."""
    _still_custom(f)
    if isinstance(f, CustomVJP):
        if f.fwd is None:
            raise _undefined(f)
        return _pair(f.fwd(*args), f.fwd, f, "(output, residuals)")
    if f.jvp is None:
        raise _undefined(f)
    return f.fun(*args), args


def custom_backward(f, res, g, *args):
    """Reverse mode, backward pass: one gradient per positional argument of `f` (None at
    the nondifferentiable ones)."""
    nondiff, diff = f._split(args)
    out = [None] * len(args)
    if isinstance(f, CustomVJP):
        cts = f.bwd(*nondiff, res, g)
        if not isinstance(cts, (tuple, list)) or len(cts) != len(diff):
            got = ("%d entries" % len(cts) if isinstance(cts, (tuple, list))
                   else "a %s" % type(cts).__name__)
            raise TangentError(_defined_at(
                f.bwd, "`%s` (the backward rule of `%s`) returned %s; it must return a "
                "tuple of %d (one gradient per differentiable argument)"
                % (_name(f.bwd), f.__name__, got, len(diff)),
                "return a tuple such as `return (%s)`" % "".join(
                    "g%d, " % k for k in range(len(diff)))))
        for k, i in enumerate(diff):
            out[i] = _checked(cts[k], args[i], f._argument(i), f, f.bwd, "gradient")
        return tuple(out)
    # custom_jvp: the rule is linear in its tangents; its transpose, column by column.
    primals = tuple(args[i] for i in diff)
    zeros = [init_grad(x) for x in primals]
    for k, i in enumerate(diff):
        entries = [_contract(f, nondiff, primals, zeros, k, unit, g)
                   for unit in _columns(args[i])]
        out[i] = _from_entries(entries, args[i])
    return tuple(out)


def _contract(f, nondiff, primals, zeros, k, unit, g):
    """<g, jvp(primals, e)> for the tangent e that is `unit` at position k, zero elsewhere."""
    tangents = tuple(unit if m == k else z for m, z in enumerate(zeros))
    out, tout = _pair(f.jvp(*nondiff, primals, tangents), f.jvp, f,
                      "(output, output_tangent)")
    tout = _checked(tout, out, "the output", f, f.jvp, "tangent")
    if not _registry.is_array(g) and not _registry.is_array(tout):
        return g * tout
    return _registry.namespace_of(g, tout).sum(g * tout)


def custom_jvp_call(f, args, tangents):
    """Forward mode: (the output, its tangent) from a custom_jvp function's rule."""
    _still_custom(f)
    if not isinstance(f, CustomJVP):
        raise TangentError(_defined_at(
            f.fun, "forward mode through `%s`: a tangent.custom_vjp function has only a "
            "reverse-mode rule" % f.__name__,
            "define `%s` with @tangent.custom_jvp and `%s.defjvp(...)`, or use reverse "
            "mode" % (f.__name__, f.__name__)))
    if f.jvp is None:
        raise _undefined(f)
    nondiff, diff = f._split(args)
    primals = tuple(args[i] for i in diff)
    ts = tuple(tangents[i] for i in diff)
    out, tout = _pair(f.jvp(*nondiff, primals, ts), f.jvp, f, "(output, output_tangent)")
    return out, _checked(tout, out, "the output", f, f.jvp, "tangent")


def live_kind(obj):
    """(kind, defined, nondiff_argnums) of a custom-derivative object, None for anything
    else (by type, never by name): what `tangent._live` reports for it."""
    if isinstance(obj, CustomVJP):
        return "vjp", obj.fwd is not None, obj.nondiff_argnums
    if isinstance(obj, CustomJVP):
        return "jvp", obj.jvp is not None, obj.nondiff_argnums
    return None


def derivative(f, wrt, mode, preserve_result):
    """`tangent.grad(f)` / `autodiff(f, mode=...)` of a custom function itself: its rule,
    called directly. Reverse: takes f's arguments plus an optional seed; forward: f's
    arguments plus one tangent per `wrt` position."""
    if preserve_result:
        raise TangentError(_at_call_site(
            "preserve_result is not supported for the derivative of a custom function "
            "itself", "call `%s` for the value" % f.__name__))
    wrt = (wrt,) if isinstance(wrt, int) else tuple(wrt)
    for i in wrt:
        if i in f.nondiff_argnums:
            raise TangentError(_at_call_site(
                "wrt names %s of `%s`, which is in its nondiff_argnums" % (f._argument(i), f.__name__),
                "differentiate with respect to another argument"))
    code = getattr(f.fun, "__code__", None)
    arity = code.co_argcount if code is not None else None
    if mode == "forward":
        def jvp_of_custom(*call):
            n = len(call) - len(wrt)
            args, ts = call[:n], call[n:]
            tangents = [init_grad(a) for a in args]
            for i, t in zip(wrt, ts):
                tangents[i] = t
            return custom_jvp_call(f, args, tangents)[1]
        return jvp_of_custom

    def grad_of_custom(*call):
        args, seed = (call[:-1], call[-1]) if arity is not None and len(call) == arity + 1 \
            else (call, 1.0)
        y, res = custom_forward(f, *args)
        grads = custom_backward(f, res, seed, *args)
        return grads[wrt[0]] if len(wrt) == 1 else tuple(grads[i] for i in wrt)
    return grad_of_custom


# --- derivatives of the helpers: higher order through custom rules --------------------

def _derivative_of(rule, wrt, mode):
    """The derivative of a user's rule function (tangent differentiating it)."""
    from tangent._build import _generate
    return _generate(rule, tuple(wrt), True, False, False, 0, mode)


def _zeros_for_none(values, likes):
    return tuple(init_grad(x) if v is None else v for v, x in zip(values, likes))


def _add(a, b):
    from tangent._runtime import add_grad
    return add_grad(a, b)


def _dot(a, b):
    if not _registry.is_array(a) and not _registry.is_array(b):
        return a * b
    return _registry.namespace_of(a, b).sum(a * b)


def custom_forward_jvp(f, args, tangents):
    """The tangent of `custom_forward(f, *args)` = (output, residuals), given the
    arguments' tangents (None: a constant)."""
    diff = f._split(args)[1]
    wrt = [i for i in diff if tangents[i] is not None]
    if isinstance(f, CustomVJP):
        df = _derivative_of(f.fwd, wrt, "forward")
        return df(*(tuple(args) + tuple(tangents[i] for i in wrt)))
    full = _zeros_for_none(tangents, args)
    return custom_jvp_call(f, args, full)[1], full  # the residuals are the arguments


def _columns(x):
    """The unit tangents of `x`, one per element (1.0 for a number)."""
    if not _registry.is_array(x):
        return [1.0]
    xp = _registry.namespace_of(x)
    n = 1
    for d in x.shape:
        n *= d
    out = []
    for j in range(n):
        unit = xp.zeros(n)
        unit[j] = 1.0
        out.append(unit.reshape(x.shape))
    return out


def _from_entries(entries, x):
    """The gradient of `x` from its entries, one per element (a float for a number)."""
    if not _registry.is_array(x):
        return float(entries[0])
    xp = _registry.namespace_of(x)
    out = xp.asarray(entries, dtype=float).reshape(x.shape)
    return out.astype(x.dtype) if getattr(x.dtype, "kind", "f") == "f" else out


def custom_backward_jvp(f, res, g, args, dres, dg, dargs):
    """The tangent of `custom_backward(f, res, g, *args)` (one gradient per argument)
    along the tangents of the residuals, the output's gradient and the arguments."""
    nondiff, diff = f._split(args)
    out = [None] * len(args)
    if isinstance(f, CustomVJP):
        # The gradients are f_bwd(*nondiff, res, g): its tangent along (res, g).
        k = len(nondiff)
        wrt = [i for i, t in ((k, dres), (k + 1, dg)) if t is not None]
        if not wrt:
            return tuple(out)
        df = _derivative_of(f.bwd, wrt, "forward")
        ts = tuple(t for t in (dres, dg) if t is not None)
        dcts = df(*(tuple(nondiff) + (res, g) + ts))
        for m, i in enumerate(diff):
            out[i] = _checked(dcts[m], args[i], f._argument(i), f, f.bwd, "gradient tangent")
        return tuple(out)
    # custom_jvp: entry j of gradient i is <g, J e_ij>; its tangent is
    # <dg, J e_ij> + <g, (dJ/dx . dx) e_ij>: the rule's own forward derivative in x.
    primals = tuple(args[i] for i in diff)
    dprimals = _zeros_for_none(tuple(dargs[i] for i in diff), primals)
    zeros = [init_grad(x) for x in primals]
    moves = any(dargs[i] is not None for i in diff)
    djvp = _derivative_of(f.jvp, (len(nondiff),), "forward") if moves else None
    for k, i in enumerate(diff):
        entries = []
        for unit in _columns(primals[k]):
            tangents = tuple(unit if m == k else z for m, z in enumerate(zeros))
            total = 0.0
            if dg is not None:
                _, tout = _pair(f.jvp(*nondiff, primals, tangents), f.jvp, f,
                                "(output, output_tangent)")
                total = total + _dot(dg, tout)
            if djvp is not None:
                d_pair = djvp(*(tuple(nondiff) + (primals, tangents, dprimals)))
                total = total + _dot(g, d_pair[1])
            entries.append(total)
        out[i] = _from_entries(entries, args[i])
    return tuple(out)


_memo = [None]


def _memoized(key, keep, compute):
    """One computation serves the gradients of every argument of one call (the engine
    asks once per argument)."""
    if _memo[0] is None or _memo[0][0] != key:
        _memo[0] = (key, keep, compute())
    return _memo[0][2]


def custom_forward_vjp(b, out, f, args, which):
    """The gradient of argument `which` of `out = custom_forward(f, *args)` = (output,
    residuals), given `b`, the gradient of that pair."""
    def compute():
        parts = _zeros_for_none(tuple(b) if b is not None else (None, None), out)
        if isinstance(f, CustomVJP):
            wrt = [i for i in f._split(args)[1] if _differentiable_part(args[i])]
            if not wrt:
                return {}
            grads = _derivative_of(f.fwd, wrt, "reverse")(*(tuple(args) + (tuple(parts),)))
            grads = grads if len(wrt) > 1 else (grads,)
            return dict(zip(wrt, grads))
        # custom_jvp: the output's gradient by the rule, plus the residuals' (the
        # arguments themselves).
        by_rule = custom_backward(f, args, parts[0], *args)
        return {i: _add(by_rule[i], parts[1][i]) for i in range(len(args))}
    grads = _memoized(("forward", id(b), id(out), id(f), tuple(map(id, args))),
                      (b, out, f, args), compute)
    return grads.get(which)


def custom_backward_vjp(b, f, res, g, args, which):
    """The gradient of `res` (which="res"), `g` ("g") or argument `which` of
    `custom_backward(f, res, g, *args)`, given `b`, the gradient of its result (a tuple
    with an entry per argument)."""
    def compute():
        nondiff, diff = f._split(args)
        cot = tuple(init_grad(args[i]) if b is None or b[i] is None else b[i] for i in diff)
        if isinstance(f, CustomVJP):
            k = len(nondiff)
            df = _derivative_of(f.bwd, (k, k + 1), "reverse")
            gres, gg = df(*(tuple(nondiff) + (res, g, cot)))
            return {"res": gres, "g": gg}
        # custom_jvp: the result is J(x)^T g. Its gradient in g is J(x) cot (the rule
        # itself); in x, the gradient of <g, J(x) cot> (the rule's own reverse
        # derivative in x, at the tangents cot).
        primals = tuple(args[i] for i in diff)
        out, _ = _pair(f.jvp(*nondiff, primals, cot), f.jvp, f, "(output, output_tangent)")
        full = [None] * len(args)
        for m, i in enumerate(diff):
            full[i] = cot[m]
        gg = custom_jvp_call(f, args, _zeros_for_none(full, args))[1]
        dx = _derivative_of(f.jvp, (len(nondiff),), "reverse")(
            *(tuple(nondiff) + (primals, cot, (init_grad(out), g))))
        grads = {"g": gg}
        for m, i in enumerate(diff):
            grads[i] = dx[m]
        return grads
    grads = _memoized(("backward", id(b), id(f), id(res), id(g), tuple(map(id, args))),
                      (b, f, res, g, args), compute)
    return grads.get(which)


def custom_jvp_call_vjp(b, f, args, tangents, which):
    """The gradient of the arguments (which=0) or the tangents (1) of
    `custom_jvp_call(f, args, tangents)` = (output, its tangent), given `b`, the
    gradient of that pair: the rule's own reverse derivative."""
    def compute():
        nondiff, diff = f._split(args)
        primals = tuple(args[i] for i in diff)
        ts = _zeros_for_none(tuple(tangents[i] for i in diff), primals)
        pair = _pair(f.jvp(*nondiff, primals, ts), f.jvp, f, "(output, output_tangent)")
        seed = _zeros_for_none(tuple(b) if b is not None else (None, None), pair)
        k = len(nondiff)
        gp, gt = _derivative_of(f.jvp, (k, k + 1), "reverse")(
            *(tuple(nondiff) + (primals, ts, seed)))
        ga, gtan = [None] * len(args), [None] * len(args)
        for m, i in enumerate(diff):
            ga[i], gtan[i] = gp[m], gt[m]
        return {0: tuple(ga), 1: tuple(gtan)}
    grads = _memoized(("jvp", id(b), id(f), tuple(map(id, args)), tuple(map(id, tangents))),
                      (b, f, args, tangents), compute)
    return grads.get(which)
