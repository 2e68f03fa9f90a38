//! Which local names may hold an object that another name (or the caller) also holds.
//!
//! Desugaring rewrites in-place updates as new values: `y += x` becomes `y = y + x` and
//! `xs.append(v)` becomes `xs = xs + [v]`, and a subscript store is differentiated as a
//! change of its base alone. That is exact only when no other name sees the object: after
//! `y = x`, NumPy's `y += x` doubles `x` too, and a store through a view `v = x[0:2]`
//! changes `x`. This analysis finds where that cannot be ruled out, so desugaring can
//! refuse the update with a located diagnostic (a subscript store or an `append`, which
//! always mutate) or guard it at run time (`tangent.check_inplace`: an augmented
//! assignment mutates only a mutable object, and rebinds a float or an int).
//!
//! Conservative. A name's object is *shared* if the name is a parameter (the caller's
//! object), if some assignment gives it a value that may be another name's object (a name,
//! a subscript or attribute, a user function's result, a library function declared
//! `returns_view(...)` in `backends/`), or if some statement hands its object to another
//! name or container. A *part* of a name's object (a view or an element: `v = x[0:2]`,
//! `for row in m`) is harmless to a later store into `x` unless `v` is read after that
//! store (the tape restores `x` before the backward pass reads `v` again), so a store into
//! `x` is refused only then.

use crate::emit::printer;
use crate::resolve::{Callee, Resolver};
use crate::rules::RuleSet;
use crate::syntax::ir::*;
use std::collections::HashMap;

/// What desugaring needs to know.
#[derive(Default, Debug)]
pub struct Aliasing {
    /// Names whose whole object another name may hold, with the reason.
    whole: HashMap<String, String>,
    /// Names with a part held by another name (an in-place `+=` would show through it).
    parted: HashMap<String, String>,
    /// Subscript stores (by the statement's span) that another name would see.
    bad_stores: HashMap<(u32, u32), String>,
}

impl Aliasing {
    /// Why `xs.append(...)` would be seen through another name, if it would.
    pub fn whole(&self, name: &str) -> Option<&str> {
        self.whole.get(name).map(String::as_str)
    }
    /// Why an in-place update of `name` may be seen through another name, if it may.
    pub fn any(&self, name: &str) -> Option<&str> {
        self.whole(name)
            .or_else(|| self.parted.get(name).map(String::as_str))
    }
    /// Why the store statement at `span` would be seen through another name, if it would.
    pub fn bad_store(&self, span: Span) -> Option<&str> {
        self.bad_stores
            .get(&(span.start, span.end))
            .map(String::as_str)
    }
}

/// `generated`: the body is a derivative being differentiated again. Its views follow the
/// tape's discipline (every store is undone before the backward pass reads an older
/// value), which the primal's own check established, so only whole-object sharing is
/// checked there.
pub fn analyze(
    params: &[String],
    body: &[Stmt],
    resolver: &Resolver,
    rules: &RuleSet,
    generated: bool,
) -> Aliasing {
    let mut a = Analysis {
        resolver,
        rules,
        whole: HashMap::new(),
        parts: HashMap::new(),
        reads: HashMap::new(),
        binds: HashMap::new(),
        stores: Vec::new(),
        pos: 0,
        loops: Vec::new(),
        next_loop: 0,
    };
    for p in params {
        a.whole.insert(
            p.clone(),
            format!("`{p}` is a parameter: its object belongs to the caller"),
        );
    }
    a.block(body);
    let mut out = Aliasing {
        whole: a.whole.clone(),
        ..Default::default()
    };
    for (base, parts) in &a.parts {
        if let Some((_, why)) = parts.first() {
            out.parted.insert(base.clone(), why.clone());
        }
    }
    for (span, base, pos, loops) in &a.stores {
        let why = a.whole.get(base).cloned().or_else(|| {
            if generated {
                return None;
            }
            a.parts.get(base)?.iter().find_map(|(v, why)| {
                // A read in a later statement, or earlier in an enclosing loop (the next
                // iteration) unless the loop binds `v` again before reading it.
                let rebound_before = |p: usize, lp: &[usize]| {
                    a.binds.get(v).is_some_and(|bs| {
                        bs.iter().any(|(b, lb)| {
                            *b < p && lb.iter().any(|x| lp.contains(x) && loops.contains(x))
                        })
                    })
                };
                let later = a.reads.get(v)?.iter().any(|(p, l)| {
                    *p > *pos || (l.iter().any(|x| loops.contains(x)) && !rebound_before(*p, l))
                });
                later.then(|| format!("{why}, and `{v}` is read after this store"))
            })
        });
        if let Some(why) = why {
            out.bad_stores.insert((span.start, span.end), why);
        }
    }
    out
}

