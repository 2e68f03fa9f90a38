//! The adjoint (backward) pass before gradient variables exist: statements say "add this
//! to the gradient of x" or "this block reads the gradient of y". Lowering decides, by a
//! definedness analysis over the structured backward code, where a gradient is first
//! assigned, where it is accumulated with `tangent.add_grad`, where a block can be
//! skipped because no gradient reaches it, and where a runtime `None` check is needed.

use crate::syntax::ir::*;
use crate::syntax::visit::{map_stmt_exprs, substitute};
use std::collections::{BTreeSet, HashMap};

#[derive(Clone, Debug)]
pub enum Adj {
    /// An ordinary statement (a pop, a temporary).
    Stmt(Stmt),
    /// `d[var] += value`.
    Accum {
        var: String,
        value: Expr,
    },
    /// `d[var][index] += value` (gradient of a subscript read).
    AccumAt {
        var: String,
        index: Expr,
        value: Expr,
    },
    /// The gradient of `var` at `index` has been consumed: zero it there (subscript write).
    ZeroAt {
        var: String,
        index: Expr,
    },
    /// A block that reads the gradient of `out`; skipped when none can reach it.
    Rule {
        out: String,
        body: Vec<Adj>,
    },
    /// Like `Rule`, but the block always runs: the backward phase of a recursive callee's
    /// two-phase gradient pops what its forward phase pushed on the shared tape, so it
    /// must run even when no gradient reaches `out` (it then gets zeros).
    Phased {
        out: String,
        body: Vec<Adj>,
    },
    /// `var` is being restored to an older value: its gradient starts again from nothing.
    Kill(String),
    If(Expr, Vec<Adj>, Vec<Adj>),
    /// `for _ in range(count): body`.
    Loop {
        count: Expr,
        body: Vec<Adj>,
    },
    /// Reverse mode over generated code: the gradient of `var` (or of `var[index]`) as
    /// it is popped from an inner tape is pushed on the adjoint tape, for the adjoint of
    /// the matching inner push.
    PushGrad {
        var: String,
        index: Option<Expr>,
        tape: String,
    },
    /// `for target in iter: body` (checkpointed loops walk their segments).
    ForIn {
        target: Expr,
        iter: Expr,
        body: Vec<Adj>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Def {
    Undef,
    Maybe,
    Defined,
}

fn join(a: Def, b: Def) -> Def {
    if a == b {
        a
    } else {
        Def::Maybe
    }
}

type State = HashMap<String, Def>;

fn get(s: &State, v: &str) -> Def {
    *s.get(v).unwrap_or(&Def::Undef)
}

fn join_states(a: &State, b: &State) -> State {
    let mut out = State::new();
    for k in a.keys().chain(b.keys()) {
        out.insert(k.clone(), join(get(a, k), get(b, k)));
    }
    out
}

fn same(a: &State, b: &State) -> bool {
    a.keys().chain(b.keys()).all(|k| get(a, k) == get(b, k))
}

/// Turns adjoint statements into Python statements.
pub struct Lowering<'a> {
    /// Primal name -> gradient name.
    pub grad_names: &'a HashMap<String, String>,
    /// Variables whose definedness is only known at run time: they start as `None`.
    tracked: BTreeSet<String>,
    /// Collected during the dry run.
    maybe_seen: BTreeSet<String>,
    emit: bool,
}

impl<'a> Lowering<'a> {
    pub fn new(grad_names: &'a HashMap<String, String>) -> Self {
        Lowering {
            grad_names,
            tracked: BTreeSet::new(),
            maybe_seen: BTreeSet::new(),
            emit: false,
        }
    }

    fn gname(&self, v: &str) -> String {
        self.grad_names
            .get(v)
            .cloned()
            .unwrap_or_else(|| format!("b{v}"))
    }

    fn gexpr(&self, v: &str) -> Expr {
        Expr::name(self.gname(v))
    }

    /// Replaces gradient markers produced by template instantiation with real names.
    fn finish(&self, e: &Expr) -> Expr {
        let mut e = e.clone();
        substitute(&mut e, &mut |x| match &x.kind {
            ExprKind::Name(n) => parse_grad_marker(n).map(|p| self.gexpr(p)),
            _ => None,
        });
        e
    }

