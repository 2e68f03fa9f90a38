//! The driver: from a lowered function to the source of its derivative, in the mode
//! and with the passes the options ask for (`generate`, the one entry point). It
//! prepares the function (`prepare`: lowering, desugaring, ANF), runs reverse mode
//! (`reverse.rs`, with its split-motion and two-phase assembly) or forward mode
//! (`forward.rs`) over every user function reached, then the optimisations of `opt`,
//! and prints the result. Never executes user code and never needs an interpreter.

mod forward;
mod reverse;
#[cfg(test)]
mod tests;

use crate::ad::{activity, alias, control_flow, desugar};
use crate::emit::printer;
use crate::resolve::Resolver;
use crate::rules::RuleSet;
use crate::syntax::ir::*;
use crate::syntax::names::NameGen;
use crate::syntax::{Diagnostic, SourceModule};
use std::collections::{HashMap, HashSet};

/// Reverse mode (gradients, vector-Jacobian products) or forward mode (tangents,
/// Jacobian-vector products).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize)]
pub enum Mode {
    #[default]
    Reverse,
    Forward,
}

/// Options of `tangent.grad` / `tangent.autodiff`, with Tangent's defaults.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct GradOptions {
    pub mode: Mode,
    /// Positions of the arguments to differentiate with respect to.
    pub wrt: Vec<usize>,
    pub optimized: bool,
    pub preserve_result: bool,
    pub check_dims: bool,
    /// sqrt(n) checkpointing of top-level `for` and `while` loops (`checkpoint=True`).
    pub checkpoint: bool,
    /// Push shape carriers for values the backward pass reads only for their shape
    /// (`optimizations={'tape_liveness': True}`).
    pub tape_liveness: bool,
    /// Values the backward pass can have otherwise are not pushed (`opt/recompute.rs`);
    /// off for source that native code will run (`compile='auto'`), which leaves shape
    /// reads out and reads its tape faster than it computes values again.
    pub recompute: bool,
    /// Common-subexpression elimination on e-graphs (`optimizations={'cse': True}`).
    pub cse: bool,
    /// Exact algebraic identities on e-graphs (`optimizations={'algebraic': True}`).
    pub algebraic: bool,
    /// One adjoint per straight-line elementwise stretch (`optimizations={'coarsening':
    /// True}`), simplified by the e-graph passes.
    pub coarsening: bool,
    /// Split motion: each function's forward pass runs once; the backward pass gets the
    /// forward pass's tape instead of recomputing it (`motion='split'`).
    pub split: bool,
    /// Joint motion also for recursive callees (their gradients recompute their forward
    /// pass, O(n^2) for recursion n deep). Off by default: a recursive callee gets a
    /// two-phase gradient on the caller's tape, O(n). On for derivatives that are
    /// differentiated again (the two-phase form shares one tape between calls).
    pub joint_recursion: bool,
    /// Differentiate only this element of a tuple output (Tangent 2's `output_index`).
    pub output_index: Option<i64>,
    /// Weight each element of a tuple output (Tangent 2's `output_weights`), as Python
    /// number literals.
    pub output_weights: Option<Vec<String>>,
}

