//! Opt-in passes on e-graphs (egg): common-subexpression elimination
//! (`optimizations={'cse': True}`) and algebraic simplification (`'algebraic': True`).
//!
//! Each straight-line run of `name = expr` statements becomes one e-graph: names
//! assigned before the run are leaves, names assigned in the run stand for the class of
//! their value. Algebraic rewrites are only identities that hold exactly in IEEE
//! arithmetic for Python numbers and NumPy arrays alike (`x * 1.0`, `-(-x)`,
//! `x - (-y)`, commutativity of `*`, ...), so no gradient changes. Extraction is
//! DAG-aware: a subterm used several times costs once, so sharing it wins. Emission
//! writes each statement again in order; with CSE a class needed twice is computed once
//! into a temporary (or read from the name that already holds it).
//!
//! Sharing one value between two names is only invisible if nothing mutates values in
//! place, so the passes leave a function unchanged when its code stores into subscripts
//! or attributes, or calls anything not known to be pure (user functions, methods
//! outside a fixed list, `numpy.random`).
//!
//! The work is bounded (a deep expression must not cost minutes): a run whose e-graph
//! has more than [`RUN_NODES`] nodes before rewriting, or whose extraction needs more
//! than [`TREE_WORK`] steps, is left as written with a comment saying so (visible in
//! `verbose=1` output and in `tangent grad`); the rewriting stops at [`REWRITE_NODES`]
//! nodes, [`REWRITE_ITERS`] iterations or [`REWRITE_TIME`]; the greedy improvement of
//! the extraction stops after [`DAG_WORK`] node visits (its choice so far is valid).

use crate::syntax::ir::*;
use crate::syntax::names::{hint_for, NameGen};
use egg::{rewrite as rw, EGraph, Id, Language, Rewrite, Runner, SymbolLang};
use std::collections::{HashMap, HashSet};

/// The largest run (e-graph nodes of the code as written) the passes take on.
pub const RUN_NODES: usize = 20_000;
/// Rewriting stops when the e-graph reaches this many nodes...
const REWRITE_NODES: usize = 2 * RUN_NODES;
/// ... or after this many iterations...
const REWRITE_ITERS: usize = 8;
/// ... or this long (a safety net: the node and iteration limits come first).
const REWRITE_TIME: std::time::Duration = std::time::Duration::from_secs(2);
/// Node evaluations of the tree-cost fixed point (rounds times nodes).
const TREE_WORK: usize = 4_000_000;
/// Node visits of the greedy DAG improvement (candidates times DAG size).
const DAG_WORK: usize = 400_000;

/// Which passes to run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Passes {
    pub cse: bool,
    pub algebraic: bool,
}

/// How a call may be treated, decided by the caller (it knows the imports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallKind {
    /// No side effects and no dependence on state: may be shared or recomputed.
    Pure,
    /// `tangent.push`/`pop`/`Stack`: ordered effects on the tape, kept in place.
    Tape,
    /// Anything else: the passes leave the function alone.
    Opaque,
}

/// Runs the passes over a function body (or the backward half of one).
pub fn simplify(
    stmts: Vec<Stmt>,
    passes: Passes,
    classify: &dyn Fn(&Expr) -> CallKind,
    names: &mut NameGen,
) -> Vec<Stmt> {
    if !(passes.cse || passes.algebraic) || !safe(&stmts, classify) {
        return stmts;
    }
    let mut cx = Cx {
        passes,
        classify,
        names,
    };
    cx.block(stmts)
}

/// `simplify` over a forward and a backward pass that run in one function, so that the
/// backward pass can read values the forward pass already computed.
pub fn simplify_pair(
    fwd: Vec<Stmt>,
    bwd: Vec<Stmt>,
    passes: Passes,
    classify: &dyn Fn(&Expr) -> CallKind,
    names: &mut NameGen,
) -> (Vec<Stmt>, Vec<Stmt>) {
    const SEAM: &str = "\u{0}seam between the forward and the backward pass";
    let n_fwd = fwd.len();
    let mut all = fwd;
    all.push(Stmt::synth(StmtKind::Comment(SEAM.to_owned())));
    all.extend(bwd);
    let mut all = simplify(all, passes, classify, names);
    let Some(at) = all
        .iter()
        .position(|s| matches!(&s.kind, StmtKind::Comment(c) if c == SEAM))
    else {
        unreachable!("the seam comment is kept: {n_fwd} statements before it")
    };
    let bwd = all.split_off(at + 1);
    all.pop();
    (all, bwd)
}

// ---------------------------------------------------------------- safety

