//! Tape entries the backward pass does without (one function holding both passes,
//! `optimized=True`).
//!
//! The generated code pushes a variable's old value before each assignment in a loop and
//! pops it at the mirrored point of the backward pass, so that every backward read sees
//! the value the forward pass had there. Two kinds of variables give that value without
//! the tape:
//!
//! - **Invariant**: every assignment is the same expression over literals, stable names,
//!   element and field reads of read-only containers, pure library calls and other
//!   invariants (`params['C']`, `params_item * params_item2`), and every read in the
//!   forward pass follows an assignment on every path. So every read, forward or
//!   backward, sees the expression's one value: its pushes and pops go.
//! - **Recomputed**: assigned once, at the top level of a `for` loop's body, read only by
//!   the statements after it in that body, from the targets of that loop and the loops
//!   around it, stable names, invariants, elements of read-only containers, variables
//!   recomputed before it and variables the loop carries (`_item = x[t]`,
//!   `item_minus_T = _item - T`), without calls: the backward loop computes it again at
//!   the first point where every operand holds the value it had (after the pop of the
//!   loop's target; before the pop of a carried variable it read after that variable's
//!   assignment, after the pop of one it read before), and before its first read,
//!   instead of popping it. A variable the tape never held is recomputed only where
//!   another needs it.
//!
//! Both need the forward pass to change no object but the locals it made and stores into:
//! every call pure (no user function, no in-place helper, nothing `effectful(...)`, no
//! `out=`), every store into a local made by a display or a library call that returns no
//! view, no augmented assignment of a name (an in-place `+=`). A name is *stable* when
//! its binding cannot change while the function runs: a parameter or module-level name
//! the code never assigns, or a local assigned once at the top level before the loop
//! that reads it; never a store's base, never assigned by the backward pass (pops aside).
//! A read-only container is a stable name or an invariant. A name also bound to None
//! has two values and keeps its tape entries. The decision is per variable, for all its
//! pushes and pops at once, so the tape's other entries stay aligned. Any doubt keeps
//! the tape entry.

use crate::syntax::ir::*;
use std::collections::{HashMap, HashSet};

/// What the pass needs to know about calls (from `backends/`, through the resolver).
pub struct Calls<'a> {
    /// Changes nothing: no argument, no global, no other object (tape calls aside).
    pub pure: &'a dyn Fn(&Expr) -> bool,
    /// Returns a new object, never an argument or a view of one.
    pub fresh: &'a dyn Fn(&Expr) -> bool,
    /// Variables the tape will hold only the shape of (`tape_liveness`): a recomputation
    /// never reads one, which would make the tape hold its whole value.
    pub shape_only: &'a HashSet<String>,
}

/// Removes the tape entries of invariant and recomputed variables from a function whose
/// forward pass `fwd` and backward pass `bwd` share one tape made here.
pub fn apply<'a>(
    fwd: Vec<Stmt>,
    mut bwd: Vec<Stmt>,
    params: &[String],
    calls: &Calls<'a>,
) -> (Vec<Stmt>, Vec<Stmt>) {
    // A checkpointed loop pushes again inside the backward pass: leave the tape alone.
    let mut bwd_pushes = false;
    walk_stmts(&bwd, &mut |s| bwd_pushes |= is_push(s));
    if bwd_pushes {
        return (fwd, bwd);
    }
    let facts = Facts::of(&fwd, &bwd, params, calls);
    let invariant = facts.invariants(&fwd);
    let recomputed = facts.recomputed(&fwd, &bwd, &invariant);
    if invariant.is_empty() && recomputed.is_empty() {
        return (fwd, bwd);
    }
    let gone: HashSet<&str> = invariant
        .iter()
        .map(String::as_str)
        .chain(recomputed.iter().map(|r| r.var.as_str()))
        .collect();
    // Positions are indices of the backward loop as it is: insert before dropping pops.
    let mut by_target: HashMap<&str, Vec<&Recompute>> = HashMap::new();
    for r in &recomputed {
        by_target.entry(r.target.as_str()).or_default().push(r);
    }
    for (target, rs) in by_target {
        insert_recomputations(&mut bwd, target, &rs);
    }
    (drop_tape(fwd, &gone), drop_tape(bwd, &gone))
}

/// A variable the backward pass computes again: `var = value` before the statement at
/// `position` of the backward loop that starts by popping `target`.
struct Recompute {
    var: String,
    value: Expr,
    target: String,
    position: usize,
}