impl Default for GradOptions {
    fn default() -> Self {
        GradOptions {
            mode: Mode::Reverse,
            wrt: vec![0],
            optimized: true,
            preserve_result: false,
            check_dims: true,
            split: false,
            joint_recursion: false,
            tape_liveness: false,
            recompute: true,
            cse: false,
            algebraic: false,
            coarsening: false,
            checkpoint: false,
            output_index: None,
            output_weights: None,
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

/// Differentiates `func` of `module` in the mode the options ask for, with `rules`
/// (`RuleSet::builtin()`, or the rule set in force with rules registered at run time).
pub fn generate(
    module: &SourceModule,
    func: &str,
    opts: &GradOptions,
    rules: &RuleSet,
) -> Result<Generated, Diagnostic> {
    check_entry_wrt(module, func, &opts.wrt)?;
    match opts.mode {
        Mode::Reverse => reverse::generate(module, func, opts, rules),
        Mode::Forward => forward::generate(module, func, opts, rules),
    }
}

/// A located error if `wrt` names the `*args` parameter of the function differentiated:
/// its arguments have no positions of their own (a callee's `*args` is differentiated,
/// as the tuple of the call's extra arguments).
fn check_entry_wrt(module: &SourceModule, func: &str, wrt: &[usize]) -> Result<(), Diagnostic> {
    let def = module.lower_function(func)?;
    match def.star {
        Some(s) if wrt.contains(&s) => {
            let star = &def.params[s].name;
            Err(Diagnostic::new(
                def.span,
                format!("`{func}` takes `*{star}`, whose arguments have no position of their own to differentiate with respect to"),
                format!("name them (`def {func}(a, b)`, or a wrapper `lambda a, b: {func}(a, b)`), or take a tuple argument and differentiate with respect to it"),
            )
            .locate(&module.file, &module.text))
        }
        _ => Ok(()),
    }
}

/// The nested functions (lifted to module level by `syntax::lift`) the generated
/// functions call, as source: the user's module has no such names, so the derivative
/// defines them.
fn lifted_primals(module: &SourceModule, out: &[FuncDef]) -> String {
    let mut called = HashSet::new();
    for f in out {
        walk_stmts(&f.body, &mut |s| {
            crate::syntax::visit::stmt_exprs(s, &mut |e| {
                e.walk(&mut |x| {
                    if let Some(n) = x.as_name() {
                        called.insert(n.to_owned());
                    }
                })
            })
        });
    }
    let generated: HashSet<&str> = out.iter().map(|f| f.name.as_str()).collect();
    module
        .lifted_functions(&called)
        .iter()
        .filter(|f| !generated.contains(f.name.as_str()))
        .map(|f| format!("\n\n{}", printer::function(f)))
        .collect()
}

/// A function normalised for differentiation.
pub struct Prepared<'m> {
    pub def: FuncDef,
    pub params: Vec<String>,
    pub wrt_names: Vec<String>,
    pub names: NameGen,
    pub resolver: Resolver<'m>,
    /// ANF body.
    pub body: Vec<Stmt>,
    /// The returned variable (reverse mode: the single final return).
    pub result: String,
}

/// A parameter default that is not a literal was evaluated once, when the primal's `def`
/// ran; evaluating its text again when the derivative is defined could give another value
/// (`def f(x, k=K)`, then `K = 3.0`). Generated signatures read the primal's own default.
fn live_defaults(def: &mut FuncDef) {
    fn literal(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Num(_) | ExprKind::Str(_) | ExprKind::Bool(_) | ExprKind::NoneLit => true,
            ExprKind::Tuple(es) => es.iter().all(literal),
            _ => e.is_number_literal(),
        }
    }
    fn reads_primal_default(e: &Expr) -> bool {
        matches!(&e.kind, ExprKind::Call { func, .. }
            if crate::emit::printer::expr(func) == "tangent.primal_default")
    }
    for p in &mut def.params {
        let Some(d) = &p.default else { continue };
        if literal(d) || reads_primal_default(d) {
            continue;
        }
        let name = Expr::synth(ExprKind::Str(p.name.clone()));
        let mut live = Expr::call_path("tangent.primal_default", vec![Expr::name(&def.name), name]);
        live.span = d.span;
        p.default = Some(live);
    }
}

/// Lowers `func`, checks `wrt`, and normalises the body: desugaring, control-flow
/// lowering (reverse mode only) and ANF.
pub fn prepare<'m>(
    module: &'m SourceModule,
    user_functions: &HashSet<String>,
    func: &str,
    wrt: &[usize],
    lower_control: bool,
) -> Result<Prepared<'m>, Diagnostic> {
    let locate = |d: Diagnostic| d.locate(&module.file, &module.text);
    let mut def = module.lower_function(func)?;
    live_defaults(&mut def);
    let params: Vec<String> = def.params.iter().map(|p| p.name.clone()).collect();
    for &w in wrt {
        if w >= params.len() {
            return Err(locate(Diagnostic::new(
                def.span,
                format!(
                    "wrt={w} is out of range: `{func}` takes {} argument(s)",
                    params.len()
                ),
                format!(
                    "pass positions between 0 and {}",
                    params.len().saturating_sub(1)
                ),
            )));
        }
    }
    let wrt_names: Vec<String> = wrt.iter().map(|&w| params[w].clone()).collect();
    let mut names = NameGen::for_function(&def);
    // `_stack` is the tape of the code we generate. A function that already has one (a
    // generated gradient being differentiated again) gets its own renamed.
    let mut uses_stack = false;
    walk_stmts(&def.body, &mut |s| {
        crate::syntax::visit::stmt_exprs(s, &mut |e| uses_stack |= e.reads("_stack"))
    });
    if uses_stack {
        let inner = names.fresh("_inner_stack");
        for s in &mut def.body {
            crate::syntax::visit::map_stmt_exprs(s, &mut |e| {
                let mut e = e.clone();
                e.rename(&|n| (n == "_stack").then(|| Expr::name(&inner)));
                e
            });
        }
    }
    let mut locals: HashSet<String> = params.iter().cloned().collect();
    walk_stmts(&def.body, &mut |s| {
        if let StmtKind::Assign(t, _) | StmtKind::AugAssign(t, _, _) | StmtKind::For(t, _, _) =
            &s.kind
        {
            // Only the names a target binds: `h[np.argmax(h)] = 0.0` binds nothing (and
            // does not make `np` a local).
            t.bound_names(&mut |n| {
                locals.insert(n.to_owned());
            });
        }
    });
    // Generated code reaches its runtime through these names (closure variables of
    // `tangent._compile`); a local of the same name would hide them there.
    for runtime in ["tangent", "numpy", "math", "scipy", "jax"] {
        if !locals.contains(runtime) {
            continue;
        }
        if params.iter().any(|p| p == runtime) {
            return Err(locate(Diagnostic::new(
                def.span,
                format!("a parameter named `{runtime}` would hide the `{runtime}` module the derivative calls"),
                format!("rename the parameter (e.g. `{runtime}_`)"),
            )));
        }
        let renamed = names.fresh(&format!("{runtime}_"));
        for s in &mut def.body {
            crate::syntax::visit::map_stmt_exprs(s, &mut |e| {
                let mut e = e.clone();
                e.rename(&|n| (n == runtime).then(|| Expr::name(&renamed)));
                e
            });
        }
        locals.remove(runtime);
        locals.insert(renamed);
    }
    let mut resolver = Resolver {
        imports: &module.imports,
        ambiguous: &module.ambiguous,
        user_functions: user_functions.clone(),
        locals,
        live: module.live.as_ref(),
        aliases: &module.aliases,
        objects: HashSet::new(),
    };
    let mut contexts = Vec::new();
    let body = desugar::expand_with(
        def.body.clone(),
        &resolver,
        RuleSet::builtin(),
        &mut names,
        &mut contexts,
    )
    .map_err(locate)?;
    resolver.locals.extend(contexts);
    let mut expander = control_flow::Expander {
        names: &mut names,
        resolver: &resolver,
        rules: RuleSet::builtin(),
        bound: Vec::new(),
    };
    let body = expander.block(body).map_err(locate)?;
    let bound = std::mem::take(&mut expander.bound);
    resolver.locals.extend(bound);
    let mut simplifier = desugar::Desugar {
        names: &mut names,
        resolver: &resolver,
        shared: Default::default(),
        text: &module.text,
        checked: Default::default(),
    };
    let body = simplifier
        .inline_lambdas(body)
        .and_then(|b| {
            simplifier.shared =
                alias::analyze(&params, &b, &resolver, RuleSet::builtin(), uses_stack);
            simplifier.simplify(b)
        })
        .map_err(locate)?;
    let (body, result) = if lower_control {
        desugar::Control::lower_function(&mut names, body)
    } else {
        (body, String::new())
    };
    let body = desugar::Anf {
        names: &mut names,
        resolver: &resolver,
    }
    .block(body)
    .map_err(locate)?;
    resolver.objects = known_objects(&body, &resolver, module, func, &params);
    // The ANF may have renamed the returned value.
    let result = match body.last() {
        Some(Stmt {
            kind: StmtKind::Return(Some(e)),
            ..
        }) => e.as_name().unwrap_or(&result).to_owned(),
        _ => result,
    };
    Ok(Prepared {
        def,
        params,
        wrt_names,
        names,
        resolver,
        body,
        result,
    })
}

