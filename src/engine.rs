//! The service functions the hosts and the CLI call: derivatives of a file's function
//! (with the disk cache), of live code (the host's bindings), of generated source (for
//! higher order), `tangent.explain`'s data, rules registered at run time, and the names
//! the Python half asks about. Each runs on a large stack (`crate::stack::run`) and
//! reports a `crate::Error` of the kind that went wrong.

use crate::ad;
use crate::error::Error;
use crate::pipeline::{self, GradOptions};
use crate::rules::Template;
use crate::syntax::ir::ExprKind;
use crate::syntax::live::{Fact, LiveNames};
use crate::syntax::SourceModule;
use std::collections::HashMap;
use std::sync::Mutex;

/// Registers the function `funcname` of `filename` as the reverse (`forward == false`) or
/// forward rule for `qualname`.
pub fn register_rule(
    forward: bool,
    qualname: &str,
    filename: &str,
    funcname: &str,
) -> Result<(), Error> {
    crate::stack::run(|| register_rule_inner(forward, qualname, filename, funcname))
}

fn register_rule_inner(
    forward: bool,
    qualname: &str,
    filename: &str,
    funcname: &str,
) -> Result<(), Error> {
    let text = read_source(filename, funcname)?;
    let module = SourceModule::parse_shared(filename, &text).map_err(Error::from)?;
    let def = module.lower_template(funcname).map_err(Error::from)?;
    if def.params.is_empty() {
        return Err(Error::Usage(format!(
            "{filename}: the rule `{funcname}` must take the result first, then the arguments, e.g. `def {funcname}(result, x):`"
        )));
    }
    let template = Template {
        def,
        origin: format!("{filename}:{funcname}"),
    };
    crate::rules::register(forward, qualname, template);
    Ok(())
}

/// What a derivative made without a host (`tangent grad FILE:FUNC`, the Rust API) had
/// to assume because only the file's text was read: each method call on a value whose
/// type the text does not tell (`x.sum()` is differentiated as an array method; at run
/// time a value that is no registered array is an error). One line per call site of
/// `func` and the module functions it calls, as `file:line:col: ...`.
pub fn static_assumptions(filename: &str, func: &str) -> Vec<String> {
    crate::stack::run(|| {
        let Ok(text) = read_source(filename, func) else {
            return vec![];
        };
        let Ok(module) = SourceModule::parse_shared(filename, &text) else {
            return vec![];
        };
        let mut todo = vec![func.to_owned()];
        let mut seen = std::collections::HashSet::new();
        let mut notes = Vec::new();
        while let Some(f) = todo.pop() {
            if !seen.insert(f.clone()) {
                continue;
            }
            let Ok(def) = module.lower_function(&f) else {
                continue;
            };
            crate::syntax::ir::walk_stmts(&def.body, &mut |st| {
                crate::syntax::visit::stmt_exprs(st, &mut |e| {
                    e.walk(&mut |x| {
                        let ExprKind::Call { func: callee, .. } = &x.kind else {
                            return;
                        };
                        match &callee.kind {
                            ExprKind::Name(n) if module.has_function(n) => todo.push(n.clone()),
                            ExprKind::Attr(v, m) => {
                                let root = crate::emit::printer::expr(v);
                                let head = root.split('.').next().unwrap_or_default();
                                if module.imports.contains_key(head) {
                                    return;
                                }
                                let place = crate::syntax::diag::Location::of(filename, &text, callee.span);
                                notes.push(format!(
                                    "{}:{}:{}: note: `{root}.{m}(...)` is differentiated as an array method: whether `{root}` is an array cannot be known from the file (run the script with `tangent run` to resolve names as the program binds them)",
                                    place.file, place.line, place.column
                                ));
                            }
                            _ => {}
                        }
                    })
                })
            });
        }
        notes.sort();
        notes.dedup();
        notes
    })
}