/// What the forward and backward passes do with each name.
struct Facts<'a> {
    params: HashSet<&'a str>,
    /// Plain-name assignments of the forward pass: (right side, top level of the
    /// function, index among the top-level statements).
    assigns: HashMap<String, Vec<(&'a Expr, bool, usize)>>,
    /// Names bound otherwise in the forward pass (tuple targets, augmented assignments,
    /// `v = None`), and how many loops (`for`) bind each name as their target.
    other_binds: HashSet<String>,
    for_targets: HashMap<String, usize>,
    /// Bases of the forward pass's stores (`x[i] = ...`, `x.a = ...`).
    store_bases: HashSet<String>,
    /// Names the backward pass assigns other than by a pop.
    bwd_assigned: HashSet<String>,
    /// Names the forward pass pushes whole.
    pushed: HashSet<String>,
    /// Every call of the forward pass is pure.
    pure: bool,
    /// Every store of the forward pass goes into a local the function made.
    stores_fresh: bool,
    /// `Calls::shape_only`.
    shape_only: &'a HashSet<String>,
}

impl<'a> Facts<'a> {
    fn of(fwd: &'a [Stmt], bwd: &[Stmt], params: &'a [String], calls: &Calls<'a>) -> Facts<'a> {
        let mut f = Facts {
            params: params.iter().map(String::as_str).collect(),
            assigns: HashMap::new(),
            other_binds: HashSet::new(),
            for_targets: HashMap::new(),
            store_bases: HashSet::new(),
            bwd_assigned: HashSet::new(),
            pushed: HashSet::new(),
            pure: true,
            stores_fresh: true,
            shape_only: calls.shape_only,
        };
        for (i, s) in fwd.iter().enumerate() {
            f.forward(s, true, i, calls);
        }
        walk_stmts(bwd, &mut |s| {
            if popped_whole(s).is_some() {
                return;
            }
            match &s.kind {
                StmtKind::Assign(t, _) | StmtKind::AugAssign(t, _, _) | StmtKind::For(t, _, _) => {
                    // A store (`u[t] = tangent.pop(_stack)` restoring an element) changes
                    // its base; its index is read.
                    let mut names = Vec::new();
                    match &t.kind {
                        ExprKind::Subscript(base, _) | ExprKind::Attr(base, _) => {
                            base.names(&mut names)
                        }
                        _ => t.names(&mut names),
                    }
                    f.bwd_assigned.extend(names);
                }
                _ => {}
            }
        });
        // A store goes into a fresh local only if the local is made once and never given
        // another name's object.
        let fresh_locals: HashSet<String> = f
            .assigns
            .iter()
            .filter(|(n, defs)| {
                !f.params.contains(n.as_str())
                    && !f.other_binds.contains(*n)
                    && !f.for_targets.contains_key(*n)
                    && defs.iter().all(|(e, _, _)| fresh_value(e, calls))
            })
            .map(|(n, _)| n.clone())
            .collect();
        f.stores_fresh &= f.store_bases.iter().all(|b| fresh_locals.contains(b));
        f
    }

    fn forward(&mut self, s: &'a Stmt, top: bool, index: usize, calls: &Calls) {
        crate::syntax::visit::stmt_exprs(s, &mut |e| {
            e.walk(&mut |x| {
                if let ExprKind::Call { func, kwargs, .. } = &x.kind {
                    // `out=` writes into an array (as the e-graph passes assume too).
                    self.pure &= (calls.pure)(func) && !kwargs.iter().any(|(k, _)| k == "out");
                }
            })
        });
        if let Some(v) = pushed_whole(s) {
            self.pushed.insert(v);
        }
        match &s.kind {
            StmtKind::Assign(t, v) => match &t.kind {
                // A name also bound to None (`c = None` after its last use) has two
                // values: a backward read may see either.
                ExprKind::Name(_) if matches!(v.kind, ExprKind::NoneLit) => self.bind_other(t),
                ExprKind::Name(n) => {
                    self.assigns
                        .entry(n.clone())
                        .or_default()
                        .push((v, top, index));
                }
                ExprKind::Subscript(base, _) | ExprKind::Attr(base, _) => self.store(base),
                _ => self.bind_other(t),
            },
            StmtKind::AugAssign(t, _, _) => match &t.kind {
                ExprKind::Subscript(base, _) | ExprKind::Attr(base, _) => self.store(base),
                // `y += v` changes an array in place, which another name may hold.
                _ => {
                    self.stores_fresh = false;
                    self.bind_other(t)
                }
            },
            StmtKind::For(t, _, body) => {
                match t.as_name() {
                    Some(n) => *self.for_targets.entry(n.to_owned()).or_default() += 1,
                    None => self.bind_other(t),
                }
                for x in body {
                    self.forward(x, false, index, calls);
                }
            }
            StmtKind::If(_, a, b) => {
                for x in a.iter().chain(b) {
                    self.forward(x, false, index, calls);
                }
            }
            StmtKind::While(_, body) => {
                for x in body {
                    self.forward(x, false, index, calls);
                }
            }
            StmtKind::With(items, body) => {
                for (_, t) in items {
                    if let Some(t) = t {
                        self.bind_other(t);
                    }
                }
                for x in body {
                    self.forward(x, false, index, calls);
                }
            }
            _ => {}
        }
    }

    fn store(&mut self, base: &Expr) {
        match base.as_name() {
            Some(n) => {
                self.store_bases.insert(n.to_owned());
            }
            // `a[0][1] = v` changes the object `a[0]` holds: no local made it.
            None => {
                self.stores_fresh = false;
                let mut names = Vec::new();
                base.names(&mut names);
                self.store_bases.extend(names);
            }
        }
    }

    fn bind_other(&mut self, t: &Expr) {
        let mut names = Vec::new();
        t.names(&mut names);
        self.other_binds.extend(names);
    }

    /// Not unpacked, augmented or bound to None, not stored into, not assigned by the
    /// backward pass (pops aside).
    fn untouched(&self, n: &str) -> bool {
        !self.other_binds.contains(n)
            && !self.store_bases.contains(n)
            && !self.bwd_assigned.contains(n)
    }

    /// Assigned only as the plain name: not a parameter, not a loop target, `untouched`.
    fn plain(&self, n: &str) -> bool {
        !self.params.contains(n) && !self.for_targets.contains_key(n) && self.untouched(n)
    }

    /// Cannot change while the function runs; a local only after its one assignment, at
    /// the function's top level, before the statement at `before`.
    fn stable(&self, n: &str, before: usize) -> bool {
        if !self.pure
            || self.pushed.contains(n)
            || self.for_targets.contains_key(n)
            || !self.untouched(n)
        {
            return false;
        }
        match self.assigns.get(n) {
            // A parameter, or a module-level name (only a call could rebind it).
            None => true,
            Some(defs) => {
                !self.params.contains(n) && matches!(defs.as_slice(), [(_, true, i)] if *i < before)
            }
        }
    }

    /// Does the forward pass change no object but the locals it made and stores into?
    /// Otherwise a value the backward pass would read again (or keep from the last
    /// iteration) may be one a store through another name, or a call, changed since.
    fn unchanged_objects(&self) -> bool {
        self.pure && self.stores_fresh
    }

    /// A container whose elements or fields an expression at `at` may read.
    fn read_only(&self, n: &str, at: usize, invariant: &HashSet<String>) -> bool {
        self.unchanged_objects() && (self.stable(n, at) || invariant.contains(n))
    }

    /// Least fixed point: a variable is invariant once its one expression reads only
    /// literals, stable names, read-only containers and variables already invariant.
    fn invariants(&self, fwd: &[Stmt]) -> HashSet<String> {
        let mut out: HashSet<String> = HashSet::new();
        if !self.unchanged_objects() {
            return out;
        }
        let mut candidates: Vec<(&String, &Expr, usize)> = Vec::new();
        // Names the tape does not hold count too: their values feed the ones it does.
        for (v, defs) in &self.assigns {
            if !self.plain(v) {
                continue;
            }
            let first = crate::emit::printer::expr(defs[0].0);
            if defs
                .iter()
                .any(|(e, _, _)| crate::emit::printer::expr(e) != first)
            {
                continue;
            }
            let before = defs.iter().map(|d| d.2).min().unwrap_or(0);
            if reads_follow_assignment(fwd, v) {
                candidates.push((v, defs[0].0, before));
            }
        }
        loop {
            let before = out.len();
            for (v, e, at) in &candidates {
                if !out.contains(*v) && self.invariant_expr(e, *at, &out) {
                    out.insert((*v).clone());
                }
            }
            if out.len() == before {
                return out;
            }
        }
    }

    fn invariant_expr(&self, e: &Expr, at: usize, inv: &HashSet<String>) -> bool {
        let leaf = |n: &str| inv.contains(n) || self.stable(n, at);
        self.operands(e, &leaf, &|c| self.read_only(c, at, inv), true)
    }

    /// Is `e` made of literals, names `leaf` accepts, element and field reads of
    /// containers `container` accepts and pure operators (and pure calls, if `calls`)?
    fn operands(
        &self,
        e: &Expr,
        leaf: &dyn Fn(&str) -> bool,
        container: &dyn Fn(&str) -> bool,
        calls: bool,
    ) -> bool {
        let ok = |x: &Expr| self.operands(x, leaf, container, calls);
        match &e.kind {
            ExprKind::Num(_) | ExprKind::Str(_) | ExprKind::Bool(_) | ExprKind::NoneLit => true,
            ExprKind::Name(n) => leaf(n),
            ExprKind::Subscript(c, k) => c.as_name().is_some_and(container) && ok(k),
            ExprKind::Attr(c, _) => c.as_name().is_some_and(container),
            ExprKind::Tuple(es) => es.iter().all(ok),
            ExprKind::BinOp(_, a, b) => ok(a) && ok(b),
            ExprKind::Unary(_, a) => ok(a),
            ExprKind::Compare(a, rest) => ok(a) && rest.iter().all(|(_, x)| ok(x)),
            ExprKind::Slice(a, b, c) => [a, b, c].into_iter().flatten().all(|x| ok(x)),
            // A pure call of the forward pass (`pure` holds for all of them): a library
            // function, or a method of a value that qualifies itself.
            ExprKind::Call { func, args, kwargs } if calls && self.pure => {
                let receiver_ok = match &func.kind {
                    ExprKind::Name(_) => true,
                    ExprKind::Attr(recv, _) => {
                        let mut names = Vec::new();
                        recv.names(&mut names);
                        let module = names.iter().all(|n| {
                            !self.params.contains(n.as_str())
                                && !self.assigns.contains_key(n)
                                && !self.for_targets.contains_key(n)
                                && !self.other_binds.contains(n)
                        });
                        module || ok(recv)
                    }
                    _ => false,
                };
                let library = !crate::emit::printer::expr(func).starts_with("tangent.");
                library && receiver_ok && args.iter().all(ok) && kwargs.iter().all(|(_, x)| ok(x))
            }
            _ => false,
        }
    }

    /// The recomputed variables, in the order their loop's forward pass assigns them.
    fn recomputed(&self, fwd: &[Stmt], bwd: &[Stmt], inv: &HashSet<String>) -> Vec<Recompute> {
        let mut out = Vec::new();
        if !self.unchanged_objects() {
            return out;
        }
        self.loops(fwd, fwd, bwd, inv, &mut Vec::new(), None, &mut out);
        out
    }

    /// Visits every `for` loop of `stmts` (`enclosing`: the targets of the loops around;
    /// `top`: the index of the top-level statement holding `stmts`, None at the top).
    #[allow(clippy::too_many_arguments)]
    fn loops(
        &self,
        whole: &[Stmt],
        stmts: &[Stmt],
        bwd: &[Stmt],
        inv: &HashSet<String>,
        enclosing: &mut Vec<String>,
        top: Option<usize>,
        out: &mut Vec<Recompute>,
    ) {
        for (i, s) in stmts.iter().enumerate() {
            let at = top.unwrap_or(i);
            match &s.kind {
                StmtKind::For(t, _, body) => {
                    let target = t.as_name().filter(|n| {
                        self.for_targets.get(*n) == Some(&1)
                            && !self.assigns.contains_key(*n)
                            && self.untouched(n)
                    });
                    match target {
                        Some(target) => {
                            enclosing.push(target.to_owned());
                            let scope = Scope {
                                whole,
                                body,
                                inv,
                                enclosing,
                                at,
                            };
                            out.extend(self.loop_body(&scope, bwd));
                            self.loops(whole, body, bwd, inv, enclosing, Some(at), out);
                            enclosing.pop();
                        }
                        None => self.loops(whole, body, bwd, inv, enclosing, Some(at), out),
                    }
                }
                StmtKind::While(_, body) | StmtKind::With(_, body) => {
                    self.loops(whole, body, bwd, inv, enclosing, Some(at), out)
                }
                StmtKind::If(_, a, b) => {
                    self.loops(whole, a, bwd, inv, enclosing, Some(at), out);
                    self.loops(whole, b, bwd, inv, enclosing, Some(at), out);
                }
                _ => {}
            }
        }
    }

    /// The recomputed variables of one loop, each placed in its backward loop where all
    /// its operands hold the values they had when the forward pass assigned it.
    fn loop_body(&self, scope: &Scope, bwd: &[Stmt]) -> Vec<Recompute> {
        let body = scope.body;
        let target = scope.enclosing.last().expect("the loop's target");
        let Some((back, popped_targets)) = backward_loop(bwd, target) else {
            return Vec::new();
        };
        let inside_back = nested_in(back);
        // Where each variable the backward loop pops is popped (top level only).
        let mut pop_at: HashMap<String, usize> = HashMap::new();
        let mut nested_pops: HashSet<String> = HashSet::new();
        for (i, x) in back.iter().enumerate() {
            match popped_whole(x) {
                Some(v) => {
                    if pop_at.insert(v.clone(), i).is_some() {
                        nested_pops.insert(v);
                    }
                }
                None => walk_stmts(std::slice::from_ref(x), &mut |y| {
                    nested_pops.extend(popped_whole(y));
                }),
            }
        }
        // Variables assigned once in this body, at its top level (`assigned_at`), and
        // nowhere else inside the loop.
        let mut assigned_at: HashMap<&str, usize> = HashMap::new();
        let mut nested_assigns: HashSet<String> = HashSet::new();
        for (j, x) in body.iter().enumerate() {
            match &x.kind {
                StmtKind::Assign(t, _) if t.as_name().is_some() => {
                    let v = t.as_name().unwrap_or_default();
                    if assigned_at.insert(v, j).is_some() {
                        nested_assigns.insert(v.to_owned());
                    }
                }
                _ => walk_stmts(std::slice::from_ref(x), &mut |y| {
                    if let StmtKind::Assign(t, _) = &y.kind {
                        let mut names = Vec::new();
                        t.names(&mut names);
                        nested_assigns.extend(names);
                    }
                }),
            }
        }
        // Where each recomputed variable is inserted: before the statement of that index
        // of the backward loop's body (index 0 is the target's pop).
        let mut placed: HashMap<String, usize> = HashMap::new();
        let mut found: Vec<(Recompute, bool)> = Vec::new();
        for (j, s) in body.iter().enumerate() {
            let StmtKind::Assign(t, e) = &s.kind else {
                continue;
            };
            let Some(v) = t.as_name() else {
                continue;
            };
            let once = self.assigns.get(v).is_some_and(|d| d.len() == 1);
            if !once || scope.inv.contains(v) || !self.plain(v) || e.reads(v) {
                continue;
            }
            if nested_pops.contains(v) || self.read_outside(scope.whole, &body[j + 1..], v) {
                continue;
            }
            // The earliest point where every operand has its value from statement `j`,
            // and the latest (before a pop changes an operand read after its assignment).
            let mut earliest = 1usize;
            let mut latest = back.len();
            let mut ok = true;
            let mut names = Vec::new();
            e.names(&mut names);
            for n in &names {
                if scope.enclosing.contains(n) {
                    ok &= popped_targets.contains(n);
                } else if let Some(p) = placed.get(n) {
                    earliest = earliest.max(*p);
                } else if scope.inv.contains(n) || self.stable(n, scope.at) {
                } else if let (Some(&a), Some(&p)) = (assigned_at.get(n.as_str()), pop_at.get(n)) {
                    // A variable the loop carries: its value after its assignment until
                    // its pop, before it after.
                    let carried = self.plain(n)
                        && !nested_assigns.contains(n)
                        && !nested_pops.contains(n)
                        && self.pushed.contains(n)
                        && !self.shape_only.contains(n);
                    ok &= carried;
                    if a < j {
                        latest = latest.min(p);
                    } else {
                        earliest = earliest.max(p + 1);
                    }
                } else {
                    ok = false;
                }
            }
            let leaf = |_: &str| true; // names checked above
            ok &= self.operands(e, &leaf, &|c| self.read_only(c, scope.at, scope.inv), false);
            // Every backward read of `v` is in this loop, after the insertion point and
            // before the pop (which restores the previous iteration's value).
            let mut first_read = back.len();
            let mut last_read = 0;
            for (i, x) in back.iter().enumerate() {
                if popped_whole(x).as_deref() != Some(v) && stmt_reads_deep(x, v) {
                    first_read = first_read.min(i);
                    last_read = last_read.max(i);
                }
            }
            if let Some(&p) = pop_at.get(v) {
                ok &= last_read < p || first_read == back.len();
            }
            let mut read_outside = false;
            walk_stmts(bwd, &mut |x| {
                read_outside |= !inside_back.contains(&(x as *const Stmt))
                    && (stmt_reads(x, v) || popped_whole(x).as_deref() == Some(v));
            });
            let position = earliest;
            if !ok || read_outside || position > latest || position > first_read {
                continue;
            }
            placed.insert(v.to_owned(), position);
            found.push((
                Recompute {
                    var: v.to_owned(),
                    value: e.clone(),
                    target: target.clone(),
                    position,
                },
                self.pushed.contains(v),
            ));
        }
        // A variable the tape never held is recomputed only for another that needs it.
        let mut needed: HashSet<String> = found
            .iter()
            .filter(|(_, pushed)| *pushed)
            .map(|(r, _)| r.var.clone())
            .collect();
        for (r, _) in found.iter().rev() {
            if needed.contains(&r.var) {
                let mut names = Vec::new();
                r.value.names(&mut names);
                needed.extend(names);
            }
        }
        found
            .into_iter()
            .filter(|(r, _)| needed.contains(&r.var))
            .map(|(r, _)| r)
            .collect()
    }

    /// Is `v` read in the forward pass anywhere but in `later` (the statements after its
    /// assignment in its loop's body) and the pushes of it?
    fn read_outside(&self, whole: &[Stmt], later: &[Stmt], v: &str) -> bool {
        let inside = nested_in(later);
        let mut found = false;
        walk_stmts(whole, &mut |x| {
            found |= !inside.contains(&(x as *const Stmt)) && !is_push_of(x, v) && stmt_reads(x, v);
        });
        found
    }
}

/// The forward loop `loop_body` looks at.
struct Scope<'s> {
    whole: &'s [Stmt],
    body: &'s [Stmt],
    inv: &'s HashSet<String>,
    /// The targets of the loops around and this loop's, last.
    enclosing: &'s [String],
    /// The index of the top-level statement holding the loop.
    at: usize,
}

