//! sqrt(n) checkpointing of loops in reverse mode (`checkpoint=True`): the forward pass
//! saves the loop's state every k = ceil(sqrt(n)) iterations, the backward pass re-runs
//! one segment at a time with the tape.

use super::*;

impl Reverse<'_> {
    /// sqrt(n) checkpointing of `for i in iter: body`. The forward pass runs the plain
    /// body in segments of k = ceil(sqrt(n)) iterations, saving the loop's state at the
    /// start of each segment; the backward pass walks the segments last to first,
    /// restores a segment's state, re-runs it with the tape, and replays its adjoint. The
    /// tape then holds one segment and the checkpoints n/k states: O(sqrt(n)) memory.
    pub(super) fn checkpointed_for(
        &mut self,
        s: &Stmt,
        (i, iter, body, n): (&str, &Expr, &[Stmt], &str),
        (fbody, bbody): (Vec<Stmt>, Vec<Adj>),
        bound_before: &HashSet<String>,
        fwd: &mut Vec<Stmt>,
        bwd: &mut Vec<Adj>,
    ) {
        let stem = i.trim_start_matches('_').to_owned();
        let range_v = self.names.fresh(&format!("_range_{stem}"));
        let k = self.names.fresh(&format!("_k_{stem}"));
        let ckpts = self.names.fresh(&format!("_checkpoints_{stem}"));
        let seg = self.names.fresh(&format!("_segment_{stem}"));
        let m = self.names.fresh(&format!("_m_{stem}"));
        let (state, saved, restore_target) = loop_state(vec![i.to_owned()], body);
        let name = |v: &str| Expr::name(v);
        let bin = |op, a: Expr, b: Expr| Expr::synth(ExprKind::BinOp(op, Box::new(a), Box::new(b)));
        let slice = Expr::synth(ExprKind::Subscript(
            Box::new(name(&range_v)),
            Box::new(Expr::synth(ExprKind::Slice(
                Some(Box::new(name(&seg))),
                Some(Box::new(bin(BinOp::Add, name(&seg), name(&k)))),
                None,
            ))),
        ));
        // Forward.
        fwd.push(push(name(i)));
        fwd.push(Stmt::assign(&range_v, iter.clone()));
        fwd.push(Stmt::assign(
            n,
            Expr::call_path("len", vec![name(&range_v)]),
        ));
        fwd.push(Stmt::assign(
            &k,
            Expr::call_path("tangent.checkpoint_stride", vec![name(n)]),
        ));
        fwd.push(Stmt::assign(&ckpts, Expr::synth(ExprKind::List(vec![]))));
        for v in &state[1..] {
            if !bound_before.contains(v) {
                fwd.push(Stmt::assign(v, Expr::synth(ExprKind::NoneLit)));
            }
        }
        let segments = Expr::call_path("range", vec![Expr::num("0"), name(n), name(&k)]);
        let save = Stmt::synth(StmtKind::ExprStmt(Expr::synth(ExprKind::Call {
            func: Box::new(Expr::attr(name(&ckpts), "append")),
            args: vec![saved],
            kwargs: vec![],
        })));
        let plain = Stmt::new(StmtKind::For(name(i), slice.clone(), body.to_vec()), s.span);
        fwd.push(Stmt::new(
            StmtKind::For(name(&seg), segments.clone(), vec![save, plain]),
            s.span,
        ));
        // Backward: segments last to first.
        let mut rerun = fbody;
        rerun.push(push(name(i)));
        let mut replay = vec![Adj::Stmt(pop_into(name(i)))];
        replay.extend(bbody);
        let mut seg_body = restore_segment(
            restore_target,
            &ckpts,
            bin(BinOp::FloorDiv, name(&seg), name(&k)),
        );
        seg_body.extend([
            Adj::Stmt(Stmt::synth(StmtKind::For(name(i), slice.clone(), rerun))),
            Adj::Stmt(Stmt::assign(&m, Expr::call_path("len", vec![slice]))),
            Adj::Loop {
                count: name(&m),
                body: replay,
            },
        ]);
        bwd.push(Adj::ForIn {
            target: name(&seg),
            iter: Expr::call_path("reversed", vec![segments]),
            body: seg_body,
        });
        bwd.push(Adj::Stmt(pop_into(name(i))));
    }

    /// Checkpointing of `while test: body`, whose trip count is known only at the end:
    /// segment j (from 0) starts at iteration j(j+1)/2 and is j+1 iterations long, so n
    /// iterations make about sqrt(2n) segments of at most about sqrt(2n) iterations.
    /// The forward pass saves the state at each segment start; the backward pass walks
    /// the segments last to first, restores a segment, re-runs its iterations with the
    /// tape (the test was true for each of them) and replays their adjoint.
    pub(super) fn checkpointed_while(
        &mut self,
        s: &Stmt,
        (test, body, n): (&Expr, &[Stmt], &str),
        (fbody, bbody): (Vec<Stmt>, Vec<Adj>),
        bound_before: &HashSet<String>,
        fwd: &mut Vec<Stmt>,
        bwd: &mut Vec<Adj>,
    ) {
        let ckpts = self.names.fresh("_checkpoints_while");
        let next = self.names.fresh("_next_segment_while");
        let seg = self.names.fresh("_segment_while");
        let start = self.names.fresh("_start_while");
        let m = self.names.fresh("_m_while");
        let (state, saved, restore_target) = loop_state(vec![], body);
        let name = |v: &str| Expr::name(v);
        let num = |v: &str| Expr::num(v);
        let bin = |op, a: Expr, b: Expr| Expr::synth(ExprKind::BinOp(op, Box::new(a), Box::new(b)));
        let len = |v: &str| Expr::call_path("len", vec![name(v)]);
        // Forward.
        fwd.push(Stmt::assign(n, num("0")));
        fwd.push(Stmt::assign(&ckpts, Expr::synth(ExprKind::List(vec![]))));
        fwd.push(Stmt::assign(&next, num("0")));
        for v in &state {
            if !bound_before.contains(v) {
                fwd.push(Stmt::assign(v, Expr::synth(ExprKind::NoneLit)));
            }
        }
        let save = Stmt::synth(StmtKind::ExprStmt(Expr::synth(ExprKind::Call {
            func: Box::new(Expr::attr(name(&ckpts), "append")),
            args: vec![saved],
            kwargs: vec![],
        })));
        let at_start = Expr::synth(ExprKind::Compare(
            Box::new(name(n)),
            vec![(CmpOp::Eq, name(&next))],
        ));
        let mut loop_body = vec![Stmt::synth(StmtKind::If(
            at_start,
            vec![
                save,
                // The next segment is one iteration longer than this one.
                Stmt::assign(&next, bin(BinOp::Add, name(&next), len(&ckpts))),
            ],
            vec![],
        ))];
        loop_body.extend(body.iter().cloned());
        loop_body.push(increment(n));
        fwd.push(Stmt::new(StmtKind::While(test.clone(), loop_body), s.span));
        // Backward: segments last to first.
        let seg_start = bin(
            BinOp::FloorDiv,
            bin(
                BinOp::Mul,
                name(&seg),
                bin(BinOp::Add, name(&seg), num("1")),
            ),
            num("2"),
        );
        let seg_len = Expr::call_path(
            "min",
            vec![
                bin(BinOp::Add, name(&seg), num("1")),
                bin(BinOp::Sub, name(n), name(&start)),
            ],
        );
        let mut seg_body = restore_segment(restore_target, &ckpts, name(&seg));
        seg_body.extend([
            Adj::Stmt(Stmt::assign(&start, seg_start)),
            Adj::Stmt(Stmt::assign(&m, seg_len)),
            Adj::Stmt(Stmt::synth(StmtKind::For(
                name("_"),
                Expr::call_path("range", vec![name(&m)]),
                fbody,
            ))),
            Adj::Loop {
                count: name(&m),
                body: bbody,
            },
        ]);
        bwd.push(Adj::ForIn {
            target: name(&seg),
            iter: Expr::call_path(
                "reversed",
                vec![Expr::call_path("range", vec![len(&ckpts)])],
            ),
            body: seg_body,
        });
    }
}

