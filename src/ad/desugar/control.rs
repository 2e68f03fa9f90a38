//! Step 2 of the normalisation: `break`, `continue` and early `return` become flags and
//! guarded blocks, so every loop body and the function body run to their end.

use super::*;

/// Flags for the innermost loop.
struct LoopFlags {
    brk: Option<String>,
    cont: Option<String>,
}

pub struct Control<'a> {
    names: &'a mut NameGen,
    loops: Vec<LoopFlags>,
    /// Set when the function has returns other than one final top-level `return`.
    returned: Option<String>,
    pub result: String,
}

fn contains(stmts: &[Stmt], pred: &dyn Fn(&StmtKind) -> bool, into_loops: bool) -> bool {
    stmts.iter().any(|s| {
        pred(&s.kind)
            || match &s.kind {
                StmtKind::If(_, a, b) => {
                    contains(a, pred, into_loops) || contains(b, pred, into_loops)
                }
                StmtKind::For(_, _, b) | StmtKind::While(_, b) if into_loops => {
                    contains(b, pred, into_loops)
                }
                _ => false,
            }
    })
}

fn is_return(k: &StmtKind) -> bool {
    matches!(k, StmtKind::Return(_))
}

impl<'a> Control<'a> {
    /// Lowers the function body. Returns the body, which ends with `return <result>`.
    pub fn lower_function(names: &'a mut NameGen, body: Vec<Stmt>) -> (Vec<Stmt>, String) {
        let n_returns = {
            let mut n = 0;
            walk_stmts(&body, &mut |s| {
                if is_return(&s.kind) {
                    n += 1
                }
            });
            n
        };
        let final_return = matches!(body.last(), Some(Stmt { kind: StmtKind::Return(Some(e)), .. }) if e.as_name().is_some());
        if n_returns == 1 && final_return {
            let mut body = body;
            let Some(Stmt {
                kind: StmtKind::Return(Some(e)),
                ..
            }) = body.last().cloned()
            else {
                unreachable!()
            };
            let name = e.as_name().unwrap_or_default().to_owned();
            // Loops and branches still need their break/continue lowered.
            let mut ctl = Control {
                names,
                loops: vec![],
                returned: None,
                result: name.clone(),
            };
            body.pop();
            let mut out = ctl.block(body);
            out.push(Stmt::synth(StmtKind::Return(Some(Expr::name(&name)))));
            return (out, name);
        }
        let result = names.fresh("result");
        let simple_end = n_returns == 1 && matches!(body.last(), Some(s) if is_return(&s.kind));
        let returned = if simple_end {
            None
        } else {
            Some(names.fresh("_returned"))
        };
        let mut ctl = Control {
            names,
            loops: vec![],
            returned: returned.clone(),
            result: result.clone(),
        };
        let mut out = Vec::new();
        if let Some(r) = &returned {
            out.push(Stmt::assign(r, Expr::synth(ExprKind::Bool(false))));
            out.push(Stmt::assign(&result, Expr::synth(ExprKind::NoneLit)));
        }
        out.extend(ctl.block(body));
        out.push(Stmt::synth(StmtKind::Return(Some(Expr::name(&result)))));
        (out, result)
    }

    /// Flags that `s` may set, seen from the innermost loop.
    fn jumps(&self, s: &Stmt) -> Vec<String> {
        let mut out = Vec::new();
        let lp = self.loops.last();
        let here = |k: &StmtKind| matches!(k, StmtKind::Break);
        let cont = |k: &StmtKind| matches!(k, StmtKind::Continue);
        let one = std::slice::from_ref(s);
        if let Some(lp) = lp {
            if contains(one, &here, false) {
                out.extend(lp.brk.clone());
            }
            if contains(one, &cont, false) {
                out.extend(lp.cont.clone());
            }
        }
        if let Some(r) = &self.returned {
            if contains(one, &is_return, true) {
                out.push(r.clone());
            }
        }
        out
    }

    fn block(&mut self, stmts: Vec<Stmt>) -> Vec<Stmt> {
        let mut out = Vec::new();
        let mut iter = stmts.into_iter();
        while let Some(s) = iter.next() {
            let flags = self.jumps(&s);
            out.extend(self.stmt(s));
            let rest: Vec<Stmt> = iter.clone().collect();
            if !flags.is_empty() && !rest.is_empty() {
                let any = if flags.len() == 1 {
                    Expr::name(&flags[0])
                } else {
                    Expr::synth(ExprKind::BoolOp(
                        BoolOp::Or,
                        flags.iter().map(Expr::name).collect(),
                    ))
                };
                let test = Expr::synth(ExprKind::Unary(UnaryOp::Not, Box::new(any)));
                let guarded = self.block(rest);
                out.push(Stmt::synth(StmtKind::If(test, guarded, vec![])));
                break;
            }
        }
        out
    }

