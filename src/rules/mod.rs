//! Derivative rules are data: Python-syntax templates under `backends/`, keyed by the
//! canonical qualified name of the function they differentiate, with the facts the
//! files declare about named functions. This module loads them (`RuleSet`);
//! `ad::template` instantiates a template for one call site. Adding a rule never touches
//! `ad/`.

mod elementwise;
mod loading;
mod namespaces;
pub mod rule_file;

pub(crate) use namespaces::{called_parameters, pruned_namespace_args};

use crate::syntax::ir::*;
use crate::syntax::visit::substitute;
use crate::syntax::{Diagnostic, SourceModule};
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

    /// The name whose rules `qualname` has when it is another path of the same function
    /// (`exported_as`), else None.
    pub fn exported_name(&self, qualname: &str) -> Option<&str> {
        self.exports.get(qualname).map(String::as_str)
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

/// The call naming the array namespace of a rule's arguments at run time.
pub const NAMESPACE_OF: &str = "tangent.namespace_of";

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
