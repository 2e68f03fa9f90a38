//! Forward mode over every user function reached: `FwdGenerator` gives each callee its
//! forward derivative and assembles the entry point.

use super::*;

pub(super) fn generate(
    module: &SourceModule,
    func: &str,
    opts: &GradOptions,
    rules: &RuleSet,
) -> Result<Generated, Diagnostic> {
    let mut g = FwdGenerator {
        module,
        rules,
        user_functions: module.function_names.iter().cloned().collect(),
        done: HashMap::new(),
        out: Vec::new(),
        opts: opts.clone(),
        taken: HashSet::new(),
    };
    let (entry, _) = g.function(func, &opts.wrt, true)?;
    let mut fs = g.out;
    for f in &mut fs {
        crate::opt::in_place::apply(f, rules);
    }
    if let Some(pos) = fs.iter().position(|f| f.name == entry) {
        let e = fs.remove(pos);
        fs.insert(0, e);
    }
    let params = fs[0].params.iter().map(|p| p.name.clone()).collect();
    let mut source = fs
        .iter()
        .map(printer::function)
        .collect::<Vec<_>>()
        .join("\n\n");
    source.push_str(&lifted_primals(module, &fs));
    Ok(Generated {
        source,
        entry,
        params,
    })
}

struct FwdGenerator<'m> {
    module: &'m SourceModule,
    rules: &'m RuleSet,
    user_functions: HashSet<String>,
    /// (function, wrt) -> (generated name, tangent parameters).
    done: HashMap<(String, Vec<usize>), (String, Vec<String>)>,
    out: Vec<FuncDef>,
    opts: GradOptions,
    taken: HashSet<String>,
}

impl crate::ad::forward::ForwardCallees for FwdGenerator<'_> {
    fn forward_of(
        &mut self,
        func: &str,
        wrt: &[usize],
        span: Span,
    ) -> Result<(String, Vec<String>), Diagnostic> {
        self.module.check_undecorated(func, span)?;
        self.function(func, wrt, false)
    }

    fn params_of(&mut self, func: &str) -> Result<Vec<String>, Diagnostic> {
        let def = self.module.lower_function(func)?;
        Ok(def.params.iter().map(|p| p.name.clone()).collect())
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
}

impl FwdGenerator<'_> {
    fn function(
        &mut self,
        func: &str,
        wrt: &[usize],
        top: bool,
    ) -> Result<(String, Vec<String>), Diagnostic> {
        let key = (func.to_owned(), wrt.to_vec());
        if !top {
            if let Some(done) = self.done.get(&key) {
                return Ok(done.clone());
            }
        }
        let module = self.module;
        let locate = |d: Diagnostic| d.locate(&module.file, &module.text);
        let Prepared {
            def,
            wrt_names,
            mut names,
            resolver,
            body,
            ..
        } = prepare(module, &self.user_functions, func, wrt, false)?;
        let active = activity::Activity {
            resolver: &resolver,
            rules: self.rules,
        }
        .run(&body, &wrt_names);
        let mut tangents: HashMap<String, String> = HashMap::new();
        let mut vars: Vec<&String> = active.iter().collect();
        vars.sort();
        // Parameters first so that their tangents get the plain names (`dx`).
        for v in wrt_names.iter().chain(vars) {
            if !tangents.contains_key(v) {
                tangents.insert(v.clone(), names.fresh(&format!("d{v}")));
            }
        }
        let tparams: Vec<String> = wrt_names.iter().map(|v| tangents[v].clone()).collect();
        let base = format!("d{func}d{}", wrt_names.join(""));
        let mut gen_name = base.clone();
        let mut i = 2;
        while self.taken.contains(&gen_name)
            || self.user_functions.contains(&gen_name)
            || module.imports.contains_key(&gen_name)
        {
            gen_name = format!("{base}{i}");
            i += 1;
        }
        self.taken.insert(gen_name.clone());
        // The entry point has its own conventions (preserve_result); a recursive call
        // gets the callee variant, generated separately.
        if !top {
            self.done.insert(key, (gen_name.clone(), tparams.clone()));
        }
        let rules = self.rules;
        let preserve_result = !top || self.opts.preserve_result;
        let checks = if top {
            let names: Vec<String> = def.params.iter().map(|p| p.name.clone()).collect();
            entry_checks(self.module, &names)
        } else {
            Vec::new()
        };
        let mut fwd = crate::ad::forward::Forward {
            resolver: &resolver,
            rules,
            active: &active,
            tangents: &tangents,
            names: &mut names,
            callees: self,
            preserve_result,
        };
        let mut new_body = Vec::new();
        // Parameters that become active without being differentiated (a gradient's seed,
        // when differentiating generated code) start with a zero tangent.
        for p in &def.params {
            if active.contains(&p.name) && !wrt_names.contains(&p.name) {
                let t = tangents[&p.name].clone();
                new_body.push(Stmt::assign(
                    &t,
                    Expr::call_path("tangent.init_grad", vec![Expr::name(&p.name)]),
                ));
            }
        }
        // The entry point checks that each tangent matches its argument's shape.
        if top {
            new_body.extend(checks);
            for (v, t) in wrt_names.iter().zip(&tparams) {
                new_body.push(Stmt::synth(StmtKind::ExprStmt(Expr::call_path(
                    "tangent.check_tangent",
                    vec![
                        Expr::name(v),
                        Expr::name(t),
                        Expr::str_lit(t),
                        Expr::str_lit(v),
                    ],
                ))));
            }
        }
        new_body.extend(fwd.block(&body).map_err(locate)?);
        let passes = crate::opt::egraph::Passes {
            cse: self.opts.cse,
            algebraic: self.opts.algebraic,
        };
        new_body = crate::opt::egraph::simplify(
            new_body,
            passes,
            &|f| crate::opt::egraph::call_kind(rules, &resolver, f),
            &mut names,
        );
        if self.opts.optimized {
            let tangent_names: HashSet<String> = tangents.values().cloned().collect();
            new_body = crate::opt::optimize_forward(new_body, &tangent_names);
        }
        let needs_default = def.params.iter().any(|p| p.default.is_some());
        let mut fparams = def.params.clone();
        for t in &tparams {
            fparams.push(Param {
                name: t.clone(),
                default: needs_default.then(|| Expr::num("1.0")),
            });
        }
        self.out.push(FuncDef {
            name: gen_name.clone(),
            params: fparams,
            vararg: None,
            kwonly: def.kwonly,
            star: def.star,
            body: new_body,
            span: def.span,
        });
        Ok((gen_name, tparams))
    }
}