/// The canonical names of the rule set in force (see [`RuleSet::known_names`]).
pub fn rule_names() -> Vec<String> {
    crate::rules::in_force()
        .known_names()
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// The names of the array attributes the rules declare (`T`, `shape`): a field of a
/// record or object named like one would be read as it (`tangent.check_record_fields`).
pub fn array_attribute_names() -> Vec<String> {
    crate::rules::in_force().array_attribute_names()
}

/// Reads (and caches) a source file, then differentiates one of its functions.
pub fn grad_file(
    filename: &str,
    func: &str,
    opts: &GradOptions,
) -> Result<pipeline::Generated, Error> {
    grad_file_cached(filename, func, opts, true).map(|(g, _)| g)
}

/// Like [`grad_file`], through the disk cache when `use_cache` (and no rule was
/// registered at run time). Also says whether the source came from the cache.
pub fn grad_file_cached(
    filename: &str,
    func: &str,
    opts: &GradOptions,
    use_cache: bool,
) -> Result<(pipeline::Generated, bool), Error> {
    crate::stack::run(|| grad_file_cached_inner(filename, func, opts, use_cache))
}

fn grad_file_cached_inner(
    filename: &str,
    func: &str,
    opts: &GradOptions,
    use_cache: bool,
) -> Result<(pipeline::Generated, bool), Error> {
    let text = read_source(filename, func)?;
    grad_live_cached_inner(filename, &text, func, None, opts, use_cache)
}

/// Like [`grad_file_cached`] for a host that read the file's `text` itself and says what
/// the running program binds names to (`live`: [`Fact`]s): names then resolve as Python
/// resolves them, and the function is the `def` its code object was made from.
pub fn grad_live_cached(
    filename: &str,
    text: &str,
    func: &str,
    live: &[Fact],
    opts: &GradOptions,
    use_cache: bool,
) -> Result<(pipeline::Generated, bool), Error> {
    crate::stack::run(|| grad_live_cached_inner(filename, text, func, Some(live), opts, use_cache))
}

fn grad_live_cached_inner(
    filename: &str,
    text: &str,
    func: &str,
    live: Option<&[Fact]>,
    opts: &GradOptions,
    use_cache: bool,
) -> Result<(pipeline::Generated, bool), Error> {
    let user_rules = crate::rules::any_registered();
    // The live bindings decide which functions and rules are used: part of the key, with
    // the options, both serialised by field name.
    let options = serde_json::to_string(opts).expect("options are plain data");
    let live_key = serde_json::to_string(&live).expect("facts are plain data");
    let request = format!("{options}\n{live_key}");
    let key = (use_cache && !user_rules).then(|| {
        crate::cache::key(
            text,
            func,
            &request,
            crate::cache::fingerprint::transformer_fingerprint(),
        )
    });
    if let Some(k) = &key {
        if let Some(g) = crate::cache::load(k) {
            return Ok((g, true));
        }
    }
    let g = match live {
        None => grad_text(filename, text, func, opts)?,
        Some(live) => {
            let live = LiveNames::from_facts(live);
            let mut module = SourceModule::parse_shared(filename, text).map_err(Error::from)?;
            module
                .apply_live(func, live)
                .map_err(|d| Error::from(d.locate(filename, text)))?;
            pipeline::generate(&module, func, opts, &crate::rules::in_force())
                .map_err(Error::from)?
        }
    };
    if let Some(k) = &key {
        crate::cache::store(k, &g);
    }
    Ok((g, false))
}

/// The global names a generated source reads (everything it neither defines nor assigns):
/// what must resolve in the user's globals, the runtime modules it is given (the shim's
/// `_backends.RUNTIME_MODULES`) or builtins.
pub fn free_names(source: &str) -> Result<Vec<String>, Error> {
    crate::stack::run(|| free_names_inner(source))
}

fn free_names_inner(source: &str) -> Result<Vec<String>, Error> {
    let module = SourceModule::parse("<generated>", source).map_err(Error::from)?;
    let mut out: Vec<String> = Vec::new();
    for f in &module.function_names {
        let def = module.lower_function(f).map_err(Error::from)?;
        let mut local: std::collections::HashSet<String> =
            def.params.iter().map(|p| p.name.clone()).collect();
        crate::syntax::ir::walk_stmts(&def.body, &mut |s| {
            if let crate::syntax::ir::StmtKind::Assign(t, _)
            | crate::syntax::ir::StmtKind::For(t, _, _) = &s.kind
            {
                let mut v = Vec::new();
                t.names(&mut v);
                local.extend(v);
            }
        });
        crate::syntax::ir::walk_stmts(&def.body, &mut |s| {
            crate::syntax::visit::stmt_exprs(s, &mut |e| {
                let mut v = Vec::new();
                e.names(&mut v);
                for n in v {
                    if !local.contains(&n)
                        && !module.function_names.contains(&n)
                        && !out.contains(&n)
                    {
                        out.push(n);
                    }
                }
            });
        });
    }
    Ok(out)
}

/// The text of a source file, read again when its size or modification time changed.
fn read_source(filename: &str, func: &str) -> Result<String, Error> {
    type Files = HashMap<String, (Option<(u64, std::time::SystemTime)>, String)>;
    static FILES: Mutex<Option<Files>> = Mutex::new(None);
    let stamp = std::fs::metadata(filename)
        .ok()
        .and_then(|m| Some((m.len(), m.modified().ok()?)));
    let mut guard = FILES.lock().unwrap_or_else(|e| e.into_inner());
    let files = guard.get_or_insert_with(HashMap::new);
    if let Some((at, text)) = files.get(filename) {
        if stamp.is_some() && *at == stamp {
            return Ok(text.clone());
        }
    }
    let text = std::fs::read_to_string(filename).map_err(|e| Error::Io {
        message: format!(
            "cannot read the source of `{func}` from `{filename}`: {e}\nhint: code without a file (exec, python -c) needs its text: pass source=... to tangent.grad, or define the function with tangent.function(f, source=...)"
        ),
        path: filename.into(),
        source: e,
    })?;
    files.insert(filename.to_owned(), (stamp, text.clone()));
    Ok(text)
}

/// Differentiates a function of previously generated source (`__tangent_source__`), for
/// derivatives of derivatives. Names resolve through the imports of `context_file` (the
/// module the first derivative came from) plus `modules`, the runtime modules generated
/// code receives (tangent, numpy, math and the libraries' modules); in a host, `first`
/// is the first derivative's request, so names resolve as they did then (closures,
/// lambdas, code without a file).
pub fn grad_generated(
    source: &str,
    context_file: &str,
    func: &str,
    opts: &GradOptions,
    first: Option<&FirstRequest>,
    modules: &[String],
) -> Result<pipeline::Generated, Error> {
    crate::stack::run(|| grad_generated_inner(source, context_file, func, opts, first, modules))
}

fn grad_generated_inner(
    source: &str,
    context_file: &str,
    func: &str,
    opts: &GradOptions,
    first: Option<&FirstRequest>,
    modules: &[String],
) -> Result<pipeline::Generated, Error> {
    // The two-phase gradients of recursive callees share the caller's tape between
    // calls, which a transform of the generated code cannot follow.
    let mut opts = opts.clone();
    opts.joint_recursion = true;
    let opts = &opts;
    let name = format!("<generated from {context_file}>");
    let mut module = SourceModule::parse(&name, source).map_err(Error::from)?;
    if let Some(FirstRequest {
        text,
        names,
        function: entry,
    }) = first
    {
        let mut context = SourceModule::parse_shared(context_file, text).map_err(Error::from)?;
        let names = LiveNames::from_facts(names);
        context
            .apply_live(entry, names)
            .map_err(|d| Error::from(d.locate(context_file, text)))?;
        module.set_fallback(context);
    } else if let Ok(text) = read_source(context_file, func) {
        if let Ok(context) = SourceModule::parse_shared(context_file, &text) {
            module.set_fallback(context);
        }
    }
    // The runtime modules generated code names (rule bodies may name scipy and jax).
    for m in modules {
        module.imports.insert(m.clone(), m.clone());
    }
    let rules = crate::rules::in_force();
    pipeline::generate(&module, func, opts, &rules).map_err(Error::from)
}

/// The request a derivative was made from, as the shim keeps it (`__tangent_live__`): the
/// text its function was made from, the live names and the name the function was given.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FirstRequest {
    pub text: String,
    pub names: Vec<Fact>,
    pub function: String,
}

