//! Rejected inputs: each must produce a diagnostic with file:line:column, the source line,
//! a caret under the construct, and a hint — never a panic, never a wrong number.

use tangent::pipeline::GradOptions;

fn reject(src: &str, func: &str) -> String {
    match tangent::engine::grad_text("bad.py", src, func, &GradOptions::default()) {
        Ok(g) => panic!("expected `{func}` to be rejected, got:\n{}", g.source),
        Err(e @ tangent::Error::Diagnostic(_)) => e.to_string(),
        Err(e) => panic!("expected a located diagnostic, got {e:?}"),
    }
}

/// Asserts the message starts with `bad.py:line:col: <message>`, shows the line and a
/// caret run at the column, and has a hint.
fn check(err: &str, line: usize, col: usize, message: &str, caret: &str, hint: &str) {
    let first = err.lines().next().unwrap_or("");
    assert_eq!(
        first,
        format!("bad.py:{line}:{col}: {message}"),
        "full error:\n{err}"
    );
    let caret_line = err.lines().nth(3).unwrap_or("");
    let gutter = " ".repeat(line.to_string().len());
    let expected = format!("{gutter} | {}{caret}", " ".repeat(col - 1));
    assert_eq!(caret_line, expected, "full error:\n{err}");
    assert!(err.contains(&format!("hint: {hint}")), "full error:\n{err}");
}

#[test]
fn with_block() {
    let e = reject(
        "def f(x):\n    with open('a') as fh:\n        y = x * 2\n    return y\n",
        "f",
    );
    check(
        &e,
        2,
        10,
        "a `with` block over `open('a')` cannot be differentiated",
        "^^^^^^^^^",
        "only context managers declared transparent are",
    );
}

#[test]
fn try_statement() {
    let e = reject("def f(x):\n    try:\n        y = x\n    except Exception:\n        y = 0.0\n    return y\n", "f");
    check(
        &e,
        2,
        5,
        "a `try` statement cannot be differentiated",
        "^^^^",
        "check the condition with `if`",
    );
}

#[test]
fn lambda_not_assigned() {
    let e = reject("def f(x):\n    return (lambda t: t * t)(x)\n", "f");
    check(
        &e,
        2,
        13,
        "a `lambda` can only be differentiated when it is assigned to a name and called",
        "^^^^^^^^^^^^^^^",
        "write `name = lambda ...` on its own line",
    );
}

#[test]
fn max_with_a_key() {
    let e = reject(
        "def f(x):\n    return max([x * i for i in range(3)], key=abs)\n",
        "f",
    );
    check(
        &e,
        2,
        12,
        "`max(...)` with `key=` or `default=` cannot be differentiated yet",
        "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "compute the keys into a list",
    );
}

#[test]
fn nested_function_inside_a_block() {
    let e = reject(
        "def f(x):\n    if x > 0:\n        def g(t):\n            return t * x\n        return g(x)\n    return x\n",
        "f",
    );
    check(
        &e,
        3,
        9,
        "`g` is a function defined inside a block (`if`, a loop), which cannot be differentiated",
        "^^^^^^^^^",
        "define the nested function at the top of the enclosing function's body",
    );
}

#[test]
fn global_statement() {
    // Reading a global declared `global` is differentiated; writing it is refused.
    let ok = tangent::engine::grad_text(
        "ok.py",
        "k = 2.0\ndef f(x):\n    global k\n    return x * k\n",
        "f",
        &GradOptions::default(),
    );
    assert!(ok.is_ok(), "{:?}", ok.err());
    let e = reject(
        "def f(x):\n    global k\n    k = x\n    return x * k\n",
        "f",
    );
    check(
        &e,
        3,
        5,
        "assignment to `k`, declared `global`/`nonlocal` at line 2",
        "^",
        "only reads of a global are differentiated",
    );
}

#[test]
fn del_then_read() {
    let e = reject("def f(x):\n    y = x * x\n    del y\n    return y\n", "f");
    check(
        &e,
        4,
        12,
        "`y` is read after (or, in a loop, around) a `del y`",
        "^",
        "remove the `del`",
    );
    // In a loop, a read at the top of the next iteration counts.
    let e = reject(
        "def f(x):\n    y = x\n    for i in range(2):\n        x = y * 2.0\n        del y\n        y = x\n    return x\n",
        "f",
    );
    check(
        &e,
        4,
        13,
        "`y` is read after (or, in a loop, around) a `del y`",
        "^",
        "remove the `del`",
    );
}

