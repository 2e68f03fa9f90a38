//! Derivative rules are data: Python-syntax templates under `backends/`, keyed by the
//! canonical qualified name of the function they differentiate. This module loads them
//! and instantiates a template for one call site. Adding a rule never touches `ad/`.

use super::adjoint::Adj;
use super::rule_file::{Arg, Registration, RuleFile};
use crate::syntax::ir::*;
use crate::syntax::{Diagnostic, SourceModule};
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

/// The rule files compiled into the binary: (file name, text).
pub const RULE_FILES: &[(&str, &str)] = &[
    (
        "backends/elementwise.py",
        include_str!("../../backends/elementwise.py"),
    ),
    (
        "backends/python.py",
        include_str!("../../backends/python.py"),
    ),
    (
        "backends/arithmetic.py",
        include_str!("../../backends/arithmetic.py"),
    ),
    ("backends/math.py", include_str!("../../backends/math.py")),
    ("backends/numpy.py", include_str!("../../backends/numpy.py")),
    (
        "backends/linalg.py",
        include_str!("../../backends/linalg.py"),
    ),
    ("backends/scipy.py", include_str!("../../backends/scipy.py")),
    ("backends/jax.py", include_str!("../../backends/jax.py")),
    ("backends/torch.py", include_str!("../../backends/torch.py")),
    (
        "backends/tensorflow.py",
        include_str!("../../backends/tensorflow.py"),
    ),
    ("backends/keras.py", include_str!("../../backends/keras.py")),
    (
        "backends/tinygrad.py",
        include_str!("../../backends/tinygrad.py"),
    ),
    (
        "backends/tangent.py",
        include_str!("../../backends/tangent.py"),
    ),
    (
        "backends/tangent_numpy.py",
        include_str!("../../backends/tangent_numpy.py"),
    ),
];

#[derive(Debug, Clone)]
pub struct Template {
    pub def: FuncDef,
    /// Where the template was written, for error messages.
    pub origin: String,
}

/// The kinds of registration a name can have once each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Adjoint,
    Tangent,
    Nondifferentiable,
    /// A declaration of [`FACTS`], by index.
    Fact(usize),
}

impl Kind {
    /// What a registration of this kind does to a name (`given a reverse-mode rule`).
    fn what(self) -> String {
        match self {
            Kind::Adjoint => "given a reverse-mode rule".into(),
            Kind::Tangent => "given a forward-mode rule".into(),
            Kind::Nondifferentiable => "declared `nondifferentiable`".into(),
            Kind::Fact(i) => format!("declared `{}`", FACTS[i]),
        }
    }
}

/// The declarations of facts about named functions a rule file may make (besides
/// `nondifferentiable`); see the accessors of [`RuleSet`] for what each means.
const FACTS: &[&str] = &[
    "returns_view",
    "left_fold",
    "linear_in_first",
    "linear_in_each",
    "pure",
    "pure_module",
    "effectful_module",
    "effectful",
    "mutates",
    "reads_only",
    "real_arguments",
    "shape_only",
    "native_scalar",
    "array_methods",
    "transparent_context",
    "array_attributes",
    "functional_call",
    "module_sequence",
];

/// What a `with` over a context manager declared `transparent_context(...)` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransparentContext {
    /// `enters="argument"`: entering and leaving do nothing, `as` binds the call's
    /// first argument (None without one): `contextlib.nullcontext`.
    Argument,
    /// `enters="state"`: the context changes interpreter or library state the body
    /// runs under (`numpy.errstate`); it is entered before the body and left after it,
    /// and has no `as` target.
    State,
}

/// How the native compiler (`compile='native'`) runs a call on scalars:
/// `native_scalar(...)` declarations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NativeScalar {
    /// The runtime's float kernel of this short name (`sin`), of this many arguments;
    /// `numpy`: the function returns a NumPy scalar (`numpy.float64`, or a
    /// `numpy.float32` for one, computed by NumPy's float32 code), not a Python float.
    Kernel {
        name: String,
        arity: usize,
        numpy: bool,
        /// How NumPy computes it on float32 values (None: native code leaves those to
        /// the interpreter).
        single: Option<Float32Kernel>,
    },
    /// The identity on its first argument (`tangent.unbroadcast` of a number).
    Identity,
    /// A check with nothing to check on numbers (`tangent.check_output`): no code.
    Check,
    /// A new float64 array of the shape its argument gives (an int, or a pair of ints),
    /// zero-filled (`numpy.zeros`; `numpy.empty`, whose elements are unspecified).
    NewArray,
    /// A new zero float64 array shaped like its float64 array argument (`zeros_like`).
    ArrayLike,
    /// A copy of its float64 array argument (`numpy.copy`, `ndarray.copy`).
    ArrayCopy,
    /// Its first argument given the shape of argument `like` (`tangent.unbroadcast`):
    /// a number stays itself or fills an array, an array of that shape stays itself or
    /// is summed to a number (`sums`; else, `tangent.broadcast_like` of forward mode, it
    /// stays itself).
    Unbroadcast { like: usize, sums: bool },
    /// The sum of a float64 array's elements, pairwise as NumPy (`numpy.sum` of one
    /// argument).
    Sum,
    /// The inner product of two 1-d float64 arrays of one length (`numpy.dot`).
    Dot,
    /// The gradient of an inner product with respect to one vector: the first argument
    /// (a number) times argument `other` (counted from 0), a 1-d float64 array
    /// (`tangent.matmul_grad_left` of vectors).
    DotGrad { other: usize },
    /// The sign of a number as a Python float (1.0, -1.0, or 0.0 for zero and NaN:
    /// `tangent.sign`, the gradient of `abs`); of an array, `numpy.sign` elementwise.
    Sign,
    /// A NumPy float scalar of a number: `numpy.float32` (`single`: rounded to float32)
    /// or `numpy.float64`.
    ScalarType { single: bool },
    /// Its first argument, a number, in the NumPy type of its second (`tangent.cast_like`:
    /// the derivative of a dtype conversion).
    CastLike,
}

/// What NumPy's float32 loop of a function computes, for native code to match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Float32Kernel {
    /// The true value rounded to float32 (`sqrt`, `fabs`): double precision rounded
    /// once gives it.
    CorrectlyRounded,
    /// NumPy's own approximation (`tanh`, `exp`, ...), which the runtime reproduces
    /// (`tangent_fastmath::numpy_f32`) and uses where the host's NumPy agrees.
    NumPys,
    /// NumPy's own (its SIMD library's or the C library's float function), which native
    /// code follows only in a host whose numpy computes it in double and rounds once (the
    /// embedded numpy: `precision::numpy_rounds_double`).
    HostRoundsDouble,
}

/// The dotted-name arguments of a registration with their spans; anything else is an
/// error located at the argument.
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

/// A `rules_like(from, to, names...)` declaration: the two namespaces and each name with
/// its place.
type RulesLike = (String, String, Vec<(String, Span)>);