/// Every statement in `stmts`, nested ones included.
fn nested_in(stmts: &[Stmt]) -> HashSet<*const Stmt> {
    let mut out = HashSet::new();
    walk_stmts(stmts, &mut |x| {
        out.insert(x as *const Stmt);
    });
    out
}

/// The body of the one backward loop that starts by popping `target`, and the targets it
/// and the loops around it pop first thing.
fn backward_loop<'b>(bwd: &'b [Stmt], target: &str) -> Option<(&'b [Stmt], Vec<String>)> {
    fn visit<'b>(
        stmts: &'b [Stmt],
        target: &str,
        around: &mut Vec<String>,
        found: &mut Vec<(&'b [Stmt], Vec<String>)>,
    ) {
        for s in stmts {
            match &s.kind {
                StmtKind::For(_, _, body) | StmtKind::While(_, body) => {
                    let first = body.first().and_then(popped_whole);
                    if first.as_deref() == Some(target) {
                        let mut targets = around.clone();
                        targets.push(target.to_owned());
                        found.push((body, targets));
                    }
                    let pushed = first.is_some();
                    if let Some(t) = first {
                        around.push(t);
                    }
                    visit(body, target, around, found);
                    if pushed {
                        around.pop();
                    }
                }
                StmtKind::If(_, a, b) => {
                    visit(a, target, around, found);
                    visit(b, target, around, found);
                }
                StmtKind::With(_, body) => visit(body, target, around, found),
                _ => {}
            }
        }
    }
    let mut found = Vec::new();
    visit(bwd, target, &mut Vec::new(), &mut found);
    if found.len() == 1 {
        found.pop()
    } else {
        None
    }
}

