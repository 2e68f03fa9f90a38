//! The one request and the one answer between the Python package and Rust: the
//! `tangent` shim asks `_tangent.ask(request)` with a dict of named fields (`ask` says
//! what for: a derivative, an explanation, a rule to register) and gets a dict back
//! (`outcome` says what it holds). Both are defined here, once; each host only converts
//! Python's dicts, lists, strings, numbers, bools and None to and from
//! `serde_json::Value` (`host/rustpython/seam_values.rs`, the bridge's
//! `seam_values.rs`), and serde checks the fields: an unknown, missing or mistyped
//! field, or another `version`, is an error naming it, never a misread flag.
//! `_tangent.jit(request, fallback, on_refusal)` takes its options as a [`JitRequest`]
//! beside the two Python callables it keeps.

use crate::engine;
use crate::error::Error;
use crate::pipeline::{GradOptions, Mode};
use serde::{Deserialize, Serialize};

/// The version of the request's fields; the shim sends it, and a request of another
/// version is refused (a package and a native module of different builds).
pub const VERSION: u32 = 2;

/// What the shim asks for.
#[derive(Debug, Deserialize)]
#[serde(tag = "ask", rename_all = "snake_case")]
pub enum Request {
    Grad(GradRequest),
    Explain(ExplainRequest),
    RegisterRule(RuleRequest),
}

/// A derivative request (`stdlib-shims/tangent/_build.py` makes it).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GradRequest {
    pub version: u32,
    /// The file the function comes from (for generated code: the file the first
    /// derivative came from, whose imports its names may need).
    pub file: String,
    /// The function's name in that code.
    pub function: String,
    /// Positions of the arguments to differentiate with respect to.
    pub wrt: Vec<usize>,
    /// `"reverse"` or `"forward"`.
    pub mode: String,
    pub optimized: bool,
    pub preserve_result: bool,
    pub check_dims: bool,
    /// `"joint"` or `"split"`.
    pub motion: String,
    pub checkpoint: bool,
    pub output_index: Option<i64>,
    pub output_weights: Option<Vec<f64>>,
    /// The optional passes switched on (`optimizations={...}`, and `native_tape`).
    pub optimizations: Vec<String>,
    /// Whether the disk cache may answer.
    pub use_cache: bool,
    /// Joint motion through recursive callees too (`GradOptions::joint_recursion`).
    pub joint_recursion: bool,
    pub code: Code,
}

/// Where the function's code comes from.
#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Code {
    /// The file on disk.
    File,
    /// The text the function was made from, and what the running program binds its
    /// names to (`syntax::live::Fact`s).
    Live {
        text: String,
        names: Vec<crate::syntax::live::Fact>,
    },
    /// Generated source (a derivative differentiated again), the request of the
    /// derivative it is (so names resolve as they did then) when there was one, and the
    /// modules generated code receives from the runtime (`_backends.RUNTIME_MODULES`).
    Generated {
        source: String,
        first: Option<engine::FirstRequest>,
        modules: Vec<String>,
    },
}

/// `tangent.explain`'s request: the primal as tangent reads it and its data flow.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplainRequest {
    pub version: u32,
    pub file: String,
    pub function: String,
    pub wrt: Vec<usize>,
    /// The derivative's request, so closures and lambdas read as they were differentiated.
    pub first: Option<engine::FirstRequest>,
}

/// A user's `@tangent.adjoint` / `@tangent.tangent_` template to register for the
/// function named `qualname`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleRequest {
    pub version: u32,
    pub rule: RuleKind,
    pub qualname: String,
    /// The template's file and name there.
    pub file: String,
    pub function: String,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum RuleKind {
    Adjoint,
    Tangent,
}

/// `_tangent.jit`'s options (the fallback and the refusal callback are its other two
/// arguments, Python callables).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JitRequest {
    pub version: u32,
    /// The generated source and its entry function's name.
    pub source: String,
    pub entry: String,
    /// `compile='native!'`: arguments the native code does not take are an error.
    pub strict: bool,
    /// The file the differentiated function came from (its module's constants).
    pub module_file: String,
}

/// The answer: what was asked for, or the error (its kind, and its text for the user).
#[derive(Debug, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Answer {
    Derivative {
        source: String,
        entry: String,
        from_cache: bool,
    },
    Explanation {
        primal: String,
        /// Each active variable with the active values it is computed from.
        flow: Vec<(String, Vec<String>)>,
    },
    Registered,
    Error {
        kind: &'static str,
        message: String,
    },
}

