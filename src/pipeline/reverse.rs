//! Reverse mode over every user function reached: `Generator` gives each callee its
//! gradient (joint motion), its split-motion pair or its two-phase gradient (recursive
//! callees), assembles the entry point, and prints them.

use super::*;
use crate::ad::adjoint::Lowering;
use crate::ad::reverse::{Callees, Reverse};

pub(super) fn generate(
    module: &SourceModule,
    func: &str,
    opts: &GradOptions,
    rules: &RuleSet,
) -> Result<Generated, Diagnostic> {
    let user_functions: HashSet<String> = module.function_names.iter().cloned().collect();
    let mut g = Generator {
        module,
        rules,
        user_functions,
        done: HashMap::new(),
        out: Vec::new(),
        opts: opts.clone(),
        taken: HashSet::new(),
        done_split: HashMap::new(),
        done_phased: HashMap::new(),
        recursive: HashMap::new(),
        effects: HashMap::new(),
    };
    let (entry, _, _) = g.function(func, &opts.wrt, true, opts.split, false, Span::SYNTHETIC)?;
    for f in &mut g.out {
        crate::opt::in_place::apply(f, rules);
    }
    let mut source = String::new();
    let mut params = Vec::new();
    for (i, f) in g.out.iter().enumerate() {
        if f.name == entry {
            params = f.params.iter().map(|p| p.name.clone()).collect();
        }
        if i > 0 {
            source.push_str("\n\n");
        }
        source.push_str(&printer::function(f));
    }
    // The entry point first reads best.
    if let Some(pos) = g.out.iter().position(|f| f.name == entry) {
        if pos != 0 {
            let mut fs = g.out.clone();
            let e = fs.remove(pos);
            fs.insert(0, e);
            source = fs
                .iter()
                .map(printer::function)
                .collect::<Vec<_>>()
                .join("\n\n");
        }
    }
    source.push_str(&lifted_primals(module, &g.out));
    Ok(Generated {
        source,
        entry,
        params,
    })
}

/// What split-motion assembly needs from the reverse transform of one function.
struct SplitParts<'a> {
    func: &'a str,
    top: bool,
    def: &'a FuncDef,
    gen_name: &'a str,
    seed: &'a str,
    result: &'a str,
    fwd: Vec<Stmt>,
    bwd: Vec<Stmt>,
    wrt_names: &'a [String],
    grad_names: &'a HashMap<String, String>,
    names: &'a mut NameGen,
}

/// What the two-phase assembly needs from the reverse transform of one function.
struct Phased<'a> {
    def: &'a FuncDef,
    gen_name: &'a str,
    seed: &'a str,
    phase: &'a str,
    result: &'a str,
    fwd: Vec<Stmt>,
    bwd: Vec<Stmt>,
    wrt_names: &'a [String],
    grad_names: &'a HashMap<String, String>,
}

/// `return bx` (or `return bx, by`): the gradients of the `wrt` inputs.
fn return_gradients(wrt_names: &[String], grad_names: &HashMap<String, String>) -> Stmt {
    let mut grads: Vec<Expr> = wrt_names
        .iter()
        .map(|v| Expr::name(&grad_names[v]))
        .collect();
    let ret = if grads.len() == 1 {
        grads.remove(0)
    } else {
        Expr::synth(ExprKind::Tuple(grads))
    };
    Stmt::synth(StmtKind::Return(Some(ret)))
}

/// The seed parameter of a split-motion derivative's entry point.
const SPLIT_SEED: &str = "init_grad";

/// The locals a separate backward pass reads that its forward pass assigned (the result
/// included), in the order the backward pass reads them: what split motion and the
/// two-phase gradients of recursive callees carry from one pass to the other.
fn saved_for_backward(result: &str, fwd: &[Stmt], bwd: &[Stmt]) -> Vec<String> {
    let mut assigned: HashSet<String> = HashSet::new();
    assigned.insert(result.to_owned());
    walk_stmts(fwd, &mut |s| {
        if let StmtKind::Assign(t, _) | StmtKind::For(t, _, _) = &s.kind {
            let mut v = Vec::new();
            t.names(&mut v);
            assigned.extend(v);
        }
    });
    let mut read = Vec::new();
    walk_stmts(bwd, &mut |s| {
        crate::syntax::visit::stmt_exprs(s, &mut |e| e.names(&mut read));
    });
    let mut saved: Vec<String> = Vec::new();
    for n in read {
        if assigned.contains(&n) && n != "_stack" && !saved.contains(&n) {
            saved.push(n);
        }
    }
    saved
}

