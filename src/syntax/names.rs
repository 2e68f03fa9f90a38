//! Fresh, readable, collision-free names for temporaries and gradients.

use super::ir::*;
use super::visit::stmt_exprs;
use std::collections::{HashMap, HashSet};

/// Names the generated code relies on; never used for temporaries.
const RESERVED: &[&str] = &[
    "tangent", "numpy", "math", "range", "len", "None", "True", "False", "_", "_stack",
];

pub struct NameGen {
    used: HashSet<String>,
    /// Per hint, the suffix `fresh` returned last: the suffixes below it are taken (names
    /// are never released), so the next search starts there. Without it a function with
    /// n temporaries of one hint (`x + x + ... + x`) cost n^2 probes.
    next: HashMap<String, usize>,
}

impl NameGen {
    /// Reserves every name that appears in the function.
    pub fn for_function(f: &FuncDef) -> NameGen {
        let mut used: HashSet<String> = RESERVED.iter().map(|s| s.to_string()).collect();
        used.insert(f.name.clone());
        for p in &f.params {
            used.insert(p.name.clone());
        }
        walk_stmts(&f.body, &mut |s| {
            let mut names = Vec::new();
            stmt_exprs(s, &mut |e| e.names(&mut names));
            used.extend(names);
        });
        NameGen {
            used,
            next: HashMap::new(),
        }
    }

    pub fn reserve(&mut self, name: &str) {
        self.used.insert(name.to_owned());
    }

    pub fn is_used(&self, name: &str) -> bool {
        self.used.contains(name)
    }

    /// `hint` if free, else `hint2`, `hint3`, ...
    pub fn fresh(&mut self, hint: &str) -> String {
        let base = sanitize(hint);
        if !self.used.contains(&base) {
            self.used.insert(base.clone());
            return base;
        }
        let start = self.next.get(&base).copied().unwrap_or(2);
        for i in start.. {
            let cand = format!("{base}{i}");
            if !self.used.contains(&cand) {
                self.used.insert(cand.clone());
                self.next.insert(base, i + 1);
                return cand;
            }
        }
        unreachable!()
    }
}

fn sanitize(hint: &str) -> String {
    let mut s: String = hint
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// A short readable name for the value of `e` (`x_times_y`, `tanh_h`), or `None`.
pub fn hint_for(e: &Expr) -> String {
    let short = |x: &Expr| -> Option<String> {
        match &x.kind {
            ExprKind::Name(n) if n.len() <= 8 => Some(n.trim_start_matches('_').to_owned()),
            ExprKind::Num(n) if n.len() <= 4 => Some(n.replace('.', "_")),
            _ => None,
        }
    };
    let h = match &e.kind {
        ExprKind::BinOp(op, a, b) => match (short(a), short(b)) {
            (Some(a), Some(b)) => format!("{a}_{}_{b}", op.word()),
            _ => format!("_{}", op.word()),
        },
        ExprKind::Unary(UnaryOp::Neg, a) => match short(a) {
            Some(a) => format!("neg_{a}"),
            None => "_neg".into(),
        },
        ExprKind::Call { func, args, .. } => {
            let fname = match &func.kind {
                ExprKind::Name(n) => n.clone(),
                ExprKind::Attr(_, m) => m.clone(),
                _ => "call".into(),
            };
            match args.first().and_then(short) {
                Some(a) if args.len() == 1 || matches!(func.kind, ExprKind::Attr(..)) => {
                    format!("{fname}_{a}")
                }
                _ => format!("_{fname}"),
            }
        }
        ExprKind::Attr(v, a) => match short(v) {
            Some(v) => format!("{v}_{a}"),
            None => format!("_{a}"),
        },
        ExprKind::Subscript(v, _) => match short(v) {
            Some(v) => format!("{v}_item"),
            None => "_item".into(),
        },
        ExprKind::Tuple(_) => "_tuple".into(),
        ExprKind::List(_) => "_list".into(),
        ExprKind::Dict(..) => "_dict".into(),
        _ => "_t".into(),
    };
    if h.len() > 24 {
        "_t".into()
    } else {
        h
    }
}
