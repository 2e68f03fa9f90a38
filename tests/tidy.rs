//! Facts about named library functions are data in `backends/` (issue 14, item 5): the
//! passes under `src/ad`, `src/opt` and `src/jit` read them through `RuleSet` and never
//! spell a library function's name. This test scans their text (comments and
//! `#[cfg(test)]` modules skipped) for string literals that begin with a library's
//! module name.

use std::path::{Path, PathBuf};

/// The roots of the array and math libraries whose functions rules are written for.
const LIBRARIES: &[&str] = &[
    "numpy.",
    "jax.",
    "torch.",
    "tensorflow.",
    "keras.",
    "tinygrad.",
    "math.",
    "scipy.",
];

const DIRS: &[&str] = &["src/ad", "src/opt", "src/jit"];

/// The string literals of Rust source outside comments and `#[cfg(test)]` items, with
/// their line numbers.
fn string_literals(text: &str) -> Vec<(usize, String)> {
    let b: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0usize, 1usize);
    // Brace depth, and the depth at which a `#[cfg(test)]` item began (skipped until
    // its braces close).
    let mut depth = 0usize;
    let mut skip_from: Option<usize> = None;
    let mut pending_cfg_test = false;
    let at = |i: usize, s: &str| b[i..].iter().take(s.len()).copied().eq(s.chars());
    while i < b.len() {
        let c = b[i];
        if c == '\n' {
            line += 1;
            i += 1;
            continue;
        }
        if at(i, "//") {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if at(i, "/*") {
            let mut nest = 0;
            while i < b.len() {
                if at(i, "/*") {
                    nest += 1;
                    i += 2;
                } else if at(i, "*/") {
                    nest -= 1;
                    i += 2;
                    if nest == 0 {
                        break;
                    }
                } else {
                    if b[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
            continue;
        }
        if at(i, "#[cfg(test)]") {
            pending_cfg_test = true;
            i += "#[cfg(test)]".len();
            continue;
        }
        // Raw strings: r"..." and r#"..."#.
        if c == 'r' && (i == 0 || !(b[i - 1].is_alphanumeric() || b[i - 1] == '_')) {
            let mut j = i + 1;
            let mut hashes = 0;
            while j < b.len() && b[j] == '#' {
                hashes += 1;
                j += 1;
            }
            if j < b.len() && b[j] == '"' {
                let close: String = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                let start_line = line;
                let mut k = j + 1;
                while k < b.len() && !at(k, &close) {
                    if b[k] == '\n' {
                        line += 1;
                    }
                    k += 1;
                }
                if skip_from.is_none() {
                    out.push((start_line, b[j + 1..k.min(b.len())].iter().collect()));
                }
                i = k + close.len();
                continue;
            }
        }
        if c == '"' {
            let start_line = line;
            let mut k = i + 1;
            let mut s = String::new();
            while k < b.len() && b[k] != '"' {
                if b[k] == '\\' {
                    s.push(b[k]);
                    k += 1;
                }
                if k < b.len() {
                    if b[k] == '\n' {
                        line += 1;
                    }
                    s.push(b[k]);
                }
                k += 1;
            }
            if skip_from.is_none() {
                out.push((start_line, s));
            }
            i = k + 1;
            continue;
        }
        // Character literals ('"', '\''); a lifetime has no closing quote.
        if c == '\'' {
            if i + 2 < b.len() && b[i + 1] == '\\' {
                let mut k = i + 2;
                while k < b.len() && b[k] != '\'' {
                    k += 1;
                }
                i = k + 1;
                continue;
            }
            if i + 2 < b.len() && b[i + 2] == '\'' {
                i += 3;
                continue;
            }
        }
        match c {
            '{' => {
                if pending_cfg_test && skip_from.is_none() {
                    skip_from = Some(depth);
                }
                pending_cfg_test = false;
                depth += 1;
            }
            '}' => {
                depth = depth.saturating_sub(1);
                if skip_from == Some(depth) {
                    skip_from = None;
                }
            }
            // `#[cfg(test)] use ...;` or a `fn` declared without a body.
            ';' if pending_cfg_test => pending_cfg_test = false,
            _ => {}
        }
        i += 1;
    }
    out
}

/// `(line, literal)` of every literal in `text` that names a library function.
fn library_names(text: &str) -> Vec<(usize, String)> {
    string_literals(text)
        .into_iter()
        .filter(|(_, s)| LIBRARIES.iter().any(|l| s.starts_with(l)))
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn passes_name_no_library_function() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in DIRS {
        rust_files(&root.join(d), &mut files);
    }
    files.sort();
    assert!(files.len() >= 15, "only {} files scanned", files.len());
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (line, lit) in library_names(&text) {
            found.push(format!(
                "{}:{line}: \"{lit}\"",
                f.strip_prefix(root).unwrap().display()
            ));
        }
    }
    assert!(
        found.is_empty(),
        "string literals naming library functions in the passes (declare the fact in backends/*.py and read it through RuleSet):\n{}",
        found.join("\n")
    );
}

/// The scanner finds what it must and skips what it must.
#[test]
fn the_scan_catches_a_literal() {
    let text = r##"
// "numpy.sum" in a comment is fine
/* and "jax.numpy.sum" in a block comment */
fn f(a: &str) -> bool {
    let q = format!("numpy.ndarray.{a}");
    let c = '"'; let d = '\''; let e = "x\"math.sin";
    a == "torch.sum" || a.starts_with(r#"scipy.special."#)
}
#[cfg(test)]
mod tests {
    fn g() { let _ = "numpy.mean"; { "tensorflow.x"; } }
}
fn h() -> &'static str { "keras.ops.sum" }
"##;
    let found: Vec<(usize, String)> = library_names(text);
    assert_eq!(
        found,
        vec![
            (5, "numpy.ndarray.{a}".to_owned()),
            (7, "torch.sum".to_owned()),
            (7, "scipy.special.".to_owned()),
            (13, "keras.ops.sum".to_owned()),
        ]
    );
}