/// The usual classification of a call in generated code: pure when `backends/` declares
/// the callee pure (`pure(...)`, `pure_module(...)`: see `RuleSet::is_pure`).
pub fn call_kind(
    rules: &crate::rules::RuleSet,
    resolver: &crate::resolve::Resolver,
    func: &Expr,
) -> CallKind {
    use crate::resolve::Callee;
    let text = crate::emit::printer::expr(func);
    if let Some(rest) = text.strip_prefix("tangent.") {
        return match rest {
            "push" | "pop" | "Stack" => CallKind::Tape,
            _ if rest.contains('.') => CallKind::Opaque,
            _ => CallKind::Pure,
        };
    }
    // Rule templates name the backends' modules canonically (`numpy.cos`); in
    // generated code those names are the runtime's modules.
    let root = text.split('.').next().unwrap_or_default();
    let canonical_module = rules.is_pure_module_root(root)
        && text.contains('.')
        && !resolver.locals.contains(root)
        && !resolver.imports.contains_key(root);
    let callee = if canonical_module {
        Callee::Library(text.clone())
    } else {
        resolver.callee(func)
    };
    match callee {
        Callee::Library(q) | Callee::Method(q) if rules.is_pure(&q) => CallKind::Pure,
        _ => CallKind::Opaque,
    }
}

/// True when the code mutates nothing in place and calls nothing opaque.
fn safe(stmts: &[Stmt], classify: &dyn Fn(&Expr) -> CallKind) -> bool {
    let mut ok = true;
    walk_stmts(stmts, &mut |s| {
        match &s.kind {
            StmtKind::Assign(t, _) => ok &= plain_target(t),
            StmtKind::AugAssign(t, _, _) => ok &= t.as_name().is_some(),
            StmtKind::For(t, _, _) => ok &= plain_target(t),
            _ => {}
        }
        crate::syntax::visit::stmt_exprs(s, &mut |e| {
            e.walk(&mut |x| match &x.kind {
                ExprKind::Call { func, kwargs, .. } => {
                    ok &= classify(func) != CallKind::Opaque
                        && !kwargs.iter().any(|(k, _)| k == "out")
                }
                ExprKind::Lambda(..) | ExprKind::ListComp(..) | ExprKind::Dict(..) => ok = false,
                _ => {}
            })
        });
    });
    ok
}

fn plain_target(t: &Expr) -> bool {
    match &t.kind {
        ExprKind::Name(_) => true,
        ExprKind::Tuple(ts) | ExprKind::List(ts) => ts.iter().all(plain_target),
        _ => false,
    }
}

// ---------------------------------------------------------------- runs

/// What `joins_run` needs to know of the run so far, kept as it grows (rescanning the
/// run for every statement made long runs quadratic).
#[derive(Default)]
struct RunState {
    /// Names read in the run before any statement of the run assigned them.
    leaf_reads: HashSet<String>,
    /// Names the run assigns.
    assigned: HashSet<String>,
}

impl RunState {
    fn add(&mut self, s: &Stmt) {
        if let StmtKind::Assign(t, v) = &s.kind {
            let mut reads = Vec::new();
            v.names(&mut reads);
            for r in reads {
                if !self.assigned.contains(&r) {
                    self.leaf_reads.insert(r);
                }
            }
            if let Some(m) = t.as_name() {
                self.assigned.insert(m.to_owned());
            }
        }
    }
}

struct Cx<'a> {
    passes: Passes,
    classify: &'a dyn Fn(&Expr) -> CallKind,
    names: &'a mut NameGen,
}