/// A generated gradient: (its name, its seed parameter, the primal's parameters).
type GradFn = (String, String, Vec<String>);

struct Generator<'m> {
    module: &'m SourceModule,
    rules: &'m RuleSet,
    user_functions: HashSet<String>,
    /// (function, wrt) -> (generated name, seed parameter, primal parameters).
    done: HashMap<(String, Vec<usize>), GradFn>,
    out: Vec<FuncDef>,
    opts: GradOptions,
    taken: HashSet<String>,
    /// Split motion: (function, wrt) -> (forward name, backward name, seed parameter).
    done_split: HashMap<(String, Vec<usize>), (String, String, String)>,
    /// Two-phase gradients of recursive callees: (function, wrt) -> (name, seed
    /// parameter, phase parameter).
    done_phased: HashMap<(String, Vec<usize>), (String, String, String)>,
    /// Whether each user function reaches itself through calls.
    recursive: HashMap<String, bool>,
    /// Whether a second run of each user function's forward pass would repeat an effect.
    effects: HashMap<String, bool>,
}

impl Callees for Generator<'_> {
    fn gradient_of(
        &mut self,
        func: &str,
        wrt: &[usize],
        span: Span,
    ) -> Result<(String, String, Vec<String>), Diagnostic> {
        self.module.check_undecorated(func, span)?;
        if wrt.is_empty() {
            // Only the parameter list is wanted.
            let def = self.module.lower_function(func)?;
            let params = def.params.iter().map(|p| p.name.clone()).collect();
            return Ok((String::new(), String::new(), params));
        }
        self.function(func, wrt, false, false, false, span)
    }

    fn check_call(
        &mut self,
        func: &str,
        nargs: usize,
        kwargs: &[(String, Expr)],
        span: Span,
    ) -> Result<Option<usize>, Diagnostic> {
        call_star(self.module, func, nargs, kwargs, span)
    }

    fn runs_forward_once(&mut self, func: &str) -> bool {
        self.is_recursive(func) || self.has_effects(func)
    }

    fn replays_effects(&mut self, stmts: &[Stmt], bound: &HashSet<String>) -> bool {
        let mut own = Self::bound_names(stmts);
        own.extend(bound.iter().cloned());
        self.stmts_have_effects(stmts, &own)
            || self
                .user_calls_in(stmts)
                .iter()
                .any(|f| self.has_effects(f))
    }

    fn phased_gradient_of(
        &mut self,
        func: &str,
        wrt: &[usize],
        span: Span,
    ) -> Result<(String, String, String), Diagnostic> {
        let key = (func.to_owned(), wrt.to_vec());
        if let Some(done) = self.done_phased.get(&key) {
            return Ok(done.clone());
        }
        self.function(func, wrt, false, false, true, span)?;
        Ok(self.done_phased[&key].clone())
    }

    fn split_gradient_of(
        &mut self,
        func: &str,
        wrt: &[usize],
        span: Span,
    ) -> Result<(String, String, String), Diagnostic> {
        let key = (func.to_owned(), wrt.to_vec());
        if let Some(done) = self.done_split.get(&key) {
            return Ok(done.clone());
        }
        let (name, seed, _) = self.function(func, wrt, false, true, false, span)?;
        Ok((format!("{name}_forward"), format!("{name}_backward"), seed))
    }
}

