//! Prints the IR as readable Python source (four-space indents, minimal parentheses).
//! The parser crate has no unparser, and generated source is the product, so this
//! printer is ours.

use crate::syntax::ir::*;

// Python operator precedence, low to high.
const P_TEST: u8 = 2; // a if b else c
const P_OR: u8 = 3;
const P_AND: u8 = 4;
const P_NOT: u8 = 5;
const P_CMP: u8 = 6;
const P_ADD: u8 = 11;
const P_MUL: u8 = 12;
const P_UNARY: u8 = 13;
const P_POW: u8 = 14;
const P_ATOM: u8 = 16;

fn binop_prec(op: BinOp) -> u8 {
    match op {
        BinOp::Add | BinOp::Sub => P_ADD,
        BinOp::Pow => P_POW,
        _ => P_MUL,
    }
}

fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::IfExp { .. } => P_TEST,
        ExprKind::Lambda(..) => 1,
        ExprKind::BoolOp(BoolOp::Or, _) => P_OR,
        ExprKind::BoolOp(BoolOp::And, _) => P_AND,
        ExprKind::Unary(UnaryOp::Not, _) => P_NOT,
        ExprKind::Compare(..) => P_CMP,
        ExprKind::BinOp(op, ..) => binop_prec(*op),
        ExprKind::Unary(..) => P_UNARY,
        // A folded negative constant prints with its minus: it binds like one.
        ExprKind::Num(n) if n.starts_with('-') => P_UNARY,
        // An unparenthesised tuple binds loosest of all.
        ExprKind::Tuple(_) => P_ATOM,
        _ => P_ATOM,
    }
}

pub fn expr(e: &Expr) -> String {
    let mut s = String::new();
    write_expr(&mut s, e);
    s
}

fn paren(out: &mut String, e: &Expr, need: bool) {
    if need {
        out.push('(');
        write_expr(out, e);
        out.push(')');
    } else {
        write_expr(out, e);
    }
}

fn write_list(out: &mut String, es: &[Expr]) {
    for (i, e) in es.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_expr(out, e);
    }
}

fn write_str_lit(out: &mut String, s: &str) {
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            // Other control characters cannot appear raw in a Python literal.
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
}

/// `s` as a Python string literal (single-quoted, escaped).
pub fn str_literal(s: &str) -> String {
    let mut out = String::new();
    write_str_lit(&mut out, s);
    out
}

/// Writes a subscript index: tuples without parentheses, slices with colons.
fn write_index(out: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Tuple(es) if !es.is_empty() => {
            for (i, x) in es.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_index(out, x);
            }
            if es.len() == 1 {
                out.push(',');
            }
        }
        ExprKind::Slice(a, b, c) => {
            if let Some(a) = a {
                write_expr(out, a);
            }
            out.push(':');
            if let Some(b) = b {
                write_expr(out, b);
            }
            if let Some(c) = c {
                out.push(':');
                write_expr(out, c);
            }
        }
        _ => write_expr(out, e),
    }
}