#[derive(Default, Debug, Clone)]
pub struct RuleSet {
    adjoints: HashMap<String, Template>,
    tangents: HashMap<String, Template>,
    nondifferentiable: HashSet<String>,
    /// Functions whose result may be (a view of) an argument: `returns_view(...)`.
    views: HashSet<String>,
    /// Functions whose call on more than two arguments is the left fold of their
    /// two-argument call: `left_fold(...)`.
    left_folds: HashSet<String>,
    /// Canonical names that come from the elementwise table (one argument, one result
    /// of the same shape): coarsening may chain their adjoints symbolically.
    elementwise: HashSet<String>,
    /// `rules_like(numpy, jax.numpy, sum, ...)`: (from, to, names) whose rules are the
    /// `from` namespace's, with that namespace read as `to` (resolved once every file is
    /// loaded).
    pending_like: Vec<RulesLike>,
    /// `in_place(f, g)` declarations not yet resolved (resolved at the end of the file).
    pending_in_place: Vec<(String, String, Span)>,
    /// `in_place(f, g)`: `g` is `f` allowed to change its first argument in place; it has
    /// `f`'s rules and facts, and `opt::in_place` picks one of the two at each call.
    /// Keyed by `g`, the value is `f`.
    in_place: HashMap<String, String>,
    /// `exported_as(tensorflow.math, tensorflow, tanh, ...)`: another path of the same
    /// function object (`tensorflow.tanh`) -> the name its rules have
    /// (`tensorflow.math.tanh`), for resolving without a host's live names.
    exports: HashMap<String, String>,
    /// Where each name was registered, by kind (`file:line:col`), for the located error
    /// on a second registration.
    places: HashMap<(Kind, String), String>,
    /// `linear_in_first(...)`: a zero first argument gives a zero result.
    linear_in_first: HashSet<String>,
    /// `linear_in_each(...)`: a zero in any argument gives a zero result (`matmul`).
    linear_in_each: HashSet<String>,
    /// `pure(...)`: functions and methods that return a new value and change nothing.
    pure: HashSet<String>,
    /// `pure_module(...)`: modules all of whose functions are pure, except those under
    /// an `effectful_module(...)` and those that `mutates(...)` lists.
    pure_modules: HashSet<String>,
    effectful_modules: HashSet<String>,
    /// `effectful(...)`: functions that read or change hidden state (random draws,
    /// seeding); with the functions of an `effectful_module(...)`, a user function that
    /// calls one runs its forward pass once in a derivative (`RuleSet::is_effectful`).
    effectful: HashSet<String>,
    mutates: HashSet<String>,
    /// `reads_only(...)`: calls that only read their arguments, so they may be made for
    /// their effect on differentiated values (printing, tangent's checks).
    reads_only: HashSet<String>,
    /// `real_arguments(...)`: nondifferentiable functions whose derivative is zero for
    /// real arguments only (`numpy.sign`: z / |z| of a complex z is not constant).
    real_arguments: HashSet<String>,
    /// `functional_call(...)`: calls of a network module with its parameters from a
    /// dict (`torch.func.functional_call`), written out by `ad::control_flow`.
    functional_calls: HashSet<String>,
    /// `module_sequence(...)`: module classes whose call calls their children in order
    /// (`torch.nn.Sequential`).
    module_sequences: HashSet<String>,
    /// `shape_only(f, arg=...)`: argument positions `f` reads only for shape, dtype or
    /// length.
    shape_only: HashMap<String, Vec<usize>>,
    /// `native_scalar(...)`: calls the native compiler runs on scalars.
    native: HashMap<String, NativeScalar>,
    /// `transparent_context(...)`: context managers a differentiated `with` may use.
    transparent: HashMap<String, TransparentContext>,
    /// `@control_flow(...)` templates: calls that stand for control flow
    /// (`jax.lax.fori_loop`), inlined as the Python the template writes
    /// (`desugar::expand_control_flow`).
    control_flow: HashMap<String, Template>,
    /// `array_methods(numpy.ndarray)`: the class methods and attributes of values are
    /// keyed under (`numpy.ndarray.sum`).
    array_class: Option<String>,
    /// `array_attributes(...)`: the members of arrays read as attributes (`x.T`,
    /// `x.shape`); any other `p.name` read is a field of a structure or an object.
    attributes: HashSet<String>,
}

