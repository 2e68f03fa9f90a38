//! Tape entries native code leaves out. The generated source pushes a variable's old
//! value before each assignment and pops it in the backward pass, so the backward pass
//! reads every value as the forward pass had it. Native code knows each variable's type
//! and that nothing else runs during the call, so for some numbers the push and its pop
//! change nothing it computes:
//!
//! - **Shape-only**: every backward read of the variable that a popped value can reach
//!   is in a position that needs only the shape (`unbroadcast(g, like)`, declared in
//!   `backends/` and found by the tape-liveness analysis), and the variable is a number:
//!   native code does not evaluate such a position at all.
//! - **Invariant**: every assignment of the variable (a pop aside) is the same
//!   expression over literals, values of read-only dicts (`params['C']`: the dict's
//!   values are copied when the call starts) and other invariant variables, or `None`.
//!   Its only other value is `None`, which a backward read never sees in Python (the
//!   read's primal statement read the same value, and computing with `None` raises) and
//!   which bails here; so every read gets the expression's one value.
//!
//! Both need every push and pop of the variable in this function: the tape must be made
//! here, not passed in (a split forward or backward pass sees only half of the pairs).
//! The decision is per variable, for all its pushes and pops at once, so the tape's other
//! entries stay aligned.

use super::typing::{Ty, VarTy};
use crate::rules::RuleSet;
use crate::syntax::ir::*;
use std::collections::{HashMap, HashSet};

/// The variables of `def` whose pushes and pops native code leaves out.
pub fn elided(def: &FuncDef, types: &HashMap<String, VarTy>, rules: &RuleSet) -> HashSet<String> {
    let params: HashSet<&str> = def.params.iter().map(|p| p.name.as_str()).collect();
    let tape_made_here = types
        .iter()
        .filter(|(_, t)| t.ty == Some(Ty::Tape))
        .all(|(n, _)| !params.contains(n.as_str()));
    if !tape_made_here {
        return HashSet::new();
    }
    let uses = Uses::of(&def.body);
    let number = |n: &str| {
        types
            .get(n)
            .and_then(|t| t.ty)
            .is_some_and(|t| matches!(t, Ty::Float | Ty::Int | Ty::Bool))
    };
    let candidates: Vec<&String> = uses
        .pushed
        .iter()
        .filter(|n| uses.popped.contains(*n) && !params.contains(n.as_str()) && number(n))
        .collect();
    let invariant = invariants(&uses, types, &params);
    candidates
        .into_iter()
        .filter(|n| {
            invariant.contains(*n)
                || crate::opt::tape_liveness::shape_only_in_backward(rules, &def.body, n)
        })
        .cloned()
        .collect()
}

/// What the body does with each name.
#[derive(Default)]
struct Uses {
    /// Names pushed whole (`tangent.push(_stack, v)`).
    pushed: HashSet<String>,
    /// Names popped (`v = tangent.pop(_stack)`).
    popped: HashSet<String>,
    /// The other right-hand sides assigned to each plain name, `None` aside.
    defs: HashMap<String, Vec<Expr>>,
    /// Names assigned `None` (the generated code's `v = None` before a first push).
    nones: HashSet<String>,
    /// Names assigned some other way (augmented, unpacked, a loop's target) or read
    /// where a `None` would not raise (`is`, returned, passed to a call).
    irregular: HashSet<String>,
}

