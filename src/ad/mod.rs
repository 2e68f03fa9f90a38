//! Automatic differentiation: from a lowered function to the source of its derivative.
//! Never executes user code and never needs an interpreter.

pub mod activity;
pub mod adjoint;
pub mod desugar;
pub mod names;
pub mod reverse;
pub mod rules;

use crate::emit::printer;
use crate::resolve::Resolver;
use crate::syntax::ir::*;
use crate::syntax::{Diagnostic, SourceModule};
use adjoint::Lowering;
use names::NameGen;
use reverse::{Callees, Reverse};
use rules::RuleSet;
use std::collections::{HashMap, HashSet};

/// Options of `tangent.grad`, with Tangent's defaults.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GradOptions {
    /// Positions of the arguments to differentiate with respect to.
    pub wrt: Vec<usize>,
    pub optimized: bool,
    pub preserve_result: bool,
    pub check_dims: bool,
}

impl Default for GradOptions {
    fn default() -> Self {
        GradOptions {
            wrt: vec![0],
            optimized: true,
            preserve_result: false,
            check_dims: true,
        }
    }
}

/// Generated derivative source.
#[derive(Clone, Debug)]
pub struct Generated {
    /// All generated functions (the entry point first, then gradients of callees).
    pub source: String,
    /// Name of the entry point (`dfdx`).
    pub entry: String,
    /// The entry point's parameters (the primal's, then the seed).
    pub params: Vec<String>,
}

/// Differentiates `func` of `module` in reverse mode.
pub fn grad(
    module: &SourceModule,
    func: &str,
    opts: &GradOptions,
) -> Result<Generated, Diagnostic> {
    grad_with_rules(module, func, opts, RuleSet::builtin())
}

pub fn grad_with_rules(
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
    };
    let (entry, _, _) = g.function(func, &opts.wrt, true, Span::SYNTHETIC)?;
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
    Ok(Generated {
        source,
        entry,
        params,
    })
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
}

impl Callees for Generator<'_> {
    fn gradient_of(
        &mut self,
        func: &str,
        wrt: &[usize],
        span: Span,
    ) -> Result<(String, String, Vec<String>), Diagnostic> {
        if wrt.is_empty() {
            // Only the parameter list is wanted.
            let def = self.module.lower_function(func)?;
            let params = def.params.iter().map(|p| p.name.clone()).collect();
            return Ok((String::new(), String::new(), params));
        }
        self.function(func, wrt, false, span)
    }
}

impl Generator<'_> {
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

    fn function(
        &mut self,
        func: &str,
        wrt: &[usize],
        top: bool,
        _call_span: Span,
    ) -> Result<GradFn, Diagnostic> {
        let key = (func.to_owned(), wrt.to_vec());
        if !top {
            if let Some(done) = self.done.get(&key) {
                return Ok(done.clone());
            }
        }
        let module = self.module;
        let locate = |d: Diagnostic| d.locate(&module.file, &module.text);
        let def = module.lower_function(func)?;
        let params: Vec<String> = def.params.iter().map(|p| p.name.clone()).collect();
        for &w in wrt {
            if w >= params.len() {
                return Err(Diagnostic::new(
                    def.span,
                    format!(
                        "wrt={w} is out of range: `{func}` takes {} argument(s)",
                        params.len()
                    ),
                    format!(
                        "pass positions between 0 and {}",
                        params.len().saturating_sub(1)
                    ),
                )
                .locate(&module.file, &module.text));
            }
        }
        let wrt_names: Vec<String> = wrt.iter().map(|&w| params[w].clone()).collect();

        let mut names = NameGen::for_function(&def);
        let mut locals: HashSet<String> = params.iter().cloned().collect();
        walk_stmts(&def.body, &mut |s| {
            if let StmtKind::Assign(t, _) | StmtKind::AugAssign(t, _, _) | StmtKind::For(t, _, _) =
                &s.kind
            {
                let mut v = Vec::new();
                t.names(&mut v);
                locals.extend(v);
            }
        });
        let user_functions = self.user_functions.clone();
        let resolver = Resolver {
            imports: &module.imports,
            user_functions: &user_functions,
            locals,
        };
        // Normalise.
        let body = desugar::Desugar {
            names: &mut names,
            resolver: &resolver,
        }
        .simplify(def.body.clone())
        .map_err(locate)?;
        let (body, result) = desugar::Control::lower_function(&mut names, body);
        let body = desugar::Anf {
            names: &mut names,
            resolver: &resolver,
        }
        .block(body)
        .map_err(locate)?;
        // The ANF may have renamed the returned value.
        let result = match body.last() {
            Some(Stmt {
                kind: StmtKind::Return(Some(e)),
                ..
            }) => e.as_name().unwrap_or(&result).to_owned(),
            _ => result,
        };

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
        self.done.insert(
            key.clone(),
            (gen_name.clone(), seed.clone(), params.clone()),
        );

        let overwritten = reverse::overwritten(&body, &params);
        let (fwd, bwd) = {
            let mut rev = Reverse {
                resolver: &resolver,
                rules,
                active: &active,
                overwritten: &overwritten,
                names: &mut names,
                callees: self,
                bound: params.iter().cloned().collect(),
            };
            rev.block(&body, 0).map_err(locate)?
        };
        let initial = vec![result.clone()];
        let (bwd, _tracked, finals) = Lowering::new(&grad_names).lower(&bwd, &initial, &wrt_names);

        let (fwd, mut bwd) = if self.opts.optimized {
            let live_out: Vec<String> = wrt_names.iter().map(|v| grad_names[v].clone()).collect();
            crate::opt::optimize(fwd, bwd, &live_out)
        } else {
            (fwd, bwd)
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

        let mut new_body = Vec::new();
        let pushes = crate::opt::pushed_names(&fwd);
        if crate::opt::uses_stack(&fwd) {
            new_body.push(Stmt::assign(
                "_stack",
                Expr::call_path("tangent.Stack", vec![]),
            ));
        }
        // A value pushed before its first assignment (first loop iteration) must exist.
        for v in crate::opt::maybe_unbound_pushes(&fwd, &params, &pushes) {
            new_body.push(Stmt::assign(&v, Expr::synth(ExprKind::NoneLit)));
        }
        new_body.extend(fwd);
        if top && self.opts.check_dims {
            new_body.push(Stmt::synth(StmtKind::ExprStmt(Expr::call_path(
                "tangent.check_output",
                vec![Expr::name(&result), Expr::name(&seed), Expr::str_lit(func)],
            ))));
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
            body: new_body,
            span: def.span,
        });
        Ok((gen_name, seed, params))
    }
}
