//! The shape of the code, checked on its text.
//! - Facts about named library functions are data in `backends/` (issue 14, item 5): the
//!   passes under `src/ad`, `src/opt` and `src/jit` read them through `RuleSet` and never
//!   spell a library function's name. Their string literals (comments and
//!   `#[cfg(test)]` modules skipped) must not begin with a library's module name.
//! - The modules of `src/` are layers (issue 35, ARCHITECTURE.md "Layers"): no
//!   `crate::` path goes up the order, and the files of a folder import each other
//!   without a cycle.

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
    scan(text).0
}

/// The code of Rust source with its comments and the contents of its string and
/// character literals left out (line breaks kept).
fn code_only(text: &str) -> String {
    scan(text).1
}

/// `string_literals` and `code_only` in one pass.
fn scan(text: &str) -> (Vec<(usize, String)>, String) {
    let b: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut code = String::new();
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
            code.push('\n');
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
                        code.push('\n');
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
                        code.push('\n');
                    }
                    k += 1;
                }
                code.push_str("\"\"");
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
                        code.push('\n');
                    }
                    s.push(b[k]);
                }
                k += 1;
            }
            code.push_str("\"\"");
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
                code.push_str("' '");
                i = k + 1;
                continue;
            }
            if i + 2 < b.len() && b[i + 2] == '\'' {
                code.push_str("' '");
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
        code.push(c);
        i += 1;
    }
    (out, code)
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

// ------------------------------------------------------------------ layers (issue 35)

/// The modules of `src/`, lowest layer first (ARCHITECTURE.md, "Layers"): a module uses
/// only modules of earlier layers, never one of its own layer or of a later one.
const LAYERS: &[&[&str]] = &[
    &["stack"],
    &["syntax"],
    &["emit"],
    &["rules"],
    &["resolve"],
    &["tape"],
    &["ad", "opt"],
    &["pipeline"],
    &["jit"],
    &["cache"],
    &["engine"],
    &["host"],
    &["api"],
    &["cli"],
];

/// Folders whose files still import each other in a cycle (issue 35), likewise.
const PENDING_CYCLES: &[&str] = &["src/jit"];

/// The top-level module of a file under `src/` (`src/ad/mod.rs` -> `ad`,
/// `src/stack.rs` -> `stack`); `lib.rs` and `main.rs` are the crate's roots, no layer.
fn module_of(rel: &str) -> Option<&str> {
    let rest = rel.strip_prefix("src/")?;
    let first = rest.split('/').next()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (!matches!(name, "lib" | "main")).then_some(name)
}

/// The names after `prefix` (`crate::`, `super::`) in `code`: the first path segment
/// of each use, `crate::ad::rules` -> `ad`.
fn segments_after<'t>(code: &'t str, prefix: &str) -> Vec<(usize, &'t str)> {
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().next_back();
            let tail = &rest[at + prefix.len()..];
            let end = tail
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(tail.len());
            if !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && end > 0 {
                out.push((n + 1, &tail[..end]));
            }
            rest = &tail[end..];
        }
    }
    out
}

/// Every use of a module of `src/` by a module of a layer not below it, as
/// `file:line: from -> to`; `files` are (path relative to the root, text).
fn upward_uses(files: &[(String, String)]) -> Vec<(String, String, String)> {
    let layer = |m: &str| LAYERS.iter().position(|l| l.contains(&m));
    let mut out = Vec::new();
    for (rel, text) in files {
        let Some(from) = module_of(rel) else { continue };
        let from_layer = layer(from).unwrap_or_else(|| {
            panic!("{rel}: module `{from}` is in no layer: add it to LAYERS (tests/tidy.rs) and ARCHITECTURE.md")
        });
        for (line, to) in segments_after(&code_only(text), "crate::") {
            if to == from {
                continue;
            }
            match layer(to) {
                Some(l) if l < from_layer => {}
                Some(_) => out.push((format!("{rel}:{line}"), from.to_owned(), to.to_owned())),
                None => {} // a re-exported crate (`crate::numpy`) or a root item
            }
        }
    }
    out
}

