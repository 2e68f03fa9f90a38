//! Derivative rules are data: Python-syntax templates under `backends/`, keyed by the
//! canonical qualified name of the function they differentiate, with the facts the
//! files declare about named functions. This module loads them (`RuleSet`);
//! `ad::template` instantiates a template for one call site. Adding a rule never touches
//! `ad/`.

pub mod rule_file;

use crate::syntax::ir::*;
use crate::syntax::visit::substitute;
use crate::syntax::{Diagnostic, SourceModule};
use rule_file::{Arg, Registration, RuleFile};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

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
        crate::syntax::visit::map_stmt_exprs(stmt, &mut |e| {
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
        crate::syntax::visit::stmt_exprs(s, &mut |e| {
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

/// Rules registered at run time (`@tangent.adjoint` in a script), merged over the
/// built-in ones. `None` until the first registration.
static USER_RULES: Mutex<Option<Arc<RuleSet>>> = Mutex::new(None);

/// The rules in force: the built-in set, plus any registered at run time.
pub fn in_force() -> Arc<RuleSet> {
    // Shared, not cloned per call: a copy of the built-in set costs more than
    // differentiating a small function.
    static BUILTIN: std::sync::OnceLock<Arc<RuleSet>> = std::sync::OnceLock::new();
    let guard = USER_RULES.lock().unwrap_or_else(|e| e.into_inner());
    match &*guard {
        Some(r) => r.clone(),
        None => BUILTIN
            .get_or_init(|| Arc::new(RuleSet::builtin().clone()))
            .clone(),
    }
}

/// Whether any rule was registered at run time (derivatives then depend on more than
/// the rule files: the disk cache is not used).
pub fn any_registered() -> bool {
    USER_RULES.lock().map(|g| g.is_some()).unwrap_or(true)
}

/// Registers `template` as the reverse (`forward == false`) or forward rule for
/// `qualname`, over the rules in force.
pub fn register(forward: bool, qualname: &str, template: Template) {
    let mut guard = USER_RULES.lock().unwrap_or_else(|e| e.into_inner());
    let mut set = match &*guard {
        Some(r) => (**r).clone(),
        None => RuleSet::builtin().clone(),
    };
    set.insert(forward, qualname, template);
    *guard = Some(Arc::new(set));
}
