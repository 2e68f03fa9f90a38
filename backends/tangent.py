# Forward-mode rules for tangent's own runtime helpers, so that generated gradients can
# themselves be differentiated (forward-over-reverse: Hessian-vector products, and grad
# of grad). Every helper is linear in the gradients it combines; tape pushes and pops are
# handled by the forward transform itself.

nondifferentiable(
    tangent.init_grad, tangent.reduced_count, tangent.Stack, tangent.check_real,
    tangent.inverse_permutation, tangent.check_output, tangent.keys_of,
    tangent.sequence_len, tangent.zero_part, tangent.extreme_index,
    tangent.insert_grad_of,
)

# A `for x in xs` loop's trip count (`len`, refusing dicts and sets): pure, as len is.
pure(tangent.sequence_len)

# `max(xs)` / `min(xs)` of one sequence read `xs[tangent.extreme_index(xs, largest)]`.
pure(tangent.extreme_index)

# `tangent.stop_gradient(x)`: x's value with a zero derivative, in both modes and at every
# order (generated code keeps the call, so a derivative of a derivative sees it too).
nondifferentiable(tangent.stop_gradient)

# Facts the passes read (src/rules `RuleSet` accessors):
# Helpers that give zero when their first argument (a gradient or tangent) is zero: the
# forward transform drops a zero tangent through them.
linear_in_first(
    tangent.zero_grad_at, tangent.grad_item, tangent.sum_grad, tangent.array_grad,
    tangent.copy, tangent.unreduce, tangent.extremum_grad, tangent.broadcast_like,
    tangent.unbroadcast, tangent.unbroadcast_left, tangent.unbroadcast_right,
    tangent.extremum_tangent, tangent.sum_tangent, tangent.field_tangent,
    tangent.dict_get_grad, tangent.dict_get_default_grad, tangent.scan_slice,
    tangent.scan_slice_grad, tangent.unstack_leaves, tangent.stack_leaves_tangent,
)

# Argument positions (from 0) a helper reads only for their shape, dtype or length:
# `optimizations={'tape_liveness': True}` pushes `tangent.shape_of(v)` for a value read
# only there.
shape_only(tangent.unbroadcast, arg=1)
shape_only(tangent.unbroadcast_left, arg=(1, 2))
shape_only(tangent.unbroadcast_right, arg=(1, 2))
shape_only(tangent.init_grad, arg=0)
shape_only(tangent.unreduce, arg=1)
shape_only(tangent.reduced_count, arg=0)
shape_only(tangent.sum_grad, arg=1)
shape_only(tangent.add_grad_at, arg=1)

# Helpers with a variant that may change its first argument (a gradient) in place, with
# the helper's rules: src/opt/in_place.rs writes the variant where only the name the call
# rebinds holds that argument, the helper elsewhere.
in_place(tangent.add_grad_at, tangent.add_grad_at_in_place)
in_place(tangent.zero_grad_at, tangent.zero_grad_at_in_place)
in_place(tangent.set_tangent_at, tangent.set_tangent_at_in_place)
shape_only(tangent.broadcast_like, arg=1)

# Helpers that run the user's own functions (a custom rule's forward or backward pass),
# which may change any object: no pass moves a read of an object across them.
effectful(
    tangent.custom_forward, tangent.custom_backward, tangent.custom_jvp_call,
    tangent.custom_forward_jvp, tangent.custom_backward_jvp, tangent.custom_forward_vjp,
    tangent.custom_backward_vjp, tangent.custom_jvp_call_vjp,
)

# Checks that only read their arguments: generated code calls them for their effect on
# differentiated values (ad/activity.rs).
reads_only(tangent.check_output, tangent.check_tangent, tangent.check_inplace,
           tangent.check_real)

# How the native compiler (compile='native') runs helpers on numbers: the identity on
# the first argument, or nothing at all for a check.
native_scalar(tangent.copy, kind="identity")
# A tangent given the shape of the value it belongs to (argument 1): on float64 arrays,
# itself (an array, or a number's tangent), or a number filling the shape.
native_scalar(tangent.broadcast_like, kind="broadcast", like=1)
# The gradient of a broadcast operand, given the shape of argument `like`: the identity
# on numbers; on float64 arrays, the array itself (one shape), a number filling it, or
# its sum (see NativeScalar::Unbroadcast).
native_scalar(tangent.unbroadcast, tangent.unbroadcast_left, tangent.unreduce,
              kind="unbroadcast", like=1)