impl Generator<'_> {
    /// Does `func` call itself, directly or through other user functions?
    fn is_recursive(&mut self, func: &str) -> bool {
        if let Some(r) = self.recursive.get(func) {
            return *r;
        }
        // Depth-first over the user functions `func` calls by name.
        let mut seen: HashSet<String> = HashSet::new();
        let mut todo: Vec<String> = self.calls_of(func);
        let mut found = false;
        while let Some(g) = todo.pop() {
            if g == func {
                found = true;
                break;
            }
            if seen.insert(g.clone()) {
                todo.extend(self.calls_of(&g));
            }
        }
        self.recursive.insert(func.to_owned(), found);
        found
    }

    /// Would running `func`'s forward pass a second time (a gradient recomputing it in
    /// the backward pass) repeat an effect, in it or in a user function it calls: a call
    /// made for its effect (`print(...)`, `log.append(...)`), a call of a function with
    /// hidden state (a random draw: `RuleSet::is_effectful`), or a store into an object
    /// it did not make (`counter[0] += 1`, `self.n = ...`)? A second run would print
    /// twice, draw another number than the primal used, or count twice.
    fn has_effects(&mut self, func: &str) -> bool {
        if let Some(e) = self.effects.get(func) {
            return *e;
        }
        let mut seen: HashSet<String> = HashSet::new();
        let mut todo = vec![func.to_owned()];
        let mut found = false;
        while let Some(g) = todo.pop() {
            if !seen.insert(g.clone()) {
                continue;
            }
            if let Ok(def) = self.module.lower_function(&g) {
                // (its parameters' objects are the caller's, not its own)
                if self.stmts_have_effects(&def.body, &Self::bound_names(&def.body)) {
                    found = true;
                    break;
                }
            }
            todo.extend(self.calls_of(&g));
        }
        self.effects.insert(func.to_owned(), found);
        found
    }

    /// Does a statement of `stmts` itself (not through the user functions it calls)
    /// have an effect a second run would repeat? `own`: the names of objects the code
    /// made itself, which it may store into.
    fn stmts_have_effects(&self, stmts: &[Stmt], own: &HashSet<String>) -> bool {
        let root = |mut e: &Expr| loop {
            match &e.kind {
                ExprKind::Subscript(b, _) | ExprKind::Attr(b, _) => e = b,
                ExprKind::Name(n) => return Some(n.clone()),
                _ => return None,
            }
        };
        let mut found = false;
        walk_stmts(stmts, &mut |s| {
            match &s.kind {
                StmtKind::ExprStmt(e) => {
                    if let ExprKind::Call { func, .. } = &e.kind {
                        // (a transparent context's enter and exit, as desugared, are
                        // replayed with the code they enclose)
                        let context = matches!(&func.kind, ExprKind::Attr(_, m)
                            if m == "__enter__" || m == "__exit__");
                        found |= !context && !printer::expr(func).starts_with("tangent.");
                    }
                }
                StmtKind::Assign(t, _) | StmtKind::AugAssign(t, _, _) => {
                    if matches!(t.kind, ExprKind::Subscript(..) | ExprKind::Attr(..)) {
                        found |= root(t).is_none_or(|n| !own.contains(&n));
                    }
                }
                _ => {}
            }
            crate::syntax::visit::stmt_exprs(s, &mut |e| {
                e.walk(&mut |x| {
                    if let ExprKind::Call { func, .. } = &x.kind {
                        found |= self.rules.is_effectful(&self.qualified(func));
                    }
                })
            });
        });
        found
    }

    /// The names `stmts` bind by assignment or as loop targets.
    fn bound_names(stmts: &[Stmt]) -> HashSet<String> {
        let mut own: HashSet<String> = HashSet::new();
        walk_stmts(stmts, &mut |s| {
            if let StmtKind::Assign(t, _) | StmtKind::For(t, _, _) = &s.kind {
                t.walk(&mut |x| {
                    if let ExprKind::Name(n) = &x.kind {
                        own.insert(n.clone());
                    }
                });
            }
        });
        own
    }

    /// A callee as written (`np.random.normal`) by its module's name (`numpy.random.normal`).
    fn qualified(&self, func: &Expr) -> String {
        let text = printer::expr(func);
        let (head, rest) = text.split_once('.').unwrap_or((text.as_str(), ""));
        match self.module.imports.get(head) {
            Some(q) if rest.is_empty() => q.clone(),
            Some(q) => format!("{q}.{rest}"),
            None => text.clone(),
        }
    }

    /// The user functions `func`'s body calls by name (none if it does not lower).
    fn calls_of(&self, func: &str) -> Vec<String> {
        let Ok(def) = self.module.lower_function(func) else {
            return vec![];
        };
        self.user_calls_in(&def.body)
    }

    /// The user functions `stmts` call by name.
    fn user_calls_in(&self, stmts: &[Stmt]) -> Vec<String> {
        let mut out = Vec::new();
        walk_stmts(stmts, &mut |s| {
            crate::syntax::visit::stmt_exprs(s, &mut |e| {
                e.walk(&mut |x| {
                    if let ExprKind::Call { func: f, .. } = &x.kind {
                        if let Some(n) = f.as_name() {
                            if self.user_functions.contains(n) && !out.iter().any(|o| o == n) {
                                out.push(n.to_owned());
                            }
                        }
                    }
                })
            })
        });
        out
    }

    fn gen_name(&mut self, func: &str, params: &[String]) -> String {
        let base = format!("d{func}d{}", params.join(""));
        let mut name = base.clone();
        let mut i = 2;
        while self.taken.contains(&name)
            || self.user_functions.contains(&name)
            || self.module.imports.contains_key(&name)
        {
            name = format!("{base}{i}");
            i += 1;
        }
        self.taken.insert(name.clone());
        name
    }

    /// The entry point's check of the output (`check_dims`) or its selection of tuple
    /// elements (`output_index` / `output_weights`).
    fn output_check(&self, func: &str, result: &str, seed: &str) -> Vec<Stmt> {
        let mut new_body = Vec::new();
        let top = true;
        let selects_output = self.opts.output_index.is_some() || self.opts.output_weights.is_some();
        if top && selects_output {
            // A tuple output: the seed goes to the selected (or weighted) elements.
            let index = match self.opts.output_index {
                Some(i) if i < 0 => Expr::synth(ExprKind::Unary(
                    UnaryOp::Neg,
                    Box::new(Expr::num(i.unsigned_abs().to_string())),
                )),
                Some(i) => Expr::num(i.to_string()),
                None => Expr::synth(ExprKind::NoneLit),
            };
            let weights = match &self.opts.output_weights {
                Some(ws) => Expr::synth(ExprKind::Tuple(ws.iter().map(Expr::num).collect())),
                None => Expr::synth(ExprKind::NoneLit),
            };
            new_body.push(Stmt::assign(
                seed,
                Expr::call_path(
                    "tangent.output_seed",
                    vec![
                        Expr::name(result),
                        Expr::name(seed),
                        index,
                        weights,
                        Expr::synth(ExprKind::Bool(self.opts.check_dims)),
                        Expr::str_lit(func),
                    ],
                ),
            ));
        } else if top && self.opts.check_dims {
            new_body.push(Stmt::synth(StmtKind::ExprStmt(Expr::call_path(
                "tangent.check_output",
                vec![Expr::name(result), Expr::name(seed), Expr::str_lit(func)],
            ))));
        }
        new_body
    }

    /// Split motion: `<name>_forward(params)` returns `(value, tape)` after saving the
    /// locals the backward pass reads; `<name>_backward(params, seed, _stack)` restores
    /// them and runs the adjoint. The entry point (top level) calls both.
    fn assemble_split(&mut self, p: SplitParts<'_>) {
        let SplitParts {
            func,
            top,
            def,
            gen_name,
            seed,
            result,
            fwd,
            bwd,
            wrt_names,
            grad_names,
            names,
        } = p;
        let params: Vec<String> = def.params.iter().map(|p| p.name.clone()).collect();
        let saved = saved_for_backward(result, &fwd, &bwd);
        let tape = || Expr::name("_stack");
        // Forward.
        let mut fbody = vec![Stmt::assign(
            "_stack",
            Expr::call_path("tangent.Stack", vec![]),
        )];
        let mut probe = fwd.clone();
        probe.extend(saved.iter().map(|v| crate::tape::push(Expr::name(v))));
        let pushes = crate::tape::pushed_names(&probe);
        for v in crate::tape::maybe_unbound_pushes(&probe, &params, &pushes) {
            fbody.push(Stmt::assign(&v, Expr::synth(ExprKind::NoneLit)));
        }
        fbody.extend(fwd);
        if !saved.is_empty() {
            fbody.push(Stmt::synth(StmtKind::Comment(
                "Values the backward pass reads".into(),
            )));
            fbody.push(crate::tape::push(Expr::synth(ExprKind::Tuple(
                saved.iter().map(Expr::name).collect(),
            ))));
        }
        fbody.push(Stmt::synth(StmtKind::Return(Some(Expr::synth(
            ExprKind::Tuple(vec![Expr::name(result), tape()]),
        )))));
        self.out.push(FuncDef {
            name: format!("{gen_name}_forward"),
            params: def.params.clone(),
            vararg: None,
            kwonly: def.kwonly,
            star: def.star,
            body: fbody,
            span: def.span,
        });
        // Backward.
        let mut bbody = Vec::new();
        if !saved.is_empty() {
            bbody.push(crate::tape::pop_into(Expr::synth(ExprKind::Tuple(
                saved.iter().map(Expr::name).collect(),
            ))));
        }
        bbody.extend(bwd);
        bbody.push(return_gradients(wrt_names, grad_names));
        let mut bparams = def.params.clone();
        bparams.push(Param {
            name: seed.to_owned(),
            default: Some(Expr::num("1.0")),
        });
        bparams.push(Param {
            name: "_stack".into(),
            default: Some(Expr::synth(ExprKind::NoneLit)),
        });
        self.out.push(FuncDef {
            name: format!("{gen_name}_backward"),
            params: bparams,
            vararg: None,
            kwonly: def.kwonly,
            star: def.star,
            body: bbody,
            span: def.span,
        });
        if !top {
            return;
        }
        // The entry point: forward, output check, backward. Its seed is `init_grad`, the
        // keyword Google Tangent's split-motion derivative takes.
        let seed = if params.iter().any(|p| p == SPLIT_SEED) {
            seed
        } else {
            SPLIT_SEED
        };
        let args: Vec<Expr> = params.iter().map(Expr::name).collect();
        let mut ebody = entry_checks(self.module, &params);
        ebody.push(Stmt::synth(StmtKind::Assign(
            Expr::synth(ExprKind::Tuple(vec![Expr::name(result), tape()])),
            Expr::call_path(&format!("{gen_name}_forward"), args.clone()),
        )));
        ebody.extend(self.output_check(func, result, seed));
        let grad_vars: Vec<String> = wrt_names.iter().map(|v| grad_names[v].clone()).collect();
        let target = if grad_vars.len() == 1 {
            Expr::name(&grad_vars[0])
        } else {
            Expr::synth(ExprKind::Tuple(grad_vars.iter().map(Expr::name).collect()))
        };
        let mut bargs = args;
        bargs.push(Expr::name(seed));
        bargs.push(tape());
        ebody.push(Stmt::synth(StmtKind::Assign(
            target,
            Expr::call_path(&format!("{gen_name}_backward"), bargs),
        )));
        let mut ret: Vec<Expr> = grad_vars.iter().map(Expr::name).collect();
        if self.opts.preserve_result {
            ret.push(Expr::name(result));
        }
        let ret = if ret.len() == 1 {
            ret.pop().unwrap_or_else(|| Expr::name("None"))
        } else {
            Expr::synth(ExprKind::Tuple(ret))
        };
        ebody.push(Stmt::synth(StmtKind::Return(Some(ret))));
        let _ = names;
        let mut eparams = def.params.clone();
        eparams.push(Param {
            name: seed.to_owned(),
            default: Some(Expr::num("1.0")),
        });
        self.out.push(FuncDef {
            name: gen_name.to_owned(),
            params: eparams,
            vararg: None,
            kwonly: def.kwonly,
            star: def.star,
            body: ebody,
            span: def.span,
        });
    }

    /// The two-phase gradient of a recursive callee, one function so that both phases
    /// type its variables alike (the native compiler's types are per function):
    ///
    /// ```text
    /// def dfdx2(x, n, _stack=None, _reverse_phase=False, bresult=1.0):
    ///     if _reverse_phase:
    ///         <pop what the backward pass reads>; <backward pass>; return bx
    ///     <forward pass, pushing on the caller's _stack>; <push what the backward
    ///     pass reads>; return result
    /// ```
    ///
    /// The caller's forward pass calls it with its tape, its backward pass calls it again
    /// with the phase true at the mirrored point, so the tape stays last-in first-out.
    fn assemble_phased(&mut self, p: Phased<'_>) {
        let Phased {
            def,
            gen_name,
            seed,
            phase,
            result,
            fwd,
            bwd,
            wrt_names,
            grad_names,
        } = p;
        let params: Vec<String> = def.params.iter().map(|p| p.name.clone()).collect();
        let saved = saved_for_backward(result, &fwd, &bwd);
        // Backward phase: restore, replay, return the gradients.
        let mut bbody = Vec::new();
        for v in saved.iter().rev() {
            bbody.push(crate::tape::pop_into(Expr::name(v)));
        }
        bbody.extend(bwd);
        bbody.push(return_gradients(wrt_names, grad_names));
        let mut body = vec![Stmt::synth(StmtKind::If(Expr::name(phase), bbody, vec![]))];
        // Forward phase.
        let mut probe = fwd.clone();
        probe.extend(saved.iter().map(|v| crate::tape::push(Expr::name(v))));
        let pushes = crate::tape::pushed_names(&probe);
        for v in crate::tape::maybe_unbound_pushes(&probe, &params, &pushes) {
            body.push(Stmt::assign(&v, Expr::synth(ExprKind::NoneLit)));
        }
        body.extend(fwd);
        if !saved.is_empty() {
            body.push(Stmt::synth(StmtKind::Comment(
                "Values the backward phase reads".into(),
            )));
            body.extend(saved.iter().map(|v| crate::tape::push(Expr::name(v))));
        }
        body.push(Stmt::synth(StmtKind::Return(Some(Expr::name(result)))));
        let mut fparams = def.params.clone();
        fparams.push(Param {
            name: "_stack".into(),
            default: Some(Expr::synth(ExprKind::NoneLit)),
        });
        fparams.push(Param {
            name: phase.to_owned(),
            default: Some(Expr::synth(ExprKind::Bool(false))),
        });
        fparams.push(Param {
            name: seed.to_owned(),
            default: Some(Expr::num("1.0")),
        });
        self.out.push(FuncDef {
            name: gen_name.to_owned(),
            params: fparams,
            vararg: None,
            kwonly: def.kwonly,
            star: def.star,
            body,
            span: def.span,
        });
    }

    fn function(
        &mut self,
        func: &str,
        wrt: &[usize],
        top: bool,
        split: bool,
        phased: bool,
        _call_span: Span,
    ) -> Result<GradFn, Diagnostic> {
        let key = (func.to_owned(), wrt.to_vec());
        if !top && !split && !phased {
            if let Some(done) = self.done.get(&key) {
                return Ok(done.clone());
            }
        }
        let module = self.module;
        let locate = |d: Diagnostic| d.locate(&module.file, &module.text);
        let Prepared {
            def,
            params,
            wrt_names,
            mut names,
            resolver,
            body,
            result,
        } = prepare(module, &self.user_functions, func, wrt, true)?;

        let rules = self.rules;
        let active = activity::Activity {
            resolver: &resolver,
            rules,
        }
        .run(&body, &wrt_names);

        // Gradient names: bx for x, avoiding every name in use.
        let mut grad_names: HashMap<String, String> = HashMap::new();
        let mut all_vars: Vec<String> = active.iter().cloned().collect();
        all_vars.sort();
        for v in all_vars.iter().chain(std::iter::once(&result)) {
            if !grad_names.contains_key(v) {
                let g = names.fresh(&format!("b{v}"));
                grad_names.insert(v.clone(), g);
            }
        }
        let seed = grad_names[&result].clone();
        let gen_name = self.gen_name(func, &wrt_names);
        // The entry point has its own conventions (check_dims, preserve_result); a
        // recursive call gets the callee variant, generated separately.
        let phase = if phased {
            names.fresh("_reverse_phase")
        } else {
            String::new()
        };
        if phased {
            self.done_phased
                .insert(key.clone(), (gen_name.clone(), seed.clone(), phase.clone()));
        } else if !top && !split {
            self.done.insert(
                key.clone(),
                (gen_name.clone(), seed.clone(), params.clone()),
            );
        }
        if !top && split {
            self.done_split.insert(
                key.clone(),
                (
                    format!("{gen_name}_forward"),
                    format!("{gen_name}_backward"),
                    seed.clone(),
                ),
            );
        }

        let overwritten = crate::ad::reverse::overwritten(&body, &params);
        let split_motion = self.opts.split;
        let checkpoint = self.opts.checkpoint;
        let coarsening = self.opts.coarsening;
        let phase_recursion = !self.opts.joint_recursion;
        let (fwd, bwd, adjoint_tape) = {
            let mut rev = Reverse {
                resolver: &resolver,
                rules,
                active: &active,
                overwritten: &overwritten,
                names: &mut names,
                callees: self,
                bound: params.iter().cloned().collect(),
                split: split_motion,
                callee_tape: None,
                phase_recursion,
                callee_phase: None,
                checkpoint,
                adjoint_tape: None,
                coarsen: coarsening.then_some(body.as_slice()),
            };
            let (fwd, bwd) = rev.block(&body, 0).map_err(locate)?;
            (fwd, bwd, rev.adjoint_tape)
        };
        let initial = vec![result.clone()];
        let (mut bwd, _tracked, finals) =
            Lowering::new(&grad_names).lower(&bwd, &initial, &wrt_names);
        if let Some(tape) = adjoint_tape {
            bwd.insert(
                0,
                Stmt::assign(&tape, Expr::call_path("tangent.Stack", vec![])),
            );
        }

        // Coarsened adjoints are simplified by the e-graph passes.
        let passes = crate::opt::egraph::Passes {
            cse: self.opts.cse || self.opts.coarsening,
            algebraic: self.opts.algebraic || self.opts.coarsening,
        };
        let classify = |f: &Expr| crate::opt::egraph::call_kind(rules, &resolver, f);
        let (fwd, bwd) = if split {
            let fwd = crate::opt::egraph::simplify(fwd, passes, &classify, &mut names);
            (
                fwd,
                crate::opt::egraph::simplify(bwd, passes, &classify, &mut names),
            )
        } else {
            // One function: the backward pass may reuse values of the forward pass.
            crate::opt::egraph::simplify_pair(fwd, bwd, passes, &classify, &mut names)
        };
        let (fwd, mut bwd) = if self.opts.optimized {
            let live_out: Vec<String> = wrt_names.iter().map(|v| grad_names[v].clone()).collect();
            let (fwd, bwd) = crate::opt::optimize(fwd, bwd, &live_out);
            if split || phased || !self.opts.recompute {
                // The tape leaves this function (split) or is the caller's (phased).
                (fwd, bwd)
            } else {
                let pure = |f: &Expr| {
                    let name = crate::emit::printer::expr(f);
                    classify(f) != crate::opt::egraph::CallKind::Opaque
                        && !rules.is_effectful(&name)
                        && rules.copying_variant(&name).is_none()
                };
                let fresh = |f: &Expr| match resolver.callee(f) {
                    crate::resolve::Callee::Library(q) | crate::resolve::Callee::Method(q) => {
                        rules.is_pure(&q) && !rules.returns_view(&q)
                    }
                    _ => false,
                };
                let shape_only: HashSet<String> = if self.opts.tape_liveness {
                    crate::tape::pushed_names(&fwd)
                        .into_iter()
                        .filter(|v| {
                            crate::opt::tape_liveness::shape_only_in_backward(rules, &bwd, v)
                        })
                        .collect()
                } else {
                    HashSet::new()
                };
                let calls = crate::opt::recompute::Calls {
                    pure: &pure,
                    fresh: &fresh,
                    shape_only: &shape_only,
                };
                crate::opt::recompute::apply(fwd, bwd, &params, &calls)
            }
        } else {
            (fwd, bwd)
        };
        let fwd = if self.opts.tape_liveness {
            crate::opt::tape_liveness::apply(rules, fwd, &bwd)
        } else {
            fwd
        };

        // Gradients that no contribution reached are zeros shaped like their input.
        for (v, state) in finals {
            let g = grad_names[&v].clone();
            let init = Expr::call_path("tangent.init_grad", vec![Expr::name(&v)]);
            match state {
                "undefined" => bwd.push(Stmt::assign(&g, init)),
                "maybe" => bwd.push(Stmt::synth(StmtKind::If(
                    Expr::synth(ExprKind::Compare(
                        Box::new(Expr::name(&g)),
                        vec![(CmpOp::Is, Expr::synth(ExprKind::NoneLit))],
                    )),
                    vec![Stmt::assign(&g, init)],
                    vec![],
                ))),
                _ => {}
            }
        }

        if phased {
            self.assemble_phased(Phased {
                def: &def,
                gen_name: &gen_name,
                seed: &seed,
                phase: &phase,
                result: &result,
                fwd,
                bwd,
                wrt_names: &wrt_names,
                grad_names: &grad_names,
            });
            return Ok((gen_name, seed, params));
        }
        if split {
            self.assemble_split(SplitParts {
                func,
                top,
                def: &def,
                gen_name: &gen_name,
                seed: &seed,
                result: &result,
                fwd,
                bwd,
                wrt_names: &wrt_names,
                grad_names: &grad_names,
                names: &mut names,
            });
            return Ok((gen_name, seed, params));
        }

        let mut new_body = Vec::new();
        if top {
            new_body.extend(entry_checks(self.module, &params));
        }
        let pushes = crate::tape::pushed_names(&fwd);
        if crate::tape::uses_stack(&fwd)
            || crate::tape::uses_stack(&bwd)
            || crate::tape::passes_stack(&fwd)
        {
            new_body.push(Stmt::assign(
                "_stack",
                Expr::call_path("tangent.Stack", vec![]),
            ));
        }
        // A value pushed before its first assignment (first loop iteration) must exist.
        for v in crate::tape::maybe_unbound_pushes(&fwd, &params, &pushes) {
            new_body.push(Stmt::assign(&v, Expr::synth(ExprKind::NoneLit)));
        }
        new_body.extend(fwd);
        if top {
            new_body.extend(self.output_check(func, &result, &seed));
        }
        let keep_result = top && self.opts.preserve_result;
        let saved_result = if keep_result && overwritten.contains(&result) {
            let n = names.fresh(&format!("{result}_value"));
            new_body.push(Stmt::assign(&n, Expr::name(&result)));
            n
        } else {
            result.clone()
        };
        new_body.extend(bwd);
        let mut ret: Vec<Expr> = wrt_names
            .iter()
            .map(|v| Expr::name(&grad_names[v]))
            .collect();
        if keep_result {
            ret.push(Expr::name(&saved_result));
        }
        let ret = if ret.len() == 1 {
            ret.pop().unwrap_or_else(|| Expr::name("None"))
        } else {
            Expr::synth(ExprKind::Tuple(ret))
        };
        new_body.push(Stmt::synth(StmtKind::Return(Some(ret))));

        let mut fparams = def.params.clone();
        fparams.push(Param {
            name: seed.clone(),
            default: Some(Expr::num("1.0")),
        });
        self.out.push(FuncDef {
            name: gen_name.clone(),
            params: fparams,
            vararg: None,
            kwonly: def.kwonly,
            star: def.star,
            body: new_body,
            span: def.span,
        });
        Ok((gen_name, seed, params))
    }
}
