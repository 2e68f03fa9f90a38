//! Coarsening (`optimizations={'coarsening': True}`): a straight-line stretch of
//! elementwise arithmetic at the top level of a function is differentiated once, as a
//! whole. Its statements' adjoints are chained symbolically (the gradient of each
//! intermediate is substituted into the adjoints that read it), so the backward pass
//! gets one vector-Jacobian expression per input and output of the stretch instead of
//! one gradient per intermediate; the e-graph passes then share what those expressions
//! have in common. Anything else keeps its per-statement adjoint.
//!
//! Substitution can grow expressions without bound (each read of an intermediate copies
//! its gradient expression; a chain of n statements nests n deep), so a stretch whose
//! chained gradients would exceed [`MAX_GRAD_NODES`] nodes is cut in halves, each
//! coarsened on its own, down to single statements.

use super::adjoint::{grad_ref, Adj};
use crate::syntax::ir::*;
use crate::syntax::visit::substitute;
use std::collections::{HashMap, HashSet};

/// The largest chained gradient expression a coarsened stretch may produce (nodes).
pub const MAX_GRAD_NODES: usize = 256;

fn size(e: &Expr) -> usize {
    let mut n = 0;
    e.walk(&mut |_| n += 1);
    n
}

/// One statement's adjoint as the pass needs it: `t = value` whose adjoint is only
/// accumulations `d[var] += expr(d[t])`.
struct Link {
    target: String,
    accums: Vec<(String, Expr)>,
}

/// Rewrites the per-statement adjoints `parts` of the block `stmts` (parts[k] belongs to
/// stmts[k]), a block outside any loop of the function whose body is `whole`;
/// `elementwise` says whether a value is elementwise arithmetic.
pub fn coarsen(
    whole: &[Stmt],
    stmts: &[Stmt],
    parts: &mut [Vec<Adj>],
    elementwise: &dyn Fn(&Expr) -> bool,
) {
    let links: Vec<Option<Link>> = stmts
        .iter()
        .zip(parts.iter())
        .map(|(s, p)| link(s, p, elementwise))
        .collect();
    // Who reads each name: the top-level statements of `whole` (a nested read counts
    // for the statement that holds it), found once rather than per stretch tried.
    let mut readers: Readers = HashMap::new();
    for top in whole {
        let mut names = Vec::new();
        walk_stmts(std::slice::from_ref(top), &mut |s| {
            crate::syntax::visit::stmt_exprs(s, &mut |e| e.names(&mut names))
        });
        for n in names {
            readers.entry(n).or_default().push(top as *const Stmt);
        }
    }
    let mut k = 0;
    while k < stmts.len() {
        let start = k;
        while k < stmts.len() && links[k].is_some() {
            k += 1;
        }
        coarsen_range(&readers, stmts, parts, &links, start, k);
        k += 1;
    }
}

fn link(s: &Stmt, part: &[Adj], elementwise: &dyn Fn(&Expr) -> bool) -> Option<Link> {
    let StmtKind::Assign(t, value) = &s.kind else {
        return None;
    };
    let target = t.as_name()?.to_owned();
    if !elementwise(value) {
        return None;
    }
    let [Adj::Rule { out, body }] = part else {
        return None;
    };
    if *out != target {
        return None;
    }
    let mut accums = Vec::new();
    for a in body {
        match a {
            Adj::Stmt(Stmt {
                kind: StmtKind::Comment(_),
                ..
            }) => {}
            Adj::Accum { var, value } => accums.push((var.clone(), value.clone())),
            _ => return None,
        }
    }
    Some(Link { target, accums })
}

/// Coarsens `stmts[start..end]`, or its halves if its gradients grow too large.
/// The top-level statements of the function that read each name.
type Readers = HashMap<String, Vec<*const Stmt>>;

