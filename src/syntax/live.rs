//! What the running program binds names to: the host's answer (the `tangent` shim reads
//! the function object's globals, builtins and code) that replaces reading the file's
//! import statements when a host asks for a derivative. With it, a call resolves as
//! Python resolves it: `try: import numpy as np` is numpy, `sin = math.cos` is
//! `math.cos`, `g_two = g_three` differentiates `g_three`'s `def`.
//!
//! The shim sends one line per fact, fields separated by tabs:
//! - `entry NAME LINE [ORDINAL]`: the function object's own `def` or `lambda` (its code's
//!   name, first line, and which of the units of that name starting on that line:
//!   `syntax::units`);
//! - `import NAME QUALIFIED`: a module (its `__name__`) or an object a rule names, or an
//!   importable object (`module.qualname`);
//! - `function NAME DEF LINE [ORDINAL]`: a Python function of this file (its `def`'s name
//!   and line), also a nested one or a lambda;
//! - `closure UNIT VAR NAME`: the function known as UNIT (the entry, or a name bound to a
//!   function) reads its free variable VAR from a closure cell; the cell's value is
//!   described under NAME (unique over the request: two closures of one `def` capture
//!   different cells) and the generated code reads it as NAME;
//! - `bound UNIT PARAM`: UNIT is a bound method: its first parameter PARAM is the object
//!   (a closure variable, given by a `closure` line), not an argument;
//! - `value NAME TYPE [array|class]`: anything else, by its type (`array`: a registered
//!   array type; `class`: a class whose instances tangent can build and differentiate:
//!   a dataclass, a namedtuple, or a class with a Python `__init__`);
//! - `object UNIT PARAM`: UNIT's parameter PARAM is the object of a user class a method
//!   is differentiated for (never an array: its methods and attributes are the class's);
//! - `init UNIT [post]`: UNIT (the entry) is a class's `__init__`, differentiated as
//!   the function of its other parameters that returns the fields it assigns
//!   (`syntax::constructor`); with `post`, a dataclass's `__post_init__`, differentiated
//!   as the function of the dict of the fields its `__init__` set;
//! - `custom NAME KIND DEFINED NONDIFF`: a `tangent.custom_vjp` (KIND `vjp`) or
//!   `tangent.custom_jvp` (`jvp`) function, recognised by type (`tangent/_live.py`
//!   `_custom_kind`); DEFINED is `defined` once its rule is given (`defvjp`/`defjvp`),
//!   else `undefined`; NONDIFF its `nondiff_argnums`, comma-separated (may be empty);
//! - `builtin NAME`: a builtin not shadowed by a global;
//! - `missing NAME`: neither a global nor a builtin;
//! - `entry_check HELPER`: the differentiated function's derivative begins with
//!   `HELPER('a, b', a, b)`, a run-time check of its arguments a loaded
//!   library asks for (torch: every tensor on one device);
//! - `attrs MODULE NAMES...`: the public attributes of a module the code reads (for
//!   "did you mean"), MODULE the path the code reaches it by;
//! - `alias PATH CANONICAL`: the function the code reaches as PATH (`tensorflow.matmul`)
//!   is the object a rule names CANONICAL (`tensorflow.linalg.matmul`);
//! - `globals NAMES...`: the module's global names (for "did you mean").

use std::collections::HashMap;

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
    /// The constructor is a dataclass's `__post_init__` (`init UNIT post`).
    pub post_init: bool,
    /// unit -> its parameters that hold objects of user classes (`object` lines).
    pub objects: HashMap<String, Vec<String>>,
    /// Helpers the entry derivative calls first with its arguments (`entry_check`).
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
    /// lists them (`nnmodule` lines).
    pub modules: HashMap<String, Vec<NetModule>>,
    /// Why a name bound to a function cannot be differentiated (filled by
    /// `SourceModule::apply_live`: a nested `def`, or a file changed since import).
    pub notes: HashMap<String, String>,
}

