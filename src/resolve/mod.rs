//! Maps each call and attribute to a canonical qualified name ("numpy.tanh", "math.sin",
//! "numpy.ndarray.sum" for methods) or to a user function of the same module, using the
//! module's imports. Local variables shadow everything.

use crate::syntax::ir::*;
use crate::syntax::live::{self, Custom, Live, LiveNames};
use crate::syntax::Diagnostic;
use std::collections::{HashMap, HashSet};

#[derive(Clone, Debug, PartialEq)]
pub enum Callee {
    /// A library function, by canonical name.
    Library(String),
    /// A method call on a value: canonical name `numpy.ndarray.<method>`.
    Method(String),
    /// A function defined in the same module (differentiated recursively).
    User(String),
    /// A global bound to a function with a user-supplied rule (`tangent.custom_vjp` /
    /// `tangent.custom_jvp`), by its global name: calls run the rule.
    Custom(String),
    /// Something we cannot name (a local callable, an unknown global).
    Unknown(String),
}

const BUILTINS: &[&str] = &[
    "abs",
    "float",
    "int",
    "len",
    "range",
    "max",
    "min",
    "sum",
    "pow",
    "round",
    "bool",
    "isinstance",
    "print",
    "repr",
    "format",
    "any",
    "all",
    "str",
    "type",
    "super",
    "list",
    "tuple",
    // Only as the iterable of a `for` loop (desugaring turns those into index loops);
    // a call anywhere else has no rule, a located error.
    "enumerate",
    "zip",
    "reversed",
    "map",
];

pub struct Resolver<'a> {
    pub imports: &'a HashMap<String, String>,
    /// Module-level names bound in more than one way (see `SourceModule::ambiguous`).
    pub ambiguous: &'a HashSet<String>,
    pub user_functions: HashSet<String>,
    /// Names assigned or bound as parameters in the function being transformed.
    pub locals: HashSet<String>,
    /// What the running program binds names to, when a host asked (then `imports` and
    /// `user_functions` come from it too).
    pub live: Option<&'a LiveNames>,
    /// Module attribute paths that are a rule's function under its canonical name
    /// (`SourceModule::aliases`).
    pub aliases: &'a HashMap<String, String>,
    /// Locals known to hold objects of user classes, not arrays: assigned only from a
    /// constructor call (`s = Stats(x)`), or the object a method is differentiated for
    /// (its `self`, `LiveNames::objects`). Their methods and attributes are the class's,
    /// even when named like an array's (`s.mean()`, `s.T`).
    pub objects: HashSet<String>,
}