/// Does every read of `v` in the forward pass follow an assignment of it (other than
/// `v = None`) on every path?
fn reads_follow_assignment(fwd: &[Stmt], v: &str) -> bool {
    fn block(stmts: &[Stmt], v: &str, assigned: &mut bool) -> bool {
        for s in stmts {
            match &s.kind {
                StmtKind::If(t, a, b) => {
                    if !*assigned && t.reads(v) {
                        return false;
                    }
                    let (mut x, mut y) = (*assigned, *assigned);
                    if !block(a, v, &mut x) || !block(b, v, &mut y) {
                        return false;
                    }
                    *assigned = x && y;
                }
                StmtKind::For(_, it, body) | StmtKind::While(it, body) => {
                    if !*assigned && it.reads(v) {
                        return false;
                    }
                    // The body may not run: what it assigns does not count after it.
                    let mut inner = *assigned;
                    if !block(body, v, &mut inner) {
                        return false;
                    }
                }
                StmtKind::With(_, body) => {
                    if !*assigned && stmt_reads(s, v) {
                        return false;
                    }
                    if !block(body, v, assigned) {
                        return false;
                    }
                }
                StmtKind::Assign(t, e) if t.as_name() == Some(v) => {
                    if matches!(e.kind, ExprKind::NoneLit) {
                        continue;
                    }
                    if !*assigned && e.reads(v) {
                        return false;
                    }
                    *assigned = true;
                }
                _ => {
                    if !*assigned && !is_push_of(s, v) && stmt_reads(s, v) {
                        return false;
                    }
                }
            }
        }
        true
    }
    block(fwd, v, &mut false)
}