    fn stmt(&mut self, s: Stmt) -> Vec<Stmt> {
        let span = s.span;
        match s.kind {
            StmtKind::Break => {
                let flag = self.loops.last().and_then(|l| l.brk.clone());
                vec![Stmt::new(
                    StmtKind::Assign(
                        Expr::name(flag.unwrap_or_default()),
                        Expr::synth(ExprKind::Bool(true)),
                    ),
                    span,
                )]
            }
            StmtKind::Continue => {
                let flag = self.loops.last().and_then(|l| l.cont.clone());
                vec![Stmt::new(
                    StmtKind::Assign(
                        Expr::name(flag.unwrap_or_default()),
                        Expr::synth(ExprKind::Bool(true)),
                    ),
                    span,
                )]
            }
            StmtKind::Return(value) => {
                let value = value.unwrap_or(Expr::synth(ExprKind::NoneLit));
                let mut out = vec![Stmt::new(
                    StmtKind::Assign(Expr::name(&self.result), value),
                    span,
                )];
                if let Some(r) = &self.returned {
                    out.push(Stmt::assign(r, Expr::synth(ExprKind::Bool(true))));
                }
                out
            }
            StmtKind::If(t, a, b) => {
                let a = self.block(a);
                let b = self.block(b);
                vec![Stmt::new(StmtKind::If(t, a, b), span)]
            }
            StmtKind::For(..) | StmtKind::While(..) => self.lower_loop(s.kind, span),
            other => vec![Stmt::new(other, span)],
        }
    }

    fn lower_loop(&mut self, kind: StmtKind, span: Span) -> Vec<Stmt> {
        let body = match &kind {
            StmtKind::For(_, _, b) | StmtKind::While(_, b) => b,
            _ => unreachable!(),
        };
        let brk = contains(body, &|k| matches!(k, StmtKind::Break), false)
            .then(|| self.names.fresh("_break"));
        let cont = contains(body, &|k| matches!(k, StmtKind::Continue), false)
            .then(|| self.names.fresh("_continue"));
        let returns = self.returned.is_some() && contains(body, &is_return, true);
        self.loops.push(LoopFlags {
            brk: brk.clone(),
            cont: cont.clone(),
        });
        let (head, body) = match kind {
            StmtKind::For(t, it, b) => ((Some((t, it)), None), b),
            StmtKind::While(t, b) => ((None, Some(t)), b),
            _ => unreachable!(),
        };
        let mut new_body = Vec::new();
        if let Some(c) = &cont {
            new_body.push(Stmt::assign(c, Expr::synth(ExprKind::Bool(false))));
        }
        new_body.extend(self.block(body));
        self.loops.pop();
        let mut exit: Vec<Expr> = brk.iter().map(Expr::name).collect();
        if returns {
            exit.extend(self.returned.iter().map(Expr::name));
        }
        if !exit.is_empty() {
            let test = if exit.len() == 1 {
                exit.pop().unwrap_or_else(|| Expr::name(""))
            } else {
                Expr::synth(ExprKind::BoolOp(BoolOp::Or, exit))
            };
            new_body.push(Stmt::synth(StmtKind::If(
                test,
                vec![Stmt::synth(StmtKind::Break)],
                vec![],
            )));
        }
        let mut out = Vec::new();
        if let Some(b) = &brk {
            out.push(Stmt::assign(b, Expr::synth(ExprKind::Bool(false))));
        }
        let lp = match head {
            (Some((t, it)), _) => StmtKind::For(t, it, new_body),
            (_, Some(t)) => StmtKind::While(t, new_body),
            _ => unreachable!(),
        };
        out.push(Stmt::new(lp, span));
        out
    }
}

/// Is this `if flag: break` (the loop exit left by control lowering)?
pub fn is_exit_check(s: &Stmt) -> bool {
    matches!(&s.kind, StmtKind::If(_, body, orelse) if orelse.is_empty() && matches!(body.as_slice(), [Stmt { kind: StmtKind::Break, .. }]))
}