/// What `tangent.explain` shows besides the derivative: the primal as tangent reads it,
/// and the data flow: each active variable with the active values it is computed from,
/// in program order.
pub struct ExplainInfo {
    pub primal: String,
    pub flow: Vec<(String, Vec<String>)>,
}

/// `first`, in a host: the derivative's request, so lambdas, closures and cells are
/// explained as they were differentiated.
pub fn explain_info(
    filename: &str,
    func: &str,
    wrt: &[usize],
    first: Option<&FirstRequest>,
) -> Result<ExplainInfo, Error> {
    crate::stack::run(|| explain_info_inner(filename, func, wrt, first))
}

fn explain_info_inner(
    filename: &str,
    func: &str,
    wrt: &[usize],
    first: Option<&FirstRequest>,
) -> Result<ExplainInfo, Error> {
    let (module, func) = match first {
        Some(FirstRequest {
            text,
            names,
            function: entry,
        }) => {
            let mut module = SourceModule::parse_shared(filename, text).map_err(Error::from)?;
            let names = LiveNames::from_facts(names);
            module
                .apply_live(entry, names)
                .map_err(|d| Error::from(d.locate(filename, text)))?;
            (module, entry.as_str())
        }
        None => {
            let text = read_source(filename, func)?;
            let module = SourceModule::parse_shared(filename, &text).map_err(Error::from)?;
            (module, func)
        }
    };
    let user_functions = module.function_names.iter().cloned().collect();
    let prepared =
        pipeline::prepare(&module, &user_functions, func, wrt, true).map_err(Error::from)?;
    let rules = crate::rules::in_force();
    let active = ad::activity::Activity {
        resolver: &prepared.resolver,
        rules: &rules,
    }
    .run(&prepared.body, &prepared.wrt_names);
    let mut flow = Vec::new();
    crate::syntax::ir::walk_stmts(&prepared.body, &mut |s| {
        if let crate::syntax::ir::StmtKind::Assign(t, v) = &s.kind {
            let target = match &t.kind {
                crate::syntax::ir::ExprKind::Subscript(b, _) => b.as_name(),
                _ => t.as_name(),
            };
            if let Some(t) = target.filter(|t| active.contains(*t)) {
                let mut reads = Vec::new();
                v.names(&mut reads);
                reads.retain(|r| active.contains(r));
                reads.dedup();
                flow.push((t.to_owned(), reads));
            }
        }
    });
    Ok(ExplainInfo {
        primal: crate::emit::printer::function(&prepared.def),
        flow,
    })
}

/// Differentiates `func` defined in `text` (named `filename` in messages).
pub fn grad_text(
    filename: &str,
    text: &str,
    func: &str,
    opts: &GradOptions,
) -> Result<pipeline::Generated, Error> {
    crate::stack::run(|| grad_text_inner(filename, text, func, opts))
}

fn grad_text_inner(
    filename: &str,
    text: &str,
    func: &str,
    opts: &GradOptions,
) -> Result<pipeline::Generated, Error> {
    let module = SourceModule::parse_shared(filename, text).map_err(Error::from)?;
    if !module.has_function(func) {
        return Err(Error::Usage(format!(
            "{filename}: `{func}` is not defined with `def` at the top level of the module\nhint: tangent differentiates module-level functions; move `{func}` to the top level"
        )));
    }
    let rules = crate::rules::in_force();
    pipeline::generate(&module, func, opts, &rules).map_err(Error::from)
}