impl Uses {
    fn of(body: &[Stmt]) -> Uses {
        let mut u = Uses::default();
        walk_stmts(body, &mut |s| u.stmt(s));
        // `None` assigned inside a loop or branch may be the value at the end of the
        // forward pass: reads after it would bail where the pops restore a number.
        for s in body {
            let inner: &[&[Stmt]] = match &s.kind {
                StmtKind::If(_, a, b) => &[a, b],
                StmtKind::For(_, _, b) | StmtKind::While(_, b) | StmtKind::With(_, b) => &[b],
                _ => &[],
            };
            for b in inner {
                walk_stmts(b, &mut |s| u.irregular.extend(none_target(s)));
            }
        }
        u
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Assign(t, v) => match t.as_name() {
                Some(n) if crate::tape::is_stack_call(v, "pop") => {
                    self.popped.insert(n.to_owned());
                }
                Some(n) if matches!(v.kind, ExprKind::NoneLit) => {
                    self.nones.insert(n.to_owned());
                }
                Some(n) => self.defs.entry(n.to_owned()).or_default().push(v.clone()),
                None => self.targets(t),
            },
            StmtKind::AugAssign(t, _, _) | StmtKind::For(t, _, _) => self.targets(t),
            StmtKind::With(items, _) => {
                for (_, t) in items {
                    if let Some(t) = t {
                        self.targets(t);
                    }
                }
            }
            StmtKind::ExprStmt(e) if crate::tape::is_stack_call(e, "push") => {
                if let ExprKind::Call { args, .. } = &e.kind {
                    if let Some(n) = args.get(1).and_then(|a| a.as_name()) {
                        self.pushed.insert(n.to_owned());
                        return;
                    }
                }
            }
            StmtKind::Return(Some(e)) => self.tolerant_reads(e),
            _ => {}
        }
        crate::syntax::visit::stmt_exprs(s, &mut |e| self.expr(e));
    }

    /// Every name in an assignment target that is not a plain name.
    fn targets(&mut self, t: &Expr) {
        let mut names = Vec::new();
        collect_names(t, &mut names);
        self.irregular.extend(names);
    }

    /// Names read where Python accepts `None` (the whole value, or a tuple's items).
    fn tolerant_reads(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Name(n) => {
                self.irregular.insert(n.clone());
            }
            ExprKind::Tuple(es) | ExprKind::List(es) => {
                for x in es {
                    self.tolerant_reads(x);
                }
            }
            _ => {}
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Compare(a, rest)
                if rest
                    .iter()
                    .any(|(op, _)| matches!(op, CmpOp::Is | CmpOp::IsNot)) =>
            {
                self.tolerant_reads(a);
                for (_, x) in rest {
                    self.tolerant_reads(x);
                }
            }
            // A function of the program (a bare name, not a dotted helper) may take None.
            ExprKind::Call { func, args, kwargs } if func.as_name().is_some() => {
                for a in args.iter().chain(kwargs.iter().map(|(_, a)| a)) {
                    self.tolerant_reads(a);
                }
            }
            _ => {}
        }
        crate::syntax::lift::each_child(e, &mut |c| self.expr(c));
    }
}

fn none_target(s: &Stmt) -> Option<String> {
    match &s.kind {
        StmtKind::Assign(t, v) if matches!(v.kind, ExprKind::NoneLit) => {
            t.as_name().map(str::to_owned)
        }
        _ => None,
    }
}

fn collect_names(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Name(n) => out.push(n.clone()),
        ExprKind::Tuple(es) | ExprKind::List(es) => {
            for x in es {
                collect_names(x, out);
            }
        }
        _ => {}
    }
}

/// The least fixed point: a variable is invariant when all its assignments are one
/// expression whose names are read-only dicts or records (never assigned here, read by
/// a literal key or a field) or invariant variables.
fn invariants(
    uses: &Uses,
    types: &HashMap<String, VarTy>,
    params: &HashSet<&str>,
) -> HashSet<String> {
    let assigned = |n: &str| {
        uses.defs.contains_key(n)
            || uses.nones.contains(n)
            || uses.popped.contains(n)
            || uses.irregular.contains(n)
    };
    // Dicts and records: their values are read by key or field only.
    let dict = |n: &str| {
        matches!(
            types.get(n).and_then(|t| t.ty),
            Some(Ty::Dict(_) | Ty::Record(_))
        ) && !assigned(n)
    };
    let mut inv: HashSet<String> = HashSet::new();
    loop {
        let before = inv.len();
        for (n, defs) in &uses.defs {
            if inv.contains(n) || uses.irregular.contains(n) || params.contains(n.as_str()) {
                continue;
            }
            let first = crate::emit::printer::expr(&defs[0]);
            let one = defs.iter().all(|d| crate::emit::printer::expr(d) == first);
            if one && constant_over(&defs[0], &inv, &dict) {
                inv.insert(n.clone());
            }
        }
        if inv.len() == before {
            return inv;
        }
    }
}

/// Is `e` built from literals, `d['key']` of a read-only dict `d` and names in `inv`?
fn constant_over(e: &Expr, inv: &HashSet<String>, dict: &dyn Fn(&str) -> bool) -> bool {
    match &e.kind {
        ExprKind::Num(_) | ExprKind::Bool(_) => true,
        ExprKind::Name(n) => inv.contains(n),
        // A dict's value by a literal key, or a record's field (typing has checked
        // which of the two each name is).
        ExprKind::Subscript(base, key) => {
            matches!(key.kind, ExprKind::Str(_)) && base.as_name().is_some_and(dict)
        }
        ExprKind::Attr(base, _) => base.as_name().is_some_and(dict),
        ExprKind::BinOp(_, a, b) => constant_over(a, inv, dict) && constant_over(b, inv, dict),
        ExprKind::Unary(_, a) => constant_over(a, inv, dict),
        _ => false,
    }
}