#[test]
fn with_blocks_that_stay_refused() {
    let e = reject(
        "import numpy as np\ndef f(x):\n    with np.errstate(all='ignore') as s:\n        y = x\n    return y\n",
        "f",
    );
    check(
        &e,
        3,
        39,
        "the `as` target of `with numpy.errstate(...)` cannot be differentiated",
        "^",
        "remove `as ...`",
    );
    let e = reject(
        "import numpy as np\ndef f(x):\n    with np.errstate(all='ignore'):\n        return x * 2.0\n",
        "f",
    );
    check(
        &e,
        4,
        9,
        "a `return`, `break` or `continue` inside `with numpy.errstate(...)` cannot be differentiated",
        "^^^^^^^^^^^^^^",
        "assign the result to a variable",
    );
}

#[test]
fn structured_arguments_that_stay_refused() {
    // A store into an argument: the caller's dict would change.
    let e = reject("def f(p, x):\n    p['a'] = x\n    return p['a']\n", "f");
    assert!(
        e.starts_with("bad.py:2:5: this store changes `p` in place"),
        "{e}"
    );
    // zip and enumerate only as the iterable of a loop.
    let e = reject(
        "def f(xs, ys):\n    z = zip(xs, ys)\n    return list(z)[0][0]\n",
        "f",
    );
    assert!(
        e.starts_with("bad.py:2:9: `zip(...)` is differentiated only as what a `for` loop or a comprehension iterates over"),
        "{e}"
    );
    let e = reject(
        "def f(p):\n    s = 0.0\n    for kv in p.items():\n        s = s + kv[1]\n    return s\n",
        "f",
    );
    check(
        &e,
        3,
        9,
        "the loop over `p.items()` needs a target of 2 names",
        "^^",
        "unpack each element into its own name",
    );
}

#[test]
fn star_args() {
    // A helper's `*args` is differentiated (the tuple of the call's extra arguments);
    // the differentiated function's own has no positions to differentiate by.
    let e = reject("def f(*xs):\n    return xs[0]\n", "f");
    check(
        &e,
        1,
        1,
        "`f` takes `*xs`, whose arguments have no position of their own to differentiate with respect to",
        "^^^^^^^^^^^",
        "name them (`def f(a, b)`",
    );
}

#[test]
fn calls_of_keyword_only_and_star_helpers_bind_as_python_does() {
    let helper = "def h(x, *, scale):\n    return x * scale\n\n";
    let e = reject(&format!("{helper}def f(x):\n    return h(x, 2.0)\n"), "f");
    check(
        &e,
        5,
        12,
        "`h` takes 1 positional arguments but 2 were given",
        "^^^^^^^^^",
        "pass `scale` by name (`scale=...`): it is keyword-only",
    );
    let e = reject(&format!("{helper}def f(x):\n    return h(x)\n"), "f");
    check(
        &e,
        5,
        12,
        "the call of `h` lacks the argument `scale`",
        "^^^^",
        "pass every parameter without a default",
    );
    let star = "def g(x, *ws):\n    return x * ws[0]\n\n";
    let e = reject(&format!("{star}def f(x):\n    return g(x, ws=2.0)\n"), "f");
    check(
        &e,
        5,
        12,
        "`ws` is the `*ws` parameter of `g`, which takes the extra positional arguments, not a keyword",
        "^^^^^^^^^^^^",
        "pass those arguments by position",
    );
    let e = reject(
        &format!("{star}def f(x):\n    return g(x, x, x=1.0)\n"),
        "f",
    );
    check(
        &e,
        5,
        12,
        "`g` got multiple values for the argument `x`",
        "^^^^^^^^^^^^^^",
        "pass each argument once",
    );
}

#[test]
fn kwargs_param() {
    let e = reject("def f(x, **kw):\n    return x\n", "f");
    check(
        &e,
        1,
        10,
        "a `**kwargs` parameter cannot be differentiated",
        "^^^^",
        "list each argument as a named positional parameter",
    );
}

#[test]
fn bitwise_operator() {
    let e = reject("def f(x):\n    return x ^ 2\n", "f");
    check(
        &e,
        2,
        12,
        "the bitwise operator `^` cannot be differentiated",
        "^^^^^",
        "bitwise operators have no derivative",
    );
}