/// Does the simple statement `s` (or the header of a compound one) read `v`?
fn stmt_reads(s: &Stmt, v: &str) -> bool {
    let mut found = false;
    match &s.kind {
        StmtKind::Assign(t, e) => {
            found = e.reads(v) || (t.as_name().is_none() && t.reads(v));
        }
        _ => crate::syntax::visit::stmt_exprs(s, &mut |e| found |= e.reads(v)),
    }
    found
}

fn is_push(s: &Stmt) -> bool {
    matches!(&s.kind, StmtKind::ExprStmt(e) if crate::tape::is_stack_call(e, "push"))
}

/// `tangent.push(_stack, v)` -> `v`.
fn pushed_whole(s: &Stmt) -> Option<String> {
    let StmtKind::ExprStmt(e) = &s.kind else {
        return None;
    };
    if !crate::tape::is_stack_call(e, "push") {
        return None;
    }
    let ExprKind::Call { args, .. } = &e.kind else {
        return None;
    };
    args.get(1)?.as_name().map(str::to_owned)
}

fn is_push_of(s: &Stmt, v: &str) -> bool {
    pushed_whole(s).as_deref() == Some(v)
}

/// `v = tangent.pop(_stack)` -> `v`.
fn popped_whole(s: &Stmt) -> Option<String> {
    let StmtKind::Assign(t, e) = &s.kind else {
        return None;
    };
    if !crate::tape::is_stack_call(e, "pop") {
        return None;
    }
    t.as_name().map(str::to_owned)
}