/// The locals of `body` that hold objects of user classes, never arrays: every
/// assignment to them is a constructor call of a class the host marked constructible or
/// a copy of another such local; and the parameters the host says are the object a
/// method is differentiated for (`LiveNames::objects`), if never assigned.
fn known_objects(
    body: &[Stmt],
    resolver: &Resolver,
    module: &SourceModule,
    func: &str,
    params: &[String],
) -> HashSet<String> {
    let mut sources: HashMap<String, Vec<Option<String>>> = HashMap::new();
    let mut other: HashSet<String> = HashSet::new();
    walk_stmts(body, &mut |s| match &s.kind {
        StmtKind::Assign(t, v) => match (t.as_name(), &v.kind) {
            (Some(n), ExprKind::Call { func, .. }) if resolver.is_constructor(func) => {
                sources.entry(n.to_owned()).or_default().push(None)
            }
            (Some(n), ExprKind::Name(src)) => sources
                .entry(n.to_owned())
                .or_default()
                .push(Some(src.clone())),
            _ => t.bound_names(&mut |n| {
                other.insert(n.to_owned());
            }),
        },
        StmtKind::AugAssign(t, ..) | StmtKind::For(t, ..) => t.bound_names(&mut |n| {
            other.insert(n.to_owned());
        }),
        _ => {}
    });
    let mut objects: HashSet<String> = module
        .live
        .as_ref()
        .and_then(|l| l.objects.get(func))
        .into_iter()
        .flatten()
        .filter(|p| params.contains(p) && !other.contains(*p) && !sources.contains_key(*p))
        .cloned()
        .collect();
    // To a fixed point: a copy of an object is one.
    loop {
        let before = objects.len();
        for (n, from) in &sources {
            if other.contains(n) || params.contains(n) || objects.contains(n) {
                continue;
            }
            if from
                .iter()
                .all(|f| f.as_ref().is_none_or(|src| objects.contains(src)))
            {
                objects.insert(n.clone());
            }
        }
        if objects.len() == before {
            return objects;
        }
    }
}