#[test]
fn dict_literal() {
    let e = reject("def f(x, k):\n    d = {k: x}\n    return d[k]\n", "f");
    check(
        &e,
        2,
        10,
        "a dict literal with a computed key cannot be differentiated",
        "^",
        "use string or number literals as the keys",
    );
}

#[test]
fn for_else() {
    let e = reject("def f(x):\n    for i in range(3):\n        x = x * 2\n    else:\n        x = x + 1\n    return x\n", "f");
    check(
        &e,
        5,
        9,
        "the `else` clause of a `for` loop cannot be differentiated",
        "^^^^^^^^^",
        "set a flag before `break`",
    );
}

#[test]
fn walrus() {
    let e = reject(
        "def f(x):\n    if (y := x * 2) > 1:\n        return y\n    return x\n",
        "f",
    );
    check(
        &e,
        2,
        9,
        "an assignment expression (`:=`) cannot be differentiated",
        "^^^^^^^^^^",
        "assign the value in its own statement first",
    );
}

#[test]
fn reversed_of_zip() {
    let e = reject(
        "def f(x):\n    for a in reversed(zip([x], [x])):\n        x = a[0]\n    return x\n",
        "f",
    );
    check(
        &e,
        2,
        23,
        "`zip(...)` is not reversible: Python raises a TypeError here",
        "^^^^^^^^^^^^^",
        "reverse the sequences inside",
    );
}

#[test]
fn generator_function() {
    let e = reject("def f(x):\n    yield x\n", "f");
    check(
        &e,
        2,
        5,
        "a `yield` (generator function) cannot be differentiated",
        "^^^^^^^",
        "return the values as a list or an array",
    );
}

#[test]
fn attribute_assignment() {
    let e = reject("def f(x):\n    x.value = 2\n    return x\n", "f");
    check(
        &e,
        2,
        5,
        "assignment to an attribute cannot be differentiated",
        "^^^^^^^",
        "assign to a local variable",
    );
}

#[test]
fn chained_assignment() {
    let e = reject("def f(x):\n    a = b = x\n    return a + b\n", "f");
    check(
        &e,
        2,
        5,
        "a chained assignment (`a = b = ...`) cannot be differentiated",
        "^^^^^^^^^",
        "split it into one assignment per target",
    );
}

#[test]
fn unknown_call() {
    let e = reject(
        "import numpy as np\ndef f(x):\n    return np.fancy_op(x) * 2\n",
        "f",
    );
    check(
        &e,
        3,
        12,
        "no derivative rule for `numpy.fancy_op`",
        "^^^^^^^^^^^^^^",
        "register one in your script before calling grad",
    );
    assert!(e.contains("@tangent.adjoint(numpy.fancy_op)"), "{e}");
    assert!(e.contains("d[x] = d[result] * ..."), "{e}");
}

#[test]
fn unresolvable_callable() {
    let e = reject("def f(x, g):\n    return g(x)\n", "f");
    check(&e, 2, 12, "cannot differentiate a call to `g`: it is not a function of this module and has no derivative rule", "^^^^", "call a module-level function");
}

#[test]
fn mutating_method_call() {
    let e = reject(
        "def f(x):\n    ys = [0.0]\n    ys.extend(x)\n    return ys[1]\n",
        "f",
    );
    check(&e, 3, 5, "the call to `ys.extend` is made for its side effect on a differentiated value, which cannot be differentiated", "^^^^^^^^^^^^", "assign the result to a variable instead of mutating in place");
}

#[test]
fn iterating_zip_strict() {
    let e = reject("def f(xs):\n    s = 0.0\n    for a, b in zip(xs, xs, strict=True):\n        s = s + a * b\n    return s\n", "f");
    check(
        &e,
        3,
        17,
        "this `zip(...)` cannot be differentiated",
        "^^^^^^^^^^^^^^^^^^^^^^^^",
        "give the sequences as positional arguments, without `strict=True`",
    );
}

#[test]
fn syntax_error() {
    let e = reject("def f(x):\n    return x +* 2\n", "f");
    assert!(e.starts_with("bad.py:2:"), "{e}");
    assert!(e.contains("syntax error"), "{e}");
    assert!(e.contains("hint: fix the Python syntax"), "{e}");
}