/// The start of a segment's backward pass: restore the loop's state from
/// `checkpoints[index]`.
fn restore_segment(restore_target: Expr, checkpoints: &str, index: Expr) -> Vec<Adj> {
    vec![
        Adj::Stmt(Stmt::synth(StmtKind::Comment(
            "Restore the segment's state and re-run it with the tape".into(),
        ))),
        Adj::Stmt(Stmt::synth(StmtKind::Assign(
            restore_target,
            Expr::synth(ExprKind::Subscript(
                Box::new(Expr::name(checkpoints)),
                Box::new(index),
            )),
        ))),
    ]
}

/// The state of a checkpointed loop: `first` (the loop's own counters) and everything
/// its body assigns; the tuple that saves it (arrays written in place are copied: a
/// checkpoint must not see later writes) and the tuple target that restores it.
fn loop_state(first: Vec<String>, body: &[Stmt]) -> (Vec<String>, Expr, Expr) {
    let mut state = first;
    let mut mutated: HashSet<String> = HashSet::new();
    walk_stmts(body, &mut |x| {
        if let StmtKind::Assign(t, _) | StmtKind::For(t, _, _) = &x.kind {
            match &t.kind {
                ExprKind::Subscript(b, _) => {
                    if let Some(n) = b.as_name() {
                        mutated.insert(n.to_owned());
                        if !state.iter().any(|v| v == n) {
                            state.push(n.to_owned());
                        }
                    }
                }
                _ => {
                    let mut v = Vec::new();
                    t.names(&mut v);
                    for n in v {
                        if !state.contains(&n) {
                            state.push(n);
                        }
                    }
                }
            }
        }
    });
    let saved = Expr::synth(ExprKind::Tuple(
        state
            .iter()
            .map(|v| {
                if mutated.contains(v) {
                    Expr::call_path("tangent.copy", vec![Expr::name(v)])
                } else {
                    Expr::name(v)
                }
            })
            .collect(),
    ));
    let restore = Expr::synth(ExprKind::Tuple(state.iter().map(Expr::name).collect()));
    (state, saved, restore)
}