/// Is `e` a value no other name holds?
fn fresh_value(e: &Expr, calls: &Calls) -> bool {
    match &e.kind {
        ExprKind::List(_) | ExprKind::Dict(..) | ExprKind::Tuple(_) => true,
        ExprKind::Call { func, .. } => (calls.fresh)(func),
        _ => false,
    }
}

/// Drops the pushes and pops of the names in `gone`.
fn drop_tape(stmts: Vec<Stmt>, gone: &HashSet<&str>) -> Vec<Stmt> {
    super::filter(stmts, &|s| {
        pushed_whole(s)
            .or_else(|| popped_whole(s))
            .is_some_and(|v| gone.contains(v.as_str()))
    })
}

/// Puts each `var = value` of `rs` (in their order) before the statement at its position
/// of the backward loop that starts by popping `target`.
fn insert_recomputations(stmts: &mut [Stmt], target: &str, rs: &[&Recompute]) -> bool {
    stmts.iter_mut().any(|s| match &mut s.kind {
        StmtKind::For(_, _, body) | StmtKind::While(_, body) => {
            let starts = body
                .first()
                .and_then(popped_whole)
                .is_some_and(|t| t == target);
            if !starts {
                return insert_recomputations(body, target, rs);
            }
            let old = std::mem::take(body);
            for (i, x) in old.into_iter().enumerate() {
                let here: Vec<&&Recompute> = rs.iter().filter(|r| r.position == i).collect();
                if !here.is_empty() {
                    body.push(Stmt::synth(StmtKind::Comment(
                        "Values of this step, computed again rather than saved".into(),
                    )));
                }
                for r in here {
                    body.push(Stmt::assign(&r.var, r.value.clone()));
                }
                body.push(x);
            }
            true
        }
        StmtKind::If(_, a, b) => {
            insert_recomputations(a, target, rs) || insert_recomputations(b, target, rs)
        }
        StmtKind::With(_, body) => insert_recomputations(body, target, rs),
        _ => false,
    })
}