native_scalar(tangent.unbroadcast_right, kind="unbroadcast", like=2)
# The gradients of an inner product of vectors (`np.dot(a, b)`, `a @ b`): the number
# times the other vector (of matrices, products: interpreted).
native_scalar(tangent.matmul_grad_left, kind="dot_grad", other=2)
native_scalar(tangent.matmul_grad_right, kind="dot_grad", other=1)
native_scalar(
    tangent.check_output, tangent.check_tangent, tangent.check_inplace, tangent.check_real,
    kind="check",
)
# The gradient of `abs` on a number: its sign as a Python float (0.0 for 0 and NaN).
native_scalar(tangent.sign, kind="sign")
# The derivative of a dtype conversion of a number, in the type of the value it belongs to.
native_scalar(tangent.cast_like, kind="cast_like")
# The tangent of abs (a function real for complex arguments): a number is real already.
native_scalar(tangent.real_like, kind="identity")


# real_like(t, y): t, or its real part (linear in t; y only through its dtype).
@tangent_(tangent.real_like)
def real_like(z, t, y):
    d[z] = tangent.real_like(d[t], y)
    d[y] = 0.0


@adjoint(tangent.real_like)
def real_like_adjoint(z, t, y):
    d[t] = d[z]
    d[y] = 0.0


@tangent_(tangent.add_grad)
def add_grad(z, a, b):
    d[z] = tangent.add_grad(d[a], d[b])


# polygamma in x's float dtype (the digamma and polygamma rules): grad of grad.
@tangent_(tangent.polygamma_like)
def polygamma_like(y, n, x):
    d[y] = d[x] * tangent.polygamma_like(n + 1, x)


@tangent_(tangent.unbroadcast)
def unbroadcast(z, g, like):
    d[z] = tangent.unbroadcast(d[g], like)


@tangent_(tangent.broadcast_like)
def broadcast_like(z, t, y):
    d[z] = tangent.broadcast_like(d[t], y)


@tangent_(tangent.unreduce)
def unreduce(z, g, x, axis, keepdims):
    d[z] = tangent.unreduce(d[g], x, axis, keepdims)


@tangent_(tangent.extremum_grad)
def extremum_grad(z, g, y, x, axis, keepdims):
    d[z] = tangent.extremum_grad(d[g], y, x, axis, keepdims)


@tangent_(tangent.extremum_tangent)
def extremum_tangent(z, t, y, x, axis, keepdims):
    d[z] = tangent.extremum_tangent(d[t], y, x, axis, keepdims)


# The forward rules of matmul_grad_left/right are in tangent_numpy.py (zero-safe).


@tangent_(tangent.add_grad_at)
def add_grad_at(z, g, x, index, v):
    d[z] = tangent.add_grad_at(tangent.or_none(d[g]), x, index, d[v])


@tangent_(tangent.zero_grad_at)
def zero_grad_at(z, g, index):
    d[z] = tangent.zero_grad_at(d[g], index)


@tangent_(tangent.set_tangent_at)
def set_tangent_at(z, t, x, index, v):
    d[z] = tangent.set_tangent_at(tangent.or_none(d[t]), x, index, d[v])


@tangent_(tangent.grad_item)
def grad_item(z, g, i):
    d[z] = tangent.grad_item(d[g], i)


@tangent_(tangent.field_tangent)
def field_tangent(z, t, name):
    d[z] = tangent.field_tangent(d[t], name)


@tangent_(tangent.sum_grad)
def sum_grad(z, g, x):
    d[z] = tangent.sum_grad(d[g], x)


@tangent_(tangent.sum_tangent)
def sum_tangent(z, t):
    d[z] = tangent.sum_tangent(d[t])


@tangent_(tangent.array_grad)
def array_grad(z, g, x):
    d[z] = tangent.array_grad(d[g], x)
    d[x] = 0.0


@tangent_(tangent.copy)
def copy(z, x):
    d[z] = tangent.copy(d[x])


@tangent_(tangent.unbroadcast_left)
def unbroadcast_left(z, g, x, y):
    d[z] = tangent.unbroadcast_left(d[g], x, y)


@tangent_(tangent.unbroadcast_right)
def unbroadcast_right(z, g, x, y):
    d[z] = tangent.unbroadcast_right(d[g], x, y)


@tangent_(tangent.output_seed)
def output_seed(z, y, seed, index, weights, check, name):
    d[z] = tangent.output_seed(y, d[seed], index, weights, False, name)


# Reverse-mode rules for the helpers of forward-mode code, so that a generated tangent
# function can be differentiated in reverse mode (reverse-over-forward).

@adjoint(tangent.polygamma_like)
def polygamma_like_adjoint(y, n, x):
    d[x] = tangent.unbroadcast(d[y] * tangent.polygamma_like(n + 1, x), x)