fn write_expr(out: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Name(n) => out.push_str(n),
        ExprKind::Num(n) => out.push_str(n),
        ExprKind::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        ExprKind::NoneLit => out.push_str("None"),
        ExprKind::Str(s) => write_str_lit(out, s),
        ExprKind::Tuple(es) => {
            out.push('(');
            write_list(out, es);
            if es.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        ExprKind::List(es) => {
            out.push('[');
            write_list(out, es);
            out.push(']');
        }
        ExprKind::Dict(ks, vs) => {
            out.push('{');
            for (i, (k, v)) in ks.iter().zip(vs).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&format!("{}: {}", expr(k), expr(v)));
            }
            out.push('}');
        }
        ExprKind::BinOp(op, a, b) => {
            let p = binop_prec(*op);
            if *op == BinOp::Pow {
                paren(out, a, prec(a) <= p);
                out.push_str(" ** ");
                paren(out, b, prec(b) < P_UNARY);
            } else {
                paren(out, a, prec(a) < p);
                out.push(' ');
                out.push_str(op.symbol());
                out.push(' ');
                paren(out, b, prec(b) <= p);
            }
        }
        ExprKind::Unary(op, a) => match op {
            UnaryOp::Not => {
                out.push_str("not ");
                paren(out, a, prec(a) < P_NOT);
            }
            UnaryOp::Neg | UnaryOp::Pos => {
                out.push(if *op == UnaryOp::Neg { '-' } else { '+' });
                paren(out, a, prec(a) < P_UNARY);
            }
        },
        ExprKind::Compare(a, rest) => {
            paren(out, a, prec(a) <= P_CMP);
            for (op, b) in rest {
                out.push(' ');
                out.push_str(op.symbol());
                out.push(' ');
                paren(out, b, prec(b) <= P_CMP);
            }
        }
        ExprKind::BoolOp(op, vals) => {
            let (p, word) = match op {
                BoolOp::And => (P_AND, " and "),
                BoolOp::Or => (P_OR, " or "),
            };
            for (i, v) in vals.iter().enumerate() {
                if i > 0 {
                    out.push_str(word);
                }
                paren(out, v, prec(v) <= p);
            }
        }
        ExprKind::Call { func, args, kwargs } => {
            paren(out, func, prec(func) < P_ATOM);
            out.push('(');
            write_list(out, args);
            for (i, (k, v)) in kwargs.iter().enumerate() {
                if i > 0 || !args.is_empty() {
                    out.push_str(", ");
                }
                out.push_str(k);
                out.push('=');
                write_expr(out, v);
            }
            out.push(')');
        }
        ExprKind::Attr(v, a) => {
            let need = prec(v) < P_ATOM || matches!(v.kind, ExprKind::Num(_));
            paren(out, v, need);
            out.push('.');
            out.push_str(a);
        }
        ExprKind::Subscript(v, i) => {
            paren(out, v, prec(v) < P_ATOM);
            out.push('[');
            write_index(out, i);
            out.push(']');
        }
        ExprKind::Slice(..) => {
            // A slice outside a subscript only appears as `slice(...)`.
            out.push_str("slice(");
            if let ExprKind::Slice(a, b, c) = &e.kind {
                let none = Expr::synth(ExprKind::NoneLit);
                write_expr(out, a.as_deref().unwrap_or(&none));
                out.push_str(", ");
                write_expr(out, b.as_deref().unwrap_or(&none));
                out.push_str(", ");
                write_expr(out, c.as_deref().unwrap_or(&none));
            }
            out.push(')');
        }
        ExprKind::Lambda(params, body) => {
            out.push_str("lambda ");
            out.push_str(&params.join(", "));
            out.push_str(": ");
            write_expr(out, body);
        }
        ExprKind::ListComp(elt, gens) => {
            out.push('[');
            write_expr(out, elt);
            for g in gens {
                out.push_str(" for ");
                out.push_str(&stmt_expr(&g.target));
                out.push_str(" in ");
                paren(out, &g.iter, prec(&g.iter) <= P_TEST);
                for c in &g.ifs {
                    out.push_str(" if ");
                    paren(out, c, prec(c) <= P_TEST);
                }
            }
            out.push(']');
        }
        ExprKind::IfExp { test, body, orelse } => {
            paren(out, body, prec(body) <= P_TEST);
            out.push_str(" if ");
            paren(out, test, prec(test) <= P_TEST);
            out.push_str(" else ");
            paren(out, orelse, prec(orelse) < P_TEST);
        }
    }
}

/// An expression in statement position: a top-level tuple needs no parentheses.
fn stmt_expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Tuple(es) if es.len() > 1 => {
            let mut s = String::new();
            write_list(&mut s, es);
            s
        }
        _ => expr(e),
    }
}