impl LiveNames {
    pub fn parse(text: &str) -> Result<LiveNames, String> {
        let mut live = LiveNames::default();
        for line in text.lines().filter(|l| !l.is_empty()) {
            let f: Vec<&str> = line.split('\t').collect();
            let bad = || format!("malformed live-name line {line:?}");
            let number = |s: &str| s.parse::<u32>().map_err(|_| bad());
            let ordinal = |rest: &[&str]| match rest {
                [] => Ok(0),
                [k] => k.parse::<usize>().map_err(|_| bad()),
                _ => Err(bad()),
            };
            match f.as_slice() {
                ["entry", name, at, rest @ ..] => {
                    live.entry = Some(((*name).to_owned(), number(at)?, ordinal(rest)?))
                }
                ["init", unit] => live.constructor = Some((*unit).to_owned()),
                ["init", unit, "post"] => {
                    live.constructor = Some((*unit).to_owned());
                    live.post_init = true;
                }
                ["entry_check", helper] => live.entry_checks.push((*helper).to_owned()),
                ["object", unit, param] => live
                    .objects
                    .entry((*unit).to_owned())
                    .or_default()
                    .push((*param).to_owned()),
                ["bound", unit, param] => {
                    live.bound.insert((*unit).to_owned(), (*param).to_owned());
                }
                ["closure", unit, var, name] => {
                    live.closures
                        .entry((*unit).to_owned())
                        .or_default()
                        .push(((*var).to_owned(), (*name).to_owned()));
                }
                ["import", name, q] => {
                    live.names
                        .insert((*name).to_owned(), Live::Import((*q).to_owned()));
                }
                ["function", name, def, at, rest @ ..] => {
                    let def = (*def).to_owned();
                    live.names.insert(
                        (*name).to_owned(),
                        Live::Function {
                            def,
                            line: number(at)?,
                            ordinal: ordinal(rest)?,
                        },
                    );
                }
                ["value", name, ty, rest @ ..] => {
                    if rest.iter().any(|r| !["array", "class"].contains(r)) {
                        return Err(bad());
                    }
                    let value = Live::Value {
                        type_name: (*ty).to_owned(),
                        array: rest.contains(&"array"),
                        class: rest.contains(&"class"),
                    };
                    live.names.insert((*name).to_owned(), value);
                }
                ["custom", name, kind, defined, nondiff] => {
                    let nondiff = nondiff
                        .split(',')
                        .filter(|p| !p.is_empty())
                        .map(|p| p.parse::<usize>().map_err(|_| bad()))
                        .collect::<Result<Vec<_>, _>>()?;
                    let custom = Custom {
                        vjp: match *kind {
                            "vjp" => true,
                            "jvp" => false,
                            _ => return Err(bad()),
                        },
                        defined: *defined == "defined",
                        nondiff,
                    };
                    live.names.insert((*name).to_owned(), Live::Custom(custom));
                }
                ["nnmodule", root, prefix, kind, parameters] => {
                    live.modules
                        .entry((*root).to_owned())
                        .or_default()
                        .push(NetModule {
                            prefix: (*prefix).to_owned(),
                            kind: (*kind).to_owned(),
                            parameters: parameters
                                .split(',')
                                .filter(|p| !p.is_empty())
                                .map(str::to_owned)
                                .collect(),
                        });
                }
                ["builtin", name] => {
                    live.names.insert((*name).to_owned(), Live::Builtin);
                }
                ["missing", name] => {
                    live.names.insert((*name).to_owned(), Live::Missing);
                }
                ["alias", path, canonical] => {
                    live.aliases
                        .insert((*path).to_owned(), (*canonical).to_owned());
                }
                ["attrs", module, names @ ..] => {
                    let names = names.iter().map(|s| (*s).to_owned()).collect();
                    live.attrs.insert((*module).to_owned(), names);
                }
                ["globals", names @ ..] => {
                    live.globals = names.iter().map(|s| (*s).to_owned()).collect();
                }
                _ => return Err(bad()),
            }
        }
        Ok(live)
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

    #[test]
    fn parses_every_kind_and_refuses_garbage() {
        let live = LiveNames::parse(
            "entry\tf\t3\nimport\tnp\tnumpy\nfunction\tg_two\tg_three\t9\nvalue\tm\t__main__.Model\nvalue\tw\tnumpy.ndarray\tarray\nbuiltin\tabs\nmissing\tsumm\nattrs\tnumpy\tsum\tmean\nglobals\tnp\tf\n",
        )
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
        assert!(live.lacks("numpy", "summ") && !live.lacks("numpy", "sum"));
        assert!(
            !live.lacks("jax.numpy", "anything"),
            "unknown module: nothing is known"
        );
        assert!(LiveNames::parse("function\tg\tg\tnot-a-line").is_err());
        let closure = LiveNames::parse("entry\t<lambda>\t4\t1\nclosure\tloss\tk\tk_1\n").unwrap();
        assert_eq!(closure.entry, Some(("<lambda>".into(), 4, 1)));
        assert_eq!(
            closure.closures["loss"],
            vec![("k".to_owned(), "k_1".to_owned())]
        );
        assert!(LiveNames::parse("nonsense").is_err());
        let class =
            LiveNames::parse("entry\t__init__\t2\ninit\tP_init\nvalue\tP\ttype\tclass\n").unwrap();
        assert_eq!(class.constructor.as_deref(), Some("P_init"));
        assert!(matches!(
            class.get("P"),
            Some(Live::Value {
                class: true,
                array: false,
                ..
            })
        ));
        assert!(LiveNames::parse("value\tP\ttype\tklass").is_err());
    }

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(suggestion("summ", ["sum", "mean", "summary"]), Some("sum"));
        assert_eq!(suggestion("tanh", ["sum", "mean"]), None);
        assert_eq!(suggestion("lnspace", ["linspace", "log"]), Some("linspace"));
    }
}
