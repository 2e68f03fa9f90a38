//! Reading the rule files into a `RuleSet`: each file's templates and declarations
//! (`add_file`), the elementwise table's entries made into templates, the declarations
//! that copy or rename rules (`rules_like`, `exported_as`, in-place variants), and
//! `finish`, which makes the templates written with `numpy.*` dispatch on their
//! arguments' namespace at run time.

use super::namespaces::{dispatched, dispatched_over};
use super::rule_file::{Arg, Registration, RuleFile};
use super::*;

impl RuleSet {
    /// Adds every `@adjoint(...)` / `@tangent_(...)` template, elementwise entry and
    /// declaration of a rule file. A name given a second rule of the same kind (in this
    /// file or an earlier one; an elementwise entry counts as both kinds), or given a rule
    /// and declared `nondifferentiable`, or declared twice the same way, is an error
    /// located at the second registration, naming the first.
    pub fn add_file(&mut self, file: &str, text: &str) -> Result<(), Diagnostic> {
        let module = SourceModule::parse(file, text)?;
        let scanned = RuleFile::scan(file, text)?;
        for decl in &scanned.declarations {
            if decl.callee == "rules_like" {
                self.add_rules_like(file, text, decl)?;
                continue;
            }
            if decl.callee == "exported_as" {
                self.add_exported_as(file, text, decl)?;
                continue;
            }
            if decl.callee == "in_place" {
                match names_of(decl, file, text)?.as_slice() {
                    [(f, _), (g, _)] => {
                        self.pending_in_place
                            .push((f.clone(), g.clone(), decl.span))
                    }
                    _ => {
                        return Err(Diagnostic::new(
                            decl.span,
                            "`in_place(f, g)` takes two names: a helper and its in-place variant"
                                .to_owned(),
                            "write `in_place(tangent.add_grad_at, tangent.add_grad_at_in_place)`",
                        )
                        .locate(file, text))
                    }
                }
                continue;
            }
            self.add_declaration(file, text, decl)?;
        }
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for (name, decorators) in &scanned.decorated {
            // Two templates with one name: only the later could be lowered, so the
            // earlier one's registrations would get the wrong body.
            let at = decorators.first().map_or(Span::SYNTHETIC, |r| r.span);
            if let Some(first) = seen.insert(name, at) {
                let loc = crate::syntax::diag::Location::of(file, text, first);
                return Err(Diagnostic::new(
                    at,
                    format!(
                        "a second template named `{name}` in this file (the first is at {}:{}:{})",
                        loc.file, loc.line, loc.column
                    ),
                    "give each template its own function name",
                )
                .locate(file, text));
            }
            let def = module.lower_template(name)?;
            let origin = format!("{file}:{name}");
            for reg in decorators {
                match reg.callee.as_str() {
                    "adjoint" | "tangent_" => {
                        let kind = if reg.callee == "adjoint" {
                            Kind::Adjoint
                        } else {
                            Kind::Tangent
                        };
                        for (key, at) in names_of(reg, file, text)? {
                            self.register(kind, &key, file, text, at)?;
                            let table = match kind {
                                Kind::Adjoint => &mut self.adjoints,
                                _ => &mut self.tangents,
                            };
                            let (def, origin) = (def.clone(), origin.clone());
                            table.insert(key, Template { def, origin });
                        }
                    }
                    "elementwise" => self.add_elementwise(&def, reg, &origin, file, text)?,
                    "control_flow" => {
                        for (key, at) in names_of(reg, file, text)? {
                            if let Some(first) = self.control_flow.get(&key) {
                                return Err(Diagnostic::new(
                                    at,
                                    format!(
                                        "`{key}` already has a control-flow template ({})",
                                        first.origin
                                    ),
                                    "register each function once",
                                )
                                .locate(file, text));
                            }
                            let (def, origin) = (def.clone(), origin.clone());
                            self.control_flow.insert(key, Template { def, origin });
                        }
                    }
                    _ => {}
                }
            }
        }
        self.resolve_like(file, text)?;
        self.resolve_in_place(file, text)
    }