type Place = (usize, Vec<usize>);

struct Analysis<'a> {
    resolver: &'a Resolver<'a>,
    rules: &'a RuleSet,
    whole: HashMap<String, String>,
    /// base -> (name holding a part of it, reason)
    parts: HashMap<String, Vec<(String, String)>>,
    reads: HashMap<String, Vec<Place>>,
    binds: HashMap<String, Vec<Place>>,
    stores: Vec<(Span, String, usize, Vec<usize>)>,
    pos: usize,
    loops: Vec<usize>,
    next_loop: usize,
}

fn first_line(s: &Stmt) -> String {
    let mut text = String::new();
    printer::stmt(&mut text, s, 0);
    text.lines().next().unwrap_or_default().trim().to_owned()
}

impl Analysis<'_> {
    fn block(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.pos += 1;
            self.stmt(s);
        }
    }

    fn read(&mut self, e: &Expr) {
        let mut names = Vec::new();
        e.names(&mut names);
        let place = (self.pos, self.loops.clone());
        for n in names {
            self.reads.entry(n).or_default().push(place.clone());
        }
    }

    fn bound(&mut self, names: &[String]) {
        let place = (self.pos, self.loops.clone());
        for n in names {
            self.binds.entry(n.clone()).or_default().push(place.clone());
        }
    }

    fn mark_whole(&mut self, name: &str, s: &Stmt) {
        if !self.whole.contains_key(name) {
            let why = format!(
                "after `{}`, `{name}` may hold the same object as another name",
                first_line(s)
            );
            self.whole.insert(name.to_owned(), why);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Assign(target, value) | StmtKind::AugAssign(target, _, value) => {
                self.read(value);
                if let ExprKind::Subscript(base, index) = &target.kind {
                    self.read(base);
                    self.read(index);
                    if let Some(b) = base.as_name() {
                        self.stores
                            .push((s.span, b.to_owned(), self.pos, self.loops.clone()));
                    }
                }
                if let StmtKind::AugAssign(..) = &s.kind {
                    self.read(target);
                } else {
                    self.bind(target, value, s);
                }
                let mut holders = Vec::new();
                target.bound_names(&mut |n| holders.push(n.to_owned()));
                self.bound(&holders);
                self.exposed(value, &holders, s);
            }
            StmtKind::For(target, iter, body) => {
                self.read(iter);
                if !self.resolver.is_range_call(iter) {
                    // The target holds elements (or rows: views) of the iterable.
                    let mut holders = Vec::new();
                    target.bound_names(&mut |n| holders.push(n.to_owned()));
                    for n in &holders {
                        self.mark_whole(n, s);
                    }
                    self.loops.push(self.next_loop + 1);
                    self.bound(&holders);
                    self.loops.pop();
                    let mut exposed = Vec::new();
                    self.exposes(iter, false, &mut exposed);
                    self.record(exposed, &holders, s);
                }
                self.in_loop(body);
            }
            StmtKind::While(test, body) => {
                self.read(test);
                self.in_loop(body);
            }
            StmtKind::If(test, a, b) => {
                self.read(test);
                self.block(a);
                self.block(b);
            }
            // Saving a value on the tape of differentiated generated code: the backward
            // pass pops it after undoing every later store, so it reads what it saved.
            StmtKind::ExprStmt(e) if crate::tape::is_tape_push(e) => {}
            StmtKind::ExprStmt(e) => {
                self.read(e);
                // `xs.append(v)`: the list holds v's object.
                if let ExprKind::Call { func, args, .. } = &e.kind {
                    if let ExprKind::Attr(recv, m) = &func.kind {
                        if m == "append" {
                            let holders: Vec<String> =
                                recv.as_name().into_iter().map(str::to_owned).collect();
                            for a in args {
                                self.exposed(a, &holders, s);
                            }
                        }
                    }
                }
            }
            StmtKind::Return(Some(e)) => self.read(e),
            StmtKind::Assert(t, m) => {
                self.read(t);
                if let Some(m) = m {
                    self.read(m)
                }
            }
            _ => {}
        }
    }

    fn in_loop(&mut self, body: &[Stmt]) {
        self.next_loop += 1;
        self.loops.push(self.next_loop);
        self.block(body);
        self.loops.pop();
    }

    /// `target = value`: the names of `target` are shared if the value may be an object
    /// another name holds.
    fn bind(&mut self, target: &Expr, value: &Expr, s: &Stmt) {
        match (&target.kind, &value.kind) {
            (ExprKind::Name(n), _) if !self.fresh(value) => self.mark_whole(n, s),
            (
                ExprKind::Tuple(ts) | ExprKind::List(ts),
                ExprKind::Tuple(vs) | ExprKind::List(vs),
            ) if ts.len() == vs.len() => {
                for (t, v) in ts.iter().zip(vs) {
                    self.bind(t, v, s);
                }
            }
            (ExprKind::Tuple(_) | ExprKind::List(_), _) => {
                // Unpacking: the parts are elements of another object.
                let mut names = Vec::new();
                target.bound_names(&mut |n| names.push(n.to_owned()));
                for n in names {
                    self.mark_whole(&n, s);
                }
            }
            _ => {}
        }
    }

    /// Records the names whose object (or a part of it) `value` may hand to `holders`.
    fn exposed(&mut self, value: &Expr, holders: &[String], s: &Stmt) {
        let mut names = Vec::new();
        self.exposes(value, true, &mut names);
        self.record(names, holders, s);
    }

    fn record(&mut self, exposed: Vec<(String, bool)>, holders: &[String], s: &Stmt) {
        for (n, whole) in exposed {
            if whole || holders.is_empty() {
                self.mark_whole(&n, s);
            } else {
                for v in holders {
                    let why = format!("after `{}`, `{v}` may be a view of `{n}`", first_line(s));
                    self.parts
                        .entry(n.clone())
                        .or_default()
                        .push((v.clone(), why));
                }
            }
        }
    }

    /// Is `e` certainly a new object (or an immutable value), never one a name holds?
    fn fresh(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Num(_)
            | ExprKind::Str(_)
            | ExprKind::Bool(_)
            | ExprKind::NoneLit
            | ExprKind::BinOp(..)
            | ExprKind::Unary(..)
            | ExprKind::Compare(..)
            | ExprKind::BoolOp(..)
            | ExprKind::List(_)
            | ExprKind::Tuple(_)
            | ExprKind::Dict(..)
            | ExprKind::ListComp(..)
            | ExprKind::Lambda(..) => true,
            ExprKind::IfExp { body, orelse, .. } => self.fresh(body) && self.fresh(orelse),
            ExprKind::Call { func, .. } => match self.resolver.callee(func) {
                Callee::Library(q) | Callee::Method(q) => !self.rules.returns_view(&q),
                Callee::User(_) | Callee::Custom(_) | Callee::Unknown(_) => false,
            },
            ExprKind::Name(_)
            | ExprKind::Attr(..)
            | ExprKind::Subscript(..)
            | ExprKind::Slice(..) => self.resolver.is_module_attr(e),
        }
    }

    /// The local names whose objects `e` may return: the object itself (`whole`), or a
    /// part of it (a view or an element).
    fn exposes(&self, e: &Expr, whole: bool, out: &mut Vec<(String, bool)>) {
        match &e.kind {
            ExprKind::Name(n) => out.push((n.clone(), whole)),
            ExprKind::Subscript(b, _) | ExprKind::Attr(b, _)
                if !self.resolver.is_module_attr(e) =>
            {
                self.exposes(b, false, out)
            }
            ExprKind::List(es) | ExprKind::Tuple(es) | ExprKind::Dict(_, es) => {
                es.iter().for_each(|x| self.exposes(x, whole, out))
            }
            ExprKind::IfExp { body, orelse, .. } => {
                self.exposes(body, whole, out);
                self.exposes(orelse, whole, out);
            }
            ExprKind::ListComp(elt, gens) => {
                self.exposes(elt, whole, out);
                gens.iter().for_each(|g| self.exposes(&g.iter, false, out));
            }
            ExprKind::Call { func, args, kwargs } => {
                // A view function returns a view of its arguments; a user function may
                // return one of them.
                let (passes_through, whole) = match self.resolver.callee(func) {
                    Callee::Library(q) | Callee::Method(q) => (self.rules.returns_view(&q), false),
                    Callee::User(_) | Callee::Custom(_) | Callee::Unknown(_) => (true, whole),
                };
                if passes_through {
                    if let ExprKind::Attr(recv, _) = &func.kind {
                        self.exposes(recv, whole, out);
                    }
                    args.iter()
                        .chain(kwargs.iter().map(|(_, v)| v))
                        .for_each(|a| self.exposes(a, whole, out));
                }
            }
            _ => {}
        }
    }
}