impl Cx<'_> {
    fn block(&mut self, stmts: Vec<Stmt>) -> Vec<Stmt> {
        let mut out = Vec::new();
        let mut run: Vec<Stmt> = Vec::new();
        let mut state = RunState::default();
        for mut s in stmts {
            if self.joins_run(&s, &state) {
                state.add(&s);
                run.push(s);
                continue;
            }
            out.extend(self.run(std::mem::take(&mut run)));
            state = RunState::default();
            match &mut s.kind {
                StmtKind::If(_, a, b) => {
                    *a = self.block(std::mem::take(a));
                    *b = self.block(std::mem::take(b));
                }
                StmtKind::For(_, _, body) | StmtKind::While(_, body) => {
                    *body = self.block(std::mem::take(body));
                }
                _ => {}
            }
            // A statement that can join a run but not this one starts the next.
            if self.joins_run(&s, &state) {
                state.add(&s);
                run.push(s);
            } else {
                out.push(s);
            }
        }
        out.extend(self.run(run));
        out
    }

    /// Can `s` extend the run described by `state`? Plain `name = expr` with a pure
    /// value, where `name` was not read in the run before it was assigned there (its old
    /// value would then be a leaf of this e-graph).
    fn joins_run(&self, s: &Stmt, state: &RunState) -> bool {
        match &s.kind {
            StmtKind::Comment(_) => true,
            StmtKind::Assign(t, v) => {
                let Some(n) = t.as_name() else { return false };
                self.pure(v) && !state.leaf_reads.contains(n)
            }
            _ => false,
        }
    }

    fn pure(&self, e: &Expr) -> bool {
        let mut ok = true;
        e.walk(&mut |x| {
            if let ExprKind::Call { func, kwargs, .. } = &x.kind {
                ok &= (self.classify)(func) == CallKind::Pure
                    && !kwargs.iter().any(|(k, _)| k == "out");
            }
        });
        ok
    }

    fn run(&mut self, run: Vec<Stmt>) -> Vec<Stmt> {
        let assigns = run
            .iter()
            .filter(|s| matches!(s.kind, StmtKind::Assign(..)))
            .count();
        if assigns == 0 {
            return run;
        }
        let mut g = Graph::default();
        let mut env: HashMap<String, Id> = HashMap::new();
        // Per statement: the assigned name, its value's class, and whether the value
        // was a plain name (a copy stays a copy even without CSE).
        let mut roots: Vec<Option<(String, Id, bool)>> = Vec::new();
        for s in &run {
            match &s.kind {
                StmtKind::Assign(t, v) => {
                    let id = g.add_expr(v, &env);
                    let n = t.as_name().unwrap_or_default().to_owned();
                    env.insert(n.clone(), id);
                    roots.push(Some((n, id, v.as_name().is_some())));
                }
                _ => roots.push(None),
            }
        }
        let size = g.egraph.total_number_of_nodes();
        if size > RUN_NODES {
            return skipped(
                run,
                &format!("{size} e-graph nodes, more than the {RUN_NODES} the passes take on"),
            );
        }
        let egraph = std::mem::take(&mut g.egraph);
        let runner = Runner::default()
            .with_egraph(egraph)
            .with_iter_limit(REWRITE_ITERS)
            .with_node_limit(REWRITE_NODES)
            .with_time_limit(REWRITE_TIME)
            .run(&if self.passes.algebraic {
                algebraic_rules()
            } else {
                vec![]
            });
        let egraph = runner.egraph;
        let root_ids: Vec<Id> = roots
            .iter()
            .flatten()
            .map(|(_, id, _)| egraph.find(*id))
            .collect();
        let written: HashSet<SymbolLang> = g
            .written
            .iter()
            .map(|n| n.clone().map_children(|c| egraph.find(c)))
            .collect();
        let Some(choice) = extract_dag(&egraph, &root_ids, &written) else {
            return skipped(run, "the extraction would take more than its bound of work");
        };
        let mut em = Emitter {
            egraph: &egraph,
            choice: &choice,
            shapes: &g.shapes,
            uses: use_counts(&egraph, &choice, &root_ids),
            holders: HashMap::new(),
            held_by: HashMap::new(),
            share: self.passes.cse,
            names: self.names,
            out: Vec::new(),
            assigned: HashSet::new(),
            stale: false,
        };
        for (s, root) in run.iter().zip(roots) {
            match root {
                None => em.out.push(s.clone()),
                Some((n, id, copy)) => em.assign(&n, egraph.find(id), copy, s.span),
            }
        }
        if em.stale {
            return run;
        }
        em.out
    }
}

/// A run left as written because it is too large for the passes, with a comment saying
/// so before it.
fn skipped(mut run: Vec<Stmt>, why: &str) -> Vec<Stmt> {
    run.insert(
        0,
        Stmt::synth(StmtKind::Comment(format!(
            "tangent: the cse/algebraic passes left the {} statements below as written: {why}",
            run.iter()
                .filter(|s| matches!(s.kind, StmtKind::Assign(..)))
                .count()
        ))),
    );
    run
}

// ---------------------------------------------------------------- the e-graph

/// How to rebuild an expression from a node's children.
#[derive(Clone, Debug)]
enum Shape {
    Name(String),
    Leaf(Expr),
    Bin(BinOp),
    Unary(UnaryOp),
    Cmp(Vec<CmpOp>),
    BoolOp(BoolOp),
    Call { func: Expr, kw: Vec<String> },
    Attr(String),
    Subscript,
    Tuple,
    List,
    Slice([bool; 3]),
    IfExp,
}

#[derive(Default)]
struct Graph {
    egraph: EGraph<SymbolLang, ()>,
    shapes: HashMap<String, Shape>,
    /// The nodes of the code as written (extraction prefers them on equal cost, so
    /// rewriting never reorders code for nothing).
    written: Vec<SymbolLang>,
}

impl Graph {
    fn node(&mut self, key: String, shape: Shape, children: Vec<Id>) -> Id {
        self.shapes.entry(key.clone()).or_insert(shape);
        let n = SymbolLang::new(key, children);
        self.written.push(n.clone());
        self.egraph.add(n)
    }