fn coarsen_range(
    readers: &Readers,
    stmts: &[Stmt],
    parts: &mut [Vec<Adj>],
    links: &[Option<Link>],
    start: usize,
    end: usize,
) {
    if end - start < 2 || coarsen_stretch(readers, stmts, parts, links, start, end) {
        return;
    }
    let mid = start + (end - start) / 2;
    coarsen_range(readers, stmts, parts, links, start, mid);
    coarsen_range(readers, stmts, parts, links, mid, end);
}

/// Chains the adjoints of the stretch `stmts[start..end]` into one rule per output;
/// false (and `parts` unchanged) if a chained gradient exceeds [`MAX_GRAD_NODES`].
fn coarsen_stretch(
    readers: &Readers,
    stmts: &[Stmt],
    parts: &mut [Vec<Adj>],
    links: &[Option<Link>],
    start: usize,
    end: usize,
) -> bool {
    let stretch: Vec<&Link> = links[start..end].iter().flatten().collect();
    let targets: HashSet<&str> = stretch.iter().map(|l| l.target.as_str()).collect();
    // Outputs: targets read anywhere outside the stretch. Its targets are assigned
    // once, outside loops, so every such read sees the stretch's value.
    let inside = stmts[start..end].as_ptr_range();
    let outputs: Vec<&str> = stretch
        .iter()
        .map(|l| l.target.as_str())
        .filter(|t| {
            readers
                .get(*t)
                .is_some_and(|rs| rs.iter().any(|r| !inside.contains(r)))
        })
        .collect();
    if outputs.is_empty() {
        return true;
    }
    let mut rules = Vec::new();
    for (n, out) in outputs.iter().enumerate() {
        // Gradients within the stretch as expressions of d[out].
        let mut grads: HashMap<String, Expr> = HashMap::new();
        grads.insert((*out).to_owned(), grad_ref(out));
        for l in stretch.iter().rev() {
            let Some(g) = grads.remove(&l.target) else {
                continue;
            };
            let marker = grad_ref(&l.target);
            for (var, value) in &l.accums {
                let mut v = value.clone();
                substitute(&mut v, &mut |e| (e.kind == marker.kind).then(|| g.clone()));
                let sum = match grads.remove(var) {
                    Some(prev) => {
                        Expr::synth(ExprKind::BinOp(BinOp::Add, Box::new(prev), Box::new(v)))
                    }
                    None => v,
                };
                if size(&sum) > MAX_GRAD_NODES {
                    return false;
                }
                grads.insert(var.clone(), sum);
            }
        }
        let mut body = Vec::new();
        if n == 0 {
            body.push(comment("Grad of the elementwise stretch (coarsened):"));
            for s in &stmts[start..end] {
                let mut text = String::new();
                crate::emit::printer::stmt(&mut text, s, 0);
                body.push(comment(&format!("    {}", text.trim_end())));
            }
        }
        // Inputs in the order the stretch first reads them, for stable output.
        let mut inputs: Vec<String> = grads
            .keys()
            .filter(|v| !targets.contains(v.as_str()))
            .cloned()
            .collect();
        inputs.sort_by_key(|v| first_read(&stmts[start..end], v));
        for var in inputs {
            if let Some(value) = grads.remove(&var) {
                body.push(Adj::Accum { var, value });
            }
        }
        rules.push(Adj::Rule {
            out: (*out).to_owned(),
            body,
        });
    }
    for p in &mut parts[start..end] {
        p.clear();
    }
    parts[end - 1] = rules;
    true
}

fn comment(text: &str) -> Adj {
    Adj::Stmt(Stmt::synth(StmtKind::Comment(text.to_owned())))
}

/// Where `var` is first read: (statement, position among the statement's names), so
/// that inputs read by one statement keep their order there.
fn first_read(stmts: &[Stmt], var: &str) -> (usize, usize) {
    for (k, s) in stmts.iter().enumerate() {
        let mut names = Vec::new();
        crate::syntax::visit::stmt_exprs(s, &mut |e| e.names(&mut names));
        if let Some(p) = names.iter().position(|n| n == var) {
            return (k, p);
        }
    }
    (usize::MAX, 0)
}