impl RuleSet {
    /// The built-in rules, parsed once per process.
    pub fn builtin() -> &'static RuleSet {
        static RULES: OnceLock<RuleSet> = OnceLock::new();
        RULES.get_or_init(|| {
            let mut set = RuleSet::default();
            for (file, text) in RULE_FILES {
                // The rule files are part of the binary; a broken one is a build defect
                // caught by the test suite, so report it loudly.
                if let Err(d) = set.add_file(file, text) {
                    panic!("built-in rule file is invalid:\n{d}");
                }
            }
            set.finish();
            set
        })
    }

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
    fn register(
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

    /// An entry of the elementwise table: `def f(y, x): return <partial dy/dx>` with `B.`
    /// for the backend module, registered under `backend.name` for each `backend=name`.
    fn add_elementwise(
        &mut self,
        def: &FuncDef,
        reg: &Registration,
        origin: &str,
        file: &str,
        text: &str,
    ) -> Result<(), Diagnostic> {
        let partial = match def.body.as_slice() {
            [Stmt {
                kind: StmtKind::Return(Some(e)),
                ..
            }] => e.clone(),
            _ => {
                return Err(Diagnostic::new(
                    def.span,
                    format!(
                        "elementwise entry `{}` must be a single `return <partial derivative>`",
                        def.name
                    ),
                    "write the derivative of the result with respect to the argument",
                ))
            }
        };
        let (y, x) = match def.params.as_slice() {
            [y, x] => (y.name.clone(), x.name.clone()),
            _ => {
                return Err(Diagnostic::new(
                    def.span,
                    format!(
                        "elementwise entry `{}` must take (result, argument)",
                        def.name
                    ),
                    "declare it as `def f(y, x):`",
                ))
            }
        };
        let grad = |v: &str| {
            Expr::synth(ExprKind::Subscript(
                Box::new(Expr::name("d")),
                Box::new(Expr::name(v)),
            ))
        };
        // `result="real"`: a function real for complex arguments (abs), whose tangent is
        // the real part of the product for a real result (`tangent.real_like`).
        let real_result = match reg.keyword(REAL_RESULT) {
            None => false,
            Some((_, Arg::Str(v), _)) if v == "real" => true,
            Some((_, _, at)) => {
                return Err(Diagnostic::new(
                    *at,
                    format!("`{REAL_RESULT}=` of elementwise entry `{}` is \"real\"", def.name),
                    "write `result=\"real\"` for a function real for complex arguments, or leave it out",
                )
                .locate(file, text))
            }
        };
        for (backend, fname, at) in reg.keywords.iter().filter(|k| k.0 != REAL_RESULT) {
            let (Arg::Name(fname) | Arg::Str(fname)) = fname else {
                return Err(Diagnostic::new(
                    *at,
                    format!(
                        "the elementwise entry `{}` names its function with a name",
                        def.name
                    ),
                    "write `numpy=tanh`",
                )
                .locate(file, text));
            };
            let backend = backend.trim_end_matches('_');
            // The module `B.` stands for: the function's own (`jax="numpy.tanh"`:
            // jax.numpy), read from the name as written, never from a list here.
            let key = format!("{backend}.{fname}");
            let module_path = key.rsplit_once('.').map_or(backend, |(m, _)| m);
            let module = module_path
                .split('.')
                .skip(1)
                .fold(Expr::name(backend), Expr::attr);
            let mut partial = partial.clone();
            substitute(&mut partial, &mut |e| match &e.kind {
                ExprKind::Attr(m, f) if m.as_name() == Some("B") => {
                    Some(Expr::attr(module.clone(), f))
                }
                _ => None,
            });
            let times = |g: Expr| scale(g, &partial);
            let template = |target: &str, source: &str, real: bool| Template {
                def: FuncDef {
                    name: def.name.clone(),
                    params: def.params.clone(),
                    vararg: None,
                    kwonly: None,
                    star: None,
                    body: vec![Stmt::synth(StmtKind::Assign(
                        grad(target),
                        if real {
                            Expr::call_path(
                                "tangent.real_like",
                                vec![times(grad(source)), Expr::name(target)],
                            )
                        } else {
                            times(grad(source))
                        },
                    ))],
                    span: def.span,
                },
                origin: origin.to_owned(),
            };
            self.register(Kind::Adjoint, &key, file, text, *at)?;
            self.register(Kind::Tangent, &key, file, text, *at)?;
            self.elementwise.insert(key.clone());
            self.adjoints.insert(key.clone(), template(&x, &y, false));
            self.tangents.insert(key, template(&y, &x, real_result));
        }
        Ok(())
    }

    /// Is `qualname` a one-argument elementwise function of the table?
    pub fn is_elementwise(&self, qualname: &str) -> bool {
        self.elementwise.contains(qualname)
    }

    pub fn adjoint(&self, qualname: &str) -> Option<&Template> {
        self.adjoints.get(qualname)
    }

    pub fn tangent(&self, qualname: &str) -> Option<&Template> {
        self.tangents.get(qualname)
    }

    /// Every canonical name that has a forward-mode rule, sorted.
    pub fn tangent_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.tangents.keys().map(|s| s.as_str()).collect();
        v.sort();
        v
    }

    /// Registers one template (a user's `@tangent.adjoint` / `@tangent.tangent_`).
    pub fn insert(&mut self, forward: bool, qualname: &str, template: Template) {
        let table = if forward {
            &mut self.tangents
        } else {
            &mut self.adjoints
        };
        table.insert(qualname.to_owned(), template);
        self.nondifferentiable.remove(qualname);
    }

    /// Adds every rule of `other`, replacing rules of the same name.
    pub fn extend(&mut self, other: &RuleSet) {
        self.adjoints
            .extend(other.adjoints.iter().map(|(k, v)| (k.clone(), v.clone())));
        self.tangents
            .extend(other.tangents.iter().map(|(k, v)| (k.clone(), v.clone())));
        self.nondifferentiable
            .extend(other.nondifferentiable.iter().cloned());
        self.views.extend(other.views.iter().cloned());
        self.left_folds.extend(other.left_folds.iter().cloned());
        self.elementwise.extend(other.elementwise.iter().cloned());
        self.control_flow.extend(
            other
                .control_flow
                .iter()
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        self.exports
            .extend(other.exports.iter().map(|(k, v)| (k.clone(), v.clone())));
        self.linear_in_first
            .extend(other.linear_in_first.iter().cloned());
        self.linear_in_each
            .extend(other.linear_in_each.iter().cloned());
        self.pure.extend(other.pure.iter().cloned());
        self.pure_modules.extend(other.pure_modules.iter().cloned());
        self.effectful_modules
            .extend(other.effectful_modules.iter().cloned());
        self.effectful.extend(other.effectful.iter().cloned());
        self.mutates.extend(other.mutates.iter().cloned());
        self.reads_only.extend(other.reads_only.iter().cloned());
        self.real_arguments
            .extend(other.real_arguments.iter().cloned());
        self.functional_calls
            .extend(other.functional_calls.iter().cloned());
        self.module_sequences
            .extend(other.module_sequences.iter().cloned());
        self.shape_only
            .extend(other.shape_only.iter().map(|(k, v)| (k.clone(), v.clone())));
        self.in_place
            .extend(other.in_place.iter().map(|(k, v)| (k.clone(), v.clone())));
        self.native
            .extend(other.native.iter().map(|(k, v)| (k.clone(), v.clone())));
        if other.array_class.is_some() {
            self.array_class = other.array_class.clone();
        }
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

    /// The name whose rules `qualname` has when it is another path of the same function
    /// (`exported_as`), else None.
    pub fn exported_name(&self, qualname: &str) -> Option<&str> {
        self.exports.get(qualname).map(String::as_str)
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
                super::adjoint::map_stmt_exprs(stmt, &|e| {
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

    /// The helper `in_place` is the in-place variant of (`in_place(f, g)`: `g` -> `f`).
    pub fn copying_variant(&self, in_place: &str) -> Option<&str> {
        self.in_place.get(in_place).map(String::as_str)
    }

    /// The in-place variant of the helper `copying`, if it has one.
    pub fn in_place_variant(&self, copying: &str) -> Option<&str> {
        self.in_place
            .iter()
            .find(|(_, f)| f.as_str() == copying)
            .map(|(g, _)| g.as_str())
    }

    pub fn is_nondifferentiable(&self, qualname: &str) -> bool {
        self.nondifferentiable.contains(qualname)
    }

    /// Is `qualname` (`numpy.ndarray.T`) an array attribute, so that `p.T` read (not
    /// called) is the array's attribute rather than a field of `p`?
    pub fn is_array_attribute(&self, qualname: &str) -> bool {
        self.attributes.contains(qualname)
    }

    /// The names of the array attributes (`T`, `shape`), for the run-time check that a
    /// record's fields are not named like them.
    pub fn array_attribute_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .attributes
            .iter()
            .map(|q| q.rsplit('.').next().unwrap_or(q).to_owned())
            .collect();
        names.sort();
        names
    }

    /// Is `f(a, b, c)` the same as `f(f(a, b), c)` for `qualname`?
    pub fn is_left_fold(&self, qualname: &str) -> bool {
        self.left_folds.contains(qualname)
    }

    /// May the result of `qualname` be one of its arguments or a view of one?
    pub fn returns_view(&self, qualname: &str) -> bool {
        self.views.contains(qualname)
    }

    /// Is `qualname(t, ...)` zero whenever `t` is zero (`linear_in_first`)?
    pub fn is_linear_in_first(&self, qualname: &str) -> bool {
        self.linear_in_first.contains(qualname)
    }

    /// Is `qualname(...)` zero whenever any argument is zero (`linear_in_each`)?
    pub fn is_linear_in_each(&self, qualname: &str) -> bool {
        self.linear_in_each.contains(qualname)
    }

    /// Does a call of `qualname` (a canonical name: a library function, a method
    /// `numpy.ndarray.<name>`, a builtin) return a new value without changing anything
    /// or reading hidden state?
    pub fn is_pure(&self, qualname: &str) -> bool {
        if self.pure.contains(qualname) {
            return true;
        }
        // Methods are pure only by name: `numpy.ndarray.fill` writes into its receiver.
        if let Some(class) = &self.array_class {
            if qualname
                .strip_prefix(class.as_str())
                .is_some_and(|m| m.starts_with('.'))
            {
                return false;
            }
        }
        let under = |set: &HashSet<String>| {
            let mut prefix = qualname;
            while let Some((p, _)) = prefix.rsplit_once('.') {
                if set.contains(p) {
                    return true;
                }
                prefix = p;
            }
            false
        };
        under(&self.pure_modules)
            && !under(&self.effectful_modules)
            && !self.mutates.contains(qualname)
            && !self.effectful.contains(qualname)
    }

    /// Does `qualname` read or change hidden state (a random draw, seeding), so that a
    /// second call gives another value or a different state?
    pub fn is_effectful(&self, qualname: &str) -> bool {
        if self.effectful.contains(qualname) {
            return true;
        }
        let mut prefix = qualname;
        while let Some((p, _)) = prefix.rsplit_once('.') {
            if self.effectful_modules.contains(p) {
                return true;
            }
            prefix = p;
        }
        false
    }

    /// Is `root` the top-level name of a `pure_module` (a module rule templates name
    /// canonically: `numpy`, `math`)?
    pub fn is_pure_module_root(&self, root: &str) -> bool {
        self.pure_modules
            .iter()
            .any(|m| m.split('.').next() == Some(root))
    }

    /// Does `qualname` only read its arguments, so that a call made for its effect may
    /// take differentiated values (`print`, tangent's checks)?
    pub fn reads_only(&self, qualname: &str) -> bool {
        self.reads_only.contains(qualname)
    }

    /// The checks a call of `qualname` with these arguments needs when it is declared
    /// `real_arguments`: `tangent.check_real(x, "numpy.sign")` for each differentiated
    /// (`active`) argument, which refuses a complex value at run time (the function's
    /// derivative is zero for real arguments only); none for other functions.
    pub fn real_argument_checks(
        &self,
        qualname: &str,
        args: &[Expr],
        active: &dyn Fn(&Expr) -> bool,
        span: Span,
    ) -> Vec<Stmt> {
        if !self.real_arguments.contains(qualname) {
            return vec![];
        }
        args.iter()
            .filter(|a| active(a))
            .map(|a| {
                let call = Expr::call_path(
                    "tangent.check_real",
                    vec![a.clone(), Expr::str_lit(qualname)],
                );
                Stmt::new(StmtKind::ExprStmt(call), span)
            })
            .collect()
    }

    /// Is `qualname` a call of a network module with its parameters from a dict?
    pub fn is_functional_call(&self, qualname: &str) -> bool {
        self.functional_calls.contains(qualname)
    }

    /// Does a call of a module of class `kind` call its children in order?
    pub fn is_module_sequence(&self, kind: &str) -> bool {
        self.module_sequences.contains(kind)
    }

    /// How a `with` over `qualname(...)` is differentiated, if it may be.
    pub fn transparent_context(&self, qualname: &str) -> Option<TransparentContext> {
        self.transparent.get(qualname).copied()
    }

    /// The `@control_flow(...)` template of `qualname`: the Python a call of it is.
    pub fn control_flow(&self, qualname: &str) -> Option<&FuncDef> {
        self.control_flow.get(qualname).map(|t| &t.def)
    }

    /// The argument positions `qualname` reads only for their shape, dtype or length.
    pub fn shape_only_args(&self, qualname: &str) -> &[usize] {
        self.shape_only.get(qualname).map_or(&[], |v| v.as_slice())
    }

    /// How the native compiler runs `qualname` on scalars, if it does.
    pub fn native_scalar(&self, qualname: &str) -> Option<&NativeScalar> {
        self.native.get(qualname)
    }

    /// The canonical name of the method or attribute `name` of a value whose type is not
    /// known from the text (`numpy.ndarray.sum`; `array_methods(...)` names the class).
    pub fn array_member(&self, name: &str) -> String {
        let class = self.array_class.as_deref().unwrap_or("ndarray");
        format!("{class}.{name}")
    }

    /// Every canonical name that has a reverse-mode rule, sorted.
    /// Every canonical name the rules know (rules either way, nondifferentiable
    /// functions): the host maps live objects to these names by identity.
    pub fn known_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .adjoints
            .keys()
            .chain(self.tangents.keys())
            .chain(self.nondifferentiable.iter())
            .chain(self.transparent.keys())
            .chain(self.control_flow.keys())
            .chain(self.functional_calls.iter())
            .map(String::as_str)
            .filter(|n| !n.contains(':'))
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    pub fn adjoint_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.adjoints.keys().map(|s| s.as_str()).collect();
        v.sort();
        v
    }
}

/// `g * partial`, written as a person would: `g / e` for a partial `1.0 / e`, `-g * e`
/// for `-e`.
fn scale(g: Expr, partial: &Expr) -> Expr {
    let bin = |op, a: Expr, b: Expr| Expr::synth(ExprKind::BinOp(op, Box::new(a), Box::new(b)));
    let neg = |a: Expr| Expr::synth(ExprKind::Unary(UnaryOp::Neg, Box::new(a)));
    let is_one = |e: &Expr| matches!(&e.kind, ExprKind::Num(n) if n == "1.0" || n == "1");
    match &partial.kind {
        _ if is_one(partial) => g,
        ExprKind::Unary(UnaryOp::Neg, inner) if is_one(inner) => neg(g),
        ExprKind::BinOp(BinOp::Div, num, den) if is_one(num) => bin(BinOp::Div, g, (**den).clone()),
        ExprKind::BinOp(BinOp::Div, num, den) if matches!(&num.kind, ExprKind::Unary(UnaryOp::Neg, one) if is_one(one)) => {
            bin(BinOp::Div, neg(g), (**den).clone())
        }
        ExprKind::Unary(UnaryOp::Neg, inner) => bin(BinOp::Mul, neg(g), (**inner).clone()),
        _ => bin(BinOp::Mul, g, partial.clone()),
    }
}

/// What instantiation needs to know about the call site.
pub trait Site {
    /// Is this primal variable active (does it depend on a differentiated input)?
    fn is_active(&self, name: &str) -> bool;
    /// A fresh local name based on `hint`.
    fn fresh(&mut self, hint: &str) -> String;
}

/// Binds a call's arguments to the template's parameters (after the result parameter).
fn bind(
    t: &Template,
    qualname: &str,
    args: &[Expr],
    kwargs: &[(String, Expr)],
) -> Result<HashMap<String, Expr>, String> {
    let params = &t.def.params[1..];
    // Keyword-only parameters (after a template's `*args`) take no positional argument.
    let positional = &params[..t.def.kwonly.map_or(params.len(), |k| k - 1)];
    let mut bound: HashMap<String, Expr> = HashMap::new();
    let mut extra = Vec::new();
    for (i, a) in args.iter().enumerate() {
        match positional.get(i) {
            Some(p) => {
                bound.insert(p.name.clone(), a.clone());
            }
            None => extra.push(a.clone()),
        }
    }
    if let Some(v) = &t.def.vararg {
        bound.insert(v.clone(), Expr::synth(ExprKind::Tuple(extra)));
    } else if !extra.is_empty() {
        return Err(format!(
            "`{qualname}` was called with {} positional arguments but its derivative rule ({}) takes {}",
            args.len(),
            t.origin,
            positional.len()
        ));
    }
    for (k, v) in kwargs {
        if !params.iter().any(|p| &p.name == k) {
            return Err(format!(
                "the derivative rule for `{qualname}` ({}) does not accept the keyword argument `{k}`",
                t.origin
            ));
        }
        bound.insert(k.clone(), v.clone());
    }
    for p in params {
        if !bound.contains_key(&p.name) {
            match &p.default {
                Some(d) => {
                    bound.insert(p.name.clone(), d.clone());
                }
                None => {
                    return Err(format!(
                        "`{qualname}` was called without its argument `{}`",
                        p.name
                    ))
                }
            }
        }
    }
    Ok(bound)
}

/// An active argument bound to a parameter the rule never differentiates (no `d[p]` in
/// the template) would get no gradient: a silent zero. So it is an error, for functions
/// and methods alike; a rule whose derivative in a parameter is zero says so with an
/// explicit `d[p] = tangent.init_grad(p)` (copysign's sign, nextafter's direction). For a
/// method the likely cause is a user object's method taken for an array method
/// (`m.sum(x)` binds `x` to `axis`).
#[allow(clippy::too_many_arguments)] // the call, its rule(s) and what is exempt
pub fn check_differentiated_arguments(
    t: &Template,
    adjoint: Option<&Template>,
    shape_only: &[usize],
    qualname: &str,
    args: &[Expr],
    kwargs: &[(String, Expr)],
    is_active: &dyn Fn(&str) -> bool,
    method: bool,
) -> Result<(), String> {
    let bound = bind(t, qualname, args, kwargs)?;
    let mut differentiated: HashSet<String> = HashSet::new();
    walk_stmts(&t.def.body, &mut |s| {
        super::names::stmt_exprs(s, &mut |e| {
            e.walk(&mut |x| {
                if let Some(p) = grad_of(x) {
                    differentiated.insert(p.to_owned());
                }
            })
        })
    });
    // A forward template leaves out the tangents of the arguments it or its reverse rule
    // declares zero (`d[p] = 0.0`).
    differentiated.extend(declared_zero(t));
    if let Some(a) = adjoint {
        differentiated.extend(declared_zero(a));
    }
    // Arguments declared `shape_only` are read for their shape: no derivative.
    for &i in shape_only {
        if let Some(p) = t.def.params.get(i + 1) {
            differentiated.insert(p.name.clone());
        }
    }
    for p in &t.def.params[1..] {
        let Some(arg) = bound.get(&p.name).and_then(|a| a.as_name()) else {
            continue;
        };
        if is_active(arg) && !differentiated.contains(p.name.as_str()) {
            return Err(if method {
                format!(
                    "`{arg}` depends on the differentiated input, but it is passed to the method `{qualname}` as its argument `{}`, which has no derivative ({}); if the object is not an array, its method is not that one",
                    p.name, t.origin
                )
            } else {
                format!(
                    "`{arg}` depends on the differentiated input, but the derivative of `{qualname}` with respect to its argument `{}` is not provided (its rule, {}, gives none)",
                    p.name, t.origin
                )
            });
        }
    }
    Ok(())
}

/// The parameters a template declares to have a zero derivative: `d[p] = 0.0`
/// (piecewise constant in them, or read only for a shape or dtype).
fn declared_zero(t: &Template) -> HashSet<String> {
    let mut out = HashSet::new();
    walk_stmts(&t.def.body, &mut |s| {
        if let StmtKind::Assign(target, value) = &s.kind {
            if let (Some(p), true) = (grad_of(target), is_zero_literal(value)) {
                out.insert(p.to_owned());
            }
        }
    });
    out
}

/// Binds the call's arguments and the result to the template's parameters, and gives
/// the template's locals fresh names so that they cannot collide with the user's.
fn bind_all(
    t: &Template,
    qualname: &str,
    result: &str,
    args: &[Expr],
    kwargs: &[(String, Expr)],
    site: &mut dyn Site,
) -> Result<HashMap<String, Expr>, String> {
    let mut bound = bind(t, qualname, args, kwargs)?;
    bound.insert(t.def.params[0].name.clone(), Expr::name(result));
    let mut locals = HashSet::new();
    walk_stmts(&t.def.body, &mut |s| {
        if let StmtKind::Assign(target, _) = &s.kind {
            if let Some(n) = target.as_name() {
                locals.insert(n.to_owned());
            }
        }
    });
    for l in locals {
        let fresh = site.fresh(&format!("_{l}"));
        bound.insert(l, Expr::name(fresh));
    }
    Ok(bound)
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

/// The call naming the array namespace of a rule's arguments at run time.
pub const NAMESPACE_OF: &str = "tangent.namespace_of";

/// The keyword of an elementwise entry that marks a function real for complex arguments
/// (`result="real"`), not a backend.
const REAL_RESULT: &str = "result";

/// `namespace` (`numpy`) in a template read as the namespace of its arguments at run
/// time (`tangent.namespace_of(x, y).F`), so one rule serves every array type: `x @ y` on
/// JAX arrays (tracers included) calls jax.numpy, on NumPy arrays numpy.
///
/// A function of the array class itself (`numpy.ndarray.cos`: the `B.` of an elementwise
/// entry that is a method) is the namespace's function of that name.
fn dispatched(def: &FuncDef, namespace: &str, class: &str) -> FuncDef {
    // A rule's first parameter is its result.
    dispatched_over(def, namespace, class, 1)
}

/// `dispatched` with the namespace of the template's parameters from `first` on.
fn dispatched_over(def: &FuncDef, namespace: &str, class: &str, first: usize) -> FuncDef {
    // The functions a control-flow template calls are no arrays: they never decide.
    let functions = called_parameters(def);
    let values: Vec<Expr> = def.params[first.min(def.params.len())..]
        .iter()
        .filter(|p| !functions.contains(&p.name))
        .map(|p| Expr::name(&p.name))
        .collect();
    let runtime = Expr::call_path(NAMESPACE_OF, values);
    let mut def = def.clone();
    for stmt in &mut def.body {
        super::adjoint::map_stmt_exprs(stmt, &|e| {
            let mut e = e.clone();
            substitute(&mut e, &mut |x| match &x.kind {
                ExprKind::Attr(v, attr) if v.as_name() == Some(namespace) => {
                    Some(Expr::attr(runtime.clone(), attr))
                }
                ExprKind::Attr(v, attr)
                    if matches!(&v.kind, ExprKind::Attr(n, c)
                        if n.as_name() == Some(namespace) && c == class) =>
                {
                    Some(Expr::attr(runtime.clone(), attr))
                }
                _ => None,
            });
            e
        });
    }
    def
}

/// The parameters a template calls: the functions a call passes (a control-flow
/// template's `body_fun`, `func1d`, ...).
pub(crate) fn called_parameters(template: &FuncDef) -> HashSet<String> {
    let params: HashSet<&str> = template.params.iter().map(|p| p.name.as_str()).collect();
    let mut out = HashSet::new();
    walk_stmts(&template.body, &mut |s| {
        super::names::stmt_exprs(s, &mut |e| {
            e.walk(&mut |x| {
                if let ExprKind::Call { func, .. } = &x.kind {
                    if let Some(n) = func.as_name().filter(|n| params.contains(n)) {
                        out.insert(n.to_owned());
                    }
                }
            })
        })
    });
    out
}

/// `tangent.namespace_of(a, None, False)` as `tangent.namespace_of(a)`: literals are no
/// arrays, so they never decide the namespace (and the generated code reads better).
pub(crate) fn pruned_namespace_args(mut e: Expr) -> Expr {
    fn literal(e: &Expr) -> bool {
        matches!(
            e.kind,
            ExprKind::Num(_) | ExprKind::Str(_) | ExprKind::Bool(_) | ExprKind::NoneLit
        ) || e.is_number_literal()
    }
    substitute(&mut e, &mut |x| match &x.kind {
        ExprKind::Call { func, args, kwargs }
            if crate::emit::printer::expr(func) == NAMESPACE_OF =>
        {
            let args = args.iter().filter(|a| !literal(a)).cloned().collect();
            Some(Expr::synth(ExprKind::Call {
                func: func.clone(),
                args,
                kwargs: kwargs.clone(),
            }))
        }
        _ => None,
    });
    e
}

/// A call of `tangent.namespace_of(...).F` is the function `tangent.namespace_of.F`
/// (which has `numpy.F`'s facts) for the linearity facts of [`simplify_zero`].
fn namespace_function(callee: &Expr) -> Option<String> {
    let ExprKind::Attr(v, attr) = &callee.kind else {
        return None;
    };
    let ExprKind::Call { func, .. } = &v.kind else {
        return None;
    };
    (crate::emit::printer::expr(func) == NAMESPACE_OF).then(|| format!("{NAMESPACE_OF}.{attr}"))
}

/// A call site's view for instantiation: the active set and the function's names.
pub struct ActiveSite<'b> {
    pub active: &'b HashSet<String>,
    pub names: &'b mut super::names::NameGen,
}

impl Site for ActiveSite<'_> {
    fn is_active(&self, name: &str) -> bool {
        self.active.contains(name)
    }
    fn fresh(&mut self, hint: &str) -> String {
        self.names.fresh(hint)
    }
}

/// Instantiates the template for `result = qualname(args, kwargs)`: returns the adjoint
/// statements (gradient contributions to the active arguments).
pub fn instantiate(
    t: &Template,
    qualname: &str,
    result: &str,
    args: &[Expr],
    kwargs: &[(String, Expr)],
    site: &mut dyn Site,
) -> Result<Vec<Adj>, String> {
    let bound = bind_all(t, qualname, result, args, kwargs, site)?;
    let mut inst = Instantiator {
        bound: &bound,
        result,
        site,
    };
    inst.block(&t.def.body)
}

/// Instantiates a forward-mode template for `result = qualname(args, kwargs)`. `tangent`
/// maps an active argument name to the name of its tangent; inactive arguments and
/// literals have a zero tangent, which [`simplify_zero`] removes. Returns statements that
/// assign the tangent of `result` (`result_tangent`).
#[allow(clippy::too_many_arguments)] // mirrors `instantiate` plus the tangent naming
pub fn instantiate_tangent(
    rules: &RuleSet,
    t: &Template,
    qualname: &str,
    result: &str,
    result_tangent: &str,
    args: &[Expr],
    kwargs: &[(String, Expr)],
    site: &mut dyn Site,
    tangent: &dyn Fn(&str) -> String,
) -> Result<Vec<Stmt>, String> {
    let bound = bind_all(t, qualname, result, args, kwargs, site)?;
    let result_param = t.def.params[0].name.clone();
    let mut out = Vec::new();
    tangent_block(
        rules,
        &t.def.body,
        &bound,
        &result_param,
        result_tangent,
        site,
        tangent,
        &mut out,
    )?;
    Ok(out)
}

#[allow(clippy::too_many_arguments)] // the recursion carries the instantiation's state
fn tangent_block(
    rules: &RuleSet,
    body: &[Stmt],
    bound: &HashMap<String, Expr>,
    result_param: &str,
    result_tangent: &str,
    site: &mut dyn Site,
    tangent: &dyn Fn(&str) -> String,
    out: &mut Vec<Stmt>,
) -> Result<(), String> {
    let subst = |e: &Expr, site: &dyn Site| -> Expr {
        let mut e = e.clone();
        substitute(&mut e, &mut |x: &Expr| {
            if let Some(p) = grad_of(x) {
                let one = |b: &Expr| match b.as_name() {
                    Some(v) if site.is_active(v) => Expr::name(tangent(v)),
                    _ => Expr::name(ZERO),
                };
                return Some(match bound.get(p).map(|b| &b.kind) {
                    // A template's `*args`: the tuple of the arguments' tangents.
                    Some(ExprKind::Tuple(es)) => {
                        Expr::synth(ExprKind::Tuple(es.iter().map(one).collect()))
                    }
                    Some(_) => one(&bound[p]),
                    None => Expr::name(ZERO),
                });
            }
            if let ExprKind::Name(n) = &x.kind {
                return bound.get(n).cloned();
            }
            None
        });
        pruned_namespace_args(e)
    };
    for s in body {
        match &s.kind {
            StmtKind::Assign(target, value) => {
                let value = subst(value, &*site);
                if grad_of(target) == Some(result_param) {
                    // A zero tangent: the result depends on the active arguments only
                    // through their shapes (e.g. `unbroadcast(seed, like)`).
                    let value = simplify_zero(rules, &value).unwrap_or_else(|| {
                        Expr::call_path("tangent.init_grad", vec![bound[result_param].clone()])
                    });
                    out.push(Stmt::assign(result_tangent, value));
                } else if grad_of(target).is_some() && is_zero_literal(value_of(s)) {
                    // `d[p] = 0.0`: the result does not move with p (said explicitly).
                } else if grad_of(target).is_some() {
                    return Err("a forward rule may only write `d[...]` of its result".into());
                } else {
                    let value = simplify_zero(rules, &value).unwrap_or_else(|| Expr::num("0.0"));
                    out.push(Stmt::synth(StmtKind::Assign(subst(target, &*site), value)));
                }
            }
            StmtKind::If(test, a, b) => {
                let test = subst(test, &*site);
                let mut branch = |body: &[Stmt], into: &mut Vec<Stmt>| {
                    tangent_block(
                        rules,
                        body,
                        bound,
                        result_param,
                        result_tangent,
                        site,
                        tangent,
                        into,
                    )
                };
                match static_truth(&test) {
                    Some(true) => branch(a, out)?,
                    Some(false) => branch(b, out)?,
                    None => {
                        let mut sa = Vec::new();
                        let mut sb = Vec::new();
                        branch(a, &mut sa)?;
                        branch(b, &mut sb)?;
                        out.push(Stmt::synth(StmtKind::If(test, sa, sb)));
                    }
                }
            }
            StmtKind::Pass | StmtKind::Comment(_) => {}
            _ => return Err("rule templates may only contain assignments and `if`".into()),
        }
    }
    Ok(())
}

/// Marker for a zero tangent during forward instantiation (not a Python identifier).
pub const ZERO: &str = "\u{2}zero";

fn is_zero(e: &Expr) -> bool {
    e.as_name() == Some(ZERO)
}

/// A template's literal `0.0` (or `0`).
fn value_of(s: &Stmt) -> &Expr {
    match &s.kind {
        StmtKind::Assign(_, v) => v,
        _ => unreachable!("an assignment"),
    }
}

fn is_zero_literal(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Num(n) if n.parse::<f64>() == Ok(0.0))
}