    fn add_expr(&mut self, e: &Expr, env: &HashMap<String, Id>) -> Id {
        let kids = |g: &mut Graph, es: &[&Expr]| -> Vec<Id> {
            es.iter().map(|x| g.add_expr(x, env)).collect()
        };
        match &e.kind {
            ExprKind::Name(n) => match env.get(n) {
                Some(id) => *id,
                None => self.node(format!("${n}"), Shape::Name(n.clone()), vec![]),
            },
            ExprKind::Num(t) => {
                let key = match t.parse::<f64>() {
                    // Float literals by value (`1.0` and `1.` are one node); integers
                    // stay distinct from floats (`2 * x` keeps an int an int).
                    Ok(v) if is_float_literal(t) && v.is_finite() => format!("{v:?}"),
                    _ => format!("int:{t}"),
                };
                let shape = if key.starts_with("int:") {
                    Shape::Leaf(e.clone())
                } else {
                    Shape::Leaf(Expr::num(key.clone()))
                };
                self.node(key, shape, vec![])
            }
            // A negative number is a constant like a positive one: a leaf, never a
            // shared temporary (`axis=-1` stays as written).
            ExprKind::Unary(UnaryOp::Neg, _) if e.is_number_literal() => {
                let key = format!("lit:{}", crate::emit::printer::expr(e));
                self.node(key, Shape::Leaf(e.clone()), vec![])
            }
            ExprKind::Bool(_) | ExprKind::NoneLit | ExprKind::Str(_) => {
                let key = format!("lit:{}", crate::emit::printer::expr(e));
                self.node(key, Shape::Leaf(e.clone()), vec![])
            }
            ExprKind::BinOp(op, a, b) => {
                let ids = kids(self, &[a, b]);
                self.node(op.symbol().to_owned(), Shape::Bin(*op), ids)
            }
            ExprKind::Unary(op, a) => {
                let ids = kids(self, &[a]);
                let key = match op {
                    UnaryOp::Neg => "neg",
                    UnaryOp::Pos => "pos",
                    UnaryOp::Not => "not",
                };
                self.node(key.to_owned(), Shape::Unary(*op), ids)
            }
            ExprKind::Compare(first, rest) => {
                let mut es: Vec<&Expr> = vec![first];
                es.extend(rest.iter().map(|(_, x)| x));
                let ids = kids(self, &es);
                let ops: Vec<CmpOp> = rest.iter().map(|(o, _)| *o).collect();
                let key = format!(
                    "cmp:{}",
                    ops.iter().map(|o| o.symbol()).collect::<Vec<_>>().join(",")
                );
                self.node(key, Shape::Cmp(ops), ids)
            }
            ExprKind::BoolOp(op, es) => {
                let es: Vec<&Expr> = es.iter().collect();
                let ids = kids(self, &es);
                self.node(format!("boolop:{op:?}"), Shape::BoolOp(*op), ids)
            }
            ExprKind::Call { func, args, kwargs } => {
                // `safe` let only pure calls through; the function itself is part of
                // the key (a dotted path, or a method whose receiver is a child).
                let kw: Vec<String> = kwargs.iter().map(|(k, _)| k.clone()).collect();
                let mut es: Vec<&Expr> = Vec::new();
                let (key, shape) = match &func.kind {
                    ExprKind::Attr(recv, m) if !is_dotted_path(recv) => {
                        es.push(recv);
                        (
                            format!("meth:{m}({})", kw.join(",")),
                            Shape::Call {
                                func: Expr::attr(Expr::name("_"), m),
                                kw: kw.clone(),
                            },
                        )
                    }
                    _ => (
                        format!(
                            "call:{}({})",
                            crate::emit::printer::expr(func),
                            kw.join(",")
                        ),
                        Shape::Call {
                            func: (**func).clone(),
                            kw: kw.clone(),
                        },
                    ),
                };
                es.extend(args.iter());
                es.extend(kwargs.iter().map(|(_, v)| v));
                let ids = kids(self, &es);
                self.node(key, shape, ids)
            }
            ExprKind::Attr(v, a) => {
                let ids = kids(self, &[v]);
                self.node(format!("attr:{a}"), Shape::Attr(a.clone()), ids)
            }
            ExprKind::Subscript(v, i) => {
                let ids = kids(self, &[v, i]);
                self.node("sub".to_owned(), Shape::Subscript, ids)
            }
            ExprKind::Tuple(es) => {
                let es: Vec<&Expr> = es.iter().collect();
                let ids = kids(self, &es);
                self.node("tuple".to_owned(), Shape::Tuple, ids)
            }
            ExprKind::List(es) => {
                let es: Vec<&Expr> = es.iter().collect();
                let ids = kids(self, &es);
                self.node("list".to_owned(), Shape::List, ids)
            }
            ExprKind::Slice(a, b, c) => {
                let present = [a.is_some(), b.is_some(), c.is_some()];
                let es: Vec<&Expr> = [a, b, c].into_iter().flatten().map(|x| &**x).collect();
                let ids = kids(self, &es);
                let key = format!("slice:{present:?}");
                self.node(key, Shape::Slice(present), ids)
            }
            ExprKind::IfExp { test, body, orelse } => {
                let ids = kids(self, &[test, body, orelse]);
                self.node("ifexp".to_owned(), Shape::IfExp, ids)
            }
            // `safe` rejected these before.
            ExprKind::Lambda(..) | ExprKind::ListComp(..) | ExprKind::Dict(..) => {
                unreachable!("lambdas, comprehensions and dicts are rejected by `safe`")
            }
        }
    }
}

