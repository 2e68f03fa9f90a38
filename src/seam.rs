//! The one request and the one answer between the Python package and Rust: the
//! `tangent` shim asks `_tangent.grad(request)` with a dict of named fields and gets a
//! dict back. Both are defined here, once; each host only converts Python's dicts,
//! lists, strings, numbers, bools and None to and from `serde_json::Value`
//! (`host/rustpython/seam_values.rs`, the bridge's `values.rs`), and serde checks the
//! fields: an unknown, missing or mistyped field, or another `version`, is an error
//! naming it, never a misread flag.

use crate::engine;
use crate::error::Error;
use crate::pipeline::{GradOptions, Mode};
use serde::{Deserialize, Serialize};

/// The version of the request's fields; the shim sends it, and a request of another
/// version is refused (a package and a native module of different builds).
pub const VERSION: u32 = 1;

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
    /// names to (`syntax::live`'s format).
    Live { text: String, names: String },
    /// Generated source (a derivative differentiated again), and the request of the
    /// derivative it is (so names resolve as they did then), when there was one.
    Generated {
        source: String,
        first: Option<FirstRequest>,
    },
}

/// The request a derivative was made from, as the shim keeps it (`__tangent_live__`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FirstRequest {
    pub text: String,
    pub names: String,
    pub function: String,
}

/// The answer: the derivative, or the error (its kind, and its text for the user).
#[derive(Debug, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum GradAnswer {
    Derivative {
        source: String,
        entry: String,
        from_cache: bool,
    },
    Error {
        kind: &'static str,
        message: String,
    },
}

/// Answers a request given as the host's conversion of the shim's dict.
pub fn grad(request: serde_json::Value) -> serde_json::Value {
    let answer = match serde_json::from_value::<GradRequest>(request) {
        Ok(r) if r.version != VERSION => error_answer(&Error::Internal(format!(
            "tangent: a request of version {} reached a native module of version {VERSION}: the `tangent` package and its native module come from different builds",
            r.version
        ))),
        Ok(r) => match answer(&r) {
            Ok((g, from_cache)) => GradAnswer::Derivative {
                source: g.source,
                entry: g.entry,
                from_cache,
            },
            Err(e) => error_answer(&e),
        },
        Err(e) => error_answer(&Error::Internal(format!(
            "tangent: a request the native module does not understand ({e}): the `tangent` package and its native module come from different builds"
        ))),
    };
    serde_json::to_value(answer).expect("an answer is plain data")
}

fn answer(r: &GradRequest) -> Result<(crate::pipeline::Generated, bool), Error> {
    let opts = options(r)?;
    match &r.code {
        Code::File => engine::grad_file_cached(&r.file, &r.function, &opts, r.use_cache),
        Code::Live { text, names } => {
            engine::grad_live_cached(&r.file, text, &r.function, names, &opts, r.use_cache)
        }
        Code::Generated { source, first } => {
            let first = first
                .as_ref()
                .map(|f| (f.text.clone(), f.names.clone(), f.function.clone()));
            engine::grad_generated(source, &r.file, &r.function, &opts, first.as_ref())
                .map(|g| (g, false))
        }
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

fn error_answer(e: &Error) -> GradAnswer {
    let kind = match e {
        Error::Diagnostic(_) => "diagnostic",
        Error::Unsupported(_) => "unsupported",
        Error::Usage(_) => "usage",
        Error::Io { .. } => "io",
        Error::Python { .. } => "python",
        Error::Internal(_) => "internal",
    };
    GradAnswer::Error {
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
            "version": VERSION, "file": "tests/corpus/reverse.py", "function": "poly", "wrt": [0],
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
        let a = grad(request(json!({})));
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
            let a = grad(request(changes.clone()));
            assert_eq!(a["outcome"], "error", "{changes}: {a}");
            assert!(
                a["message"].as_str().unwrap().contains(says),
                "{changes}: {a}"
            );
        }
        let mut missing = request(json!({}));
        missing.as_object_mut().unwrap().remove("wrt");
        let a = grad(missing);
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
        let a = grad(request(
            json!({"file": "tests/scripts/grad_errors.py", "function": "uses_with"}),
        ));
        assert_eq!(
            (a["outcome"].as_str(), a["kind"].as_str()),
            (Some("error"), Some("diagnostic")),
            "{a}"
        );
        let a = grad(request(json!({"function": "no_such_function"})));
        assert_eq!(a["kind"], "usage", "{a}");
        let a = grad(request(json!({"file": "does/not/exist.py"})));
        assert_eq!(a["kind"], "io", "{a}");
    }
}