    /// Lowers the whole backward pass. `initial` gives variables whose gradient is defined
    /// on entry (the seed). Returns the statements, the variables that need a `None`
    /// start, and the final state of each requested variable (for the returned grads).
    pub fn lower(
        mut self,
        adjs: &[Adj],
        initial: &[String],
        results: &[String],
    ) -> (Vec<Stmt>, Vec<String>, Vec<(String, &'static str)>) {
        let start: State = initial.iter().map(|v| (v.clone(), Def::Defined)).collect();
        // Dry run: find the variables that are sometimes defined, sometimes not.
        let mut s = start.clone();
        self.block(adjs, &mut s);
        for r in results {
            if get(&s, r) == Def::Maybe {
                self.maybe_seen.insert(r.clone());
            }
        }
        self.tracked = std::mem::take(&mut self.maybe_seen);
        self.emit = true;
        let mut s = start;
        let mut out = Vec::new();
        for v in &self.tracked {
            if !initial.contains(v) {
                out.push(Stmt::assign(&self.gname(v), Expr::synth(ExprKind::NoneLit)));
            }
        }
        out.extend(self.block(adjs, &mut s));
        let finals = results
            .iter()
            .map(|r| {
                let st = match get(&s, r) {
                    Def::Undef => "undefined",
                    Def::Maybe => "maybe",
                    Def::Defined => "defined",
                };
                (r.clone(), st)
            })
            .collect();
        (out, self.tracked.into_iter().collect(), finals)
    }

    fn note(&mut self, v: &str, d: Def) {
        if d == Def::Maybe {
            self.maybe_seen.insert(v.to_owned());
        }
    }

    fn block(&mut self, adjs: &[Adj], s: &mut State) -> Vec<Stmt> {
        let mut out = Vec::new();
        for a in adjs {
            self.one(a, s, &mut out);
        }
        out
    }

    fn one(&mut self, a: &Adj, s: &mut State, out: &mut Vec<Stmt>) {
        match a {
            Adj::Stmt(st) => {
                let mut st = st.clone();
                map_stmt_exprs(&mut st, &mut |e| self.finish(e));
                out.push(st);
            }
            Adj::Accum { var, value } => {
                let d = get(s, var);
                self.note(var, d);
                let g = self.gname(var);
                let value = self.finish(value);
                let rhs = match d {
                    Def::Undef => value,
                    _ => Expr::call_path("tangent.add_grad", vec![Expr::name(&g), value]),
                };
                out.push(Stmt::assign(&g, rhs));
                s.insert(var.clone(), Def::Defined);
            }
            Adj::AccumAt { var, index, value } => {
                let d = get(s, var);
                self.note(var, d);
                let g = self.gname(var);
                let current = match d {
                    Def::Undef => Expr::synth(ExprKind::NoneLit),
                    _ => Expr::name(&g),
                };
                let rhs = Expr::call_path(
                    "tangent.add_grad_at",
                    vec![
                        current,
                        Expr::name(var),
                        self.finish(index),
                        self.finish(value),
                    ],
                );
                out.push(Stmt::assign(&g, rhs));
                s.insert(var.clone(), Def::Defined);
            }
            Adj::ZeroAt { var, index } => {
                let d = get(s, var);
                self.note(var, d);
                if d == Def::Undef {
                    return;
                }
                let g = self.gname(var);
                let call = Expr::call_path(
                    "tangent.zero_grad_at",
                    vec![Expr::name(&g), self.finish(index)],
                );
                let st = Stmt::assign(&g, call);
                if d == Def::Maybe {
                    out.push(not_none_guard(&g, vec![st]));
                } else {
                    out.push(st);
                }
            }
            Adj::Rule { out: v, body } => {
                let d = get(s, v);
                self.note(v, d);
                match d {
                    Def::Undef => {}
                    Def::Defined => out.extend(self.block(body, s)),
                    Def::Maybe => {
                        let mut inner = s.clone();
                        let stmts = self.block(body, &mut inner);
                        *s = join_states(s, &inner);
                        out.push(not_none_guard(&self.gname(v), stmts));
                    }
                }
            }
            Adj::Phased { out: v, body } => {
                let d = get(s, v);
                self.note(v, d);
                if d != Def::Defined {
                    // No gradient, or maybe none, reached `v`: start from zeros.
                    let g = match d {
                        Def::Undef => Expr::synth(ExprKind::NoneLit),
                        _ => self.gexpr(v),
                    };
                    let zero = Expr::call_path("tangent.grad_or_zero", vec![g, Expr::name(v)]);
                    out.push(Stmt::assign(&self.gname(v), zero));
                    s.insert(v.clone(), Def::Defined);
                }
                out.extend(self.block(body, s));
            }
            Adj::Kill(v) => {
                if self.emit && self.tracked.contains(v) {
                    out.push(Stmt::assign(&self.gname(v), Expr::synth(ExprKind::NoneLit)));
                }
                s.insert(v.clone(), Def::Undef);
            }
            Adj::If(test, body, orelse) => {
                let mut a = s.clone();
                let mut b = s.clone();
                let sa = self.block(body, &mut a);
                let sb = self.block(orelse, &mut b);
                *s = join_states(&a, &b);
                out.push(Stmt::synth(StmtKind::If(self.finish(test), sa, sb)));
            }
            Adj::PushGrad { var, index, tape } => {
                let d = get(s, var);
                self.note(var, d);
                let g = match d {
                    Def::Undef => Expr::synth(ExprKind::NoneLit),
                    _ => self.gexpr(var),
                };
                let value = match index {
                    None => Expr::call_path("tangent.grad_or_zero", vec![g, Expr::name(var)]),
                    Some(i) => {
                        Expr::call_path("tangent.grad_at", vec![g, Expr::name(var), self.finish(i)])
                    }
                };
                out.push(crate::tape::push_on(Expr::name(tape), value));
            }
            Adj::ForIn { target, iter, body } => {
                let (stmts, head) = self.loop_body(body, s);
                *s = head;
                out.push(Stmt::synth(StmtKind::For(
                    self.finish(target),
                    self.finish(iter),
                    stmts,
                )));
            }
            Adj::Loop { count, body } => {
                let (stmts, head) = self.loop_body(body, s);
                *s = head;
                let range = Expr::call_path("range", vec![self.finish(count)]);
                out.push(Stmt::synth(StmtKind::For(Expr::name("_"), range, stmts)));
            }
        }
    }
}

impl Lowering<'_> {
    /// Lowers a loop body at the fixed point of "state at the head of the body" (the loop
    /// may run zero or more times); returns the statements and that state.
    fn loop_body(&mut self, body: &[Adj], s: &State) -> (Vec<Stmt>, State) {
        let emit = self.emit;
        self.emit = false;
        let mut head = s.clone();
        for _ in 0..8 {
            let mut after = head.clone();
            self.block(body, &mut after);
            let next = join_states(s, &after);
            if same(&next, &head) {
                break;
            }
            head = next;
        }
        self.emit = emit;
        let mut inner = head.clone();
        let stmts = self.block(body, &mut inner);
        (stmts, head)
    }
}

fn not_none_guard(g: &str, body: Vec<Stmt>) -> Stmt {
    let test = Expr::synth(ExprKind::Compare(
        Box::new(Expr::name(g)),
        vec![(CmpOp::IsNot, Expr::synth(ExprKind::NoneLit))],
    ));
    Stmt::synth(StmtKind::If(test, body, vec![]))
}

/// The marker expression for "gradient of `v`", for code built outside templates.
pub fn grad_ref(v: &str) -> Expr {
    Expr::name(grad_marker(v))
}

/// Marker name for "the gradient of `primal`", replaced by the real gradient name when
/// the adjoint is lowered. `\u{1}` cannot appear in a Python identifier.
pub fn grad_marker(primal: &str) -> String {
    format!("\u{1}{primal}")
}

pub fn parse_grad_marker(name: &str) -> Option<&str> {
    name.strip_prefix('\u{1}')
}

#[cfg(test)]
mod tests {
    use super::{grad_ref, Adj, Lowering};
    use crate::syntax::ir::*;
    use crate::syntax::visit::substitute;
    use crate::syntax::SourceModule;
    use std::collections::HashMap;