fn is_float_literal(t: &str) -> bool {
    !t.starts_with("0x") && (t.contains('.') || t.contains('e') || t.contains('E'))
}

fn is_dotted_path(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Name(_) => true,
        ExprKind::Attr(v, _) => is_dotted_path(v),
        _ => false,
    }
}

/// Identities exact in IEEE arithmetic (results bit for bit, up to the sign of a zero)
/// for Python floats and NumPy float arrays; `*` commutes for every Python type. (On an
/// integer array `x * 1.0` is a float array, `x` is not: equal values, another dtype.)
fn algebraic_rules() -> Vec<Rewrite<SymbolLang, ()>> {
    vec![
        rw!("mul-one-r"; "(* ?x 1.0)" => "?x"),
        rw!("mul-one-l"; "(* 1.0 ?x)" => "?x"),
        rw!("div-one"; "(/ ?x 1.0)" => "?x"),
        rw!("add-zero-r"; "(+ ?x 0.0)" => "?x"),
        rw!("add-zero-l"; "(+ 0.0 ?x)" => "?x"),
        rw!("sub-zero"; "(- ?x 0.0)" => "?x"),
        rw!("neg-neg"; "(neg (neg ?x))" => "?x"),
        rw!("sub-neg"; "(- ?x (neg ?y))" => "(+ ?x ?y)"),
        rw!("add-neg-r"; "(+ ?x (neg ?y))" => "(- ?x ?y)"),
        rw!("add-neg-l"; "(+ (neg ?x) ?y)" => "(- ?y ?x)"),
        rw!("mul-neg-l"; "(* (neg ?x) ?y)" => "(neg (* ?x ?y))"),
        rw!("mul-neg-r"; "(* ?x (neg ?y))" => "(neg (* ?x ?y))"),
        rw!("mul-comm"; "(* ?x ?y)" => "(* ?y ?x)"),
    ]
}

// ---------------------------------------------------------------- extraction

/// A node's own cost, in sixteenths, plus one for a node the code did not contain.
fn node_cost(n: &SymbolLang, written: &HashSet<SymbolLang>) -> usize {
    let novel = usize::from(!written.contains(n));
    16 * op_cost(n) + novel
}

fn op_cost(n: &SymbolLang) -> usize {
    let op = n.op.as_str();
    if n.children.is_empty() {
        return 0;
    }
    match op {
        "+" | "-" | "*" | "neg" | "pos" | "not" | "sub" | "tuple" | "list" => 1,
        "/" | "//" | "%" => 2,
        "**" | "@" => 4,
        _ if op.starts_with("call:") || op.starts_with("meth:") => 5,
        _ => 1,
    }
}