/// The folders whose sibling files (`mod.rs` aside: it declares them) use each other in
/// a cycle, with one cycle each (`a -> b -> a`).
fn file_cycles(files: &[(String, String)]) -> Vec<(String, String)> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut dirs: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (rel, _) in files {
        let (dir, file) = rel.rsplit_once('/').unwrap();
        let stem = file.strip_suffix(".rs").unwrap();
        if stem != "mod" {
            dirs.entry(dir.to_owned())
                .or_default()
                .entry(stem.to_owned())
                .or_default();
        }
    }
    for (rel, text) in files {
        let (dir, file) = rel.rsplit_once('/').unwrap();
        let stem = file.strip_suffix(".rs").unwrap();
        let Some(siblings) = dirs.get_mut(dir) else {
            continue;
        };
        if stem == "mod" {
            continue;
        }
        let code = code_only(text);
        let own_path = format!(
            "crate::{}::",
            dir.strip_prefix("src/").unwrap_or(dir).replace('/', "::")
        );
        let mut uses: Vec<String> = segments_after(&code, "super::")
            .into_iter()
            .map(|(_, s)| s.to_owned())
            .collect();
        uses.extend(
            segments_after(&code, &own_path)
                .into_iter()
                .map(|(_, s)| s.to_owned()),
        );
        let known: BTreeSet<String> = siblings.keys().cloned().collect();
        let edges = siblings.get_mut(stem).unwrap();
        edges.extend(uses.into_iter().filter(|u| u != stem && known.contains(u)));
    }
    let mut out = Vec::new();
    for (dir, graph) in &dirs {
        // A depth-first search from each file for a path back to it.
        let cycle = graph.keys().find_map(|start| {
            let mut stack = vec![(start.clone(), vec![start.clone()])];
            let mut seen = BTreeSet::new();
            while let Some((at, path)) = stack.pop() {
                for next in &graph[&at] {
                    if next == start {
                        return Some(format!("{} -> {start}", path.join(" -> ")));
                    }
                    if seen.insert(next.clone()) {
                        let mut p = path.clone();
                        p.push(next.clone());
                        stack.push((next.clone(), p));
                    }
                }
            }
            None
        });
        if let Some(c) = cycle {
            out.push((dir.clone(), c));
        }
    }
    out
}

fn src_files() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    rust_files(&root.join("src"), &mut paths);
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

#[test]
fn modules_use_only_lower_layers() {
    let files = src_files();
    assert!(files.len() >= 60, "only {} files scanned", files.len());
    let up: Vec<String> = upward_uses(&files)
        .iter()
        .map(|(at, from, to)| format!("{at}: `{from}` uses `crate::{to}`"))
        .collect();
    assert!(
        up.is_empty(),
        "uses that go up the layers of src/ (ARCHITECTURE.md, \"Layers\"; move the code to the lower layer instead):\n{}",
        up.join("\n")
    );
}

#[test]
fn files_of_a_folder_import_no_cycle() {
    let cycles = file_cycles(&src_files());
    let unexpected: Vec<String> = cycles
        .iter()
        .filter(|(dir, _)| !PENDING_CYCLES.contains(&dir.as_str()))
        .map(|(dir, c)| format!("{dir}: {c}"))
        .collect();
    assert!(
        unexpected.is_empty(),
        "files that import each other in a cycle:\n{}",
        unexpected.join("\n")
    );
    let gone: Vec<&str> = PENDING_CYCLES
        .iter()
        .filter(|d| !cycles.iter().any(|(dir, _)| dir == *d))
        .copied()
        .collect();
    assert!(
        gone.is_empty(),
        "no cycle left: remove from PENDING_CYCLES: {}",
        gone.join(", ")
    );
}

/// An injected back edge and an injected cycle are found; comments and strings are not
/// uses.
#[test]
fn the_layer_checks_catch_a_back_edge_and_a_cycle() {
    let file = |p: &str, t: &str| (p.to_owned(), t.to_owned());
    let files = vec![
        file(
            "src/syntax/ir.rs",
            "use crate::stack;\n// crate::ad in a comment\nfn f() { let _ = \"crate::api\"; }\n",
        ),
        file(
            "src/syntax/lower.rs",
            "fn g() {\n    crate::ad::grad();\n}\n",
        ),
        file(
            "src/ad/mod.rs",
            "pub mod a;\npub mod b;\nuse crate::syntax::ir::Expr;\n",
        ),
        file("src/ad/a.rs", "use super::b::B;\npub struct A;\n"),
        file("src/ad/b.rs", "pub struct B(crate::ad::a::A);\n"),
        file("src/opt/x.rs", "use crate::rules::RuleSet;\n"),
    ];
    assert_eq!(
        upward_uses(&files),
        vec![(
            "src/syntax/lower.rs:2".to_owned(),
            "syntax".to_owned(),
            "ad".to_owned()
        )]
    );
    assert_eq!(
        file_cycles(&files),
        vec![("src/ad".to_owned(), "a -> b -> a".to_owned())]
    );
}