/// Answers a request given as the host's conversion of the shim's dict.
pub fn ask(request: serde_json::Value) -> serde_json::Value {
    let answer = match serde_json::from_value::<Request>(request) {
        Ok(r) => match check_version(request_version(&r)).and_then(|()| answer(&r)) {
            Ok(a) => a,
            Err(e) => error_answer(&e),
        },
        Err(e) => error_answer(&not_understood(e)),
    };
    serde_json::to_value(answer).expect("an answer is plain data")
}

/// A [`JitRequest`] from the host's conversion of the shim's dict.
pub fn jit_request(request: serde_json::Value) -> Result<JitRequest, Error> {
    let r = serde_json::from_value::<JitRequest>(request).map_err(not_understood)?;
    check_version(r.version)?;
    Ok(r)
}

fn request_version(r: &Request) -> u32 {
    match r {
        Request::Grad(r) => r.version,
        Request::Explain(r) => r.version,
        Request::RegisterRule(r) => r.version,
    }
}

fn check_version(version: u32) -> Result<(), Error> {
    if version == VERSION {
        return Ok(());
    }
    Err(Error::Internal(format!(
        "tangent: a request of version {version} reached a native module of version {VERSION}: the `tangent` package and its native module come from different builds"
    )))
}

fn not_understood(e: serde_json::Error) -> Error {
    Error::Internal(format!(
        "tangent: a request the native module does not understand ({e}): the `tangent` package and its native module come from different builds"
    ))
}

fn answer(r: &Request) -> Result<Answer, Error> {
    match r {
        Request::Grad(r) => derivative(r).map(|(g, from_cache)| Answer::Derivative {
            source: g.source,
            entry: g.entry,
            from_cache,
        }),
        Request::Explain(r) => {
            let info = engine::explain_info(&r.file, &r.function, &r.wrt, r.first.as_ref())?;
            Ok(Answer::Explanation {
                primal: info.primal,
                flow: info.flow,
            })
        }
        Request::RegisterRule(r) => {
            let tangent = r.rule == RuleKind::Tangent;
            engine::register_rule(tangent, &r.qualname, &r.file, &r.function)?;
            Ok(Answer::Registered)
        }
    }
}

fn derivative(r: &GradRequest) -> Result<(crate::pipeline::Generated, bool), Error> {
    let opts = options(r)?;
    match &r.code {
        Code::File => engine::grad_file_cached(&r.file, &r.function, &opts, r.use_cache),
        Code::Live { text, names } => {
            engine::grad_live_cached(&r.file, text, &r.function, names, &opts, r.use_cache)
        }
        Code::Generated {
            source,
            first,
            modules,
        } => engine::grad_generated(source, &r.file, &r.function, &opts, first.as_ref(), modules)
            .map(|g| (g, false)),
    }
}

/// The options a request asks for.
fn options(r: &GradRequest) -> Result<GradOptions, Error> {
    let mode = match r.mode.as_str() {
        "reverse" => Mode::Reverse,
        "forward" => Mode::Forward,
        other => {
            return Err(Error::Usage(format!(
                "mode must be 'reverse' or 'forward', not {other:?}"
            )))
        }
    };
    let split = match r.motion.as_str() {
        "joint" => false,
        "split" => true,
        other => {
            return Err(Error::Usage(format!(
                "motion must be 'joint' or 'split', not {other:?}"
            )))
        }
    };
    let on = |pass: &str| r.optimizations.iter().any(|n| n == pass);
    Ok(GradOptions {
        mode,
        wrt: r.wrt.clone(),
        optimized: r.optimized,
        preserve_result: r.preserve_result,
        check_dims: r.check_dims,
        split,
        checkpoint: r.checkpoint,
        joint_recursion: r.joint_recursion,
        tape_liveness: on("tape_liveness"),
        // Asked by the Python API for source native code will run (`compile='auto'`).
        recompute: !on("native_tape"),
        cse: on("cse"),
        algebraic: on("algebraic"),
        coarsening: on("coarsening"),
        output_index: r.output_index,
        output_weights: r
            .output_weights
            .as_ref()
            .map(|ws| ws.iter().map(|w| format!("{w:?}")).collect()),
    })
}