pub fn stmt(out: &mut String, s: &Stmt, depth: usize) {
    let ind = "    ".repeat(depth);
    match &s.kind {
        StmtKind::Assign(t, v) => {
            out.push_str(&format!("{ind}{} = {}\n", stmt_expr(t), stmt_expr(v)));
        }
        StmtKind::AugAssign(t, op, v) => {
            out.push_str(&format!("{ind}{} {}= {}\n", expr(t), op.symbol(), expr(v)));
        }
        StmtKind::Return(None) => out.push_str(&format!("{ind}return\n")),
        StmtKind::Return(Some(v)) => out.push_str(&format!("{ind}return {}\n", stmt_expr(v))),
        StmtKind::If(test, body, orelse) => {
            out.push_str(&format!("{ind}if {}:\n", expr(test)));
            block(out, body, depth + 1);
            let mut orelse = orelse;
            loop {
                if orelse.is_empty() {
                    break;
                }
                // Print `elif` for an else-block that is exactly one `if`.
                if let [Stmt {
                    kind: StmtKind::If(t2, b2, o2),
                    ..
                }] = orelse.as_slice()
                {
                    out.push_str(&format!("{ind}elif {}:\n", expr(t2)));
                    block(out, b2, depth + 1);
                    orelse = o2;
                    continue;
                }
                out.push_str(&format!("{ind}else:\n"));
                block(out, orelse, depth + 1);
                break;
            }
        }
        StmtKind::For(t, it, body) => {
            out.push_str(&format!("{ind}for {} in {}:\n", stmt_expr(t), expr(it)));
            block(out, body, depth + 1);
        }
        StmtKind::While(test, body) => {
            out.push_str(&format!("{ind}while {}:\n", expr(test)));
            block(out, body, depth + 1);
        }
        StmtKind::Break => out.push_str(&format!("{ind}break\n")),
        StmtKind::Continue => out.push_str(&format!("{ind}continue\n")),
        StmtKind::Pass => out.push_str(&format!("{ind}pass\n")),
        StmtKind::ExprStmt(e) => out.push_str(&format!("{ind}{}\n", expr(e))),
        StmtKind::With(items, body) => {
            let items: Vec<String> = items
                .iter()
                .map(|(cm, t)| match t {
                    Some(t) => format!("{} as {}", expr(cm), expr(t)),
                    None => expr(cm),
                })
                .collect();
            out.push_str(&format!("{ind}with {}:\n", items.join(", ")));
            block(out, body, depth + 1);
        }
        StmtKind::Assert(t, None) => out.push_str(&format!("{ind}assert {}\n", expr(t))),
        StmtKind::Assert(t, Some(m)) => {
            out.push_str(&format!("{ind}assert {}, {}\n", expr(t), expr(m)))
        }
        StmtKind::Comment(c) => out.push_str(&format!("{ind}# {c}\n")),
    }
}

pub fn block(out: &mut String, stmts: &[Stmt], depth: usize) {
    let real = stmts
        .iter()
        .any(|s| !matches!(s.kind, StmtKind::Comment(_)));
    for s in stmts {
        stmt(out, s, depth);
    }
    if !real {
        out.push_str(&"    ".repeat(depth));
        out.push_str("pass\n");
    }
}

pub fn function(f: &FuncDef) -> String {
    let mut out = String::new();
    let mut params: Vec<String> = f
        .params
        .iter()
        .map(|p| match &p.default {
            Some(d) => format!("{}={}", p.name, expr(d)),
            None => p.name.clone(),
        })
        .collect();
    match f.star {
        Some(s) => params[s] = format!("*{}", f.params[s].name),
        None => {
            if let Some(k) = f.kwonly.filter(|k| *k < params.len()) {
                params.insert(k, "*".into());
            }
        }
    }
    out.push_str(&format!("def {}({}):\n", f.name, params.join(", ")));
    block(&mut out, &f.body, 1);
    out
}

#[cfg(test)]
mod tests {
    use super::{expr, str_literal};
    use crate::syntax::ir::{BinOp, Expr, ExprKind, UnaryOp};

    #[test]
    fn negative_constants_keep_their_sign_under_a_power() {
        let pow = |base: Expr| {
            Expr::synth(ExprKind::BinOp(
                BinOp::Pow,
                Box::new(base),
                Box::new(Expr::num("2")),
            ))
        };
        // A folded constant (`-2.5` as one number) and a minus applied to a literal.
        assert_eq!(expr(&pow(Expr::num("-2.5"))), "(-2.5) ** 2");
        let neg = Expr::synth(ExprKind::Unary(UnaryOp::Neg, Box::new(Expr::num("1.0"))));
        assert_eq!(expr(&pow(neg)), "(-1.0) ** 2");
        let x_pow = Expr::synth(ExprKind::BinOp(
            BinOp::Pow,
            Box::new(Expr::name("x")),
            Box::new(Expr::num("-1.5")),
        ));
        assert_eq!(expr(&x_pow), "x ** -1.5");
    }

    #[test]
    fn string_literals_escape_quotes_backslashes_and_control_characters() {
        assert_eq!(str_literal("it's"), r"'it\'s'");
        assert_eq!(str_literal("a\\b"), r"'a\\b'");
        assert_eq!(str_literal("l1\nl2\r\t"), r"'l1\nl2\r\t'");
        assert_eq!(str_literal("nul\0bell\u{7}"), r"'nul\u0000bell\u0007'");
        assert_eq!(str_literal("é→"), "'é→'");
    }
}