    /// A Python expression in which `d_v` is the gradient of `v`.
    fn e(text: &str) -> Expr {
        let module = SourceModule::parse("<test>", &format!("def g():\n    _ = {text}\n")).unwrap();
        let def = module.lower_function("g").unwrap();
        let StmtKind::Assign(_, mut value) = def.body[0].kind.clone() else {
            unreachable!("one assignment")
        };
        substitute(&mut value, &mut |x| {
            let n = x.as_name()?;
            n.strip_prefix("d_").map(grad_ref)
        });
        value
    }

    fn acc(var: &str, value: &str) -> Adj {
        Adj::Accum {
            var: var.into(),
            value: e(value),
        }
    }

    fn acc_at(var: &str, index: &str, value: &str) -> Adj {
        Adj::AccumAt {
            var: var.into(),
            index: e(index),
            value: e(value),
        }
    }

    fn rule(out: &str, body: Vec<Adj>) -> Adj {
        Adj::Rule {
            out: out.into(),
            body,
        }
    }

    /// Each case: adjoint statements lowered with the gradient of `y` defined on entry;
    /// the Python they become, then `x`'s state at the end (`x: defined`, `maybe` or
    /// `undefined`).
    fn check(cases: Vec<(Vec<Adj>, &str)>) {
        let names = HashMap::new();
        for (adjs, expect) in cases {
            let (stmts, _, finals) =
                Lowering::new(&names).lower(&adjs, &["y".into()], &["x".into()]);
            let mut out = String::new();
            if !stmts.is_empty() {
                crate::emit::printer::block(&mut out, &stmts, 0);
            }
            for (v, state) in finals {
                out.push_str(&format!("{v}: {state}\n"));
            }
            assert_eq!(out.trim_end(), expect.trim_end(), "from: {adjs:?}");
        }
    }