    /// Records where `key` got a registration of `kind`; the error if it already had
    /// one (or, for a rule, if it is nondifferentiable; for nondifferentiable, if it has
    /// a rule).
    pub(super) fn register(
        &mut self,
        kind: Kind,
        key: &str,
        file: &str,
        text: &str,
        at: Span,
    ) -> Result<(), Diagnostic> {
        let clash = |k: Kind| {
            self.places
                .get(&(k, key.to_owned()))
                .map(|p| (k, p.clone()))
        };
        let earlier = match kind {
            Kind::Adjoint | Kind::Tangent => clash(kind).or_else(|| clash(Kind::Nondifferentiable)),
            Kind::Nondifferentiable => clash(kind)
                .or_else(|| clash(Kind::Adjoint))
                .or_else(|| clash(Kind::Tangent)),
            Kind::Fact(_) => clash(kind),
        };
        if let Some((k, place)) = earlier {
            let (message, hint) = if k == kind {
                (
                    format!(
                        "`{key}` is {} a second time here; the first time is at {place}",
                        kind.what()
                    ),
                    "keep one of the two (the later one would silently replace the earlier)",
                )
            } else {
                (
                    format!("`{key}` is {} here, but it is {} at {place}", kind.what(), k.what()),
                    "a nondifferentiable function has no rule: keep the rule or the declaration, not both",
                )
            };
            return Err(Diagnostic::new(at, message, hint).locate(file, text));
        }
        let loc = crate::syntax::diag::Location::of(file, text, at);
        self.places.insert(
            (kind, key.to_owned()),
            format!("{}:{}:{}", loc.file, loc.line, loc.column),
        );
        Ok(())
    }

