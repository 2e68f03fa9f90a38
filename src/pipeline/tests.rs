//! The preparation of a function for differentiation (`prepare`: `with` expanded,
//! lambdas inlined, augmented and tuple assignments split, `for` over a sequence made a
//! counted loop, early exits made flags, then ANF), one case per construct: the source
//! of `f` and the body it becomes.

use super::prepare;
use crate::syntax::SourceModule;
use std::collections::HashSet;

/// `f` of `module` (a module's text) prepared for reverse mode (control flow lowered),
/// differentiated with respect to its first parameter: the body printed.
fn prepared(module: &str) -> String {
    let module = SourceModule::parse("<test>", module).unwrap();
    let user_functions: HashSet<String> = module.function_names.iter().cloned().collect();
    let p = prepare(&module, &user_functions, "f", &[0], true).unwrap();
    let mut out = String::new();
    crate::emit::printer::block(&mut out, &p.body, 0);
    out
}

/// Each case: `f`'s source (after `import numpy as np`), and its prepared body.
fn check(cases: &[(&str, &str)]) {
    let mut wrong = Vec::new();
    for (source, expect) in cases {
        let out = prepared(&format!("import numpy as np\n\n{source}"));
        if out.trim_end() != expect.trim_end() {
            wrong.push(format!("from:\n{source}\nexpected:\n{expect}\ngot:\n{out}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n----\n"));
}

#[test]
fn assignments_become_one_operation_each() {
    check(&[
        // An argument updated in place may be the caller's array too: checked at run time.
        (
            "def f(x, y):\n    x += y\n    return x\n",
            "tangent.check_inplace(x, 'x +=', 4)\nx_plus_y = x + y\nx = x_plus_y\nreturn x\n",
        ),
        (
            "def f(x, y):\n    a, b = x, y\n    return a * b\n",
            "a = x\nb = y\nresult = a * b\nreturn result\n",
        ),
        (
            "def f(x, y):\n    return np.sin(x * y) + x\n",
            "x_times_y = x * y\n_sin = np.sin(x_times_y)\nresult = _sin + x\nreturn result\n",
        ),
    ]);
}

#[test]
fn loops_over_sequences_count() {
    check(&[(
        "def f(x, xs):\n    s = 0.0\n    for v in xs:\n        s = s + v * x\n    return s\n",
        "s = 0.0\nfor _i in range(tangent.sequence_len(xs)):\n    v = xs[_i]\n    v_times_x = v * x\n    _plus = s + v_times_x\n    s = _plus\nreturn s\n",
    )]);
}

#[test]
fn early_exits_become_flags() {
    check(&[
        (
            "def f(x, n):\n    s = x\n    for i in range(n):\n        if s > 10.0:\n            break\n        s = s * x\n    return s\n",
            "s = x\n_break = False\nfor i in range(n):\n    cond = s > 10.0\n    if cond:\n        _break = True\n    cond2 = not _break\n    if cond2:\n        s_times_x = s * x\n        s = s_times_x\n    if _break:\n        break\nreturn s\n",
        ),
        (
            "def f(x):\n    if x > 0.0:\n        return x * x\n    return -x\n",
            "_returned = False\nresult = None\ncond = x > 0.0\nif cond:\n    result = x * x\n    _returned = True\ncond2 = not _returned\nif cond2:\n    result = -x\n    _returned = True\nreturn result\n",
        ),
    ]);
}