/// The entry derivative's first statements: the run-time checks of its arguments the
/// host asked for (`LiveNames::entry_checks`: a loaded library's, e.g. torch's devices),
/// each `helper('a, b', a, b)` (the names in one string: the native compiler skips
/// string operands of checks).
fn entry_checks(module: &SourceModule, params: &[String]) -> Vec<Stmt> {
    let Some(live) = module.live.as_ref() else {
        return Vec::new();
    };
    live.entry_checks
        .iter()
        .map(|helper| {
            let mut args = vec![Expr::str_lit(params.join(", "))];
            args.extend(params.iter().map(Expr::name));
            Stmt::synth(StmtKind::ExprStmt(Expr::call_path(helper, args)))
        })
        .collect()
}

/// `check_call` of user function `func`, then the index of its `*args` parameter.
fn call_star(
    module: &SourceModule,
    func: &str,
    nargs: usize,
    kwargs: &[(String, Expr)],
    span: Span,
) -> Result<Option<usize>, Diagnostic> {
    let def = module.lower_function(func)?;
    check_call(&def, nargs, kwargs, span)?;
    Ok(def.star)
}

/// A located error unless `def(<nargs positional>, **kwargs)` binds every parameter once,
/// as Python would: no more positional arguments than positional parameters, keywords
/// that name parameters not already given, and every parameter without a default given.
/// (The derivative binds the call's arguments to its own parameters the same way, so a
/// call Python would refuse must not give a number.)
pub fn check_call(
    def: &FuncDef,
    nargs: usize,
    kwargs: &[(String, Expr)],
    span: Span,
) -> Result<(), Diagnostic> {
    let f = &def.name;
    let positional = def.kwonly.unwrap_or(def.params.len());
    if nargs > positional && def.star.is_none() {
        return Err(Diagnostic::new(
            span,
            format!("`{f}` takes {positional} positional arguments but {nargs} were given"),
            match def.kwonly {
                Some(k) => format!(
                    "pass `{}` by name (`{0}=...`): it is keyword-only",
                    def.params[k].name
                ),
                None => "pass the arguments the function declares".to_owned(),
            },
        ));
    }
    // Parameters bound by position: those before `*args` (or all the positional ones).
    let by_position = nargs.min(def.star.unwrap_or(positional));
    for (k, _) in kwargs {
        match def.params.iter().position(|p| &p.name == k) {
            Some(i) if Some(i) == def.star => {
                return Err(Diagnostic::new(
                    span,
                    format!("`{k}` is the `*{k}` parameter of `{f}`, which takes the extra positional arguments, not a keyword"),
                    "pass those arguments by position",
                ))
            }
            None => {
                return Err(Diagnostic::new(
                    span,
                    format!("`{f}` has no parameter named `{k}`"),
                    "pass the arguments the function declares",
                ))
            }
            Some(i) if i < by_position => {
                return Err(Diagnostic::new(
                    span,
                    format!("`{f}` got multiple values for the argument `{k}`"),
                    "pass each argument once",
                ))
            }
            Some(_) => {}
        }
    }
    for (i, p) in def.params.iter().enumerate() {
        let given = i < by_position || kwargs.iter().any(|(k, _)| k == &p.name);
        if !given && p.default.is_none() && Some(i) != def.star {
            return Err(Diagnostic::new(
                span,
                format!("the call of `{f}` lacks the argument `{}`", p.name),
                "pass every parameter without a default",
            ));
        }
    }
    Ok(())
}