    /// One top-level declaration of a rule file: the facts about named functions that
    /// the passes read through the methods below.
    fn add_declaration(
        &mut self,
        file: &str,
        text: &str,
        decl: &Registration,
    ) -> Result<(), Diagnostic> {
        let bad = |at: Span, message: String, hint: &str| {
            Diagnostic::new(at, message, hint).locate(file, text)
        };
        let what = decl.callee.as_str();
        let kind = match what {
            "nondifferentiable" => Kind::Nondifferentiable,
            _ => match FACTS.iter().position(|f| *f == what) {
                Some(i) => Kind::Fact(i),
                None => {
                    return Err(bad(
                        decl.span,
                        format!("unknown declaration `{what}` in a rule file"),
                        &format!(
                            "the declarations are `nondifferentiable`, {}",
                            FACTS
                                .iter()
                                .map(|f| format!("`{f}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ))
                }
            },
        };
        // The keywords each declaration takes.
        let allowed: &[&str] = match what {
            "shape_only" => &["arg"],
            "native_scalar" => &["kind", "arity", "like", "other", "returns", "float32"],
            "transparent_context" => &["enters"],
            _ => &[],
        };
        for (k, _, at) in &decl.keywords {
            if !allowed.contains(&k.as_str()) {
                return Err(bad(
                    *at,
                    format!("`{what}` takes no keyword `{k}`"),
                    "see the declarations at the top of the rule files",
                ));
            }
        }
        let names = names_of(decl, file, text)?;
        if what == "array_methods" {
            if let [(class, _)] = names.as_slice() {
                if let Some(old) = &self.array_class {
                    return Err(bad(
                        decl.span,
                        format!("`array_methods` is declared twice (`{old}` and `{class}`)"),
                        "methods are keyed under one class",
                    ));
                }
                self.array_class = Some(class.clone());
                return Ok(());
            }
            return Err(bad(
                decl.span,
                "`array_methods` takes one class name".into(),
                "write `array_methods(numpy.ndarray)`",
            ));
        }
        for (name, at) in &names {
            self.register(kind, name, file, text, *at)?;
            let set = match what {
                "nondifferentiable" => &mut self.nondifferentiable,
                "returns_view" => &mut self.views,
                "left_fold" => &mut self.left_folds,
                "linear_in_first" => &mut self.linear_in_first,
                "linear_in_each" => &mut self.linear_in_each,
                "pure" => &mut self.pure,
                "pure_module" => &mut self.pure_modules,
                "effectful_module" => &mut self.effectful_modules,
                "effectful" => &mut self.effectful,
                "mutates" => &mut self.mutates,
                "reads_only" => &mut self.reads_only,
                "real_arguments" => &mut self.real_arguments,
                "functional_call" => &mut self.functional_calls,
                "module_sequence" => &mut self.module_sequences,
                "array_attributes" => &mut self.attributes,
                "shape_only" => {
                    let positions = match decl.keyword("arg") {
                        Some((_, Arg::Int(i), _)) => vec![*i],
                        Some((_, Arg::Tuple(xs), at)) => xs
                            .iter()
                            .map(|x| match x {
                                Arg::Int(i) => Ok(*i),
                                _ => Err(()),
                            })
                            .collect::<Result<Vec<i64>, ()>>()
                            .map_err(|_| bad(*at, "`arg=` takes argument positions".into(), "write `arg=1` or `arg=(1, 2)`"))?,
                        _ => return Err(bad(decl.span, format!("`shape_only({name}, ...)` needs `arg=` (the positions read only for their shape)"), "write `shape_only(f, arg=1)`")),
                    };
                    self.shape_only.insert(
                        name.clone(),
                        positions.into_iter().map(|i| i as usize).collect(),
                    );
                    continue;
                }
                "native_scalar" => {
                    let kind =
                        match decl.keyword("kind") {
                            None => "kernel",
                            Some((_, Arg::Str(k), _))
                                if [
                                    "kernel",
                                    "identity",
                                    "check",
                                    "new_array",
                                    "array_like",
                                    "array_copy",
                                    "unbroadcast",
                                    "broadcast",
                                    "sum",
                                    "dot",
                                    "dot_grad",
                                    "sign",
                                    "float32_scalar",
                                    "float64_scalar",
                                    "cast_like",
                                ]
                                .contains(&k.as_str()) =>
                            {
                                k.as_str()
                            }
                            Some((_, _, at)) => return Err(bad(
                                *at,
                                "`kind=` is \"kernel\", \"identity\", \"check\", \"new_array\", \
                                 \"array_like\", \"array_copy\", \"unbroadcast\", \"broadcast\", \
                                 \"sum\", \"dot\", \"dot_grad\", \"sign\", \"float32_scalar\", \"float64_scalar\" or \"cast_like\""
                                    .into(),
                                "see backends/math.py and backends/tangent.py",
                            )),
                        };
                    let arity = match decl.keyword("arity") {
                        None => 1,
                        Some((_, Arg::Int(n), _)) if kind == "kernel" && (1..=2).contains(n) => {
                            *n as usize
                        }
                        Some((_, _, at)) => {
                            return Err(bad(
                                *at,
                                "`arity=` is 1 or 2, for kernels only".into(),
                                "see backends/math.py",
                            ))
                        }
                    };
                    let like = match decl.keyword("like") {
                        None => 1,
                        Some((_, Arg::Int(n), _))
                            if matches!(kind, "unbroadcast" | "broadcast") && *n >= 1 =>
                        {
                            *n as usize
                        }
                        Some((_, _, at)) => {
                            return Err(bad(
                                *at,
                                "`like=` is the position (1 or more) of the argument whose \
                                 shape the result takes, for kind=\"unbroadcast\" or \
                                 \"broadcast\" only"
                                    .into(),
                                "see backends/tangent.py",
                            ))
                        }
                    };
                    let other = match decl.keyword("other") {
                        None if kind == "dot_grad" => {
                            return Err(bad(
                                decl.span,
                                "kind=\"dot_grad\" needs `other=`".into(),
                                "see backends/tangent.py",
                            ))
                        }
                        None => 0,
                        Some((_, Arg::Int(n), _)) if kind == "dot_grad" && *n >= 1 => *n as usize,
                        Some((_, _, at)) => {
                            return Err(bad(
                                *at,
                                "`other=` is the position (1 or more) of the vector the first \
                                 argument multiplies, for kind=\"dot_grad\" only"
                                    .into(),
                                "see backends/tangent.py",
                            ))
                        }
                    };
                    let numpy = match decl.keyword("returns") {
                        None => false,
                        Some((_, Arg::Str(r), _)) if kind == "kernel" && r == "numpy_scalar" => {
                            true
                        }
                        Some((_, Arg::Str(r), _)) if kind == "kernel" && r == "float" => false,
                        Some((_, _, at)) => {
                            return Err(bad(
                                *at,
                                "`returns=` is \"float\" (a Python float, the default) or                                  \"numpy_scalar\" (NumPy's scalar types), for kernels only"
                                    .into(),
                                "see backends/numpy.py",
                            ))
                        }
                    };
                    let bad_float32 = |at: Span| {
                        bad(
                            at,
                            "`float32=` is \"correctly_rounded\" (NumPy's float32 result is the \
                             true value rounded), \"numpy_kernel\" (NumPy's own approximation, \
                             which the runtime copies) or \"host_rounds_double\" (NumPy's own, \
                             which native code follows only where the host's numpy rounds the \
                             double result), for kernels returning NumPy's scalars only"
                                .into(),
                            "see backends/numpy.py",
                        )
                    };
                    let single = match decl.keyword("float32") {
                        None => None,
                        Some((_, Arg::Str(r), _)) if numpy => match r.as_str() {
                            "correctly_rounded" => Some(Float32Kernel::CorrectlyRounded),
                            "numpy_kernel" => Some(Float32Kernel::NumPys),
                            "host_rounds_double" => Some(Float32Kernel::HostRoundsDouble),
                            _ => return Err(bad_float32(decl.span)),
                        },
                        Some((_, _, at)) => return Err(bad_float32(*at)),
                    };
                    let fact = match kind {
                        "kernel" => NativeScalar::Kernel {
                            name: name.rsplit('.').next().unwrap_or(name).to_owned(),
                            arity,
                            numpy,
                            single,
                        },
                        "identity" => NativeScalar::Identity,
                        "new_array" => NativeScalar::NewArray,
                        "array_like" => NativeScalar::ArrayLike,
                        "array_copy" => NativeScalar::ArrayCopy,
                        "unbroadcast" => NativeScalar::Unbroadcast { like, sums: true },
                        "broadcast" => NativeScalar::Unbroadcast { like, sums: false },
                        "sum" => NativeScalar::Sum,
                        "dot" => NativeScalar::Dot,
                        "dot_grad" => NativeScalar::DotGrad { other },
                        "sign" => NativeScalar::Sign,
                        "float32_scalar" => NativeScalar::ScalarType { single: true },
                        "float64_scalar" => NativeScalar::ScalarType { single: false },
                        "cast_like" => NativeScalar::CastLike,
                        _ => NativeScalar::Check,
                    };
                    self.native.insert(name.clone(), fact);
                    continue;
                }
                "transparent_context" => {
                    let fact = match decl.keyword("enters") {
                        None => TransparentContext::State,
                        Some((_, Arg::Str(k), _)) if k == "state" => TransparentContext::State,
                        Some((_, Arg::Str(k), _)) if k == "argument" => {
                            TransparentContext::Argument
                        }
                        Some((_, _, at)) => {
                            return Err(bad(
                                *at,
                                "`enters=` is \"state\" or \"argument\"".into(),
                                "see backends/python.py",
                            ))
                        }
                    };
                    self.transparent.insert(name.clone(), fact);
                    continue;
                }
                _ => unreachable!("every fact has a table: {what}"),
            };
            set.insert(name.clone());
        }
        Ok(())
    }

    /// Once every rule file is loaded: makes the rules of operators and array methods work
    /// on every registered array type: `numpy` (the namespace of the `array_methods`
    /// class) in their templates is read as `tangent.namespace_of(<arguments>)`, the
    /// namespace of the values at run time. And `tangent.namespace_of.F` (what such
    /// generated code calls, when it is differentiated again) gets `numpy.F`'s rules and
    /// facts, dispatched the same way, so second derivatives follow the value's type too;
    /// it gets `numpy.F`'s `native_scalar` kind too.
    pub fn finish(&mut self) {
        let Some(class) = self.array_class.clone() else {
            return;
        };
        let Some((namespace, _)) = class.rsplit_once('.') else {
            return;
        };
        let class_name = class[namespace.len() + 1..].to_owned();
        let (function, method) = (format!("{namespace}."), format!("{class}."));
        let moved = |key: &str| {
            (key.starts_with(&function) && !key.starts_with(&method))
                .then(|| format!("{NAMESPACE_OF}.{}", &key[function.len()..]))
        };
        for table in [&mut self.adjoints, &mut self.tangents] {
            for (key, t) in table.iter_mut() {
                if key.starts_with(&method) || key.starts_with("operator.") {
                    t.def = dispatched(&t.def, namespace, &class_name);
                }
            }
            let extra: Vec<(String, Template)> = table
                .iter()
                .filter_map(|(k, t)| {
                    let def = dispatched(&t.def, namespace, &class_name);
                    Some((
                        moved(k)?,
                        Template {
                            def,
                            origin: t.origin.clone(),
                        },
                    ))
                })
                .collect();
            table.extend(extra);
        }
        for set in self.name_sets() {
            let extra: Vec<String> = set.iter().filter_map(|k| moved(k)).collect();
            set.extend(extra);
        }
        // Native code holds only numbers and float64 arrays, whose namespace is this one
        // (its typing checks the values given to `namespace_of`).
        let extra: Vec<(String, NativeScalar)> = self
            .native
            .iter()
            .filter_map(|(k, f)| Some((moved(k)?, f.clone())))
            .collect();
        self.native.extend(extra);
        // The namespace's functions written out (`numpy.corrcoef`): the functions their
        // Python calls are the namespace of its arguments', so the expansion names no
        // module the user's file may not have imported, and follows the values' type.
        for (key, t) in self.control_flow.iter_mut() {
            if key.starts_with(&function) && !key.starts_with(&method) {
                t.def = dispatched_over(&t.def, namespace, &class_name, 0);
            }
        }
    }

    /// The declared facts that are sets of names (what `rules_like` and the dispatched
    /// namespace copy from one name to another).
    fn name_sets(&mut self) -> [&mut HashSet<String>; 10] {
        [
            &mut self.nondifferentiable,
            &mut self.views,
            &mut self.left_folds,
            &mut self.elementwise,
            &mut self.linear_in_first,
            &mut self.linear_in_each,
            &mut self.pure,
            &mut self.mutates,
            &mut self.reads_only,
            &mut self.real_arguments,
        ]
    }

    /// An `exported_as(canonical_module, other_module, name, ...)` declaration: each
    /// `other_module.name` is the function `canonical_module.name`.
    fn add_exported_as(
        &mut self,
        file: &str,
        text: &str,
        decl: &Registration,
    ) -> Result<(), Diagnostic> {
        let (from, to, names) = two_modules_and_names(
            decl,
            file,
            text,
            "`exported_as(module, other, name, ...)` needs two modules and at least one name",
            "for example `exported_as(tensorflow.math, tensorflow, tanh, exp)`",
        )?;
        for (name, _) in names {
            self.exports
                .insert(format!("{to}.{name}"), format!("{from}.{name}"));
        }
        Ok(())
    }

    /// A `rules_like(from, to, name, ...)` declaration, resolved at the end of the file.
    fn add_rules_like(
        &mut self,
        file: &str,
        text: &str,
        decl: &Registration,
    ) -> Result<(), Diagnostic> {
        let like = two_modules_and_names(
            decl,
            file,
            text,
            "`rules_like(from, to, name, ...)` needs two namespaces and at least one name",
            "for example `rules_like(numpy, jax.numpy, sum, mean)`",
        )?;
        self.pending_like.push(like);
        Ok(())
    }

    /// Gives each `rules_like(from, to, names...)` name under `to` the rules (and
    /// declared facts) of the same name under `from`, with the namespace `from` in the
    /// templates read as `to`: `jax.numpy.sum` is `numpy.sum`'s rule calling `jax.numpy`.
    /// A direction in which `to.name` has its own template keeps it; a name that gets
    /// nothing (no rule under `from`, or all of them already under `to`) is an error.
    fn resolve_like(&mut self, file: &str, text: &str) -> Result<(), Diagnostic> {
        for (from, to, names) in std::mem::take(&mut self.pending_like) {
            for (name, at) in names {
                let (src, dst) = (format!("{from}.{name}"), format!("{to}.{name}"));
                let (f, t) = (from.as_str(), to.as_str());
                let rename = |x: &Expr| renamed_namespace(x, f, t);
                if !self.copy_rules(&src, &dst, &rename, file, text, at)? {
                    return Err(Diagnostic::new(
                        at,
                        format!("`rules_like({from}, {to}, ...)`: `{src}` has no rule or declaration that `{dst}` lacks"),
                        "list only functions whose rules the first namespace has",
                    )
                    .locate(file, text));
                }
            }
        }
        Ok(())
    }

    /// Gives each `in_place(f, g)`'s `g` the rules and facts of `f`, templates unchanged
    /// (a derivative of `g` calls `f`, and `opt::in_place` picks again in its output).
    fn resolve_in_place(&mut self, file: &str, text: &str) -> Result<(), Diagnostic> {
        for (f, g, at) in std::mem::take(&mut self.pending_in_place) {
            if !self.copy_rules(&f, &g, &|_| None, file, text, at)? {
                return Err(Diagnostic::new(
                    at,
                    format!("`in_place({f}, {g})`: `{f}` has no rule or declaration to share"),
                    "declare the rules of the helper first",
                )
                .locate(file, text));
            }
            self.in_place.insert(g, f);
        }
        Ok(())
    }

    /// Gives `dst` the rules (and declared facts) of `src` it lacks, each template's
    /// expressions passed through `rename`; whether it gave anything.
    fn copy_rules(
        &mut self,
        src: &str,
        dst: &str,
        rename: &dyn Fn(&Expr) -> Option<Expr>,
        file: &str,
        text: &str,
        at: Span,
    ) -> Result<bool, Diagnostic> {
        let mut found = false;
        for kind in [Kind::Adjoint, Kind::Tangent] {
            let table = match kind {
                Kind::Adjoint => &self.adjoints,
                _ => &self.tangents,
            };
            let Some(t) = table.get(src) else { continue };
            if table.contains_key(dst) {
                continue;
            }
            let mut def = t.def.clone();
            for stmt in &mut def.body {
                crate::syntax::visit::map_stmt_exprs(stmt, &mut |e| {
                    let mut e = e.clone();
                    substitute(&mut e, &mut |x| rename(x));
                    e
                });
            }
            let origin = format!("{} as {dst}", t.origin);
            self.register(kind, dst, file, text, at)?;
            let table = match kind {
                Kind::Adjoint => &mut self.adjoints,
                _ => &mut self.tangents,
            };
            table.insert(dst.to_owned(), Template { def, origin });
            found = true;
        }
        for set in self.name_sets() {
            if set.contains(src) {
                set.insert(dst.to_owned());
                found = true;
            }
        }
        if let Some(v) = self.shape_only.get(src).cloned() {
            self.shape_only.entry(dst.to_owned()).or_insert(v);
        }
        Ok(found)
    }
}

/// The arguments of a `(module, other, name, ...)` declaration (`rules_like`,
/// `exported_as`), or the located error `message`.
fn two_modules_and_names(
    decl: &Registration,
    file: &str,
    text: &str,
    message: &str,
    hint: &str,
) -> Result<RulesLike, Diagnostic> {
    match names_of(decl, file, text)?.as_slice() {
        [(from, _), (to, _), rest @ ..] if !rest.is_empty() => {
            Ok((from.clone(), to.clone(), rest.to_vec()))
        }
        _ => Err(Diagnostic::new(decl.span, message, hint).locate(file, text)),
    }
}

/// The dotted-name arguments of a registration with their spans; anything else is an
/// error located at the argument.
fn names_of(reg: &Registration, file: &str, text: &str) -> Result<Vec<(String, Span)>, Diagnostic> {
    reg.args
        .iter()
        .map(|(a, at)| match a.as_name() {
            Some(n) => Ok((n.to_owned(), *at)),
            None => Err(Diagnostic::new(
                *at,
                format!("`{}` takes canonical names of functions here", reg.callee),
                "write a dotted name such as `numpy.sum`",
            )
            .locate(file, text)),
        })
        .collect()
}

/// `numpy.sum` read as `jax.numpy.sum` (`from` = `numpy`, `to` = `jax.numpy`): the root
/// of an attribute chain on the namespace `from` replaced.
fn renamed_namespace(e: &Expr, from: &str, to: &str) -> Option<Expr> {
    let ExprKind::Attr(v, attr) = &e.kind else {
        return None;
    };
    if crate::emit::printer::expr(v) != from {
        return None;
    }
    let mut root = Expr::name(to.split('.').next().unwrap_or(to));
    for part in to.split('.').skip(1) {
        root = Expr::attr(root, part);
    }
    Some(Expr::attr(root, attr))
}