/// Removes zero tangents: `0 * a` -> 0, `a + 0` -> a, `0 - a` -> -a, functions declared
/// `linear_in_first` of 0 -> 0, `linear_in_each` with a 0 argument -> 0. `None` means the
/// whole expression is zero; zeros that cannot be removed become the literal `0.0`.
pub fn simplify_zero(rules: &RuleSet, e: &Expr) -> Option<Expr> {
    let simplify_zero = |e: &Expr| simplify_zero(rules, e);
    let bin = |op, a: Expr, b: Expr| Expr::synth(ExprKind::BinOp(op, Box::new(a), Box::new(b)));
    let lit0 = || Expr::num("0.0");
    match &e.kind {
        _ if is_zero(e) => None,
        ExprKind::BinOp(op, a, b) => {
            let (sa, sb) = (simplify_zero(a), simplify_zero(b));
            match op {
                BinOp::Add => match (sa, sb) {
                    (None, None) => None,
                    (Some(a), None) | (None, Some(a)) => Some(a),
                    (Some(a), Some(b)) => Some(bin(BinOp::Add, a, b)),
                },
                BinOp::Sub => match (sa, sb) {
                    (None, None) => None,
                    (Some(a), None) => Some(a),
                    (None, Some(b)) => {
                        Some(Expr::synth(ExprKind::Unary(UnaryOp::Neg, Box::new(b))))
                    }
                    (Some(a), Some(b)) => Some(bin(BinOp::Sub, a, b)),
                },
                BinOp::Mul | BinOp::MatMul => Some(bin(*op, sa?, sb?)),
                BinOp::Div => Some(bin(*op, sa?, sb.unwrap_or_else(lit0))),
                _ => Some(bin(*op, sa.unwrap_or_else(lit0), sb.unwrap_or_else(lit0))),
            }
        }
        ExprKind::Unary(op @ (UnaryOp::Neg | UnaryOp::Pos), a) => Some(Expr::synth(
            ExprKind::Unary(*op, Box::new(simplify_zero(a)?)),
        )),
        ExprKind::Call { func, args, kwargs } => {
            let name = namespace_function(func).unwrap_or_else(|| crate::emit::printer::expr(func));
            let sargs: Vec<Option<Expr>> = args.iter().map(&simplify_zero).collect();
            if rules.is_linear_in_first(&name) && sargs.first().is_some_and(|a| a.is_none()) {
                return None;
            }
            if rules.is_linear_in_each(&name) && sargs.iter().any(|a| a.is_none()) {
                return None;
            }
            let args = sargs.into_iter().map(|a| a.unwrap_or_else(lit0)).collect();
            let kwargs = kwargs
                .iter()
                .map(|(k, v)| (k.clone(), simplify_zero(v).unwrap_or_else(lit0)))
                .collect();
            Some(Expr::synth(ExprKind::Call {
                func: func.clone(),
                args,
                kwargs,
            }))
        }
        ExprKind::Subscript(v, i) => Some(Expr::synth(ExprKind::Subscript(
            Box::new(simplify_zero(v)?),
            i.clone(),
        ))),
        _ => {
            let mut e = e.clone();
            substitute(&mut e, &mut |x| is_zero(x).then(lit0));
            Some(e)
        }
    }
}