@adjoint(tangent.broadcast_like)
def broadcast_like_adjoint(z, t, y):
    d[t] = tangent.unbroadcast(d[z], t)
    d[y] = 0.0


@adjoint(tangent.unbroadcast)
def unbroadcast_adjoint(z, g, like):
    d[g] = tangent.broadcast_like(d[z], g)
    d[like] = 0.0


@adjoint(tangent.sum_tangent)
def sum_tangent_adjoint(z, t):
    d[t] = tangent.sum_grad(d[z], t)


@adjoint(tangent.set_tangent_at)
def set_tangent_at_adjoint(z, t, x, index, v):
    d[t] = tangent.zero_grad_at(d[z], index)
    d[v] = tangent.unbroadcast(tangent.copy(d[z][index]), v)
    d[x] = 0.0


# the gradient, or zeros shaped like x when none arrived: linear in the gradient
@tangent_(tangent.grad_or_zero)
def grad_or_zero_tangent(z, g, x):
    d[z] = tangent.grad_or_zero(d[g], x)


@adjoint(tangent.grad_or_zero)
def grad_or_zero_adjoint(z, g, x):
    d[g] = tangent.unbroadcast(d[z], x)
    d[x] = 0.0


@tangent_(tangent.sequence_grad)
def sequence_grad_tangent(z, g, x):
    d[z] = tangent.sequence_grad(d[g], x)


@adjoint(tangent.sequence_grad)
def sequence_grad_adjoint(z, g, x):
    d[g] = tangent.sequence_grad(d[z], g)
    d[x] = 0.0


@adjoint(tangent.extremum_tangent)
def extremum_tangent_adjoint(z, t, y, x, axis, keepdims):
    d[t] = tangent.extremum_grad(d[z], y, x, axis, keepdims)
    d[y] = 0.0
    d[x] = 0.0


# Reverse-mode rules for the helpers of reverse-mode code, so that a generated gradient
# can itself be differentiated in reverse mode (literal reverse-over-reverse).

@adjoint(tangent.add_grad)
def add_grad_adjoint(z, a, b):
    d[a] = tangent.unbroadcast(d[z], a)
    d[b] = tangent.unbroadcast(d[z], b)


@adjoint(tangent.unbroadcast_left)
def unbroadcast_left_adjoint(z, g, x, y):
    d[g] = tangent.unbroadcast_left_adjoint(d[z], g, x, y)
    d[x] = 0.0


@adjoint(tangent.unbroadcast_right)
def unbroadcast_right_adjoint(z, g, x, y):
    d[g] = tangent.unbroadcast_right_adjoint(d[z], g, x, y)


@adjoint(tangent.unreduce)
def unreduce_adjoint(z, g, x, axis, keepdims):
    d[g] = tangent.unreduce_adjoint(d[z], g, axis, keepdims)
    d[x] = 0.0


@adjoint(tangent.matmul_grad_left)
def matmul_grad_left_adjoint(z, g, a, b):
    d[g] = tangent.matmul_grad_left_adjoint(d[z], g, a, b, 0)
    d[b] = tangent.matmul_grad_left_adjoint(d[z], g, a, b, 1)
    d[a] = 0.0


@adjoint(tangent.matmul_grad_right)
def matmul_grad_right_adjoint(z, g, a, b):
    d[g] = tangent.matmul_grad_right_adjoint(d[z], g, a, b, 0)
    d[a] = tangent.matmul_grad_right_adjoint(d[z], g, a, b, 1)
    d[b] = 0.0


@adjoint(tangent.extremum_grad)
def extremum_grad_adjoint(z, g, y, x, axis, keepdims):
    d[g] = tangent.extremum_tangent(d[z], y, x, axis, keepdims)
    d[y] = 0.0
    d[x] = 0.0


@adjoint(tangent.grad_item)
def grad_item_adjoint(z, g, i):
    d[g] = tangent.add_grad_at(None, g, i, d[z])


@tangent_(tangent.dict_get_grad)
def dict_get_grad_tangent(z, g, x, key):
    d[z] = tangent.dict_get_grad(d[g], x, key)


@tangent_(tangent.dict_get_default_grad)
def dict_get_default_grad_tangent(z, g, x, key, default):
    d[z] = tangent.dict_get_default_grad(d[g], x, key, default)


@adjoint(tangent.dict_get_grad)
def dict_get_grad_adjoint(z, g, x, key):
    d[g] = tangent.dict_get_tangent(d[z], None, x, key)
    d[x] = 0.0


