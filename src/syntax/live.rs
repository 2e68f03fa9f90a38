//! What the running program binds names to: the host's answer (the `tangent` shim reads
//! the function object's globals, builtins and code) that replaces reading the file's
//! import statements when a host asks for a derivative. With it, a call resolves as
//! Python resolves it: `try: import numpy as np` is numpy, `sin = math.cos` is
//! `math.cos`, `g_two = g_three` differentiates `g_three`'s `def`.
//!
//! The shim sends a list of facts (`Fact`, one JSON-shaped dict each, tagged by `kind`,
//! checked by serde: an unknown kind or field is an error naming it). What each says is
//! on its variant.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// One fact about the running program (`tangent/_live.py` builds them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Fact {
    /// The function object's own `def` or `lambda`: its code's name, first line, and
    /// which of the units of that name starting on that line (`syntax::units`).
    Entry {
        name: String,
        line: u32,
        ordinal: usize,
    },
    /// A module (its `__name__`) or an object a rule names, or an importable object
    /// (`module.qualname`), bound to `name`.
    Import { name: String, qualified: String },
    /// A Python function of this file bound to `name`: its `def`'s name and line (also
    /// a nested one or a lambda).
    Function {
        name: String,
        def: String,
        line: u32,
        ordinal: usize,
    },
    /// The function known as `unit` (the entry, or a name bound to a function) reads its
    /// free variable `var` from a closure cell; the cell's value is described under
    /// `name` (unique over the request: two closures of one `def` capture different
    /// cells) and the generated code reads it as `name`.
    Closure {
        unit: String,
        var: String,
        name: String,
    },
    /// `unit` is a bound method: its first parameter `param` is the object (a closure
    /// variable, given by a `Closure` fact), not an argument.
    Bound { unit: String, param: String },
    /// Anything else, by its type: `array` a registered array type, `class` a class
    /// whose instances tangent can build and differentiate (a dataclass, a namedtuple,
    /// or a class with a Python `__init__`).
    Value {
        name: String,
        type_name: String,
        array: bool,
        class: bool,
    },
    /// `unit`'s parameter `param` is the object of a user class a method is
    /// differentiated for (never an array: its methods and attributes are the class's).
    Object { unit: String, param: String },
    /// `unit` (the entry) is a class's `__init__`, differentiated as the function of its
    /// other parameters that returns the fields it assigns (`syntax::constructor`);
    /// `post`: a dataclass's `__post_init__`, differentiated as the function of the dict
    /// of the fields its `__init__` set.
    Init { unit: String, post: bool },
    /// A `tangent.custom_vjp` (`vjp`) or `tangent.custom_jvp` function, recognised by
    /// type (`tangent/_live.py` `_custom_kind`).
    Custom {
        name: String,
        vjp: bool,
        defined: bool,
        nondiff: Vec<usize>,
    },
    /// A builtin not shadowed by a global.
    Builtin { name: String },
    /// Neither a global nor a builtin.
    Missing { name: String },
    /// The differentiated function's derivative begins with `helper('a, b', a, b)`, a
    /// run-time check of its arguments a loaded library asks for (torch: every tensor on
    /// one device).
    EntryCheck { helper: String },
    /// The public attributes of a module the code reads (for "did you mean"), `module`
    /// the path the code reaches it by.
    Attrs { module: String, names: Vec<String> },
    /// The function the code reaches as `path` (`tensorflow.matmul`) is the object a
    /// rule names `canonical` (`tensorflow.linalg.matmul`).
    Alias { path: String, canonical: String },
    /// The module's global names (for "did you mean").
    Globals { names: Vec<String> },
    /// One module of a network module (`torch.nn.Module`) held by `root` (see
    /// [`NetModule`]; `call` is its `kind`).
    Nnmodule {
        root: String,
        prefix: String,
        call: String,
        parameters: Vec<String>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum Live {
    /// A module or a named object: resolved like an import of `QUALIFIED`.
    Import(String),
    /// A Python function defined in the file: the `def` named `def` at `line`.
    Function {
        def: String,
        line: u32,
        ordinal: usize,
    },
    /// Any other object, by its type's qualified name.
    Value {
        type_name: String,
        array: bool,
        /// A class tangent can construct instances of (`tangent.construct_grad`).
        class: bool,
    },
    /// A function with a user-supplied derivative rule (`tangent.custom_vjp` or
    /// `tangent.custom_jvp`): calls of it run the rule (`ad/reverse.rs`, `ad/forward.rs`).
    Custom(Custom),
    Builtin,
    Missing,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Custom {
    /// A reverse-mode rule (`custom_vjp`); false: a forward-mode rule (`custom_jvp`).
    pub vjp: bool,
    /// Whether `defvjp`/`defjvp` has been called.
    pub defined: bool,
    /// Argument positions that are not differentiated (`nondiff_argnums`).
    pub nondiff: Vec<usize>,
}

/// One module of a network module's tree: `prefix` its dotted path from the root
/// (`""` for the root, `"0"`, `"fc1"`, `"layers.2"`), `kind` what a call of it is (the
/// canonical name of a module class with a template, `forward` for a class whose
/// `forward` is Python of the program, else `other:<class>`), `parameters` its own
/// parameters and buffers by name.
#[derive(Clone, Debug, PartialEq)]
pub struct NetModule {
    pub prefix: String,
    pub kind: String,
    pub parameters: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct LiveNames {
    /// The differentiated function's own `def`: (name, first line of its code).
    pub entry: Option<(String, u32, usize)>,
    /// Free variables read from closure cells: unit -> [(variable, name it is read as)].
    pub closures: HashMap<String, Vec<(String, String)>>,
    /// Bound methods: unit -> the first parameter, bound to the object.
    pub bound: HashMap<String, String>,
    /// The unit that is a class's `__init__`, differentiated as a constructor.
    pub constructor: Option<String>,
    /// The constructor is a dataclass's `__post_init__` (`Fact::Init { post }`).
    pub post_init: bool,
    /// unit -> its parameters that hold objects of user classes (`Fact::Object`).
    pub objects: HashMap<String, Vec<String>>,
    /// Helpers the entry derivative calls first with its arguments (`Fact::EntryCheck`).
    pub entry_checks: Vec<String>,
    pub names: HashMap<String, Live>,
    /// Public attributes of each module read through a global (by the path the code
    /// reaches it by).
    pub attrs: HashMap<String, Vec<String>>,
    /// Module attribute paths that are a rule's function under its canonical name.
    pub aliases: HashMap<String, String>,
    pub globals: Vec<String>,
    /// Network modules (`torch.nn.Module` objects) the code reaches, by the global or
    /// cell that holds the root: each module of its tree in the order the library
    /// lists them (`Fact::Nnmodule`).
    pub modules: HashMap<String, Vec<NetModule>>,
    /// Why a name bound to a function cannot be differentiated (filled by
    /// `SourceModule::apply_live`: a nested `def`, or a file changed since import).
    pub notes: HashMap<String, String>,
}

impl LiveNames {
    pub fn from_facts(facts: &[Fact]) -> LiveNames {
        let mut live = LiveNames::default();
        for fact in facts.iter().cloned() {
            match fact {
                Fact::Entry {
                    name,
                    line,
                    ordinal,
                } => live.entry = Some((name, line, ordinal)),
                Fact::Init { unit, post } => {
                    live.constructor = Some(unit);
                    live.post_init = post;
                }
                Fact::EntryCheck { helper } => live.entry_checks.push(helper),
                Fact::Object { unit, param } => live.objects.entry(unit).or_default().push(param),
                Fact::Bound { unit, param } => {
                    live.bound.insert(unit, param);
                }
                Fact::Closure { unit, var, name } => {
                    live.closures.entry(unit).or_default().push((var, name));
                }
                Fact::Import { name, qualified } => {
                    live.names.insert(name, Live::Import(qualified));
                }
                Fact::Function {
                    name,
                    def,
                    line,
                    ordinal,
                } => {
                    live.names
                        .insert(name, Live::Function { def, line, ordinal });
                }
                Fact::Value {
                    name,
                    type_name,
                    array,
                    class,
                } => {
                    let value = Live::Value {
                        type_name,
                        array,
                        class,
                    };
                    live.names.insert(name, value);
                }
                Fact::Custom {
                    name,
                    vjp,
                    defined,
                    nondiff,
                } => {
                    let custom = Custom {
                        vjp,
                        defined,
                        nondiff,
                    };
                    live.names.insert(name, Live::Custom(custom));
                }
                Fact::Nnmodule {
                    root,
                    prefix,
                    call,
                    parameters,
                } => live.modules.entry(root).or_default().push(NetModule {
                    prefix,
                    kind: call,
                    parameters,
                }),
                Fact::Builtin { name } => {
                    live.names.insert(name, Live::Builtin);
                }
                Fact::Missing { name } => {
                    live.names.insert(name, Live::Missing);
                }
                Fact::Alias { path, canonical } => {
                    live.aliases.insert(path, canonical);
                }
                Fact::Attrs { module, names } => {
                    live.attrs.insert(module, names);
                }
                Fact::Globals { names } => live.globals = names,
            }
        }
        live
    }

    pub fn get(&self, name: &str) -> Option<&Live> {
        self.names.get(name)
    }

    /// Whether module `module` (a `__name__`) is known to lack attribute `attr`.
    pub fn lacks(&self, module: &str, attr: &str) -> bool {
        self.attrs
            .get(module)
            .is_some_and(|names| !names.iter().any(|n| n == attr))
    }
}

/// The closest of `candidates` to `word` (Python's own "Did you mean" uses a similar
/// edit-distance bound), if any is close.
pub fn suggestion<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (word.chars().count() + 1) / 3;
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (distance(word, c), c))
        .filter(|(d, _)| *d <= limit.max(1))
        .min_by_key(|(d, c)| (*d, c.len()))
        .map(|(_, c)| c)
}

/// Levenshtein distance over characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(here + 1);
            prev = here;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(json: serde_json::Value) -> Result<LiveNames, serde_json::Error> {
        serde_json::from_value::<Vec<Fact>>(json).map(|f| LiveNames::from_facts(&f))
    }

    #[test]
    fn reads_every_kind_and_refuses_garbage() {
        let live = facts(serde_json::json!([
            {"kind": "entry", "name": "f", "line": 3, "ordinal": 0},
            {"kind": "import", "name": "np", "qualified": "numpy"},
            {"kind": "function", "name": "g_two", "def": "g_three", "line": 9, "ordinal": 0},
            {"kind": "value", "name": "m", "type_name": "__main__.Model", "array": false, "class": false},
            {"kind": "value", "name": "w", "type_name": "numpy.ndarray", "array": true, "class": false},
            {"kind": "builtin", "name": "abs"},
            {"kind": "missing", "name": "summ"},
            {"kind": "attrs", "module": "numpy", "names": ["sum", "mean"]},
            {"kind": "globals", "names": ["np", "f"]},
            {"kind": "custom", "name": "c", "vjp": true, "defined": false, "nondiff": [1]},
            {"kind": "nnmodule", "root": "net", "prefix": "fc1", "call": "torch.nn.Linear", "parameters": ["weight", "bias"]},
        ]))
        .unwrap();
        assert_eq!(live.entry, Some(("f".into(), 3, 0)));
        assert_eq!(live.get("np"), Some(&Live::Import("numpy".into())));
        assert_eq!(
            live.get("g_two"),
            Some(&Live::Function {
                def: "g_three".into(),
                line: 9,
                ordinal: 0
            })
        );
        assert_eq!(
            live.get("w"),
            Some(&Live::Value {
                type_name: "numpy.ndarray".into(),
                array: true,
                class: false
            })
        );
        assert_eq!(
            live.get("c"),
            Some(&Live::Custom(Custom {
                vjp: true,
                defined: false,
                nondiff: vec![1]
            }))
        );
        assert_eq!(live.modules["net"][0].kind, "torch.nn.Linear");
        assert!(live.lacks("numpy", "summ") && !live.lacks("numpy", "sum"));
        assert!(
            !live.lacks("jax.numpy", "anything"),
            "unknown module: nothing is known"
        );
        let closure = facts(serde_json::json!([
            {"kind": "entry", "name": "<lambda>", "line": 4, "ordinal": 1},
            {"kind": "closure", "unit": "loss", "var": "k", "name": "k_1"},
        ]))
        .unwrap();
        assert_eq!(closure.entry, Some(("<lambda>".into(), 4, 1)));
        assert_eq!(
            closure.closures["loss"],
            vec![("k".to_owned(), "k_1".to_owned())]
        );
        let class = facts(serde_json::json!([
            {"kind": "init", "unit": "P_init", "post": false},
        ]))
        .unwrap();
        assert_eq!(class.constructor.as_deref(), Some("P_init"));
        // Refused by name: an unknown kind, an unknown or missing field, a wrong type.
        for (bad, says) in [
            (serde_json::json!([{"kind": "nonsense"}]), "nonsense"),
            (
                serde_json::json!([{"kind": "builtin", "name": "abs", "extra": 1}]),
                "extra",
            ),
            (
                serde_json::json!([{"kind": "function", "name": "g", "def": "g", "ordinal": 0}]),
                "line",
            ),
            (
                serde_json::json!([{"kind": "entry", "name": "f", "line": "3", "ordinal": 0}]),
                "string",
            ),
        ] {
            let e = facts(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{e}");
        }
    }

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(suggestion("summ", ["sum", "mean", "summary"]), Some("sum"));
        assert_eq!(suggestion("tanh", ["sum", "mean"]), None);
        assert_eq!(suggestion("lnspace", ["linspace", "log"]), Some("linspace"));
    }
}