struct Instantiator<'a> {
    bound: &'a HashMap<String, Expr>,
    result: &'a str,
    site: &'a mut dyn Site,
}

/// `d[x]` in a template.
fn grad_of(e: &Expr) -> Option<&str> {
    if let ExprKind::Subscript(base, idx) = &e.kind {
        if base.as_name() == Some("d") {
            return idx.as_name();
        }
    }
    None
}

impl Instantiator<'_> {
    fn expr(&self, e: &Expr) -> Result<Expr, String> {
        let mut out = e.clone();
        let mut err = None;
        substitute(&mut out, &mut |x: &Expr| {
            if let Some(p) = grad_of(x) {
                if self.bound.get(p).and_then(|b| b.as_name()) == Some(self.result) {
                    return Some(Expr::synth(ExprKind::Name(grad_marker(self.result))));
                }
                err = Some(format!(
                    "a template may only read `d[...]` of its result, not `d[{p}]`"
                ));
                return None;
            }
            if let ExprKind::Name(n) = &x.kind {
                return self.bound.get(n).cloned();
            }
            None
        });
        match err {
            Some(e) => Err(e),
            None => Ok(pruned_namespace_args(out)),
        }
    }

    fn block(&mut self, stmts: &[Stmt]) -> Result<Vec<Adj>, String> {
        let mut out = Vec::new();
        for s in stmts {
            match &s.kind {
                // `d[p] = 0.0`: the derivative is zero, said explicitly (nothing to add).
                StmtKind::Assign(target, value)
                    if grad_of(target).is_some() && is_zero_literal(value) => {}
                StmtKind::Assign(target, value) => {
                    if let Some(p) = grad_of(target) {
                        let Some(arg) = self.bound.get(p) else {
                            return Err(format!("template writes `d[{p}]` of an unknown name"));
                        };
                        // Only active variables receive gradients; literals and inactive
                        // values are constants.
                        if let Some(var) = arg.as_name() {
                            if self.site.is_active(var) {
                                out.push(Adj::Accum {
                                    var: var.to_owned(),
                                    value: self.expr(value)?,
                                });
                            }
                        } else if let ExprKind::Tuple(es) | ExprKind::List(es) = &arg.kind {
                            // A template's `*args` (the call's extra arguments): the value
                            // is a sequence with one gradient per argument.
                            let active: Vec<(usize, String)> = es
                                .iter()
                                .enumerate()
                                .filter_map(|(i, e)| Some((i, e.as_name()?.to_owned())))
                                .filter(|(_, v)| self.site.is_active(v))
                                .collect();
                            if !active.is_empty() {
                                let parts = self.site.fresh("parts");
                                out.push(Adj::Stmt(Stmt::synth(StmtKind::Assign(
                                    Expr::name(&parts),
                                    self.expr(value)?,
                                ))));
                                for (i, var) in active {
                                    out.push(Adj::Accum {
                                        var,
                                        value: Expr::synth(ExprKind::Subscript(
                                            Box::new(Expr::name(&parts)),
                                            Box::new(Expr::num(i.to_string())),
                                        )),
                                    });
                                }
                            }
                        }
                    } else {
                        out.push(Adj::Stmt(Stmt::synth(StmtKind::Assign(
                            self.expr(target)?,
                            self.expr(value)?,
                        ))));
                    }
                }
                StmtKind::If(test, body, orelse) => {
                    let test = self.expr(test)?;
                    // Specialise on literal tests such as `None is None` (defaults).
                    match static_truth(&test) {
                        Some(true) => out.extend(self.block(body)?),
                        Some(false) => out.extend(self.block(orelse)?),
                        None => {
                            let b = self.block(body)?;
                            let o = self.block(orelse)?;
                            out.push(Adj::If(test, b, o));
                        }
                    }
                }
                StmtKind::Pass | StmtKind::Comment(_) => {}
                StmtKind::ExprStmt(e) => {
                    out.push(Adj::Stmt(Stmt::synth(StmtKind::ExprStmt(self.expr(e)?))))
                }
                _ => return Err("rule templates may only contain assignments and `if`".into()),
            }
        }
        Ok(out)
    }
}