fn error_answer(e: &Error) -> Answer {
    let kind = match e {
        Error::Diagnostic(_) => "diagnostic",
        Error::Unsupported(_) => "unsupported",
        Error::Usage(_) => "usage",
        Error::Io { .. } => "io",
        Error::Python { .. } => "python",
        Error::Internal(_) => "internal",
    };
    Answer::Error {
        kind,
        message: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(changes: serde_json::Value) -> serde_json::Value {
        let mut r = json!({
            "ask": "grad", "version": VERSION, "file": "tests/corpus/reverse.py", "function": "poly", "wrt": [0],
            "mode": "reverse", "optimized": true, "preserve_result": false,
            "check_dims": true, "motion": "joint", "checkpoint": false,
            "output_index": null, "output_weights": null, "optimizations": [],
            "use_cache": false, "joint_recursion": false,
            "code": {"kind": "file"},
        });
        for (k, v) in changes.as_object().unwrap() {
            r[k] = v.clone();
        }
        r
    }

    #[test]
    fn a_request_gives_the_derivative() {
        let a = ask(request(json!({})));
        assert_eq!(a["outcome"], "derivative", "{a}");
        assert!(
            a["source"]
                .as_str()
                .unwrap()
                .starts_with("def dpolydx(x, bresult=1.0):"),
            "{a}"
        );
        assert_eq!(a["entry"], "dpolydx");
        assert_eq!(a["from_cache"], false);
    }

    /// Unknown, missing and mistyped fields and another version are refused by name.
    #[test]
    fn fields_are_checked() {
        for (changes, says) in [
            (json!({"flags": [true]}), "unknown field `flags`"),
            (json!({"optimized": 1}), "invalid type"),
            (json!({"version": VERSION + 1}), "different builds"),
            (
                json!({"motion": "sideways"}),
                "motion must be 'joint' or 'split'",
            ),
        ] {
            let a = ask(request(changes.clone()));
            assert_eq!(a["outcome"], "error", "{changes}: {a}");
            assert!(
                a["message"].as_str().unwrap().contains(says),
                "{changes}: {a}"
            );
        }
        let mut missing = request(json!({}));
        missing.as_object_mut().unwrap().remove("wrt");
        let a = ask(missing);
        assert!(
            a["message"]
                .as_str()
                .unwrap()
                .contains("missing field `wrt`"),
            "{a}"
        );
    }

    #[test]
    fn errors_keep_their_kind() {
        let a = ask(request(
            json!({"file": "tests/scripts/grad_errors.py", "function": "uses_with"}),
        ));
        assert_eq!(
            (a["outcome"].as_str(), a["kind"].as_str()),
            (Some("error"), Some("diagnostic")),
            "{a}"
        );
        let a = ask(request(json!({"function": "no_such_function"})));
        assert_eq!(a["kind"], "usage", "{a}");
        let a = ask(request(json!({"file": "does/not/exist.py"})));
        assert_eq!(a["kind"], "io", "{a}");
    }

    #[test]
    fn explain_rule_and_jit_requests_are_checked_too() {
        let a = ask(json!({
            "ask": "explain", "version": VERSION, "file": "tests/corpus/reverse.py",
            "function": "poly", "wrt": [0], "first": null,
        }));
        assert_eq!(a["outcome"], "explanation", "{a}");
        assert!(a["primal"].as_str().unwrap().contains("def poly"), "{a}");
        assert!(!a["flow"].as_array().unwrap().is_empty(), "{a}");
        for (request, says) in [
            (
                json!({"ask": "fly", "version": VERSION}),
                "unknown variant `fly`",
            ),
            (
                json!({"ask": "register_rule", "version": VERSION, "rule": "sideways",
                       "qualname": "m.f", "file": "f.py", "function": "g"}),
                "unknown variant `sideways`",
            ),
            (
                json!({"ask": "explain", "version": VERSION, "file": "f.py", "function": "f",
                       "wrt": [0], "first": null, "live": null}),
                "unknown field `live`",
            ),
        ] {
            let a = ask(request.clone());
            assert_eq!(a["outcome"], "error", "{request}: {a}");
            assert!(
                a["message"].as_str().unwrap().contains(says),
                "{request}: {a}"
            );
        }
        let jit = |changes: serde_json::Value| {
            let mut r = json!({"version": VERSION, "source": "def f(x):\n    return x\n",
                               "entry": "f", "strict": false, "module_file": "m.py"});
            for (k, v) in changes.as_object().unwrap() {
                r[k] = v.clone();
            }
            jit_request(r)
        };
        assert_eq!(jit(json!({})).unwrap().entry, "f");
        let e = jit(json!({"strict": 1})).unwrap_err().to_string();
        assert!(e.contains("invalid type"), "{e}");
        let e = jit(json!({"version": VERSION + 1}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("different builds"), "{e}");
    }
}