/// Does `s` or a statement nested in it read `v`?
fn stmt_reads_deep(s: &Stmt, v: &str) -> bool {
    let mut found = false;
    walk_stmts(std::slice::from_ref(s), &mut |x| found |= stmt_reads(x, v));
    found
}

#[cfg(test)]
mod tests {
    use crate::syntax::ir::*;
    use crate::syntax::SourceModule;

    /// The pass over `fwd` and `bwd` (the bodies of two functions of `src`; `fwd`'s
    /// parameters are the function's), `len`/`range`/`np.tanh` pure, `np.zeros` fresh;
    /// both passes printed after it.
    fn after(src: &str) -> (String, String) {
        let module = SourceModule::parse("<test>", src).unwrap();
        let mut fwd = module.lower_function("fwd").unwrap();
        let mut bwd = module.lower_function("bwd").unwrap();
        let params: Vec<String> = fwd.params.iter().map(|p| p.name.clone()).collect();
        let known = |f: &Expr| {
            let name = crate::emit::printer::expr(f);
            matches!(
                name.as_str(),
                "len" | "range" | "np.tanh" | "np.zeros" | "tangent.push" | "tangent.pop"
            )
        };
        let fresh = |f: &Expr| crate::emit::printer::expr(f) == "np.zeros";
        let none = std::collections::HashSet::new();
        let calls = super::Calls {
            pure: &known,
            fresh: &fresh,
            shape_only: &none,
        };
        let (f, b) = super::apply(fwd.body, bwd.body, &params, &calls);
        fwd.body = f;
        bwd.body = b;
        (
            crate::emit::printer::function(&fwd),
            crate::emit::printer::function(&bwd),
        )
    }