/// Marker name for "the gradient of `primal`", replaced by the real gradient name when
/// the adjoint is lowered. `\u{1}` cannot appear in a Python identifier.
pub fn grad_marker(primal: &str) -> String {
    format!("\u{1}{primal}")
}

pub fn parse_grad_marker(name: &str) -> Option<&str> {
    name.strip_prefix('\u{1}')
}

/// Replaces sub-expressions (outermost first) for which `f` returns Some.
pub fn substitute(e: &mut Expr, f: &mut dyn FnMut(&Expr) -> Option<Expr>) {
    if let Some(new) = f(e) {
        *e = new;
        return;
    }
    match &mut e.kind {
        ExprKind::Tuple(es)
        | ExprKind::List(es)
        | ExprKind::BoolOp(_, es)
        | ExprKind::Dict(_, es) => es.iter_mut().for_each(|x| substitute(x, f)),
        ExprKind::BinOp(_, a, b) | ExprKind::Subscript(a, b) => {
            substitute(a, f);
            substitute(b, f)
        }
        ExprKind::Unary(_, a) | ExprKind::Attr(a, _) => substitute(a, f),
        ExprKind::Compare(a, rest) => {
            substitute(a, f);
            rest.iter_mut().for_each(|(_, x)| substitute(x, f))
        }
        ExprKind::Call { func, args, kwargs } => {
            substitute(func, f);
            args.iter_mut().for_each(|x| substitute(x, f));
            kwargs.iter_mut().for_each(|(_, x)| substitute(x, f));
        }
        ExprKind::Slice(a, b, c) => {
            for x in [a, b, c].into_iter().flatten() {
                substitute(x, f)
            }
        }
        ExprKind::IfExp { test, body, orelse } => {
            substitute(test, f);
            substitute(body, f);
            substitute(orelse, f)
        }
        ExprKind::Lambda(_, body) => substitute(body, f),
        ExprKind::ListComp(elt, gens) => {
            substitute(elt, f);
            for g in gens {
                substitute(&mut g.target, f);
                substitute(&mut g.iter, f);
                g.ifs.iter_mut().for_each(|e| substitute(e, f));
            }
        }
        _ => {}
    }
}