#[test]
fn wrt_out_of_range() {
    let opts = GradOptions {
        wrt: vec![3],
        ..Default::default()
    };
    let e = tangent::engine::grad_text("bad.py", "def f(x, y):\n    return x * y\n", "f", &opts)
        .unwrap_err();
    assert!(matches!(e, tangent::Error::Diagnostic(_)), "{e:?}");
    let e = e.to_string();
    check(
        &e,
        1,
        1,
        "wrt=3 is out of range: `f` takes 2 argument(s)",
        "^^^^^^^^^^^^",
        "pass positions between 0 and 1",
    );
}

#[test]
fn missing_function() {
    // Not a construct that cannot be differentiated: a request for what is not there.
    let e = tangent::engine::grad_text(
        "bad.py",
        "def f(x):\n    return x\n",
        "g",
        &GradOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e, tangent::Error::Usage(_)), "{e:?}");
    let e = e.to_string();
    assert!(
        e.contains("`g` is not defined with `def` at the top level"),
        "{e}"
    );
}

#[test]
fn rejected_in_callee_points_at_callee() {
    let e = reject("def helper(x):\n    with x:\n        pass\n    return x\n\ndef f(x):\n    return helper(x) * 2\n", "f");
    check(
        &e,
        2,
        10,
        "a `with` block over `x` cannot be differentiated",
        "^",
        "only context managers declared transparent are",
    );
}

/// In-place updates another name would see (issue 13): refused where they are written.
#[test]
fn append_to_a_list_another_name_holds() {
    let e = reject(
        "def f(x):\n    a = [x]\n    b = a\n    b.append(x)\n    return a[0] + a[1]\n",
        "f",
    );
    check(
        &e,
        4,
        5,
        "`b.append(...)` changes the list in place, and another name may see the change: after `b = a`, `b` may hold the same object as another name",
        "^^^^^^^^^^^",
        "build a new list instead: `b = b + [...]`",
    );
}

#[test]
fn store_through_a_view() {
    let e = reject(
        "import numpy as np\ndef f(x):\n    y = x * 1.0\n    v = y[0:2]\n    v[0] = 5.0\n    return np.sum(y)\n",
        "f",
    );
    check(
        &e,
        5,
        5,
        "this store changes `v` in place, and another name may see the change: after `v = y[0:2]`, `v` may hold the same object as another name",
        "^^^^",
        "store into a new array: `v = v.copy()`",
    );
}

#[test]
fn store_into_a_parameter() {
    let e = reject(
        "import numpy as np\ndef f(x):\n    x[0] = 0.0\n    return np.sum(x * x)\n",
        "f",
    );
    check(
        &e,
        3,
        5,
        "this store changes `x` in place, and another name may see the change: `x` is a parameter: its object belongs to the caller",
        "^^^^",
        "store into a new array: `x = x.copy()`",
    );
}

#[test]
fn store_into_an_array_whose_view_is_read_later() {
    let src = "import numpy as np\ndef f(x):\n    y = x * 1.0\n    v = y[0:2]\n    y[0] = 5.0\n    return np.sum(v * x[0:2])\n";
    let e = reject(src, "f");
    check(
        &e,
        5,
        5,
        "this store changes `y` in place, and another name may see the change: after `v = y[0:2]`, `v` may be a view of `y`, and `v` is read after this store",
        "^^^^",
        "store into a new array: `y = y.copy()`",
    );
    // Reading the view only before the store is exact: the tape restores `y` first.
    let ok = "import numpy as np\ndef f(x):\n    y = x * 1.0\n    v = y[0:2]\n    s = np.sum(v * v)\n    y[0] = 5.0\n    return s + np.sum(y)\n";
    tangent::engine::grad_text("ok.py", ok, "f", &GradOptions::default()).expect("accepted");
}

#[test]
fn a_local_named_like_a_runtime_module_is_renamed_but_a_parameter_is_refused() {
    let e = reject("def f(numpy):\n    return numpy * 2.0\n", "f");
    assert!(
        e.contains("a parameter named `numpy` would hide the `numpy` module the derivative calls"),
        "{e}"
    );
    let g = tangent::engine::grad_text(
        "ok.py",
        "def f(x):\n    tangent = x * 2.0\n    return tangent * x\n",
        "f",
        &GradOptions::default(),
    )
    .expect("accepted");
    assert!(g.source.contains("tangent_ = x * 2.0"), "{}", g.source);
}