    /// A loop reading a dict constant and an element, carrying `s`.
    const BUILDING: &str = "\
def fwd(x, p):
    s = 0.0
    tangent.push(_stack, t)
    for t in range(len(x)):
        tangent.push(_stack, c)
        c = p['C']
        tangent.push(_stack, a)
        a = x[t]
        tangent.push(_stack, d)
        d = a - s
        tangent.push(_stack, s)
        s = s + c * d
        tangent.push(_stack, e)
        e = s * a
        tangent.push(_stack, t)

def bwd(x, p):
    for _ in range(_n_t):
        t = tangent.pop(_stack)
        be = g(e)
        e = tangent.pop(_stack)
        bs = h(bs)
        s = tangent.pop(_stack)
        bd = k(d, bs, c)
        d = tangent.pop(_stack)
        ba = m(a, bd)
        a = tangent.pop(_stack)
        c = tangent.pop(_stack)
    t = tangent.pop(_stack)
";

    #[test]
    fn invariants_go_and_reads_are_recomputed_where_their_operands_hold() {
        let (fwd, bwd) = after(BUILDING);
        for v in ["c", "a", "d", "e"] {
            assert!(!fwd.contains(&format!("push(_stack, {v})")), "{v}:\n{fwd}");
            assert!(!bwd.contains(&format!("{v} = tangent.pop")), "{v}:\n{bwd}");
        }
        assert!(fwd.contains("push(_stack, s)"), "{fwd}");
        assert!(bwd.contains("s = tangent.pop(_stack)"), "{bwd}");
        // `e` reads `s` after its assignment: before s's pop; `d` reads it before: after.
        let at = |needle: &str| {
            bwd.find(needle)
                .unwrap_or_else(|| panic!("{needle}:\n{bwd}"))
        };
        assert!(at("t = tangent.pop") < at("a = x[t]"), "{bwd}");
        assert!(at("a = x[t]") < at("e = s * a"), "{bwd}");
        assert!(at("e = s * a") < at("be = g(e)"), "{bwd}");
        assert!(at("s = tangent.pop") < at("d = a - s"), "{bwd}");
        assert!(at("d = a - s") < at("bd = k(d, bs, c)"), "{bwd}");
        assert!(
            !bwd.contains("c = p["),
            "an invariant is never recomputed:\n{bwd}"
        );
    }

    /// Each of these keeps every tape entry of the loop: the values could differ between
    /// the forward and the backward pass.
    #[test]
    fn doubt_keeps_the_tape() {
        for (what, change) in [
            ("a call that may change anything", "        helper(x)\n"),
            (
                "a store through an alias",
                "        y = x\n        y[0] = 1.0\n",
            ),
            ("an in-place +=", "        q = p\n        q += 1.0\n"),
            ("a store into the container", "        p['C'] = 2.0\n"),
            ("out=", "        np.tanh(x, out=x)\n"),
        ] {
            let src = BUILDING.replace(
                "        tangent.push(_stack, t)\n\ndef bwd",
                &format!("{change}        tangent.push(_stack, t)\n\ndef bwd"),
            );
            let (fwd, bwd) = after(&src);
            for v in ["c", "a", "d", "e"] {
                assert!(
                    fwd.contains(&format!("push(_stack, {v})")),
                    "{what}: {v}\n{fwd}"
                );
                assert!(
                    bwd.contains(&format!("{v} = tangent.pop")),
                    "{what}: {v}\n{bwd}"
                );
            }
        }
    }

    #[test]
    fn a_name_with_a_second_value_keeps_its_tape() {
        // Bound to None after its last use; read after the loop; read by the next
        // iteration before its assignment.
        for (from, to, v) in [
            (
                "        e = s * a\n",
                "        e = s * a\n        c = None\n",
                "c",
            ),
            (
                "        tangent.push(_stack, t)\n\n",
                "        tangent.push(_stack, t)\n    z = a\n\n",
                "a",
            ),
            ("        d = a - s\n", "        d = a - s + e\n", "e"),
        ] {
            let (fwd, _) = after(&BUILDING.replace(from, to));
            assert!(fwd.contains(&format!("push(_stack, {v})")), "{v}:\n{fwd}");
        }
    }

    #[test]
    fn a_checkpointed_loop_is_left_alone() {
        let src = BUILDING.replace(
            "        c = tangent.pop(_stack)\n",
            "        c = tangent.pop(_stack)\n        tangent.push(_stack, c)\n",
        );
        let (fwd, _) = after(&src);
        assert!(fwd.contains("push(_stack, c)"), "{fwd}");
        assert!(fwd.contains("push(_stack, a)"), "{fwd}");
    }
}