/// Chooses one node per class reachable from `roots`, minimising the cost of the DAG:
/// a class reached twice is paid for once. Starts from the best tree choice and then
/// switches single classes while that lowers the DAG cost (greedy, a few rounds, at
/// most [`DAG_WORK`] node visits). None if the tree costs take more than [`TREE_WORK`].
fn extract_dag(
    eg: &EGraph<SymbolLang, ()>,
    roots: &[Id],
    written: &HashSet<SymbolLang>,
) -> Option<HashMap<Id, SymbolLang>> {
    // Tree costs by fixed-point iteration (what egg's `Extractor` computes).
    let mut best: HashMap<Id, (usize, SymbolLang)> = HashMap::new();
    let nodes = eg.total_number_of_nodes().max(1);
    let mut tree_work = 0usize;
    // In id order: children are mostly created before their parents, so a few rounds
    // settle even a deep chain (egg's own order is a hash map's, which needs as many
    // rounds as the chain is long, and differs between runs on ties).
    let mut classes: Vec<&egg::EClass<SymbolLang, ()>> = eg.classes().collect();
    classes.sort_by_key(|c| c.id);
    loop {
        tree_work += nodes;
        if tree_work > TREE_WORK {
            return None;
        }
        let mut changed = false;
        for class in &classes {
            for n in &class.nodes {
                let canon = n.clone().map_children(|c| eg.find(c));
                let mut sum = node_cost(&canon, written);
                let mut ok = true;
                for c in n.children() {
                    match best.get(&eg.find(*c)) {
                        Some((k, _)) => sum = sum.saturating_add(*k),
                        None => ok = false,
                    }
                }
                if !ok {
                    continue;
                }
                let cur = best.get(&class.id).map(|b| b.0);
                if cur.is_none_or(|k| sum < k) {
                    best.insert(class.id, (sum, n.clone()));
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut choice: HashMap<Id, SymbolLang> =
        best.into_iter().map(|(id, (_, n))| (id, n)).collect();
    let mut cost = dag_cost(eg, &choice, roots, written).unwrap_or(usize::MAX);
    let mut dag_work = 0usize;
    'rounds: for _round in 0..3 {
        let mut improved = false;
        let reachable = reachable(eg, &choice, roots);
        let dag_size = reachable.len().max(1);
        for id in reachable {
            let class = &eg[id];
            if class.nodes.len() < 2 {
                continue;
            }
            for n in &class.nodes {
                if choice.get(&id) == Some(n) {
                    continue;
                }
                dag_work += dag_size;
                if dag_work > DAG_WORK {
                    break 'rounds;
                }
                let old = choice.insert(id, n.clone());
                match dag_cost(eg, &choice, roots, written) {
                    Some(c) if c < cost => {
                        cost = c;
                        improved = true;
                    }
                    _ => {
                        if let Some(o) = old {
                            choice.insert(id, o);
                        }
                    }
                }
            }
        }
        if !improved {
            break;
        }
    }
    Some(choice)
}

fn reachable(
    eg: &EGraph<SymbolLang, ()>,
    choice: &HashMap<Id, SymbolLang>,
    roots: &[Id],
) -> Vec<Id> {
    let mut seen = HashSet::new();
    let mut order = Vec::new();
    let mut stack: Vec<Id> = roots.to_vec();
    while let Some(id) = stack.pop() {
        let id = eg.find(id);
        if !seen.insert(id) {
            continue;
        }
        order.push(id);
        if let Some(n) = choice.get(&id) {
            stack.extend(n.children().iter().copied());
        }
    }
    order
}

/// The cost of the chosen DAG, or None if the choice has a cycle.
fn dag_cost(
    eg: &EGraph<SymbolLang, ()>,
    choice: &HashMap<Id, SymbolLang>,
    roots: &[Id],
    written: &HashSet<SymbolLang>,
) -> Option<usize> {
    // 0 = unvisited, 1 = on the path, 2 = done.
    fn visit(
        eg: &EGraph<SymbolLang, ()>,
        choice: &HashMap<Id, SymbolLang>,
        written: &HashSet<SymbolLang>,
        id: Id,
        state: &mut HashMap<Id, u8>,
        total: &mut usize,
    ) -> bool {
        let id = eg.find(id);
        match state.get(&id) {
            Some(1) => return false,
            Some(_) => return true,
            None => {}
        }
        state.insert(id, 1);
        let Some(n) = choice.get(&id) else {
            return false;
        };
        *total += node_cost(&n.clone().map_children(|c| eg.find(c)), written);
        for c in n.children() {
            if !visit(eg, choice, written, *c, state, total) {
                return false;
            }
        }
        state.insert(id, 2);
        true
    }
    let mut state = HashMap::new();
    let mut total = 0;
    for r in roots {
        if !visit(eg, choice, written, *r, &mut state, &mut total) {
            return None;
        }
    }
    Some(total)
}

/// How many times each class is read: once per parent in the chosen DAG, once per
/// statement whose value it is.
fn use_counts(
    eg: &EGraph<SymbolLang, ()>,
    choice: &HashMap<Id, SymbolLang>,
    roots: &[Id],
) -> HashMap<Id, usize> {
    let mut uses: HashMap<Id, usize> = HashMap::new();
    for r in roots {
        *uses.entry(eg.find(*r)).or_default() += 1;
    }
    for id in reachable(eg, choice, roots) {
        if let Some(n) = choice.get(&id) {
            for c in n.children() {
                *uses.entry(eg.find(*c)).or_default() += 1;
            }
        }
    }
    uses
}

// ---------------------------------------------------------------- emission

struct Emitter<'a> {
    egraph: &'a EGraph<SymbolLang, ()>,
    choice: &'a HashMap<Id, SymbolLang>,
    shapes: &'a HashMap<String, Shape>,
    uses: HashMap<Id, usize>,
    /// The name that currently holds each class's value.
    holders: HashMap<Id, String>,
    /// The class each name currently holds.
    held_by: HashMap<String, Id>,
    share: bool,
    names: &'a mut NameGen,
    out: Vec<Stmt>,
    /// Names assigned so far in the run; a leaf naming one of them would read the new
    /// value instead of the old one (`stale`: give up on the run).
    assigned: HashSet<String>,
    stale: bool,
}

impl Emitter<'_> {
    fn assign(&mut self, name: &str, id: Id, copy: bool, span: Span) {
        let value = match self.holders.get(&id) {
            Some(h) if self.share || copy => Expr::name(h.clone()),
            _ => self.define(id),
        };
        // `name` no longer holds what it held.
        if let Some(old) = self.held_by.remove(name) {
            if self.holders.get(&old).map(String::as_str) == Some(name) {
                self.holders.remove(&old);
            }
        }
        self.out
            .push(Stmt::new(StmtKind::Assign(Expr::name(name), value), span));
        self.holders.entry(id).or_insert_with(|| name.to_owned());
        self.held_by.insert(name.to_owned(), id);
        self.assigned.insert(name.to_owned());
    }

    /// The class's value as an operand: its holder, a new temporary if it is shared,
    /// or the expression itself.
    fn operand(&mut self, id: Id) -> Expr {
        let id = self.egraph.find(id);
        let n = &self.choice[&id];
        // Leaves (names, literals) stay as written rather than read through a copy.
        if n.children.is_empty() {
            return self.define(id);
        }
        if let Some(h) = self.holders.get(&id) {
            return Expr::name(h.clone());
        }
        let shared = self.uses.get(&id).copied().unwrap_or(0) >= 2;
        if self.share && shared && !n.children.is_empty() {
            let value = self.define(id);
            let tmp = self.names.fresh(&temp_hint(&value));
            self.out.push(Stmt::assign(&tmp, value));
            self.holders.insert(id, tmp.clone());
            self.held_by.insert(tmp.clone(), id);
            return Expr::name(tmp);
        }
        self.define(id)
    }

    /// The class's chosen node as an expression over operands.
    fn define(&mut self, id: Id) -> Expr {
        let n = self.choice[&self.egraph.find(id)].clone();
        let shape = self.shapes.get(n.op.as_str()).cloned();
        let kids: Vec<Expr> = n.children.iter().map(|c| self.operand(*c)).collect();
        let syn = Expr::synth;
        let bx = Box::new;
        let shape = shape.unwrap_or_else(|| rule_shape(n.op.as_str()));
        match shape {
            Shape::Name(v) => {
                self.stale |= self.assigned.contains(&v);
                Expr::name(v)
            }
            Shape::Leaf(e) => e,
            Shape::Bin(op) => {
                let [a, b]: [Expr; 2] = kids.try_into().expect("binary node");
                syn(ExprKind::BinOp(op, bx(a), bx(b)))
            }
            Shape::Unary(op) => {
                let [a]: [Expr; 1] = kids.try_into().expect("unary node");
                syn(ExprKind::Unary(op, bx(a)))
            }
            Shape::Cmp(ops) => {
                let mut it = kids.into_iter();
                let first = it.next().expect("comparison operand");
                syn(ExprKind::Compare(
                    bx(first),
                    ops.into_iter().zip(it).collect(),
                ))
            }
            Shape::BoolOp(op) => syn(ExprKind::BoolOp(op, kids)),
            Shape::Call { func, kw } => {
                let mut it = kids.into_iter();
                let func = match &func.kind {
                    // A method: the receiver is the first child.
                    ExprKind::Attr(r, m) if r.as_name() == Some("_") => {
                        Expr::attr(it.next().expect("receiver"), m)
                    }
                    _ => func,
                };
                let rest: Vec<Expr> = it.collect();
                let split = rest.len() - kw.len();
                let (args, kwv) = rest.split_at(split);
                syn(ExprKind::Call {
                    func: bx(func),
                    args: args.to_vec(),
                    kwargs: kw.into_iter().zip(kwv.iter().cloned()).collect(),
                })
            }
            Shape::Attr(a) => {
                let [v]: [Expr; 1] = kids.try_into().expect("attribute node");
                Expr::attr(v, &a)
            }
            Shape::Subscript => {
                let [v, i]: [Expr; 2] = kids.try_into().expect("subscript node");
                syn(ExprKind::Subscript(bx(v), bx(i)))
            }
            Shape::Tuple => syn(ExprKind::Tuple(kids)),
            Shape::List => syn(ExprKind::List(kids)),
            Shape::Slice(present) => {
                let mut it = kids.into_iter();
                let mut part = |p: bool| if p { it.next().map(bx) } else { None };
                let (a, b, c) = (part(present[0]), part(present[1]), part(present[2]));
                syn(ExprKind::Slice(a, b, c))
            }
            Shape::IfExp => {
                let [t, b, o]: [Expr; 3] = kids.try_into().expect("conditional node");
                syn(ExprKind::IfExp {
                    test: bx(t),
                    body: bx(b),
                    orelse: bx(o),
                })
            }
        }
    }
}

/// A readable name for a shared value: `unbroadcast(g, like)` is (a part of) the
/// gradient of `like`, so `blike`; anything else is named after its expression.
fn temp_hint(value: &Expr) -> String {
    if let ExprKind::Call { func, args, .. } = &value.kind {
        let f = crate::emit::printer::expr(func);
        let like = match f.as_str() {
            "tangent.unbroadcast" => args.get(1),
            "tangent.unbroadcast_left" => args.get(1),
            "tangent.unbroadcast_right" => args.get(2),
            _ => None,
        };
        if let Some(n) = like.and_then(|e| e.as_name()) {
            return format!("b{n}");
        }
    }
    let h = hint_for(value);
    if h.starts_with('_') {
        h
    } else {
        format!("_{h}")
    }
}

/// Shapes of the nodes that only rewrites create (the right-hand sides of the rules).
fn rule_shape(op: &str) -> Shape {
    match op {
        "+" => Shape::Bin(BinOp::Add),
        "-" => Shape::Bin(BinOp::Sub),
        "*" => Shape::Bin(BinOp::Mul),
        "neg" => Shape::Unary(UnaryOp::Neg),
        lit => Shape::Leaf(Expr::num(lit)),
    }
}

#[cfg(test)]
mod tests {
    use super::{CallKind, Passes};
    use crate::syntax::ir::Expr;
    use crate::syntax::names::NameGen;
    use crate::syntax::SourceModule;

    /// `f`'s body after the passes, `np.*` pure, `tangent.push`/`pop` the tape, any
    /// other call opaque; the whole function printed.
    fn after(passes: Passes, src: &str) -> String {
        let module = SourceModule::parse("<test>", src).unwrap();
        let mut def = module.lower_function("f").unwrap();
        let classify = |f: &Expr| {
            let name = crate::emit::printer::expr(f);
            match name.as_str() {
                "tangent.push" | "tangent.pop" => CallKind::Tape,
                _ if name.starts_with("np.") => CallKind::Pure,
                _ => CallKind::Opaque,
            }
        };
        let mut names = NameGen::for_function(&def);
        def.body = super::simplify(std::mem::take(&mut def.body), passes, &classify, &mut names);
        crate::emit::printer::function(&def)
    }

    /// Each case: the body of `def f(x, y, z)`, and the body the passes make of it.
    fn check(passes: Passes, cases: &[(&str, &str)]) {
        let indent = |b: &str| -> String { b.lines().map(|l| format!("    {l}\n")).collect() };
        let mut wrong = Vec::new();
        for (input, expect) in cases {
            let out = after(passes, &format!("def f(x, y, z):\n{}", indent(input)));
            let want = format!("def f(x, y, z):\n{}", indent(expect));
            if out.trim_end() != want.trim_end() {
                wrong.push(format!("from:\n{input}\nexpected:\n{want}got:\n{out}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n----\n"));
    }

    const ALGEBRAIC: Passes = Passes {
        cse: false,
        algebraic: true,
    };
    const CSE: Passes = Passes {
        cse: true,
        algebraic: false,
    };

    #[test]
    fn algebraic_identities_exact_in_ieee_arithmetic() {
        check(
            ALGEBRAIC,
            &[
                ("a = x * 1.0\nreturn a", "a = x\nreturn a"),
                ("a = 1.0 * x / 1.0\nreturn a", "a = x\nreturn a"),
                (
                    "a = x + 0.0\nb = 0.0 + a - 0.0\nreturn b",
                    "a = x\nb = x\nreturn b",
                ),
                ("a = -(-x)\nreturn a", "a = x\nreturn a"),
                ("a = x - (-y)\nreturn a", "a = x + y\nreturn a"),
                ("a = x + -y\nreturn a", "a = x - y\nreturn a"),
                ("a = -x + y\nreturn a", "a = y - x\nreturn a"),
                // Not identities for every value: `x * 0.0` is nan for inf, `x + 0`
                // (an int) keeps an int array's dtype, `x - x` is nan for inf.
                ("a = x * 0.0\nreturn a", "a = x * 0.0\nreturn a"),
                ("a = x * 1\nreturn a", "a = x * 1\nreturn a"),
                ("a = x - x\nreturn a", "a = x - x\nreturn a"),
            ],
        );
    }

    #[test]
    fn common_subexpressions_are_computed_once() {
        check(
            CSE,
            &[
                (
                    "a = np.sin(x) * y\nb = np.sin(x) * z\nreturn a + b",
                    "_sin_x = np.sin(x)\na = _sin_x * y\nb = _sin_x * z\nreturn a + b",
                ),
                // The value a name already holds is read from it.
                (
                    "a = x * y\nb = x * y\nreturn a + b",
                    "a = x * y\nb = a\nreturn a + b",
                ),
                // That `y * x` is the same value is an algebraic fact, not CSE's.
                (
                    "a = x * y\nb = y * x\nreturn a - b",
                    "a = x * y\nb = y * x\nreturn a - b",
                ),
            ],
        );
        check(
            Passes {
                cse: true,
                algebraic: true,
            },
            &[(
                "a = x * y\nb = y * x\nreturn a - b",
                "a = x * y\nb = a\nreturn a - b",
            )],
        );
    }

    #[test]
    fn effects_keep_the_code_as_written() {
        for body in [
            // An opaque call may depend on state or change it.
            "a = g(x)\nb = g(x)\nreturn a + b",
            // A store into a subscript may change a value another name holds.
            "a = x * y\nx[0] = 1.0\nb = x * y\nreturn a + b",
            // `out=` writes into its argument.
            "a = np.sin(x, out=y)\nb = np.sin(x, out=y)\nreturn a + b",
        ] {
            check(CSE, &[(body, body)]);
        }
        // The tape's pushes and pops stay in place and are never shared.
        check(
            CSE,
            &[(
                "tangent.push(_stack, x)\na = tangent.pop(_stack)\nb = tangent.pop(_stack)\nreturn a + b",
                "tangent.push(_stack, x)\na = tangent.pop(_stack)\nb = tangent.pop(_stack)\nreturn a + b",
            )],
        );
    }
}