@adjoint(tangent.dict_get_default_grad)
def dict_get_default_grad_adjoint(z, g, x, key, default):
    d[g] = tangent.dict_get_default_grad(d[z], x, key, default)
    d[default] = 0.0
    d[x] = 0.0


@adjoint(tangent.dict_get_tangent)
def dict_get_tangent_adjoint(z, t, t_default, x, key, default=None):
    d[t] = tangent.dict_get_grad(d[z], x, key)
    d[t_default] = tangent.dict_get_default_grad(d[z], x, key, t_default)
    d[default] = 0.0
    d[x] = 0.0


@adjoint(tangent.field_tangent)
def field_tangent_adjoint(z, t, name):
    d[t] = tangent.add_grad_at(None, t, name, d[z])


@adjoint(tangent.add_grad_at)
def add_grad_at_adjoint(z, g, x, index, v):
    d[g] = d[z]
    d[v] = tangent.unbroadcast(tangent.copy(d[z][index]), v)


@adjoint(tangent.zero_grad_at)
def zero_grad_at_adjoint(z, g, index):
    d[g] = tangent.zero_grad_at(d[z], index)


@adjoint(tangent.sum_grad)
def sum_grad_adjoint(z, g, x):
    d[g] = tangent.unbroadcast(d[z], g)


@adjoint(tangent.copy)
def copy_adjoint(z, x):
    d[x] = d[z]


# A parent's constructor inside a differentiated constructor (`super().__init__(...)`,
# src/syntax/constructor.rs): its fields as a dict, differentiated through the parent's
# own `__init__` at run time; and the merge of the parent's fields with the
# constructor's own.
@adjoint(tangent.parent_fields)
def parent_fields_adjoint(fields, owner, args, kwargs, after):
    d[args] = tangent.parent_fields_grad(d[fields], owner, args, kwargs, after, 0)
    d[kwargs] = tangent.parent_fields_grad(d[fields], owner, args, kwargs, after, 1)


@tangent_(tangent.parent_fields)
def parent_fields_tangent(fields, owner, args, kwargs, after):
    d[fields] = tangent.parent_fields_jvp(owner, args, kwargs, after, d[args], d[kwargs])


@adjoint(tangent.merge_fields)
def merge_fields_adjoint(out, parent, own):
    d[parent] = tangent.merge_fields_grad(d[out], parent, own, 0)
    d[own] = tangent.merge_fields_grad(d[out], parent, own, 1)


@tangent_(tangent.merge_fields)
def merge_fields_tangent(out, parent, own):
    d[out] = tangent.merge_fields_tangent(out, d[parent], d[own])


# ----------------------------------------------- jax.lax.scan's slices and outputs
# (the helpers of backends/jax.py's scan template; linear in their first argument)
nondifferentiable(tangent.scan_order)


@adjoint(tangent.scan_slice)
def scan_slice_adjoint(z, xs, i):
    d[xs] = tangent.scan_slice_grad(d[z], xs, i)


@tangent_(tangent.scan_slice)
def scan_slice_tangent(z, xs, i):
    d[z] = tangent.scan_slice(d[xs], i)


@adjoint(tangent.scan_slice_grad)
def scan_slice_grad_adjoint(z, g, xs, i):
    d[g] = tangent.scan_slice(d[z], i)


@tangent_(tangent.scan_slice_grad)
def scan_slice_grad_tangent(z, g, xs, i):
    d[z] = tangent.scan_slice_grad(d[g], xs, i)


@adjoint(tangent.stack_leaves)
def stack_leaves_adjoint(z, ys, reverse):
    d[ys] = tangent.unstack_leaves(d[z], ys, reverse)


@tangent_(tangent.stack_leaves)
def stack_leaves_tangent_rule(z, ys, reverse):
    d[z] = tangent.stack_leaves_tangent(d[ys], z, reverse)


@adjoint(tangent.unstack_leaves)
def unstack_leaves_adjoint(z, g, ys, reverse):
    d[g] = tangent.stack_leaves_tangent(d[z], g, reverse)


@tangent_(tangent.unstack_leaves)
def unstack_leaves_tangent(z, g, ys, reverse):
    d[z] = tangent.unstack_leaves(d[g], ys, reverse)


@adjoint(tangent.stack_leaves_tangent)
def stack_leaves_tangent_adjoint(z, ts, like, reverse):
    d[ts] = tangent.unstack_leaves(d[z], ts, reverse)


@tangent_(tangent.stack_leaves_tangent)
def stack_leaves_tangent_tangent(z, ts, like, reverse):
    d[z] = tangent.stack_leaves_tangent(d[ts], like, reverse)