/// The truth value of a test made only of literals (`None is None`, `2 is None`).
fn static_truth(e: &Expr) -> Option<bool> {
    let literal = |x: &Expr| {
        x.is_number_literal()
            || matches!(
                x.kind,
                ExprKind::NoneLit | ExprKind::Bool(_) | ExprKind::Str(_)
            )
            || matches!(&x.kind, ExprKind::Tuple(es) if es.iter().all(|e| !matches!(e.kind, ExprKind::Name(_))))
    };
    if let ExprKind::Compare(a, rest) = &e.kind {
        if let [(op @ (CmpOp::Is | CmpOp::IsNot), b)] = rest.as_slice() {
            // `x is y` between two arguments asks whether the call passes the same
            // variable twice (`x * x`). Templates use it to pick a cheaper formula; the
            // other branch must be correct in every case, so "different names" (which
            // may still alias at run time) safely takes it.
            let is_none = |x: &Expr| matches!(x.kind, ExprKind::NoneLit);
            if let (Some(n1), Some(n2)) = (a.as_name(), b.as_name()) {
                let same = n1 == n2;
                return Some(if *op == CmpOp::Is { same } else { !same });
            }
            if (a.as_name().is_some() && literal(b) && !is_none(b))
                || (b.as_name().is_some() && literal(a) && !is_none(a))
            {
                return Some(*op != CmpOp::Is);
            }
            if literal(a) && literal(b) {
                let a_none = matches!(a.kind, ExprKind::NoneLit);
                let b_none = matches!(b.kind, ExprKind::NoneLit);
                if a_none || b_none {
                    let same = a_none && b_none;
                    return Some(if *op == CmpOp::Is { same } else { !same });
                }
            }
        }
    }
    match &e.kind {
        ExprKind::Bool(b) => Some(*b),
        // `a or b` / `a and b` of decidable tests (`transpose_a or adjoint_a` with both
        // left at their False defaults); one decided operand may settle it.
        ExprKind::BoolOp(op, es) => bool_op_truth(op, es.iter().map(static_truth)),
        _ => None,
    }
}

/// The truth of `a or b ...` / `a and b ...` from its operands' (None: undecided): one
/// operand may settle it (a true one for `or`, a false one for `and`), else all must be
/// decided.
pub(crate) fn bool_op_truth(
    op: &BoolOp,
    truths: impl Iterator<Item = Option<bool>>,
) -> Option<bool> {
    let settles = matches!(op, BoolOp::Or);
    let mut all = true;
    for t in truths {
        match t {
            Some(v) if v == settles => return Some(settles),
            Some(_) => {}
            None => all = false,
        }
    }
    all.then_some(!settles)
}