impl Resolver<'_> {
    /// `np.linalg` -> `numpy.linalg` when the chain is rooted at an imported module.
    pub fn module_path(&self, e: &Expr) -> Option<String> {
        match &e.kind {
            // The array namespace operator and method rules call at run time (in generated
            // code being differentiated again).
            ExprKind::Call { func, .. }
                if crate::emit::printer::expr(func) == crate::rules::NAMESPACE_OF =>
            {
                Some(crate::rules::NAMESPACE_OF.to_owned())
            }
            // `tangent.*`: the helpers desugaring inserts (`tangent.keys_of`), also in
            // modules that do not import tangent.
            ExprKind::Name(n) if !self.locals.contains(n) => self
                .imports
                .get(n)
                .cloned()
                .or_else(|| (n == "tangent" && !self.ambiguous.contains(n)).then(|| n.clone())),
            ExprKind::Attr(v, a) => Some(format!("{}.{}", self.module_path(v)?, a)),
            _ => None,
        }
    }

    /// The live binding of a global name (not a local), when a host told us.
    fn live_global(&self, n: &str) -> Option<&Live> {
        if self.locals.contains(n) {
            return None;
        }
        self.live.and_then(|l| l.get(n))
    }

    /// The custom-derivative function a global name is bound to, if any.
    pub fn custom(&self, n: &str) -> Option<&Custom> {
        match self.live_global(n) {
            Some(Live::Custom(c)) if !self.ambiguous.contains(n) => Some(c),
            _ => None,
        }
    }

    /// Is `e` a call of the builtin `range`?
    pub fn is_range_call(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Call { func, .. } => {
                self.callee(func) == Callee::Library("builtins.range".into())
            }
            _ => false,
        }
    }

    pub fn callee(&self, func: &Expr) -> Callee {
        match &func.kind {
            ExprKind::Name(n) if self.custom(n).is_some() => Callee::Custom(n.clone()),
            ExprKind::Name(n) => {
                // Locals, names bound several ways, and live globals that are neither a
                // module, a rule's function nor a function of the file (nor a builtin
                // with a rule) are not functions tangent can differentiate.
                let unknown = self.locals.contains(n)
                    || self.ambiguous.contains(n)
                    || match self.live_global(n) {
                        Some(Live::Value { .. } | Live::Missing) => true,
                        Some(Live::Builtin) => !BUILTINS.contains(&n.as_str()),
                        _ => false,
                    };
                if unknown {
                    Callee::Unknown(n.clone())
                } else if self.user_functions.contains(n) && !self.imports.contains_key(n) {
                    Callee::User(n.clone())
                } else if let Some(q) = self.imports.get(n) {
                    Callee::Library(q.clone())
                } else if BUILTINS.contains(&n.as_str()) {
                    Callee::Library(format!("builtins.{n}"))
                } else {
                    Callee::Unknown(n.clone())
                }
            }
            // A method of a string literal: `'{:.3f}'.format(x)` (an f-string is lowered
            // to that call), `', '.join(names)`.
            ExprKind::Attr(v, m) if matches!(v.kind, ExprKind::Str(_)) => {
                Callee::Library(format!("builtins.str.{m}"))
            }
            ExprKind::Attr(v, _) if v.as_name().is_some_and(|n| self.objects.contains(n)) => {
                Callee::Unknown(crate::emit::printer::expr(func))
            }
            ExprKind::Attr(v, m) => match self.module_path(v) {
                // The live module has no such attribute: Python would raise.
                Some(path) if self.live.is_some_and(|l| l.lacks(&path, m)) => {
                    Callee::Unknown(format!("{path}.{m}"))
                }
                Some(path) => {
                    let q = format!("{path}.{m}");
                    // The same function under the name its rule has (`tf.matmul` is
                    // `tensorflow.linalg.matmul`), when the host said so.
                    // Without a host, the rule files' `exported_as` declarations say it.
                    match self.aliases.get(&q) {
                        Some(canonical) => Callee::Library(canonical.clone()),
                        None => match crate::rules::RuleSet::builtin().exported_name(&q) {
                            Some(canonical) => Callee::Library(canonical.to_owned()),
                            None => Callee::Library(q),
                        },
                    }
                }
                // A method of a live object that is not an array: not an array method.
                None if v.as_name().is_some_and(|n| {
                    matches!(
                        self.live_global(n),
                        Some(Live::Value { array: false, .. } | Live::Missing | Live::Builtin)
                    )
                }) =>
                {
                    Callee::Unknown(crate::emit::printer::expr(func))
                }
                // `np.sum(...)` with `np` bound in several ways is not a method call on
                // an array: what `np` is cannot be known here.
                None if v
                    .as_name()
                    .is_some_and(|n| self.ambiguous.contains(n) && !self.locals.contains(n)) =>
                {
                    Callee::Unknown(crate::emit::printer::expr(func))
                }
                None => Callee::Method(crate::rules::RuleSet::builtin().array_member(m)),
            },
            _ => Callee::Unknown(crate::emit::printer::expr(func)),
        }
    }

    /// `obj.m` where `obj` is a global bound to an object that is not an array (the host
    /// said so): a method of a user class, differentiated at run time
    /// (`tangent.method_grad`).
    pub fn is_object_method(&self, func: &Expr) -> bool {
        let ExprKind::Attr(v, _) = &func.kind else {
            return false;
        };
        v.as_name().is_some_and(|n| {
            self.objects.contains(n)
                || matches!(
                    self.live_global(n),
                    Some(Live::Value { array: false, type_name, .. }) if type_name != "function"
                )
        })
    }

    /// The network module `e` is, when it is a path (`model`, `model.fc1`, `model[0]`,
    /// `self.layers[2]`) into the tree of a module the host described: (the root's name,
    /// the module).
    pub fn net_module(&self, e: &Expr) -> Option<(&str, &live::NetModule)> {
        fn prefix(e: &Expr) -> Option<(&str, String)> {
            match &e.kind {
                ExprKind::Name(n) => Some((n, String::new())),
                ExprKind::Attr(v, a) => {
                    let (root, p) = prefix(v)?;
                    Some((
                        root,
                        if p.is_empty() {
                            a.clone()
                        } else {
                            format!("{p}.{a}")
                        },
                    ))
                }
                ExprKind::Subscript(v, k) if k.is_number_literal() => {
                    let (root, p) = prefix(v)?;
                    let ExprKind::Num(k) = &k.kind else {
                        return None;
                    };
                    Some((
                        root,
                        if p.is_empty() {
                            k.clone()
                        } else {
                            format!("{p}.{k}")
                        },
                    ))
                }
                _ => None,
            }
        }
        let (root, path) = prefix(e)?;
        if self.locals.contains(root) {
            return None;
        }
        let (root, tree) = self.live?.modules.get_key_value(root)?;
        tree.iter()
            .find(|m| m.prefix == path)
            .map(|m| (root.as_str(), m))
    }

    /// The modules directly under `prefix` in the tree of `root`, in order.
    pub fn net_children(&self, root: &str, prefix: &str) -> Vec<&live::NetModule> {
        let Some(tree) = self.live.and_then(|l| l.modules.get(root)) else {
            return vec![];
        };
        tree.iter()
            .filter(|m| {
                let rest = if prefix.is_empty() {
                    Some(m.prefix.as_str()).filter(|p| !p.is_empty())
                } else {
                    m.prefix
                        .strip_prefix(prefix)
                        .and_then(|r| r.strip_prefix('.'))
                };
                rest.is_some_and(|r| !r.contains('.'))
            })
            .collect()
    }

    /// Is `e` a local known to hold an object of a user class (`objects`)?
    pub fn is_object(&self, e: &Expr) -> bool {
        e.as_name().is_some_and(|n| self.objects.contains(n))
    }

    /// `Cls(...)` where `Cls` is a global bound to a class whose instances tangent can
    /// build (the host said so): differentiated at run time as the function of the
    /// arguments that gives the object's fields (`tangent.construct_grad`).
    pub fn is_constructor(&self, func: &Expr) -> bool {
        func.as_name()
            .is_some_and(|n| matches!(self.live_global(n), Some(Live::Value { class: true, .. })))
    }

    /// The error for a call of `name` that has neither a rule nor a user function
    /// (`decorator`: the registration to suggest, `adjoint` or `tangent_`).
    pub fn unknown_callee(&self, name: &str, span: Span, decorator: &str) -> Diagnostic {
        let root = name.split('.').next().unwrap_or(name);
        if let Some(d) = self.live_explanation(name, root, span) {
            return d;
        }
        if self.ambiguous.contains(root) && !self.locals.contains(root) {
            return Diagnostic::new(
                span,
                format!("cannot differentiate a call to `{name}`: `{root}` is bound to different things at module level (imports in a `try` and its `except`, or an import and an assignment), so which function this is cannot be known"),
                format!("import `{root}` once at the top of the module, or give each alternative its own name"),
            );
        }
        Diagnostic::new(
            span,
            format!("cannot differentiate a call to `{name}`: it is not a function of this module and has no derivative rule"),
            format!("call a module-level function, a NumPy or math function, or register a rule with `@tangent.{decorator}`"),
        )
    }

    /// What the live program says about a callee without a rule or a `def`: a name that
    /// does not exist, an attribute a module lacks, a method of a non-array object.
    fn live_explanation(&self, name: &str, root: &str, span: Span) -> Option<Diagnostic> {
        let live = self.live?;
        if let Some((module, attr)) = name.rsplit_once('.') {
            if live.lacks(module, attr) {
                let names = live.attrs[module].iter().map(String::as_str);
                let hint = match live::suggestion(attr, names) {
                    Some(s) => format!("did you mean `{module}.{s}`?"),
                    None => format!("check the spelling; `dir({module})` lists what it has"),
                };
                return Some(Diagnostic::new(
                    span,
                    format!("module `{module}` has no attribute `{attr}`"),
                    hint,
                ));
            }
        }
        if let Some(note) = live.notes.get(root) {
            return Some(Diagnostic::new(
                span,
                format!("cannot differentiate a call to `{name}`: {note}"),
                "define the function with `def` at module level (and re-run or reload the module after editing it)",
            ));
        }
        match self.live_global(root)? {
            Live::Missing => {
                let names = live.globals.iter().map(String::as_str).chain(BUILTINS.iter().copied());
                let hint = match live::suggestion(root, names) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "define it, or import it, before calling the derivative".to_owned(),
                };
                Some(Diagnostic::new(span, format!("name `{root}` is not defined"), hint))
            }
            Live::Value { type_name, .. } if name != root => Some(Diagnostic::new(
                span,
                format!("cannot differentiate `{name}`: `{root}` is a `{type_name}` object, and tangent knows the derivatives of array methods and functions with rules, not the methods of a `{type_name}`"),
                "compute it with array functions in a module-level function, or register a rule with `@tangent.adjoint` for a module-level function that does it",
            )),
            Live::Value { type_name, .. } => Some(Diagnostic::new(
                span,
                format!("cannot differentiate a call to `{name}`: it is a `{type_name}` object, not a function of this module or one with a derivative rule"),
                "call a module-level function, a NumPy or math function, or register a rule with `@tangent.adjoint`",
            )),
            Live::Builtin => Some(Diagnostic::new(
                span,
                format!("cannot differentiate a call to `{name}`: it is a builtin without a derivative rule"),
                "compute it with functions that have rules, or register one with `@tangent.adjoint`",
            )),
            _ => None,
        }
    }

    /// The function of the call `value` as the user spelled it (`np.sum`), for the
    /// derivative's calls of the same function, when it is a path from an imported module
    /// that resolves to the rule's function `q` (never a local, never a method).
    pub fn spelled_callee<'e>(&self, q: &str, value: &'e Expr) -> Option<&'e Expr> {
        match &value.kind {
            ExprKind::Call { func, .. } if self.module_path(func).as_deref() == Some(q) => {
                Some(func)
            }
            _ => None,
        }
    }

    /// Is this expression a module constant such as `np.pi` or `math.e`?
    pub fn is_module_attr(&self, e: &Expr) -> bool {
        matches!(e.kind, ExprKind::Attr(..)) && self.module_path(e).is_some()
    }
}