    #[test]
    fn the_first_contribution_assigns_and_later_ones_add() {
        check(vec![
            (
                vec![acc("x", "d_y * 2.0"), acc("x", "d_y")],
                "bx = by * 2.0\nbx = tangent.add_grad(bx, by)\nx: defined",
            ),
            (
                vec![acc_at("x", "i", "d_y"), acc_at("x", "j", "d_y")],
                "bx = tangent.add_grad_at(None, x, i, by)\nbx = tangent.add_grad_at(bx, x, j, by)\nx: defined",
            ),
            // A value restored to an older one: its gradient starts again.
            (
                vec![acc("x", "d_y"), Adj::Kill("x".into()), acc("x", "d_y * 2.0")],
                "bx = by\nbx = by * 2.0\nx: defined",
            ),
            (vec![], "x: undefined"),
        ]);
    }

    #[test]
    fn a_gradient_defined_on_some_paths_starts_as_none() {
        check(vec![
            (
                vec![Adj::If(e("c"), vec![acc("x", "d_y")], vec![])],
                "bx = None\nif c:\n    bx = by\nx: maybe",
            ),
            (
                vec![Adj::Loop {
                    count: e("n"),
                    body: vec![acc("x", "d_y")],
                }],
                "bx = None\nfor _ in range(n):\n    bx = tangent.add_grad(bx, by)\nx: maybe",
            ),
        ]);
    }

    #[test]
    fn a_rule_runs_only_where_its_gradient_can_be_defined() {
        check(vec![
            // No gradient reaches `z`: its rule is left out, `x` gets none.
            (vec![rule("z", vec![acc("x", "d_z")])], "x: undefined"),
            (
                vec![acc("z", "d_y"), rule("z", vec![acc("x", "d_z * 3.0")])],
                "bz = by\nbx = bz * 3.0\nx: defined",
            ),
            // Maybe: the rule runs when the gradient is there at run time.
            (
                vec![
                    Adj::If(e("c"), vec![acc("z", "d_y")], vec![]),
                    rule("z", vec![acc("x", "d_z * 3.0")]),
                ],
                "bx = None\nbz = None\nif c:\n    bz = by\nif bz is not None:\n    bx = bz * 3.0\nx: maybe",
            ),
            // Zeroing an element of a gradient that does not exist does nothing.
            (
                vec![Adj::ZeroAt {
                    var: "x".into(),
                    index: e("i"),
                }],
                "x: undefined",
            ),
        ]);
    }
}
